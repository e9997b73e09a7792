"""Suite (h): the scale curve. A 10,000-row upsert into tables of growing size, doris.load vs MERGE INTO.

For each table size of ``--sizes`` (default N/100, N/10, N; the issue's run is 1M, 10M, 100M) and
each key kind (BIGINT, VARCHAR; each without and with a sequence column), a batch of
``batch_rows`` rows (half existing keys spread over the table, half new keys; suite (g)'s
generator) is upserted by ``doris.load`` into a UNIQUE KEY merge-on-write table and by Spark's
``MERGE INTO`` into a plain Iceberg v3 merge-on-read table of the same rows (``WHEN MATCHED AND
s.seq >= t.seq`` for the sequence kinds), contenders interleaved, order alternated, both tables
rolled back to their base snapshot after every load. The first repetition checks each table's
digest against the expected rows (Spark joins) and that each key has one row.

Reported per size: median times and MERGE / ours, the per-load breakdown
(:mod:`benchmarks.load_breakdown`), the table's size on disk (live data + delete files, from the
snapshot summary), the key index's stored entries (``_doris_key_index/``) and what its executor cache
holds after the loads (the cache is emptied before each case; sequence values not counted), and memory during the
first repetition: the driver JVM's heap peak and process peak RSS (in local mode the executors'
tasks run in that JVM), Python's peak RSS, the largest stage's summed task peak execution memory
and the bytes spilled. Per kind: the growth of the upsert time from the smallest to the largest
size, ours (target <= 1.5x) and MERGE INTO's beside it.

Then, at the largest size, on the BIGINT table: ``loads`` more upserts of ``batch_rows`` rows
(distinct new keys each) with an automatic compaction pass (``doris.auto_compact``, the table's
default policy) after every ``compact_every`` loads, as a deployment's scheduler runs them; the
full scan (a digest of every row: one aggregation over all columns) is timed before and after.
The table must then hold the base rows plus every new key, one row per key.

Tables are built in chunks of at most ``chunk_rows`` rows (``spark.range`` slices written by
``doris.load`` / ``writeTo().append()``, nothing collected to the driver), so a 100M-row table is
made with the memory of a 5M-row load; Spark spills to disk what a stage cannot hold.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.common import (
    Bench,
    ContendersDisagree,
    MemoryProbe,
    ResultTable,
    SuiteResult,
    Target,
    current_snapshot,
    digest,
    fmt_ratio,
    fmt_seconds,
    iceberg_table,
    median,
    require_same,
    rollback,
    run_bounded,
)
from benchmarks.load_breakdown import COLUMNS as BREAKDOWN_COLUMNS
from benchmarks.load_breakdown import LoadBreakdown, median_breakdown
from benchmarks.suite_small_loads import (
    Case,
    batch_ids,
    case_digest,
    doris_ddl,
    expected_rows,
    merge_sql,
    new_keys,
    plain_ddl,
    rows_frame,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

BATCH_ROWS = 10_000
LOADS = 100
COMPACT_EVERY = 10
CHUNK_ROWS = 5_000_000
MERGE_LIMIT_SECONDS = 600.0
KINDS = (
    Case("BIGINT", "BIGINT", "UNIQUE"),
    Case("BIGINT + seq", "BIGINT", "UNIQUE", sequence=True),
    Case("VARCHAR", "VARCHAR", "UNIQUE"),
    Case("VARCHAR + seq", "VARCHAR", "UNIQUE", sequence=True),
)
DORIS, MERGE = "doris.load", "MERGE INTO (MoR)"


def default_sizes(scale: int) -> list[int]:
    return sorted({max(2_000, scale // 100), max(2_000, scale // 10), scale})


def append_chunks(spark: "SparkSession", rows: int, key_kind: str, chunk_rows: int, write: Any) -> int:
    """Calls ``write(frame)`` for consecutive id slices of at most ``chunk_rows`` rows; returns the chunks."""
    chunks = 0
    for start in range(0, rows, chunk_rows):
        write(rows_frame(spark, spark.range(start, min(rows, start + chunk_rows)), key_kind, 0))
        chunks += 1
    return chunks


def _base_frame(spark: "SparkSession", rows: int, key_kind: str) -> Any:
    return rows_frame(spark, spark.range(rows), key_kind, 0)


def table_bytes(spark: "SparkSession", table: str) -> int:
    """Live data and delete files of main, from the current snapshot's summary."""
    summary = iceberg_table(spark, table).currentSnapshot().summary()
    return int(summary.get("total-files-size") or 0)


