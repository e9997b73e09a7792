"""Suite (b): a CDC stream of MERGE loads into a unique table, then a full scan vs the compacted table.

The table is a UNIQUE KEY merge-on-write table (``doris.create_table``) holding N rows. A stream of
``batches`` batches (default 100) of 1k-10k rows each (scaled down below 200k rows: at most N/20)
is loaded one batch per ``doris.load(merge_type => 'MERGE', delete_on => "op = 'D'")``; each batch
holds distinct keys, ~10% of them deletes, the others updates of existing keys and ~9% new keys.
Batch sizes and keys are drawn with fixed seeds, so every run loads the same stream.

Reported: the latency of every batch, p50/p95 of the first 10 vs the last 10 (and p50 per window
of 10); then the time of a full scan (count + a hash over every column, deletion vectors applied)
of the table as the stream left it, ``doris.compact``, and the same scan of the compacted table.

Checked: after the stream and after compaction the table holds exactly the expected rows, computed
independently with Spark (per key, the row of the last batch that touched it, unless a delete).
An extra batch before the stream warms up (and, with profiling, a profiled batch before and after
the stream shows how the per-batch work grows).
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING

from benchmarks.common import (
    Bench,
    ContendersDisagree,
    Digest,
    ResultTable,
    SuiteResult,
    Target,
    current_snapshot,
    digest,
    digests,
    file_counts,
    fmt_ratio,
    fmt_seconds,
    jvm_gc_seconds,
    median,
    percentile,
    phase_times,
    profile_call,
    profile_text,
    py4j_calls,
    require_same,
    timed,
)
from benchmarks.suite_upsert import COLUMNS, KEY, SCHEMA_SQL, base_frame

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

BATCHES = 100
WINDOW = 10
DELETE_ON = "op = 'D'"


def batch_bounds(rows: int) -> tuple[int, int]:
    """Rows per batch: 1k-10k at N >= 200k, scaled down (at most N/20) below."""
    high = max(20, min(10_000, rows // 20))
    return max(2, high // 10), high


def _next_prime(n: int) -> int:
    def is_prime(x: int) -> bool:
        if x < 2:
            return False
        if x % 2 == 0:
            return x == 2
        f = 3
        while f * f <= x:
            if x % f == 0:
                return False
            f += 2
        return True

    while not is_prime(n):
        n += 1
    return n


def stream_frame(spark: "SparkSession", rows: int, batches: int, seed: int = 42) -> tuple["DataFrame", list[int]]:
    """Every batch of the stream as one DataFrame with a batch number ``b`` (0 .. batches-1).

    Batch b has m_b distinct keys k = (j * A + offset_b) mod P, j < m_b, for a prime P > 1.1 N: a
    permutation, so no key repeats within a batch, and ~9% of the keys are beyond the base rows."""
    from pyspark.sql import functions as F

    rng = random.Random(seed)
    low, high = batch_bounds(rows)
    prime = _next_prime(int(rows * 1.1) + 1)
    multiplier = (2654435761 % prime) or 1
    sizes, frames = [], []
    for b in range(batches):
        size = rng.randint(low, high)
        offset = rng.randrange(prime)
        sizes.append(size)
        k = (F.col("id") * multiplier + offset) % prime
        frames.append(spark.range(size).select(k.alias("k"), F.lit(b).alias("b")))
    keys = frames[0]
    for frame in frames[1:]:
        keys = keys.unionByName(frame)
    k, b = F.col("k"), F.col("b")
    stream = keys.select(
        k,
        (k + b * 1000003).alias("v1"),
        (k / 11.0 + b).alias("v2"),
        F.concat(F.lit("cdc"), b.cast("string"), F.lit("-"), k.cast("string")).alias("s"),
        F.when(F.pmod(F.xxhash64(k, b), F.lit(10)) == 0, F.lit("D")).otherwise(F.lit("U")).alias("op"),
        b,
    )
    return stream, sizes


def expected_rows(base: "DataFrame", stream: "DataFrame", loaded: list[int]) -> "DataFrame":
    """Per key, the version of the last batch that touched it (the base is batch -1); deleted keys gone."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    everything = base.withColumn("op", F.lit("U")).withColumn("b", F.lit(-1)).unionByName(
        stream.filter(F.col("b").isin(loaded))
    )
    latest = F.row_number().over(Window.partitionBy(KEY).orderBy(F.col("b").desc()))
    return everything.withColumn("_rank", latest).filter((F.col("_rank") == 1) & (F.col("op") != "D")).select(*COLUMNS)


def scan(spark: "SparkSession", table: str, snapshot_id: int | None = None) -> tuple[int, str]:
    """A full scan: every column of every live row (deletes applied), aggregated on the fly."""
    from pyspark.sql import functions as F

    # VERSION AS OF reads a snapshot on every Spark line (Spark 4 refuses the snapshot-id option).
    frame = spark.table(table) if snapshot_id is None else spark.sql(f"SELECT * FROM {table} VERSION AS OF {int(snapshot_id)}")
    row = frame.agg(
        F.count(F.lit(1)), F.sum(F.xxhash64(*[F.col(c) for c in COLUMNS]).cast("decimal(38,0)"))
    ).collect()[0]
    return int(row[0]), str(row[1])


