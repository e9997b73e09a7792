"""Suite (f): the CDC stream of suite (b) with automatic compaction running beside the loads.

Two UNIQUE KEY tables get the same base rows and the same stream of MERGE batches (suite b's
``stream_frame``): one without compaction, one with a background thread of the same session running
automatic compaction passes (``doris.auto_compact``, the table's default
``doris.compaction.*`` policy) back to back, a pause of ``PASS_PAUSE_SECONDS`` between passes, for
as long as the stream runs. The scheduler of a deployment (``iceberg-doris --compact-every``) runs
in its own process, ideally on its own cores; here both share the session's executors, so the
latency ratio is an upper bound of the interference.

Reported: per-batch latency p50/p95 of both tables and their ratio; loads that failed, and loads
that looked their keys up a second time (``doris.lookups`` = 2: the only other writer is the
compaction, so each is a retry caused by it) and loads that converted their deletes through a
compaction's rowid mapping instead (``doris.past-compactions``); compaction passes, commits, rows carried over; the
full scan of the compacted-as-it-goes table as the stream left it vs the same table freshly
compacted (``doris.compact``), and the plain table's for reference. Then ``doris.compact``
against Iceberg's ``rewrite_data_files`` on copies of the table the stream left without compaction
(:mod:`benchmarks.compaction_throughput`): rows/s and their ratio.

Checked: both tables hold exactly the expected rows after the stream, and again after the final
``doris.compact``.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from benchmarks import compaction_throughput
from benchmarks.common import (
    Bench,
    ContendersDisagree,
    ResultTable,
    SuiteResult,
    Target,
    current_snapshot,
    digest,
    digests,
    file_counts,
    fmt_ratio,
    fmt_seconds,
    median,
    percentile,
    require_same,
    timed,
)
from benchmarks.suite_cdc import BATCHES, DELETE_ON, batch_bounds, expected_rows, scan, scan_reps, stream_frame
from benchmarks.suite_upsert import COLUMNS, KEY, SCHEMA_SQL, base_frame

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

PASS_PAUSE_SECONDS = 1.0


class CompactionLoop:
    """Automatic compaction passes over one table in a background thread until stopped."""

    def __init__(self, spark: "SparkSession", table: str):
        self.spark, self.table = spark, table
        self.passes = self.commits = 0
        self.errors: list[str] = []
        self.pass_seconds: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="auto-compaction", daemon=True)

    def __enter__(self) -> "CompactionLoop":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        from iceberg_doris import doris

        while not self._stop.is_set():
            started = time.perf_counter()
            try:
                [done] = doris.auto_compact(self.spark, table=self.table)
                self.commits += done.snapshot_id is not None
            except Exception as error:  # noqa: BLE001 - counted and reported
                self.errors.append(f"{type(error).__name__}: {error}".splitlines()[0])
            self.passes += 1
            self.pass_seconds.append(time.perf_counter() - started)
            self._stop.wait(PASS_PAUSE_SECONDS)


def run(bench: Bench, scale: int, *, batches: int = BATCHES, warmup: bool = True) -> SuiteResult:
    from iceberg_doris import doris

    spark = bench.spark
    started = time.perf_counter()
    low, high = batch_bounds(scale)
    result = SuiteResult("f", "CDC stream with automatic compaction beside the loads", scale)
    result.parameters = {
        "base rows (N)": scale,
        "batches": f"{batches} per table",
        "rows per batch": f"{low}-{high} (uniform), distinct keys, ~10% deletes, ~9% new keys (suite b's stream)",
        "compaction": f"doris.auto_compact passes in a background thread of the same session, {PASS_PAUSE_SECONDS:g} s apart, default policy",
    }
    base_path, stream_path = bench.path("cdcc_base"), bench.path("cdcc_stream")
    base_frame(spark, scale).write.mode("overwrite").parquet(base_path)
    stream, sizes = stream_frame(spark, scale, batches + 1)
    stream.write.mode("overwrite").partitionBy("b").parquet(stream_path)
    tables = {"plain": bench.table("cdc_plain"), "auto": bench.table("cdc_auto")}
    for table in tables.values():
        doris.create_table(
            spark,
            ddl=f"CREATE TABLE {table} ({SCHEMA_SQL}) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS AUTO "
            'PROPERTIES ("enable_unique_key_merge_on_write" = "true")',
        )
        doris.load(spark, table=table, source=spark.read.parquet(base_path))

    def load_batch(table: str, b: int) -> object:
        source = spark.read.parquet(f"{stream_path}/b={b}")
        return doris.load(spark, table=table, source=source, columns="k, v1, v2, s, op", merge_type="MERGE", delete_on=DELETE_ON)

    if warmup:
        for table in tables.values():
            load_batch(table, 0)
    loaded = [0] if warmup else []
    latencies: dict[str, list[float]] = {"plain": [], "auto": []}
    failed: dict[str, list[str]] = {"plain": [], "auto": []}

    def stream_into(kind: str) -> None:
        for b in range(1, batches + 1):
            try:
                seconds, _ = timed(lambda: load_batch(tables[kind], b))
                latencies[kind].append(seconds)
            except Exception as error:  # noqa: BLE001 - a failed load is the result, not a crash
                failed[kind].append(f"batch {b}: {type(error).__name__}: {error}".splitlines()[0])
            if b % 10 == 0 or b == batches:
                bench.log(f"  [f] {kind}: batch {b}/{batches}")

    stream_into("plain")
    with CompactionLoop(spark, tables["auto"]) as loop:
        stream_into("auto")
    loaded += list(range(1, batches + 1))
    if failed["plain"] or failed["auto"]:
        raise ContendersDisagree(f"loads failed: {failed}")

    expected = require_same(
        f"CDC stream of {len(loaded)} batches, with and without automatic compaction",
        digests({
            "expected": expected_rows(spark.read.parquet(base_path), spark.read.parquet(stream_path), loaded),
            "without compaction": spark.table(tables["plain"]),
            "with automatic compaction": spark.table(tables["auto"]),
        }, COLUMNS, KEY),
    )
    second_lookups = spark.sql(
        f"SELECT count(*) FROM {tables['auto']}.snapshots WHERE summary['doris.lookups'] = '2'"
    ).collect()[0][0]
    converted = spark.sql(
        f"SELECT count(*) FROM {tables['auto']}.snapshots WHERE summary['doris.past-compactions'] IS NOT NULL"
    ).collect()[0][0]
    carried = spark.sql(
        f"SELECT coalesce(sum(cast(summary['doris.carried-deletes'] AS BIGINT)), 0) FROM {tables['auto']}.snapshots "
        "WHERE summary['doris.operation'] = 'compact'"
    ).collect()[0][0]
    files_auto, files_plain = file_counts(spark, tables["auto"]), file_counts(spark, tables["plain"])
    stream_snapshot = current_snapshot(spark, tables["auto"])
    compact_seconds, _ = timed(lambda: doris.compact(spark, table=tables["auto"]))
    after_compact = digest(spark.table(tables["auto"]), COLUMNS, KEY)
    require_same("CDC stream with automatic compaction, compacted once more", {"expected": expected, "after doris.compact": after_compact})
    files_compacted = file_counts(spark, tables["auto"])
    scans: dict[str, list[float]] = {"auto": [], "compacted": [], "plain": []}
    states = [("auto", tables["auto"], stream_snapshot), ("compacted", tables["auto"], None), ("plain", tables["plain"], None)]
    if warmup:
        for _, table, snapshot in states:
            scan(spark, table, snapshot)
    for rep in range(scan_reps(bench)):
        for kind, table, snapshot in states if rep % 2 == 0 else list(reversed(states)):
            seconds, (rows, checksum) = timed(lambda: scan(spark, table, snapshot))
            if rows != expected.rows or checksum != expected.checksum:
                raise ContendersDisagree(f"scan of {table} ({kind}) saw {rows} rows / {checksum}, expected {expected}")
            scans[kind].append(seconds)

    throughput, throughput_ratio = compaction_throughput.compare(bench, tables["plain"], expected, COLUMNS, KEY)

    p95 = {kind: percentile(values, 95) for kind, values in latencies.items()}
    result.tables.append(ResultTable(
        "Per-batch latency (doris.load MERGE)",
        ["table", "p50", "p95", "max", "vs without compaction (p95)"],
        [
            ["without compaction", fmt_seconds(percentile(latencies["plain"], 50)), fmt_seconds(p95["plain"]), fmt_seconds(max(latencies["plain"])), "1.00x"],
            ["with automatic compaction", fmt_seconds(percentile(latencies["auto"], 50)), fmt_seconds(p95["auto"]), fmt_seconds(max(latencies["auto"])),
             fmt_ratio(p95["auto"] / p95["plain"])],
        ],
    ))
    result.tables.append(ResultTable(
        "Loads and compaction side by side",
        ["loads", "failed", "looked up twice (retried because of a compaction)", "compaction passes", "commits", "errors", "rows carried over", "pass (median)", "loads converted past a compaction"],
        [[batches, len(failed["auto"]), second_lookups, loop.passes, loop.commits, len(loop.errors), carried,
          fmt_seconds(median(loop.pass_seconds)) if loop.pass_seconds else "-", converted]],
    ))
    scan_auto = median(scans["auto"]) / median(scans["compacted"])
    result.tables.append(ResultTable(
        "Full scan after the stream vs freshly compacted",
        ["table state", "data files", "delete files", "scan (median)", "vs compacted"],
        [
            ["with automatic compaction, as the stream left it", files_auto["data_files"], files_auto["delete_files"], fmt_seconds(median(scans["auto"])), fmt_ratio(scan_auto)],
            ["the same, after doris.compact", files_compacted["data_files"], files_compacted["delete_files"], fmt_seconds(median(scans["compacted"])), "1.00x"],
            ["without compaction", files_plain["data_files"], files_plain["delete_files"], fmt_seconds(median(scans["plain"])),
             fmt_ratio(median(scans["plain"]) / median(scans["compacted"]))],
        ],
    ))
    result.tables.append(throughput)
    if loop.errors:
        result.notes.append("Compaction pass errors: " + "; ".join(sorted(set(loop.errors))[:5]))
    result.notes.append(f"The final doris.compact took {fmt_seconds(compact_seconds)}.")
    result.checks.append(f"Both tables held exactly the expected rows after the stream ({expected}), and again after doris.compact.")
    result.targets.append(Target("CDC + compaction: p95 load latency within 1.2x of the stream without compaction", p95["auto"] / p95["plain"], "<=", 1.2))
    result.targets.append(Target("CDC + compaction: loads failed or retried because of compaction", float(len(failed["auto"]) + second_lookups), "<=", 0, kind="count"))
    result.targets.append(Target("CDC + compaction: full scan after the stream within 1.10x of freshly compacted", scan_auto, "<=", 1.10))
    result.targets.append(Target("Compaction throughput (rows/s) vs Spark's rewrite_data_files on the same files", throughput_ratio, ">=", 1.0))
    result.seconds = time.perf_counter() - started
    return result