def index_bytes(spark: "SparkSession", table: str) -> int:
    """The key index's stored entries under the table's location (a local warehouse)."""
    location = Path(str(iceberg_table(spark, table).location()).removeprefix("file:"))
    folder = location / "_doris_key_index"
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) if folder.exists() else 0


def kinds_named(names: str) -> tuple[Case, ...]:
    """The key kinds named in ``names`` (comma-separated, as in KINDS: "BIGINT,VARCHAR + seq")."""
    by_name = {k.name.replace(" ", "").lower(): k for k in KINDS}
    wanted = [n.replace(" ", "").lower() for n in names.split(",") if n.strip()]
    unknown = [n for n in wanted if n not in by_name]
    if unknown or not wanted:
        raise ValueError(f"unknown key kinds {unknown or names!r}: choose from {', '.join(k.name for k in KINDS)}")
    return tuple(by_name[n] for n in wanted)


def run(bench: Bench, sizes: list[int], *, kinds: tuple[Case, ...] = KINDS, batch_rows: int = BATCH_ROWS, loads: int = LOADS,
        compact_every: int = COMPACT_EVERY, chunk_rows: int = CHUNK_ROWS, reps: int | None = None, warmup: bool = True,
        merge_limit: float | None = MERGE_LIMIT_SECONDS) -> SuiteResult:
    """Runs suite (h) over tables of ``sizes`` rows (ascending). A ``MERGE INTO`` still running after
    ``merge_limit`` seconds is cancelled (it commits nothing) and reported as not finished, its
    ratio as a lower bound; once one has, that case's later ``MERGE INTO`` runs are skipped."""
    from iceberg_doris import doris
    from iceberg_doris.engine import key_index
    from iceberg_doris.engine.iceberg_java import IcebergJava

    spark = bench.spark
    iceberg = IcebergJava(spark)
    started = time.perf_counter()
    sizes = sorted(sizes)
    reps = reps if reps is not None else bench.reps
    result = SuiteResult("h", f"Scale curve: a {batch_rows:,}-row upsert into tables of {', '.join(f'{s:,}' for s in sizes)} rows", max(sizes))
    result.parameters = {
        "table rows": ", ".join(f"{s:,}" for s in sizes),
        "batch": f"{batch_rows:,} rows, half existing keys (spread over the table), half new",
        "key kinds": ", ".join(k.name for k in kinds),
        "contenders": "doris.load into UNIQUE KEY (MoW, DISTRIBUTED BY HASH(k) BUCKETS 4) vs MERGE INTO a plain v3 merge-on-read "
                      "table (bucket(4, k))",
        "repetitions": f"median of {reps}{' after one untimed load of each' if warmup else ''}, interleaved, order alternated, "
                       "rolled back after every load",
        "table build": f"chunks of at most {chunk_rows:,} rows (spark.range slices), nothing collected to the driver",
        "after the curve": f"{loads} more upserts into the largest BIGINT table, doris.auto_compact after every {compact_every}",
        "MERGE INTO bound": "none" if merge_limit is None else
                            f"cancelled after {merge_limit / 60:g} min (commits nothing); that case's later MERGE INTO runs skipped",
    }
    timing_rows: list[list[Any]] = []
    breakdown_rows: list[list[Any]] = []
    size_rows: list[list[Any]] = []
    medians: dict[tuple[int, str, str], float] = {}
    unfinished: set[tuple[int, str]] = set()  # (size, kind) whose MERGE INTO ran past merge_limit
    doris_tables: dict[tuple[int, str], str] = {}
    for rows in sizes:
        plain: dict[str, str] = {}
        snapshots: dict[str, int] = {}
        begun = time.perf_counter()
        for kind in sorted({k.key_kind for k in kinds}):
            table = bench.table(f"curve_{rows}_plain_{kind.lower()}")
            bench.sql(plain_ddl(table, kind))
            append_chunks(spark, rows, kind, chunk_rows, lambda frame, t=table: frame.writeTo(t).append())
            plain[kind], snapshots[table] = table, current_snapshot(spark, table)
        for case in kinds:
            table = bench.table(f"curve_{rows}_{case.doris_table_slug}")
            doris.create_table(spark, ddl=doris_ddl(table, case))
            append_chunks(spark, rows, case.key_kind, chunk_rows, lambda frame, t=table: doris.load(spark, table=t, source=frame))
            doris_tables[(rows, case.name)], snapshots[table] = table, current_snapshot(spark, table)
        bench.log(f"  [h] tables of {rows} rows built in {time.perf_counter() - begun:.1f} s")
        for case in kinds:
            targets = {DORIS: doris_tables[(rows, case.name)], MERGE: plain[case.key_kind]}
            batch_path = bench.path(f"curve_{rows}_{case.key_kind.lower()}_batch")
            rows_frame(spark, batch_ids(spark, rows, batch_rows), case.key_kind, 1).write.mode("overwrite").parquet(batch_path)
            expected = case_digest(expected_rows(_base_frame(spark, rows, case.key_kind), spark.read.parquet(batch_path), case), case)

            def action(contender: str) -> Any:
                if contender == DORIS:
                    source = spark.read.parquet(batch_path)
                    return lambda: doris.load(spark, table=targets[DORIS], source=source)
                spark.read.parquet(batch_path).createOrReplaceTempView("curve_src")
                statement = merge_sql(targets[MERGE], "curve_src", case)
                return lambda: spark.sql(statement).collect()

            def finished(contender: str, run_it: Any) -> bool:
                """Runs one load; False for a MERGE INTO cancelled at the bound (it commits nothing)."""
                if contender == DORIS:
                    run_it()
                    return True
                done = run_bounded(spark, run_it, merge_limit)
                if not done:
                    unfinished.add((rows, case.name))
                    bench.log(f"  [h] {rows} rows, {case.name}: MERGE INTO cancelled after {merge_limit:.0f} s")
                return done

            # Each case starts from an empty key cache: its warm-up load fills it with this table's
            # entries alone, and the memory table reports what they hold.
            key_index.clear_cache(iceberg)
            cached = 0
            if warmup:
                for contender in (DORIS, MERGE):
                    finished(contender, action(contender))
                    rollback(spark, targets[contender], snapshots[targets[contender]])
            times: dict[str, list[float]] = {DORIS: [], MERGE: []}
            parts: dict[str, list[Any]] = {DORIS: [], MERGE: []}
            memory: dict[str, dict[str, Any]] = {}
            for rep in range(reps):
                order = [DORIS, MERGE] if rep % 2 == 0 else [MERGE, DORIS]
                for contender in order:
                    if contender == MERGE and (rows, case.name) in unfinished:
                        continue
                    run_it = action(contender)
                    with contextlib.ExitStack() as stack:
                        probe = stack.enter_context(MemoryProbe(spark)) if rep == 0 else None
                        recorder = stack.enter_context(LoadBreakdown(spark))
                        done = finished(contender, run_it)
                    if done:
                        times[contender].append(recorder.result.wall)
                        parts[contender].append(recorder.result)
                        if probe is not None:
                            memory[contender] = probe.result
                        if contender == DORIS and rep == 0:
                            cached = key_index.cached_bytes(iceberg)
                    if done and rep == 0:
                        got = case_digest(spark.table(targets[contender]), case)
                        require_same(f"{case.name}: upsert of {batch_rows} rows into {rows} rows", {"expected": expected, contender: got})
                    rollback(spark, targets[contender], snapshots[targets[contender]])
            for contender in (DORIS, MERGE):
                if not times[contender]:
                    continue
                medians[(rows, case.name, contender)] = median(times[contender])
                b = median_breakdown(parts[contender])
                breakdown_rows.append([rows, case.name, contender, fmt_seconds(b.wall), *b.cells()])
                m = memory.get(contender)
                if m is None:  # the first repetition's MERGE INTO was cancelled, a later one finished
                    continue
                size_rows.append([
                    rows, case.name, contender, _mib(table_bytes(spark, targets[contender])),
                    _mib(index_bytes(spark, targets[contender])) if contender == DORIS else "-",
                    _mib(cached) if contender == DORIS else "-",
                    _mib(m["jvm_heap_peak_during_mib"] * 2**20), _mib((m["jvm_peak_rss_during_mib"] or 0) * 2**20),
                    _mib((m["python_peak_rss_during_mib"] or 0) * 2**20), _mib(b.peak_execution_bytes), _mib(b.spilled_bytes),
                ])
            d = medians[(rows, case.name, DORIS)]
            if (rows, case.name) in unfinished:
                assert merge_limit is not None
                merge_cell, ratio_cell = f"did not finish in {merge_limit / 60:g} min", f"> {fmt_ratio(merge_limit / d)}"
                merge_all = " / ".join([*(fmt_seconds(t) for t in times[MERGE]), "cancelled"])
            else:
                g = medians[(rows, case.name, MERGE)]
                merge_cell, ratio_cell, merge_all = fmt_seconds(g), fmt_ratio(g / d), " / ".join(fmt_seconds(t) for t in times[MERGE])
            timing_rows.append([rows, case.name, fmt_seconds(d), merge_cell, ratio_cell,
                                " / ".join(fmt_seconds(t) for t in times[DORIS]), merge_all])
            bench.log(f"  [h] {rows} rows, {case.name}: doris.load {fmt_seconds(d)}, MERGE INTO {merge_cell}")
        result.checks.append(
            f"{rows:,} rows: after the first repetition every table of {', '.join(k.name for k in kinds)} held exactly the "
            "expected rows (digest against Spark joins), one row per key, for both contenders."
        )
    result.tables.append(ResultTable(
        f"Upsert of {batch_rows:,} rows by table size (median; MERGE / ours, higher is better)",
        ["table rows", "key kind", "doris.load", "MERGE INTO (MoR)", "MERGE / ours", "doris.load, all", "MERGE INTO, all"],
        timing_rows,
    ))
    smallest, largest = sizes[0], sizes[-1]
    growth_rows = []
    for case in kinds:
        ours = medians[(largest, case.name, DORIS)] / medians[(smallest, case.name, DORIS)]
        if (smallest, case.name) in unfinished:
            theirs_text = "did not finish at either size"
        elif (largest, case.name) in unfinished:
            assert merge_limit is not None
            theirs_text = f"> {fmt_ratio(merge_limit / medians[(smallest, case.name, MERGE)])} (did not finish)"
        else:
            theirs_text = fmt_ratio(medians[(largest, case.name, MERGE)] / medians[(smallest, case.name, MERGE)])
        growth_rows.append([case.name, f"{smallest:,} -> {largest:,}", fmt_ratio(ours), theirs_text])
        if largest > smallest:
            result.targets.append(Target(
                f"flat cost: {case.name} upsert at {largest:,} rows <= 1.5x its time at {smallest:,} rows", ours, "<=", 1.5,
                detail=f"MERGE INTO grew {theirs_text}",
            ))
    result.tables.append(ResultTable(
        "Growth of the upsert time from the smallest to the largest table (largest / smallest)",
        ["key kind", "sizes", "doris.load", "MERGE INTO (MoR)"], growth_rows,
    ))
    result.tables.append(ResultTable(
        "Per-load breakdown by size (medians; benchmarks/load_breakdown.py)",
        ["table rows", "key kind", "contender", "wall", *BREAKDOWN_COLUMNS], breakdown_rows,
    ))
    result.tables.append(ResultTable(
        "Size and memory by table size (memory: first repetition; local mode: the executors' tasks run in the driver JVM)",
        ["table rows", "key kind", "contender", "table on disk", "key index on disk", "key index cached (keys, positions)",
         "JVM heap peak", "JVM process peak RSS",
         "Python peak RSS", "task peak execution memory (largest stage)", "spilled"],
        size_rows,
    ))
    bigint = next((k for k in kinds if k.key_kind == "BIGINT" and not k.sequence), None)
    if bigint is not None and loads > 0:
        result.tables.append(_after_loads(bench, result, doris_tables[(largest, bigint.name)], largest, bigint, batch_rows, loads, compact_every))
    result.seconds = time.perf_counter() - started
    return result