def run(bench: Bench, scale: int, *, batches: int = BATCHES, warmup: bool = True) -> SuiteResult:
    """Runs suite (b). ``warmup``: an untimed batch before the stream and an untimed scan of each
    table state before the timed scans."""
    from iceberg_doris import doris

    spark = bench.spark
    started = time.perf_counter()
    low, high = batch_bounds(scale)
    result = SuiteResult("b", "CDC stream: MERGE loads over time, full scan vs compacted", scale)
    result.parameters = {
        "base rows (N)": scale,
        "batches": f"{batches} timed{' (+1 warm-up before)' if warmup or bench.profile else ''}{' (+1 profiled after)' if bench.profile else ''}",
        "rows per batch": f"{low}-{high} (uniform), distinct keys, ~10% deletes, ~9% new keys",
        "load": f"doris.load(merge_type => 'MERGE', delete_on => \"{DELETE_ON}\")",
        "scan": f"count + sum(xxhash64(all columns)), median of {scan_reps(bench)}, the two table states alternating",
    }
    table = bench.table("cdc")
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} ({SCHEMA_SQL}) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS AUTO "
        'PROPERTIES ("enable_unique_key_merge_on_write" = "true")',
    )
    base_path, stream_path = bench.path("cdc_base"), bench.path("cdc_stream")
    base_frame(spark, scale).write.mode("overwrite").parquet(base_path)
    total = batches + 2  # batch 0: warm-up (and profiled); batches+1: profiled after the stream
    stream, sizes = stream_frame(spark, scale, total)
    stream.write.mode("overwrite").partitionBy("b").parquet(stream_path)
    doris.load(spark, table=table, source=spark.read.parquet(base_path))
    bench.log(f"  [b] base of {scale} rows loaded; stream of {batches} batches of {low}-{high} rows written")

    def load_batch(b: int) -> object:
        source = spark.read.parquet(f"{stream_path}/b={b}")
        return doris.load(spark, table=table, source=source, columns="k, v1, v2, s, op", merge_type="MERGE", delete_on=DELETE_ON)

    loaded = [0] if warmup or bench.profile else []
    profiled = []
    if bench.profile:
        elapsed, _, stats, jobs = profile_call(spark, lambda: load_batch(0))
        profiled.append((elapsed, stats))
        result.profiles.append((f"batch 0 ({sizes[0]} rows, before the stream)", profile_text(stats, elapsed, jobs)))
    elif warmup:
        load_batch(0)
    latencies: list[float] = []
    gc_per_batch: list[float] = []
    for b in range(1, batches + 1):
        gc_before = jvm_gc_seconds(spark)
        seconds, rows = timed(lambda: load_batch(b))
        gc_per_batch.append(jvm_gc_seconds(spark) - gc_before)
        loaded.append(b)
        latencies.append(seconds)
        if b % 10 == 0 or b == batches:
            bench.log(f"  [b] batch {b}/{batches}: {fmt_seconds(seconds)} ({sizes[b]} rows, {rows[0].deleted_rows} deleted)")
    if bench.profile:
        elapsed, _, stats, jobs = profile_call(spark, lambda: load_batch(batches + 1))
        profiled.append((elapsed, stats))
        loaded.append(batches + 1)
        result.profiles.append((f"batch {batches + 1} ({sizes[batches + 1]} rows, after the stream)", profile_text(stats, elapsed, jobs)))

    expected = require_same(
        f"CDC stream of {len(loaded)} batches",
        digests({
            "expected": expected_rows(spark.read.parquet(base_path), spark.read.parquet(stream_path), loaded),
            "after the stream": spark.table(table),
        }, COLUMNS, KEY),
    )
    files_stream = file_counts(spark, table)
    stream_snapshot = current_snapshot(spark, table)
    compact_seconds, compacted = timed(lambda: doris.compact(spark, table=table))
    files_compacted = file_counts(spark, table)
    after_compact = digest(spark.table(table), COLUMNS, KEY)
    require_same("CDC stream, compacted", {"expected": expected, "after doris.compact": after_compact})
    # Both states are scanned alternately (the stream's state by time travel to its snapshot: the
    # same files and deletion vectors), so noise from other processes hits both alike.
    scan_stream, scan_compacted = _timed_scans(bench, table, stream_snapshot, expected, warmup=warmup)
    bench.log(f"  [b] scan after stream {fmt_seconds(median(scan_stream))}, compacted {fmt_seconds(median(scan_compacted))}")

    first, last = latencies[:WINDOW], latencies[-WINDOW:]
    p95_first, p95_last = percentile(first, 95), percentile(last, 95)
    gc_first, gc_last = gc_per_batch[:WINDOW], gc_per_batch[-WINDOW:]
    result.tables.append(ResultTable(
        "Per-batch latency (doris.load MERGE)",
        ["batches", "p50", "p95", "max", "JVM GC during these batches"],
        [
            [f"first {len(first)}", fmt_seconds(percentile(first, 50)), fmt_seconds(p95_first), fmt_seconds(max(first)), fmt_seconds(sum(gc_first))],
            [f"last {len(last)}", fmt_seconds(percentile(last, 50)), fmt_seconds(p95_last), fmt_seconds(max(last)), fmt_seconds(sum(gc_last))],
            ["all", fmt_seconds(percentile(latencies, 50)), fmt_seconds(percentile(latencies, 95)), fmt_seconds(max(latencies)), fmt_seconds(sum(gc_per_batch))],
        ],
    ))
    windows = [latencies[i : i + WINDOW] for i in range(0, len(latencies), WINDOW)]
    result.tables.append(ResultTable(
        "Latency over time: p50 per window of 10 batches",
        [f"{i * WINDOW + 1}-{i * WINDOW + len(w)}" for i, w in enumerate(windows)],
        [[fmt_seconds(percentile(w, 50)) for w in windows]],
    ))
    scan_ratio = median(scan_stream) / median(scan_compacted)
    row = compacted[0]
    result.tables.append(ResultTable(
        "Full scan after the stream vs compacted",
        ["table state", "data files", "delete files", "scan (median)", "all scans", "vs compacted"],
        [
            ["after the stream", files_stream["data_files"], files_stream["delete_files"], fmt_seconds(median(scan_stream)),
             " / ".join(fmt_seconds(t) for t in scan_stream), fmt_ratio(scan_ratio)],
            ["after doris.compact", files_compacted["data_files"], files_compacted["delete_files"], fmt_seconds(median(scan_compacted)),
             " / ".join(fmt_seconds(t) for t in scan_compacted), "1.00x"],
        ],
    ))
    result.notes.append(
        f"doris.compact took {fmt_seconds(compact_seconds)}: rewrote {row.rewritten_data_files} data files into "
        f"{row.added_data_files}, removed {row.removed_delete_files} delete files, dropped {row.dropped_tombstone_files} "
        f"and kept {row.kept_tombstone_files} fully deleted files (this table has no sequence column, so no "
        f"tombstones: fully deleted files go at once)."
    )
    if len(profiled) == 2:
        (before_s, before), (after_s, after) = profiled
        first_phases, last_phases = phase_times(before), phase_times(after)
        growth = sorted(((last_phases.get(k, 0.0) - first_phases.get(k, 0.0), k) for k in set(first_phases) | set(last_phases)), reverse=True)
        top = [f"{label} {first_phases.get(label, 0.0):.2f} s -> {last_phases.get(label, 0.0):.2f} s" for delta, label in growth[:3] if delta > 0.02]
        result.notes.append(
            f"Where the per-batch time grows (profiled batch 0 vs batch {batches + 1}, see the profiles): wall "
            f"{before_s:.2f} s -> {after_s:.2f} s, py4j round trips {py4j_calls(before)} -> {py4j_calls(after)}"
            + (f"; largest phase increases: {'; '.join(top)}." if top else ".")
        )
    result.checks.append(
        f"After the {len(loaded)} batches and again after doris.compact the table held exactly the expected rows ({expected})."
    )
    result.targets.append(Target("CDC: p95 of the last 10 batches within 1.1x of the first 10", p95_last / p95_first, "<=", 1.1))
    result.targets.append(Target("Full scan after the stream within 1.10x of the compacted table", scan_ratio, "<=", 1.10))
    result.parameters["latencies (s)"] = " ".join(f"{t:.2f}" for t in latencies)
    result.seconds = time.perf_counter() - started
    return result


def scan_reps(bench: Bench) -> int:
    """Scans are cheap: at least 5 each (1 when the bench asks for single runs)."""
    return 1 if bench.reps == 1 else max(bench.reps, 5)


def _timed_scans(bench: Bench, table: str, stream_snapshot: int, expected: Digest, *, warmup: bool) -> tuple[list[float], list[float]]:
    """Scan times of the stream's snapshot and of the current (compacted) table, alternating."""
    spark = bench.spark
    if warmup:
        scan(spark, table, stream_snapshot)
        scan(spark, table)
    stream_times, compacted_times = [], []
    for rep in range(scan_reps(bench)):
        order = [(stream_snapshot, stream_times), (None, compacted_times)]
        for snapshot_id, times in order if rep % 2 == 0 else reversed(order):
            seconds, (rows, checksum) = timed(lambda: scan(spark, table, snapshot_id))
            if rows != expected.rows or checksum != expected.checksum:
                raise ContendersDisagree(f"scan of {table} (snapshot {snapshot_id}) saw {rows} rows / {checksum}, expected {expected}")
            times.append(seconds)
    return stream_times, compacted_times
