"""``rename_partition``: Doris ``ALTER TABLE t RENAME PARTITION p new_p``.

A formal partition's name lives only in the Doris model (the Iceberg spec partitions by values,
not names), so a rename is one metadata commit and no file changes. Temp partitions keep their
names (their branches are named after them), as Doris renames formal partitions only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.errors import PartitionError
from iceberg_doris.operations.partition_changes import commit_model_change
from iceberg_doris.operations.requests import RenamePartitionRequest, RenamePartitionResult
from iceberg_doris.operations.tables import DorisTable, open_table
from iceberg_doris.partitioning import check_partition_name
from iceberg_doris.table_model import DorisTableModel

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def rename_partition(spark: "SparkSession", table: str, request: RenamePartitionRequest) -> RenamePartitionResult:
    """Renames a formal partition in one commit (Doris's rules and messages)."""
    handle = open_table(spark, table)
    partition, new_name = request.partition, request.new_name
    check_partition_name(new_name)

    def change(fresh: DorisTable, transaction: JavaObject) -> tuple[DorisTableModel, str]:
        partitions = fresh.model.partitions
        if partitions is None:
            raise PartitionError(f"Table[{fresh.name.name}] is single partitioned. no need to rename partition name.")
        if partition.lower() == new_name.lower():
            raise PartitionError("Same partition name")
        if partitions.get(partition) is None:
            raise PartitionError(
                f"Partition[{partition}] does not exists: doris.show_partitions lists the table's partitions "
                "(temporary partitions cannot be renamed)"
            )
        if partitions.has(new_name):
            raise PartitionError(f"Partition name[{new_name}] is already used")
        return fresh.model.with_partitions(partitions.rename_partition(partition, new_name)), partitions.stored_name(partition)

    committed = commit_model_change(handle, change, operation="rename partition of")
    return RenamePartitionResult(committed.result, new_name)
