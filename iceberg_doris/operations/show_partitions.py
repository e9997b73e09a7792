"""``show_partitions``: Doris SHOW [TEMPORARY] PARTITIONS, from Iceberg metadata only (read only)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from iceberg_doris.engine.file_sets import ref_head
from iceberg_doris.engine.partition_stats import PartitionStats, snapshot_totals, stats_by_partition_key
from iceberg_doris.operations.tables import DorisTable, open_table
from iceberg_doris.operations.temp_partitions import branch_name
from iceberg_doris.partitioning import coerce_value

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

UNPARTITIONED_ROWS = "(rows outside every partition)"


def show_partitions(spark: "SparkSession", table: str, *, temporary: bool = False) -> list[tuple[Any, ...]]:
    """One row per partition (or temp partition): name, key, range, rows, files, sizes, last
    snapshot, whether temporary and its branch."""
    handle = open_table(spark, table)
    return temp_partition_rows(handle) if temporary else formal_partition_rows(handle)


def formal_partition_rows(handle: DorisTable) -> list[tuple[Any, ...]]:
    partitions = handle.model.partitions
    if partitions is None:
        totals = snapshot_totals(ref_head(handle.table, None))
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
        return [
            _row(name, None, None, snapshot_totals(ref_head(handle.table, branch_name(name))), True, branch_name(name))
            for name in sorted(handle.model.unpartitioned_temp)
        ]
    rows = []
    for partition in partitions.sorted_partitions(temporary=True):
        branch = branch_name(partition.name)
        totals = snapshot_totals(ref_head(handle.table, branch))
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
