"""Suite (c): commit latency of swap_temp_partition / replace_partition / insert_overwrite on a small
and a 100x larger partitioned table.

Both tables are the same DUPLICATE KEY table, RANGE-partitioned by day (``dt``, 16 partitions of one
day each, Iceberg ``day`` transform), filled by 4 ``doris.load`` calls: the small one with N/100 rows,
the large one with N rows. Every operation replaces one day with the same fixed payload on both
tables (K = small rows / 16 rows), so what differs is only the size of the table (and of the
replaced partition):

- ``swap_temp_partition``: a temp partition of that day is added and loaded (not timed), then the
  swap is timed; the replaced rows, now in the temp partition, are checked and dropped (not timed);
- ``replace_partition``: the same with REPLACE PARTITION (the replaced rows are dropped);
- ``insert_overwrite(partitions => array('<day>'))``: timed as a whole; unlike the two others it
  also writes the payload's data files (a Spark job), so it is not a metadata-only operation.

After every operation, the day's rows must equal the payload's and the table's row count the
expected one; at the end each table's full digest must equal the expected rows (the base with every
replaced day replaced), so the three operations are checked to produce the same rows. Warm-up: one
operation of each kind per table before timing. Small and large runs alternate.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import TYPE_CHECKING, Any

from benchmarks.common import (
    Bench,
    ContendersDisagree,
    ResultTable,
    SparkJobs,
    SuiteResult,
    Target,
    digests,
    file_counts,
    fmt_ratio,
    fmt_seconds,
    median,
    profile_call,
    profile_text,
    require_same,
    timed,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

DAYS = 16
FIRST_DAY = dt.date(2024, 1, 1)
LOADS = 4
COLUMNS = ["dt", "id", "v", "s"]
KEY = None  # duplicate-key table: rows are compared whole, no key uniqueness to check
OPERATIONS = ("swap_temp_partition", "replace_partition", "insert_overwrite")
PAYLOAD_ID_BASE = 10**12


def day(index: int) -> dt.date:
    return FIRST_DAY + dt.timedelta(days=index)


def partition_name(index: int) -> str:
    return "p" + day(index).strftime("%Y%m%d")


def ddl(table: str) -> str:
    parts = ",\n".join(
        f'PARTITION {partition_name(i)} VALUES [("{day(i)}"), ("{day(i + 1)}"))' for i in range(DAYS)
    )
    return (
        f"CREATE TABLE {table} (dt DATE NOT NULL, id BIGINT NOT NULL, v BIGINT, s STRING) DUPLICATE KEY(dt, id)\n"
        f"PARTITION BY RANGE(dt) (\n{parts}\n) DISTRIBUTED BY HASH(id) BUCKETS AUTO"
    )


def base_sql(start: int, end: int) -> str:
    return (
        f"SELECT date_add(DATE'{FIRST_DAY}', CAST(id % {DAYS} AS INT)) AS dt, id, id * 3 AS v, "
        f"concat('row-', CAST(id AS STRING)) AS s FROM range({start}, {end})"
    )


def payload_sql(index: int, counter: int, rows: int) -> str:
    first_id = PAYLOAD_ID_BASE + counter * rows
    return (
        f"SELECT DATE'{day(index)}' AS dt, {first_id} + id AS id, id * 17 AS v, "
        f"concat('new{counter}-', CAST(id AS STRING)) AS s FROM range({rows})"
    )


class PartitionedTable:
    """One of the two tables, with what it should hold."""

    def __init__(self, bench: Bench, tag: str, rows: int, loads: int = LOADS):
        self.bench, self.tag, self.rows, self.loads = bench, tag, rows, loads
        self.name = bench.table(f"parts_{tag}")
        self.replaced: dict[int, str] = {}  # day index -> payload SQL now in that day
        self.day_rows = {i: len(range(i, rows, DAYS)) for i in range(DAYS)}

    def create(self) -> None:
        from iceberg_doris import doris

        spark = self.bench.spark
        doris.create_table(spark, ddl=ddl(self.name))
        step = -(-self.rows // self.loads)
        for start in range(0, self.rows, step):
            doris.load(spark, table=self.name, query=base_sql(start, min(self.rows, start + step)))

    @property
    def total_rows(self) -> int:
        return sum(self.day_rows.values())

    def expected_frame(self) -> "DataFrame":
        from pyspark.sql import functions as F

        spark = self.bench.spark
        frame = spark.sql(base_sql(0, self.rows))
        if self.replaced:
            frame = frame.filter(~F.col("dt").isin([day(i) for i in self.replaced]))
            for sql in self.replaced.values():
                frame = frame.unionByName(spark.sql(sql))
        return frame

    def metadata(self) -> dict[str, Any]:
        spark = self.bench.spark
        counts = file_counts(spark, self.name)
        manifests = spark.sql(f"SELECT count(*) FROM {self.name}.manifests").collect()[0][0]
        snapshots = spark.sql(f"SELECT count(*) FROM {self.name}.snapshots").collect()[0][0]
        size = spark.sql(f"SELECT coalesce(sum(file_size_in_bytes), 0) FROM {self.name}.files").collect()[0][0]
        return {**counts, "manifests": int(manifests), "snapshots": int(snapshots), "bytes": int(size)}


def prepare(table: PartitionedTable, operation: str, index: int, payload: str) -> str | None:
    """Untimed set-up: for swap/replace, a temp partition of the day loaded with the payload."""
    from iceberg_doris import doris

    if operation == "insert_overwrite":
        return None
    spark, temp = table.bench.spark, "t" + partition_name(index)
    doris.add_partition(spark, table=table.name, partition=temp, values_range=[str(day(index)), str(day(index + 1))], temporary=True)
    doris.load(spark, table=table.name, query=payload, temporary_partitions=[temp])
    return temp


def operate(table: PartitionedTable, operation: str, index: int, payload: str, temp: str | None) -> Any:
    """The timed part."""
    from iceberg_doris import doris

    spark = table.bench.spark
    formal = partition_name(index)
    if operation == "swap_temp_partition":
        return doris.swap_temp_partition(spark, table=table.name, partitions=[formal], temp_partitions=[temp])
    if operation == "replace_partition":
        return doris.replace_partition(spark, table=table.name, partitions=[formal], temp_partitions=[temp])
    return doris.insert_overwrite(spark, table=table.name, query=payload, partitions=[formal])


def verify_and_clean(table: PartitionedTable, operation: str, index: int, payload: str, temp: str | None, payload_rows: int) -> None:
    """The day holds the payload; a swap's temp partition holds the replaced rows (then it is dropped)."""
    from iceberg_doris import doris

    spark = table.bench.spark
    what = f"{operation} of {partition_name(index)} on the {table.tag} table"
    day_rows = spark.table(table.name).filter(f"dt = DATE'{day(index)}'")
    require_same(what, digests({"payload": spark.sql(payload), operation: day_rows}, COLUMNS, KEY))
    old_rows = table.day_rows[index]
    if operation == "swap_temp_partition":
        moved = spark.sql(f"SELECT count(*) FROM {table.name} VERSION AS OF 'doris_temp_{temp}'").collect()[0][0]
        if moved != old_rows:
            raise ContendersDisagree(f"{what}: the temp partition holds {moved} replaced rows, expected {old_rows}")
        doris.drop_partition(spark, table=table.name, partition=temp, temporary=True)
    table.day_rows[index] = payload_rows
    table.replaced[index] = payload  # the other days are checked by the full digest at the end


