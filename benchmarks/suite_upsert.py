"""Suite (a): upsert a 1% and a 10% batch of random keys into an N-row unique table.

Contenders, every one starting from the same N rows (k BIGINT key, v1 BIGINT, v2 DOUBLE, s STRING),
unpartitioned, and loading the same batch file:

- ``doris.load``: a UNIQUE KEY merge-on-write table made by ``doris.create_table`` (format v3; the
  load finds the replaced rows through the key index and writes the new rows and deletion vectors
  for them in one commit; the load of the base rows stored the index entries of its files, and the
  first repetition starts with the executors' entry cache cleared, as a new session's first load
  does: it reads the stored entries; later repetitions are warm; after them the smallest batch is
  loaded ``COLD_REPS`` more times with the cache cleared, the new-session target's measure);
- the same ``MERGE INTO`` statement as below, on a second such UNIQUE KEY table: iceberg-doris runs
  it as Doris 4.0 does (the batch joined to the table, the rows its clauses make loaded as one
  merge-on-write ``doris.load``);
- Spark ``MERGE INTO ... WHEN MATCHED UPDATE SET * WHEN NOT MATCHED INSERT *`` on a plain Iceberg
  v3 table in merge-on-read mode (deletion vectors), and on one in copy-on-write mode;
- pyiceberg ``Table.upsert(join_cols=['k'])`` on a format-version 2 table created with pyiceberg
  (in the Python process, no Spark), at ``pyiceberg_scale`` rows when that is smaller than N
  (then ``doris.load`` is measured again at that scale for its ratio).

A batch holds ~fraction * N distinct keys drawn from [0, 1.1 N): ~91% update existing rows, ~9%
are new keys. Between repetitions every table is rolled back to its base snapshot, so each
repetition upserts into the same N rows. After every timed upsert the table's row digest must equal
the expected one (base minus batch keys, plus batch), computed independently with Spark.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.common import (
    Bench,
    Digest,
    MemoryProbe,
    ResultTable,
    SparkJobs,
    SuiteResult,
    Target,
    digest,
    file_counts,
    fmt_ratio,
    fmt_seconds,
    median,
    profile_call,
    profile_text,
    require_same,
    rollback,
    current_snapshot,
    timed,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

COLUMNS = ["k", "v1", "v2", "s"]
KEY = "k"
FRACTIONS = (0.01, 0.10)
COLD_REPS = 3  # loads of the smallest batch with the entry cache cleared, after the warm repetitions
DORIS, MOR, COW, PYICEBERG = "doris.load (UNIQUE KEY, MoW)", "MERGE INTO (MoR, v3)", "MERGE INTO (CoW, v3)", "pyiceberg upsert (v2)"
DORIS_MERGE = "MERGE INTO (UNIQUE KEY, MoW)"
MERGE_STATEMENT = "MERGE INTO {table} t USING {view} s ON t.k = s.k WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
SCHEMA_SQL = "k BIGINT NOT NULL, v1 BIGINT, v2 DOUBLE, s STRING"


def base_frame(spark: "SparkSession", rows: int) -> "DataFrame":
    from pyspark.sql import functions as F

    k = F.col("id")
    return spark.range(rows).select(
        k.alias("k"),
        ((k * 7919) % 1000003).alias("v1"),
        (k / 3.0).alias("v2"),
        F.concat(F.lit("base-"), k.cast("string")).alias("s"),
    )


def batch_frame(spark: "SparkSession", rows: int, fraction: float, seed: int) -> "DataFrame":
    """~fraction * rows distinct keys from [0, 1.1 * rows): updates of existing keys and new keys."""
    from pyspark.sql import functions as F

    universe = int(rows * 1.1) + 1
    wanted = max(1, round(rows * fraction))
    keys = spark.range(universe).sample(False, min(1.0, wanted / universe), seed)
    k = F.col("id")
    return keys.select(
        k.alias("k"),
        (k * 31 + seed).alias("v1"),
        (k / 7.0 + seed).alias("v2"),
        F.concat(F.lit(f"upd{seed}-"), k.cast("string")).alias("s"),
    )


def expected_after(base: "DataFrame", batch: "DataFrame") -> "DataFrame":
    return base.join(batch.select(KEY), KEY, "left_anti").unionByName(batch)


class Contenders:
    """The tables of one size, each with its base snapshot and an upsert action."""

    def __init__(self, bench: Bench, rows: int, names: list[str], tag: str):
        self.bench = bench
        self.rows = rows
        self.names = names
        self.tag = tag
        self.tables: dict[str, str] = {}
        self.base_snapshots: dict[str, int] = {}
        self.base_path = bench.path(f"{tag}_base")
        self.base_files: dict[str, dict[str, int]] = {}

    def create(self) -> float:
        """Writes the base rows and creates every contender's table from them; returns seconds."""
        from iceberg_doris import doris

        bench, spark = self.bench, self.bench.spark
        started = time.perf_counter()
        base_frame(spark, self.rows).write.mode("overwrite").parquet(self.base_path)
        base = spark.read.parquet(self.base_path)
        for name in self.names:
            table = bench.table(f"{self.tag}_{_slug(name)}")
            self.tables[name] = table
            if name in (DORIS, DORIS_MERGE):
                doris.create_table(
                    spark,
                    ddl=f"CREATE TABLE {table} ({SCHEMA_SQL}) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS AUTO "
                    'PROPERTIES ("enable_unique_key_merge_on_write" = "true")',
                )
                doris.load(spark, table=table, source=base)
            elif name in (MOR, COW):
                mode = "merge-on-read" if name == MOR else "copy-on-write"
                spark.sql(
                    f"CREATE TABLE {table} ({SCHEMA_SQL}) USING iceberg TBLPROPERTIES ('format-version'='3', "
                    f"'write.merge.mode'='{mode}', 'write.update.mode'='{mode}', 'write.delete.mode'='{mode}')"
                )
                base.writeTo(table).append()
            elif name == PYICEBERG:
                _create_pyiceberg_table(bench, table, self.base_path)
            self.base_snapshots[name] = current_snapshot(spark, table)
            self.base_files[name] = file_counts(spark, table)
        return time.perf_counter() - started

    def upsert(self, name: str, batch_path: str, arrow_batch: Any) -> Any:
        from iceberg_doris import doris

        spark, table = self.bench.spark, self.tables[name]
        if name == DORIS:
            return doris.load(spark, table=table, source=spark.read.parquet(batch_path))
        if name in (MOR, COW, DORIS_MERGE):
            view = f"upsert_src_{self.tag}"
            spark.read.parquet(batch_path).createOrReplaceTempView(view)
            return spark.sql(MERGE_STATEMENT.format(table=table, view=view)).collect()
        py_table = self.bench.py_catalog().load_table(table)
        return py_table.upsert(arrow_batch, join_cols=[KEY])

    def reset(self, name: str) -> None:
        rollback(self.bench.spark, self.tables[name], self.base_snapshots[name])

    def digest(self, name: str) -> Digest:
        return digest(self.bench.spark.table(self.tables[name]), COLUMNS, KEY)


