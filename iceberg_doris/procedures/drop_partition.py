"""``doris.drop_partition``: drops a partition and its rows in one commit.

A formal partition's rows go with a metadata-only delete of its data files (the Iceberg spec
follows the Doris partitions), in the same commit as the partition's removal from the model, so
time travel to the snapshot before still reads them. A temporary partition's branch is removed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.operations import DropPartitionRequest
from iceberg_doris.procedures.parameter_types import BOOLEAN, STRING
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class DropPartitionProcedure(Procedure):
    name = "drop_partition"
    summary = "Drops a partition (or temp partition) and its rows in one commit; time travel still sees them."
    details = (
        "Refused on tables with dynamic_partition.enable=true (as Doris). An unknown name is an error unless "
        "if_exists => true. Dropping a formal partition removes its data files without rewriting any file and puts "
        "it into the recycle bin (recover_partition brings it back) unless force => true (Doris: DROP PARTITION "
        "... FORCE)."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("partition", STRING, required=True, description="Partition name."),
        Parameter("temporary", BOOLEAN, default=False, description="Drop a temporary partition."),
        Parameter("if_exists", BOOLEAN, default=False, description="No error when the partition does not exist."),
        Parameter("force", BOOLEAN, default=False, description="Skip the recycle bin: the partition cannot be recovered."),
    )
    output = (
        OutputColumn("partition_name", "string"),
        OutputColumn("is_temp", "boolean"),
        OutputColumn("dropped", "boolean", "False when if_exists found nothing to drop."),
        OutputColumn("snapshot_id", "bigint", "The table's snapshot after the drop (main)."),
        OutputColumn("deleted_rows", "bigint", "Records of the data files removed from main."),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        request = DropPartitionRequest(
            args["partition"], temporary=args["temporary"], if_exists=args["if_exists"], force=args["force"]
        )
        result = operations.drop_partition(spark, args["table"], request)
        return [(result.partition_name, result.is_temp, result.dropped, result.snapshot_id, result.deleted_rows)]
