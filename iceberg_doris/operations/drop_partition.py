"""``drop_partition``: drops a partition and its rows in one commit.

A formal partition's rows go with a metadata-only delete of its data files (the Iceberg spec
follows the Doris partitions), in the same commit as the partition's removal from the model, so
time travel to the snapshot before still reads them. Unless ``force`` (Doris's ``DROP PARTITION ...
FORCE``), the partition goes into the recycle bin (:mod:`.recycle_bin`): ``recover_partition``
brings it back. A temporary partition's branch is removed (not recoverable, as in Doris).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.operations import temp_partitions, unpartitioned_temp
from iceberg_doris.operations.partition_changes import commit_model_change, partitions_after, stage_formal_drop
from iceberg_doris.operations.requests import DropPartitionRequest, DropPartitionResult
from iceberg_doris.operations.tables import DorisTable, open_table
from iceberg_doris.partitioning import check_alter_allowed
from iceberg_doris.table_model import DorisTableModel

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DROP_OPERATION = "drop partition"


def drop_partition(spark: "SparkSession", table: str, request: DropPartitionRequest) -> DropPartitionResult:
    """Drops a partition (or temp partition) and its rows in one commit; returns how many records
    left main and the snapshot main is at afterwards."""
    handle = open_table(spark, table)
    name, temporary = request.partition, request.temporary

    def change(fresh: DorisTable, transaction: JavaObject) -> tuple[DorisTableModel, tuple[bool, int]]:
        if temporary and unpartitioned_temp.applies(fresh):
            stored = fresh.stored_partition_name(name, temporary=True)
            model = unpartitioned_temp.stage_drop(fresh, transaction, stored, if_exists=request.if_exists)
            return (fresh.model, (False, 0)) if model is None else (model, (True, 0))
        partitions = fresh.require_partitions()
        if not temporary:
            check_alter_allowed(fresh.model.dynamic_partition(), fresh.name.name)
        existing = partitions.get(name, temporary)
        updated = partitions.drop_partition(name, temporary=temporary, if_exists=request.if_exists)
        if existing is None:
            return fresh.model, (False, 0)
        stored = existing.name  # as the partition spells it: Doris looks names up case-insensitively
        deleted = 0
        if temporary:
            temp_partitions.stage_drop(transaction, stored)
        else:
            # The definition rides in the drop's snapshot: recover_partition reads it back from there.
            deleted = stage_formal_drop(
                fresh, transaction, partitions, [existing], operation=DROP_OPERATION, force=request.force
            )
        return partitions_after(fresh, updated), (True, deleted)

    committed = commit_model_change(handle, change, operation="drop partition of")
    dropped, deleted = committed.result
    return DropPartitionResult(name, temporary, dropped, committed.snapshot_id(), deleted)