def run(
    bench: Bench,
    scale: int,
    *,
    pyiceberg_scale: int | None = None,
    fractions: tuple[float, ...] = FRACTIONS,
    measure_memory: bool = True,
) -> SuiteResult:
    """Runs suite (a). ``pyiceberg_scale``: rows of the pyiceberg comparison (default: ``scale``)."""
    spark = bench.spark
    started = time.perf_counter()
    py_rows = min(scale, pyiceberg_scale or scale)
    result = SuiteResult("a", "Upsert: doris.load and MERGE INTO a UNIQUE KEY table vs MERGE INTO (MoR / CoW) vs pyiceberg upsert", scale)
    result.parameters = {
        "rows (N)": scale,
        "batches": ", ".join(f"{f:.0%} (~{round(scale * f)} keys, ~9% of them new)" for f in fractions),
        "pyiceberg rows": py_rows,
        "repetitions": f"median of {bench.reps}, contenders interleaved, tables rolled back to the base snapshot between repetitions",
    }
    groups = []
    main_names = [DORIS, DORIS_MERGE, MOR, COW] + ([PYICEBERG] if py_rows == scale else [])
    groups.append(Contenders(bench, scale, main_names, "n"))
    if py_rows < scale:
        groups.append(Contenders(bench, py_rows, [DORIS, PYICEBERG], "py"))
    for group in groups:
        seconds = group.create()
        bench.log(f"  [a] base tables of {group.rows} rows created in {seconds:.1f} s: {group.base_files}")

    medians: dict[tuple[int, float, str], float] = {}
    all_times: dict[tuple[int, float, str], list[float]] = {}
    memory: dict[str, dict[str, Any]] = {}
    jobs: dict[tuple[int, float, str], tuple[int, float]] = {}
    cold_times: dict[int, list[float]] = {}
    for group in groups:
        for fraction in fractions:
            seed = int(fraction * 1000) + group.rows % 997
            batch_path = bench.path(f"{group.tag}_batch_{int(fraction * 100)}pct")
            batch_frame(spark, group.rows, fraction, seed).write.mode("overwrite").parquet(batch_path)
            batch = spark.read.parquet(batch_path)
            expected = digest(expected_after(spark.read.parquet(group.base_path), batch), COLUMNS, KEY)
            batch_rows = _parquet_rows(batch_path)
            arrow_batch = _arrow_batch(batch_path) if PYICEBERG in group.names else None
            bench.log(f"  [a] {group.rows} rows, batch {fraction:.0%}: {batch_rows} keys; expected {expected}")
            for rep in range(bench.reps):
                order = group.names if rep % 2 == 0 else list(reversed(group.names))
                for name in order:
                    probe_memory = measure_memory and rep == 0 and fraction == max(fractions) and group.tag == "n"
                    if rep == 0 and name in (DORIS, DORIS_MERGE):
                        clear_key_index_cache(spark)  # a new session's first load: stored entries, nothing cached
                    with contextlib.ExitStack() as stack:
                        probe = stack.enter_context(MemoryProbe(spark)) if probe_memory else None
                        recorder = stack.enter_context(SparkJobs(spark, "upsert")) if rep == 0 else None
                        seconds, _ = timed(lambda: group.upsert(name, batch_path, arrow_batch))
                    if probe is not None:
                        memory[name] = probe.result
                    if recorder is not None:
                        jobs[(group.rows, fraction, name)] = (recorder.count, recorder.seconds)
                    got = group.digest(name)
                    require_same(f"upsert of {batch_rows} keys into {group.rows} rows (rep {rep + 1})", {"expected": expected, name: got})
                    all_times.setdefault((group.rows, fraction, name), []).append(seconds)
                    bench.log(f"  [a]   rep {rep + 1} {name}: {fmt_seconds(seconds)}")
                    group.reset(name)  # back to the base rows for the next repetition / batch
            if DORIS in group.names and fraction == min(fractions):
                # The first repetition also pays what every contender's first operation on a freshly
                # loaded 10M-row table pays (MERGE INTO's first is slower too): cold entries are
                # measured again once the run is warm, the cache cleared before each load.
                for _ in range(COLD_REPS):
                    clear_key_index_cache(spark)
                    seconds, _ = timed(lambda: group.upsert(DORIS, batch_path, arrow_batch))
                    require_same(f"cold upsert of {batch_rows} keys into {group.rows} rows", {"expected": expected, DORIS: group.digest(DORIS)})
                    cold_times.setdefault(group.rows, []).append(seconds)
                    bench.log(f"  [a]   cold (entry cache cleared) {DORIS}: {fmt_seconds(seconds)}")
                    group.reset(DORIS)
            for name in group.names:
                medians[(group.rows, fraction, name)] = median(all_times[(group.rows, fraction, name)])
            result.checks.append(
                f"{group.rows} rows, {fraction:.0%} batch ({batch_rows} keys): after every repetition each of "
                f"{', '.join(group.names)} held exactly the expected rows ({expected})."
            )
            if bench.profile and DORIS in group.names and fraction == min(fractions) and group.tag == "n":
                for name in group.names:
                    if name == PYICEBERG:
                        continue
                    elapsed, _, stats, recorded = profile_call(spark, lambda: group.upsert(name, batch_path, arrow_batch))
                    group.reset(name)
                    if name == DORIS:
                        result.profiles.append(
                            (f"doris.load of the {fraction:.0%} batch into {group.rows} rows", profile_text(stats, elapsed, recorded))
                        )
                    else:
                        result.profiles.append((f"{name}, same batch (Spark jobs only)", f"wall time {elapsed:.3f} s\n" + recorded.text()))

    # --- tables
    rows_out = []
    for group in groups:
        for fraction in fractions:
            doris_time = medians[(group.rows, fraction, DORIS)]
            for name in group.names:
                value = medians[(group.rows, fraction, name)]
                times = all_times[(group.rows, fraction, name)]
                rows_out.append([
                    group.rows, f"{fraction:.0%}", name, fmt_seconds(value),
                    " / ".join(fmt_seconds(t) for t in times),
                    "1.00x" if name == DORIS else fmt_ratio(value / doris_time),
                    "-" if name == PYICEBERG else f"{jobs[(group.rows, fraction, name)][0]} ({jobs[(group.rows, fraction, name)][1]:.1f} s)",
                ])
    result.tables.append(ResultTable(
        "Upsert latency (median; ratio = contender / doris.load, higher means doris.load is faster)",
        ["rows", "batch", "contender", "median", "all repetitions", "vs doris.load", "Spark jobs (summed job time)"],
        rows_out,
    ))
    result.tables.append(ResultTable(
        "Base tables (live files before the upserts)",
        ["rows", "contender", "data files", "delete files"],
        [[g.rows, n, g.base_files[n]["data_files"], g.base_files[n]["delete_files"]] for g in groups for n in g.names],
    ))
    small = min(fractions)
    d = medians[(scale, small, DORIS)]
    result.targets.append(Target(f"doris.load >= 1.5x faster than MERGE INTO merge-on-read ({small:.0%} batch)",
                                 medians[(scale, small, MOR)] / d, ">=", 1.5))
    result.targets.append(Target(f"doris.load >= 8x faster than MERGE INTO copy-on-write ({small:.0%} batch)",
                                 medians[(scale, small, COW)] / d, ">=", 8.0))
    result.targets.append(Target(
        f"MERGE INTO a UNIQUE KEY table >= 5x faster than MERGE INTO merge-on-read ({small:.0%} batch)",
        medians[(scale, small, MOR)] / medians[(scale, small, DORIS_MERGE)], ">=", 5.0,
        detail="the statement joins the whole table to the batch, then loads the rows its clauses make through the key index",
    ))
    first = all_times[(scale, small, DORIS)][0]
    cold = median(cold_times[scale])
    merge_first, merge_warm = all_times[(scale, small, MOR)][0], medians[(scale, small, MOR)]
    result.targets.append(Target(
        f"doris.load, first load of a new session (index entries read from their stored files) vs warm ({small:.0%} batch)",
        cold / d, "<=", 1.3,
        detail=(f"entry cache cleared after the warm repetitions: median {fmt_seconds(cold)} of "
                f"{' / '.join(fmt_seconds(t) for t in cold_times[scale])}, warm median {fmt_seconds(d)}; the run's first load "
                f"{fmt_seconds(first)} ({first / d:.2f}x), MERGE INTO merge-on-read's first {fmt_seconds(merge_first)} "
                f"({merge_first / merge_warm:.2f}x its median)"),
    ))
    py_group = groups[-1]
    py_ratio = medians[(py_rows, small, PYICEBERG)] / medians[(py_rows, small, DORIS)]
    result.targets.append(Target(
        f"doris.load >= 100x faster than pyiceberg upsert ({small:.0%} batch, at {py_rows} rows)", py_ratio, ">=", 100.0,
        detail="" if py_group.rows == scale else f"pyiceberg measured at {py_rows} rows (smaller scale), against doris.load at the same scale",
    ))
    if py_rows < scale:
        result.notes.append(
            f"pyiceberg upsert was run at {py_rows} rows instead of {scale} (--pyiceberg-scale, default min(N, 1M): it "
            f"runs in the Python process and holds the matching rows in memory); its ratio compares it with "
            f"doris.load on a {py_rows}-row table."
        )
    first_loads = ", ".join(
        f"{fmt_seconds(all_times[(g.rows, min(fractions), DORIS)][0])} at {g.rows} rows" for g in groups if DORIS in g.names
    )
    result.notes.append(
        "doris.load finds the rows it replaces through the key index (iceberg_doris/engine/key_index/). The load of "
        "the base rows stored the index entries of its files (spark.doris.keyIndex.buildOnLoad); the first repetition "
        f"of each batch starts with the executors' entry cache cleared, as a new session's first load does, and reads "
        f"the stored entries (first load of the {min(fractions):.0%} batch: {first_loads}; the first value under 'all "
        "repetitions'); later loads probe the cached entries, as loads of a long-running session do. The median is "
        "a warm load. After the repetitions of the smallest batch, the load runs "
        f"{COLD_REPS} more times with the cache cleared before each (not in the median): "
        + "; ".join(f"{' / '.join(fmt_seconds(t) for t in times)} at {rows} rows" for rows, times in cold_times.items())
        + ". That is the new-session target's measure: the first repetition also pays what any first operation on "
        "the freshly written table pays (MERGE INTO's first repetition is slower than its median too)."
    )
    if memory:
        result.memory = {"operation": f"upsert of the {max(fractions):.0%} batch into {scale} rows (first repetition)", "by_contender": memory}
    result.seconds = time.perf_counter() - started
    return result


