"""``doris.show_partitions``: Doris SHOW [TEMPORARY] PARTITIONS, from Iceberg metadata only."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris.engine.partition_stats import PartitionStats, snapshot_totals, stats_by_partition_key
from iceberg_doris.partitioning import coerce_value
from iceberg_doris.procedures.parameter_types import BOOLEAN, STRING
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register
from iceberg_doris.procedures.table_access import DorisTable, open_table
from iceberg_doris.procedures.temp_partitions import branch_name

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

UNPARTITIONED_ROWS = "(rows outside every partition)"


@register
class ShowPartitionsProcedure(Procedure):
    name = "show_partitions"
    summary = "One row per partition (or temp partition) with its range and row/file counts and sizes."
    details = (
        "Counts come from Iceberg metadata (manifests and snapshot summaries); no data file is read. "
        "row_count is records minus deleted records. An unpartitioned table shows one partition named "
        "after the table. Rows that fit no Doris partition (written by another engine) show as "
        f"'{UNPARTITIONED_ROWS}'."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("temporary", BOOLEAN, default=False, description="Show temporary partitions instead."),
    )
    output = (
        OutputColumn("partition_name", "string"),
        OutputColumn("partition_key", "string", "The partition columns."),
        OutputColumn("range", "string", "Doris-style range or list text."),
        OutputColumn("row_count", "bigint", "Rows a reader sees."),
        OutputColumn("data_files", "bigint"),
        OutputColumn("delete_files", "bigint", "Deletion vectors and position-delete files."),
        OutputColumn("data_size", "bigint", "Bytes of data and delete files."),
        OutputColumn("visible_snapshot_id", "bigint", "Last snapshot that changed the partition."),
        OutputColumn("visible_time", "timestamp"),
        OutputColumn("is_temp", "boolean"),
        OutputColumn("branch", "string", "The Iceberg branch holding a temp partition."),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        handle = open_table(spark, args["table"])
        if args["temporary"]:
            return temp_partition_rows(handle)
        return formal_partition_rows(handle)


def formal_partition_rows(handle: DorisTable) -> list[tuple[Any, ...]]:
    partitions = handle.model.partitions
    if partitions is None:
        totals = snapshot_totals(handle.table.currentSnapshot())
        return [_row(handle.name.name, None, None, totals, False, None)]
    route = partitions.router()
    types = partitions.column_types
    per_partition = {p.name: PartitionStats() for p in partitions.formal}
    stray = PartitionStats()
    for key, stats in stats_by_partition_key(handle.iceberg, handle.table, handle.name, partitions.column_names):
        typed = tuple(coerce_value(v, t) for v, t in zip(key, types))
        target = route(typed)
        (per_partition[target] if target in per_partition else stray).add(stats)
    rows = [
        _row(p.name, partitions.partition_key, p.range_text(), per_partition[p.name], False, None)
        for p in partitions.sorted_partitions()
    ]
    if stray.data_files:
        rows.append(_row(UNPARTITIONED_ROWS, partitions.partition_key, None, stray, False, None))
    return rows


def temp_partition_rows(handle: DorisTable) -> list[tuple[Any, ...]]:
    partitions = handle.model.partitions
    if partitions is None:
        return []
    refs = handle.table.refs()
    rows = []
    for partition in partitions.sorted_partitions(temporary=True):
        branch = branch_name(partition.name)
        ref = refs.get(branch)
        snapshot = handle.table.snapshot(ref.snapshotId()) if ref is not None else None
        totals = snapshot_totals(snapshot)
        rows.append(_row(partition.name, partitions.partition_key, partition.range_text(), totals, True, branch))
    return rows


def _row(name: str, key: str | None, text: str | None, stats: PartitionStats, is_temp: bool, branch: str | None) -> tuple[Any, ...]:
    return (
        name,
        key,
        text,
        stats.row_count,
        stats.data_files,
        stats.delete_files,
        stats.data_size,
        stats.snapshot_id,
        stats.updated_at,
        is_temp,
        branch,
    )
