"""``doris.drop_partition``: drops a partition and its rows in one commit.

A formal partition's rows go with a metadata-only delete of its data files (the Iceberg spec
follows the Doris partitions), in the same commit as the partition's removal from the model, so
time travel to the snapshot before still reads them. A temporary partition's branch is removed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.partitioning import check_alter_allowed
from iceberg_doris.procedures import temp_partitions
from iceberg_doris.procedures.parameter_types import BOOLEAN, STRING
from iceberg_doris.procedures.partition_changes import commit_model_change, partitions_after, stage_partition_delete
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register
from iceberg_doris.procedures.table_access import DorisTable, open_table
from iceberg_doris.table_model import DorisTableModel
from iceberg_doris.table_model.partition_predicates import partition_predicate

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class DropPartitionProcedure(Procedure):
    name = "drop_partition"
    summary = "Drops a partition (or temp partition) and its rows in one commit; time travel still sees them."
    details = (
        "Refused on tables with dynamic_partition.enable=true (as Doris). An unknown name is an error unless "
        "if_exists => true. Dropping a formal partition removes its data files without rewriting any file."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("partition", STRING, required=True, description="Partition name."),
        Parameter("temporary", BOOLEAN, default=False, description="Drop a temporary partition."),
        Parameter("if_exists", BOOLEAN, default=False, description="No error when the partition does not exist."),
    )
    output = (
        OutputColumn("partition_name", "string"),
        OutputColumn("is_temp", "boolean"),
        OutputColumn("dropped", "boolean", "False when if_exists found nothing to drop."),
        OutputColumn("snapshot_id", "bigint", "The table's snapshot after the drop (main)."),
        OutputColumn("deleted_rows", "bigint", "Records of the data files removed from main."),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        handle = open_table(spark, args["table"])
        name, temporary = args["partition"], args["temporary"]

        def change(fresh: DorisTable, transaction: JavaObject) -> tuple[DorisTableModel, bool]:
            partitions = fresh.require_partitions()
            if not temporary:
                check_alter_allowed(fresh.model.dynamic_partition(), fresh.name.name)
            existing = partitions.get(name, temporary)
            updated = partitions.drop_partition(name, temporary=temporary, if_exists=args["if_exists"])
            if existing is None:
                return fresh.model, False
            if temporary:
                temp_partitions.stage_drop(fresh, transaction, name)
            else:
                predicate = partition_predicate(partitions, existing)
                stage_partition_delete(fresh, transaction, predicate, operation="drop partition", partitions=name)
            return partitions_after(fresh, updated), True

        before = handle.table.currentSnapshot()
        dropped = commit_model_change(handle, change, operation="drop partition of")
        after = open_table(spark, args["table"]).table.currentSnapshot()
        deleted = 0
        if after is not None and (before is None or after.snapshotId() != before.snapshotId()):
            deleted = int(after.summary().get("deleted-records") or 0)
        return [(name, temporary, dropped, after.snapshotId() if after is not None else None, deleted)]