def run(bench: Bench, scale: int, *, reps: int | None = None, warmup: bool = True, loads: int = LOADS) -> SuiteResult:
    """Runs suite (c). ``warmup``: one untimed operation of each kind per table first; ``loads``:
    how many doris.load calls build each table."""
    spark = bench.spark
    started = time.perf_counter()
    reps = reps or max(bench.reps, 3)
    small_rows = max(DAYS * 10, scale // 100)
    large_rows = small_rows * 100
    payload_rows = max(1, small_rows // DAYS)
    if 3 * reps + 1 > DAYS:
        raise ValueError(f"at most {(DAYS - 1) // 3} repetitions (one day per operation and repetition)")
    result = SuiteResult("c", "Partition operations: commit latency, small vs 100x larger table", scale)
    result.parameters = {
        "small table rows": small_rows,
        "large table rows": large_rows,
        "layout": f"DUPLICATE KEY, RANGE(dt) with {DAYS} one-day partitions (Iceberg day transform), built by {loads} doris.load calls",
        "payload per operation": f"{payload_rows} rows into one day (the same on both tables)",
        "repetitions": f"median of {reps} per operation and table, small and large alternating, a different day each time",
    }
    tables = {"small": PartitionedTable(bench, "small", small_rows, loads), "large": PartitionedTable(bench, "large", large_rows, loads)}
    for table in tables.values():
        seconds, _ = timed(table.create)
        bench.log(f"  [c] {table.tag} table of {table.rows} rows built in {seconds:.1f} s")
    metadata_before = {tag: t.metadata() for tag, t in tables.items()}
    counter = 0
    # Warm-up on the last day: one of each operation per table.
    for operation in OPERATIONS if warmup else ():
        for table in tables.values():
            counter += 1
            payload = payload_sql(DAYS - 1, counter, payload_rows)
            temp = prepare(table, operation, DAYS - 1, payload)
            operate(table, operation, DAYS - 1, payload, temp)
            verify_and_clean(table, operation, DAYS - 1, payload, temp, payload_rows)
    times: dict[tuple[str, str], list[float]] = {}
    jobs: dict[tuple[str, str], int] = {}
    for rep in range(reps):
        for op_index, operation in enumerate(OPERATIONS):
            index = rep * len(OPERATIONS) + op_index
            order = ["small", "large"] if rep % 2 == 0 else ["large", "small"]
            for tag in order:
                table = tables[tag]
                counter += 1
                payload = payload_sql(index, counter, payload_rows)
                temp = prepare(table, operation, index, payload)
                with SparkJobs(spark, "partition-op") as recorder:
                    seconds, _ = timed(lambda: operate(table, operation, index, payload, temp))
                jobs[(operation, tag)] = recorder.count
                times.setdefault((operation, tag), []).append(seconds)
                verify_and_clean(table, operation, index, payload, temp, payload_rows)
                bench.log(f"  [c] rep {rep + 1} {operation} on {tag}: {fmt_seconds(seconds)}")
    if bench.profile:
        for tag in ("small", "large"):
            table = tables[tag]
            counter += 1
            index = DAYS - 1
            payload = payload_sql(index, counter, payload_rows)
            temp = prepare(table, "swap_temp_partition", index, payload)
            elapsed, _, stats, recorded = profile_call(spark, lambda: operate(table, "swap_temp_partition", index, payload, temp))
            verify_and_clean(table, "swap_temp_partition", index, payload, temp, payload_rows)
            result.profiles.append((f"swap_temp_partition on the {tag} table", profile_text(stats, elapsed, recorded)))
    for tag, table in tables.items():
        expected = require_same(
            f"{tag} table after every operation",
            digests({"expected": table.expected_frame(), "table": spark.table(table.name)}, COLUMNS, KEY),
        )
        result.checks.append(
            f"{tag} table: after each swap / replace / insert_overwrite the day held exactly the payload (and after a swap "
            f"the temp partition the replaced rows); at the end the whole table equalled the expected rows ({expected})."
        )
    rows_out = []
    for operation in OPERATIONS:
        small, large = median(times[(operation, "small")]), median(times[(operation, "large")])
        rows_out.append([
            operation, fmt_seconds(small), fmt_seconds(large), fmt_ratio(large / small),
            " / ".join(fmt_seconds(t) for t in times[(operation, "small")]),
            " / ".join(fmt_seconds(t) for t in times[(operation, "large")]),
            f"{jobs[(operation, 'small')]} / {jobs[(operation, 'large')]}",
        ])
        result.targets.append(Target(f"{operation}: latency on the 100x table within 1.1x of the small one", large / small, "<=", 1.1))
    result.tables.append(ResultTable(
        "Commit latency (median)",
        ["operation", "small", "100x", "100x / small", "small, all", "100x, all", "Spark jobs (small / 100x)"],
        rows_out,
    ))
    if metadata_before["small"]["data_files"] == metadata_before["large"]["data_files"]:
        result.notes.append(
            "Both tables have the same number of data files and manifests (each load writes one file per day): "
            "the 100x table differs in rows and bytes, which is what these metadata-only commits should not depend on."
        )
    result.tables.append(ResultTable(
        "The two tables before the operations",
        ["table", "rows", "data files", "delete files", "manifests", "snapshots", "data bytes"],
        [[tag, tables[tag].rows, m["data_files"], m["delete_files"], m["manifests"], m["snapshots"], m["bytes"]]
         for tag, m in metadata_before.items()],
    ))
    result.seconds = time.perf_counter() - started
    return result