# ---------------------------------------------------------------------------------------------
# pyiceberg
# ---------------------------------------------------------------------------------------------


def clear_key_index_cache(spark: "SparkSession") -> None:
    """Forgets the index entries cached in this JVM (local mode: the executors); stored files stay."""
    from iceberg_doris.engine import key_index
    from iceberg_doris.engine.iceberg_java import IcebergJava

    key_index.clear_cache(IcebergJava(spark))


def _parquet_rows(path: str) -> int:
    """Rows of a Parquet folder, from the files' footers (no Spark job)."""
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(f).metadata.num_rows for f in sorted(Path(path).glob("*.parquet")))


def _arrow_schema() -> Any:
    import pyarrow as pa

    return pa.schema([
        pa.field("k", pa.int64(), nullable=False),
        pa.field("v1", pa.int64()),
        pa.field("v2", pa.float64()),
        pa.field("s", pa.large_string()),
    ])


def _arrow_batch(path: str) -> Any:
    import pyarrow.parquet as pq

    schema = _arrow_schema()
    return pq.read_table(path).select(COLUMNS).cast(schema)


def _create_pyiceberg_table(bench: Bench, table: str, base_path: str) -> None:
    catalog = bench.py_catalog()
    base = _arrow_batch(base_path)
    created = catalog.create_table(table, schema=base.schema, properties={"format-version": "2"})
    created.append(base)


def _slug(name: str) -> str:
    return {DORIS: "doris", DORIS_MERGE: "doris_merge", MOR: "mor", COW: "cow", PYICEBERG: "pyiceberg"}[name]