def _after_loads(bench: Bench, result: SuiteResult, table: str, rows: int, case: Case, batch_rows: int, loads: int,
                 compact_every: int) -> ResultTable:
    """``loads`` upserts with automatic compaction passes between them; full scans before and after."""
    from iceberg_doris import doris

    spark = bench.spark
    columns = ["k", "v1", "v2", "s", "seq"]

    def scan() -> tuple[float, Any]:
        started = time.perf_counter()
        found = digest(spark.table(table), columns, "k")
        return time.perf_counter() - started, found

    before = [scan() for _ in range(3)]
    new = new_keys(rows, batch_rows)
    passes = commits = 0
    load_times: list[float] = []
    for i in range(loads):
        ids = batch_ids(spark, rows, batch_rows, offset=i + 1, new_start=rows + i * new)
        source = rows_frame(spark, ids, case.key_kind, i + 1)
        begun = time.perf_counter()
        doris.load(spark, table=table, source=source)
        load_times.append(time.perf_counter() - begun)
        if (i + 1) % compact_every == 0:
            [done] = doris.auto_compact(spark, table=table)
            passes += 1
            commits += done.snapshot_id is not None
    after = [scan() for _ in range(3)]
    found = after[0][1]
    expected_rows_count = rows + loads * new
    if found.rows != expected_rows_count or found.keys != found.rows:
        raise ContendersDisagree(f"after {loads} upserts the table should hold {expected_rows_count} rows, one per key: {found}")
    result.checks.append(f"after the {loads} upserts the {rows:,}-row table held {expected_rows_count:,} rows, one per key.")
    files = iceberg_table(spark, table).currentSnapshot().summary()
    return ResultTable(
        f"Full scan of the {rows:,}-row BIGINT table before and after {loads} upserts of {batch_rows:,} rows, "
        f"automatic compaction (doris.auto_compact) after every {compact_every}",
        ["scan before (median of 3)", f"scan after {loads} loads (median of 3)", "after / before", "load p50 / max",
         "compaction passes (committed)", "data files / delete files after", "table on disk after"],
        [[fmt_seconds(median([t for t, _ in before])), fmt_seconds(median([t for t, _ in after])),
          fmt_ratio(median([t for t, _ in after]) / median([t for t, _ in before])),
          f"{fmt_seconds(median(load_times))} / {fmt_seconds(max(load_times))}", f"{passes} ({commits})",
          f"{files.get('total-data-files')} / {files.get('total-delete-files')}", _mib(int(files.get('total-files-size') or 0))]],
    )


def _mib(value: float) -> str:
    return f"{value / 2**20:,.1f} MiB"
