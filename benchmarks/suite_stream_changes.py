"""Suite (s): a Structured Streaming query into a unique table, and the change feed of one batch.

Part 1, the stream. A real streaming query (file source, one Parquet file per micro-batch,
``availableNow``, a checkpoint) writes suite (b)'s CDC stream (``stream_frame``: batches of
1k-10k rows at N >= 200k, updates, ~10% deletes, ~9% new keys) into an N-row UNIQUE KEY
merge-on-write table through ``doris.stream_to(merge_type => 'MERGE', delete_on => "op = 'D'")``,
while a background thread of the same session runs automatic compaction passes
(``doris.auto_compact``, default policy) on the table, as suite (f) does. Timed: each batch's
call of the sink (``foreachBatch``'s function: the load and its commit), in the query's own thread.
Reported: p50/p95 of the first 10 and the last 10 batches; target: the last 10's p95 within 1.1x of
the first 10's (latency stays flat over a long stream). Checked: the table holds exactly the
expected rows (suite b's ``expected_rows``), and every batch committed once (snapshot summaries).

Part 2, the change feed. One upsert batch of exactly N/100 distinct keys (~91% updates of existing keys,
every updated row differs, ~9% new keys; values as suite a's ``batch_frame``) is loaded with ``doris.load``
into an N-row table and, the same number of keys, into an N/10-row table. Contenders, interleaved
(order alternating), ``--reps`` each, on both tables:

- ``doris.changes(start_snapshot => before, end_snapshot => after)``: reads what the commit touched
  (its new files, the rows its deletion vectors removed);
- a full diff of the two snapshots: both read by time travel (``VERSION AS OF``), full outer join by
  key, the rows that differ turned into pre- and post-images (``delete`` / ``update_preimage``,
  ``insert`` / ``update_postimage``).

Each is consumed the same way (count + sum of xxhash64 over the table's columns and
``_change_type``). Reported: both at both sizes; targets: ``doris.changes`` at N within 1.5x of
itself at N/10 (cost grows with the change, not the table) and the full diff at N at least 5x
slower than ``doris.changes`` (both stated at 10M rows; at small N fixed costs dominate).
Checked: both contenders' rows equal the changes computed independently from the base and batch
files, at both sizes.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.common import (
    Bench,
    ContendersDisagree,
    ResultTable,
    SuiteResult,
    Target,
    current_snapshot,
    digests,
    fmt_ratio,
    fmt_seconds,
    median,
    percentile,
    require_same,
    timed,
)
from benchmarks.suite_cdc import BATCHES, DELETE_ON, WINDOW, _next_prime, batch_bounds, expected_rows, stream_frame
from benchmarks.suite_cdc_compaction import CompactionLoop
from benchmarks.suite_upsert import COLUMNS, KEY, SCHEMA_SQL, base_frame

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

CHANGE_TYPE = "_change_type"
CHANGE_COLUMNS = [*COLUMNS, CHANGE_TYPE]
FIRST_MTIME = 1_700_000_000  # the file source takes files in modification-time order: batch b gets FIRST_MTIME + b
UNIQUE_DDL = "UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS AUTO PROPERTIES (\"enable_unique_key_merge_on_write\" = \"true\")"


def run(bench: Bench, scale: int, *, batches: int = BATCHES, warmup: bool = True) -> SuiteResult:
    started = time.perf_counter()
    result = SuiteResult("s", "Streaming into a unique table (doris.stream_to), and the change feed of one batch (doris.changes)", scale)
    _stream(bench, scale, batches, result, warmup=warmup)
    _change_feed(bench, scale, result, warmup=warmup)
    result.seconds = time.perf_counter() - started
    return result


# ---------------------------------------------------------------------------------------------
# Part 1: a long stream through doris.stream_to, automatic compaction beside it
# ---------------------------------------------------------------------------------------------


def _stream(bench: Bench, scale: int, batches: int, result: SuiteResult, *, warmup: bool) -> None:
    from iceberg_doris import doris
    from iceberg_doris.table_model.snapshot_summary import STREAM, STREAM_BATCH

    spark = bench.spark
    low, high = batch_bounds(scale)
    first_batch = 0 if warmup else 1  # stream batch 0 warms up: the query's first micro-batch, not timed
    untimed = 1 if warmup else 0
    result.parameters.update({
        "stream: base rows (N)": scale,
        "stream: micro-batches": f"{batches} timed{' (+1 warm-up first)' if warmup else ''}, one Parquet file each, trigger availableNow",
        "stream: rows per batch": f"{low}-{high} (uniform), distinct keys, ~10% deletes, ~9% new keys (suite b's stream)",
        "stream: sink": f"doris.stream_to(merge_type => 'MERGE', delete_on => \"{DELETE_ON}\")",
        "stream: compaction": "doris.auto_compact passes in a background thread of the same session (suite f's loop)",
    })
    table = bench.table("stream")
    doris.create_table(spark, ddl=f"CREATE TABLE {table} ({SCHEMA_SQL}) {UNIQUE_DDL}")
    base_path, stream_path = bench.path("stream_base"), bench.path("stream_batches")
    base_frame(spark, scale).write.mode("overwrite").parquet(base_path)
    stream, _ = stream_frame(spark, scale, batches + 1, seed=7)
    stream.write.mode("overwrite").partitionBy("b").parquet(stream_path)
    doris.load(spark, table=table, source=spark.read.parquet(base_path))
    source_dir = Path(bench.path("stream_source"))
    loaded = list(range(first_batch, batches + 1))
    _one_file_per_batch(spark, stream_path, source_dir, loaded)
    schema = spark.read.parquet(str(source_dir)).schema
    checkpoint = bench.path("stream_checkpoint")
    shutil.rmtree(checkpoint, ignore_errors=True)

    sink = doris.stream_to(table, merge_type="MERGE", delete_on=DELETE_ON, columns="k, v1, v2, s, op")
    latencies: list[float] = []

    def timed_sink(batch: "DataFrame", batch_id: int) -> None:
        seconds, _ = timed(lambda: sink(batch, batch_id))
        latencies.append(seconds)
        done = len(latencies) - untimed
        if done > 0 and (done % 10 == 0 or done == batches):
            bench.log(f"  [s] stream: batch {done}/{batches}: {fmt_seconds(seconds)}")

    with CompactionLoop(spark, table) as loop:
        query = (
            spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).parquet(str(source_dir))
            .writeStream.foreachBatch(timed_sink).option("checkpointLocation", checkpoint)
            .trigger(availableNow=True).start()
        )
        query.awaitTermination()
    timed_latencies = latencies[untimed:]
    if len(timed_latencies) != batches:
        raise ContendersDisagree(f"the query ran {len(latencies)} micro-batches, expected {len(loaded)}")

    require_same(
        f"stream of {len(loaded)} micro-batches through doris.stream_to",
        digests({
            "expected": expected_rows(spark.read.parquet(base_path), spark.read.parquet(stream_path), loaded),
            "after the stream": spark.table(table),
        }, COLUMNS, KEY),
    )
    committed = [int(r[0]) for r in spark.sql(
        f"SELECT CAST(summary['{STREAM_BATCH}'] AS BIGINT) FROM {table}.snapshots "
        f"WHERE summary['{STREAM}'] IS NOT NULL ORDER BY committed_at, snapshot_id"
    ).collect()]
    if committed != list(range(len(loaded))):
        raise ContendersDisagree(f"the stream's batches committed {committed}, expected each of 0..{len(loaded) - 1} once")

    first, last = timed_latencies[:WINDOW], timed_latencies[-WINDOW:]
    p95_first, p95_last = percentile(first, 95), percentile(last, 95)
    result.tables.append(ResultTable(
        "Stream: per-batch latency of the sink (doris.stream_to, automatic compaction beside it)",
        ["batches", "p50", "p95", "max"],
        [
            [f"first {len(first)}", fmt_seconds(percentile(first, 50)), fmt_seconds(p95_first), fmt_seconds(max(first))],
            [f"last {len(last)}", fmt_seconds(percentile(last, 50)), fmt_seconds(p95_last), fmt_seconds(max(last))],
            ["all", fmt_seconds(percentile(timed_latencies, 50)), fmt_seconds(percentile(timed_latencies, 95)), fmt_seconds(max(timed_latencies))],
        ],
    ))
    result.notes.append(
        f"Stream: {loop.passes} compaction passes ran beside the query, {loop.commits} committed"
        + (f", errors: {'; '.join(sorted(set(loop.errors))[:3])}" if loop.errors else "") + "."
    )
    result.checks.append(
        f"Stream: the table held exactly the expected rows after {len(loaded)} micro-batches, each committed once (snapshot summaries)."
    )
    result.targets.append(Target("Stream (doris.stream_to + compaction): p95 of the last 10 batches within 1.1x of the first 10", p95_last / p95_first, "<=", 1.1))
    result.parameters["stream: latencies (s)"] = " ".join(f"{t:.2f}" for t in timed_latencies)


def _one_file_per_batch(spark: "SparkSession", stream_path: str, source_dir: Path, batches: list[int]) -> None:
    """Each batch of the stream as one Parquet file in ``source_dir``, in batch order for the file
    source (``maxFilesPerTrigger`` 1: one file, one micro-batch)."""
    shutil.rmtree(source_dir, ignore_errors=True)
    source_dir.mkdir(parents=True)
    staging = source_dir.parent / f"{source_dir.name}_staging"
    for b in batches:
        shutil.rmtree(staging, ignore_errors=True)
        spark.read.parquet(f"{stream_path}/b={b}").coalesce(1).write.parquet(str(staging))
        [part] = [p for p in staging.iterdir() if p.name.startswith("part-") and p.name.endswith(".parquet")]
        target = source_dir / f"batch-{b:05d}.parquet"
        os.utime(part, (FIRST_MTIME + b, FIRST_MTIME + b))
        part.rename(target)
    shutil.rmtree(staging, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Part 2: doris.changes of one batch vs a full diff of the two snapshots, at N and N/10
# ---------------------------------------------------------------------------------------------


class FeedCase:
    """A table of ``rows`` rows and one doris.load of ``changed`` keys: the snapshots before and after."""

    def __init__(self, bench: Bench, rows: int, changed: int, tag: str):
        from iceberg_doris import doris

        spark = self.spark = bench.spark
        self.rows, self.tag = rows, tag
        self.table = bench.table(f"feed_{tag}")
        base_path, batch_path = bench.path(f"feed_{tag}_base"), bench.path(f"feed_{tag}_batch")
        base_frame(spark, rows).write.mode("overwrite").parquet(base_path)
        exact_batch(spark, rows, changed, seed=11).write.mode("overwrite").parquet(batch_path)
        doris.create_table(spark, ddl=f"CREATE TABLE {self.table} ({SCHEMA_SQL}) {UNIQUE_DDL}")
        doris.load(spark, table=self.table, source=spark.read.parquet(base_path))
        self.before = current_snapshot(spark, self.table)
        doris.load(spark, table=self.table, source=spark.read.parquet(batch_path))
        self.after = current_snapshot(spark, self.table)
        self.base, self.batch = spark.read.parquet(base_path), spark.read.parquet(batch_path)
        self.batch_rows = self.batch.count()

    def expected(self) -> "DataFrame":
        """The batch's changes from the input files alone: each batch key in the base is an update
        (its base row the pre-image, the batch's the post-image), each other an insert."""
        from pyspark.sql import functions as F

        keys = self.batch.select(KEY)
        pre = self.base.join(keys, KEY, "left_semi").withColumn(CHANGE_TYPE, F.lit("update_preimage"))
        present = self.base.select(KEY).withColumn("__present", F.lit(True))
        post = self.batch.join(present, KEY, "left").select(
            *COLUMNS, F.when(F.col("__present"), F.lit("update_postimage")).otherwise(F.lit("insert")).alias(CHANGE_TYPE)
        )
        return pre.select(*CHANGE_COLUMNS).unionByName(post)

    def feed(self) -> "DataFrame":
        from iceberg_doris import doris

        return doris.changes(self.spark, table=self.table, start_snapshot=self.before, end_snapshot=self.after)

    def diff(self) -> "DataFrame":
        return snapshot_diff(self.spark, self.table, self.before, self.after)


def exact_batch(spark: "SparkSession", rows: int, changed: int, seed: int) -> "DataFrame":
    """``changed`` distinct keys from [0, 1.1 * rows), ~91% of them existing (values as suite a's
    ``batch_frame``: every updated row differs), exactly as many at any table size: keys
    k = (j * A + seed) mod P, j < changed, for a prime P > 1.1 * rows (a permutation)."""
    from pyspark.sql import functions as F

    prime = _next_prime(int(rows * 1.1) + 1)
    multiplier = (2654435761 % prime) or 1
    k = (F.col("id") * multiplier + seed) % prime
    return spark.range(changed).select(k.alias("k")).select(
        F.col("k"),
        (F.col("k") * 31 + seed).alias("v1"),
        (F.col("k") / 7.0 + seed).alias("v2"),
        F.concat(F.lit(f"upd{seed}-"), F.col("k").cast("string")).alias("s"),
    )


def snapshot_diff(spark: "SparkSession", table: str, before: int, after: int) -> "DataFrame":
    """The changes between two snapshots by comparing them whole: both read by time travel, full
    outer join by key, each differing row out once as its pre-image and/or its post-image."""
    from pyspark.sql import functions as F

    old = spark.sql(f"SELECT * FROM {table} VERSION AS OF {int(before)}").select(F.col(KEY).alias("__k"), F.struct(*COLUMNS).alias("old"))
    new = spark.sql(f"SELECT * FROM {table} VERSION AS OF {int(after)}").select(F.col(KEY).alias("__k"), F.struct(*COLUMNS).alias("new"))
    joined = old.join(new, "__k", "full_outer").where(~F.col("old").eqNullSafe(F.col("new")))
    pre = F.when(F.col("old").isNotNull(), F.struct(
        *[F.col(f"old.{c}").alias(c) for c in COLUMNS],
        F.when(F.col("new").isNull(), F.lit("delete")).otherwise(F.lit("update_preimage")).alias(CHANGE_TYPE),
    ))
    post = F.when(F.col("new").isNotNull(), F.struct(
        *[F.col(f"new.{c}").alias(c) for c in COLUMNS],
        F.when(F.col("old").isNull(), F.lit("insert")).otherwise(F.lit("update_postimage")).alias(CHANGE_TYPE),
    ))
    return joined.select(F.explode(F.array(pre, post)).alias("c")).where(F.col("c").isNotNull()).select("c.*")


def _change_feed(bench: Bench, scale: int, result: SuiteResult, *, warmup: bool) -> None:
    spark = bench.spark
    changed = max(1, scale // 100)
    small = max(changed * 2, scale // 10)
    result.parameters.update({
        "changes: tables": f"{scale} rows (N) and {small} rows (N/10), UNIQUE KEY merge-on-write, v3",
        "changes: the batch": f"{changed} keys (1% of N) loaded by one doris.load into each: ~91% updates, ~9% new keys",
        "changes: consumed as": "count + sum(xxhash64(table columns, _change_type))",
        "changes: repetitions": f"{bench.reps} per contender and size, interleaved, order alternating",
    })
    cases = {"N": FeedCase(bench, scale, changed, "large"), "N/10": FeedCase(bench, small, changed, "small")}
    for case in cases.values():
        require_same(
            f"changes of one {case.batch_rows}-key batch into {case.rows} rows",
            digests({"expected": case.expected(), "doris.changes": case.feed(), "full diff": case.diff()}, CHANGE_COLUMNS, None),
            unique_keys=False,
        )
    contenders = [("doris.changes", "feed"), ("full diff of the snapshots", "diff")]
    times: dict[tuple[str, str], list[float]] = {(size, name): [] for size in cases for name, _ in contenders}

    def consume(frame: "DataFrame") -> tuple:
        from pyspark.sql import functions as F

        return tuple(frame.agg(F.count(F.lit(1)), F.sum(F.xxhash64(*[F.col(c) for c in CHANGE_COLUMNS]).cast("decimal(38,0)"))).collect()[0])

    if warmup:
        for case in cases.values():
            consume(case.feed())
            consume(case.diff())
    for rep in range(bench.reps):
        order = [(size, name, method) for size in cases for name, method in contenders]
        for size, name, method in order if rep % 2 == 0 else list(reversed(order)):
            case = cases[size]
            seconds, _ = timed(lambda: consume(getattr(case, method)()))
            times[(size, name)].append(seconds)
        bench.log(f"  [s] changes: repetition {rep + 1}/{bench.reps}")

    med = {key: median(values) for key, values in times.items()}
    feed_growth = med[("N", "doris.changes")] / med[("N/10", "doris.changes")]
    diff_growth = med[("N", "full diff of the snapshots")] / med[("N/10", "full diff of the snapshots")]
    diff_over_feed = med[("N", "full diff of the snapshots")] / med[("N", "doris.changes")]
    result.tables.append(ResultTable(
        f"Change feed of one {changed}-key batch: doris.changes vs a full diff of the two snapshots",
        ["table rows", "changed keys", "doris.changes", "full diff", "diff / doris.changes"],
        [
            [f"{case.rows} ({size})", case.batch_rows, fmt_seconds(med[(size, 'doris.changes')]),
             fmt_seconds(med[(size, 'full diff of the snapshots')]),
             fmt_ratio(med[(size, 'full diff of the snapshots')] / med[(size, 'doris.changes')])]
            for size, case in cases.items()
        ] + [["N vs N/10", "same", fmt_ratio(feed_growth), fmt_ratio(diff_growth), ""]],
    ))
    result.checks.append(
        "Changes: at both sizes doris.changes and the full diff gave exactly the changes computed from the base and batch files."
    )
    result.targets.append(Target("doris.changes of a 1% batch: at N within 1.5x of the same change at N/10 (grows with the change, not the table)", feed_growth, "<=", 1.5))
    result.targets.append(Target("doris.changes of a 1% batch vs a full diff of the two snapshots at N (diff / changes)", diff_over_feed, ">=", 5.0))
