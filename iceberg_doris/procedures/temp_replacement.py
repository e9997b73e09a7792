"""What ``doris.swap_temp_partition`` and ``doris.replace_partition`` share: their parameters,
their output and their binding into a :class:`~iceberg_doris.operations.PartitionReplacementRequest`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from iceberg_doris.operations import MovedPartition, PartitionReplacementRequest
from iceberg_doris.procedures.parameter_types import BOOLEAN, STRING, STRING_ARRAY
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

PARAMETERS = (
    Parameter("table", STRING, required=True, description="db.tbl"),
    Parameter("partitions", STRING_ARRAY, required=True, description="Formal partitions to replace."),
    Parameter("temp_partitions", STRING_ARRAY, required=True, description="Temp partitions that replace them."),
    Parameter("strict_range", BOOLEAN, default=True, description="Ranges (or lists) must match exactly."),
    Parameter(
        "use_temp_partition_name",
        BOOLEAN,
        default=False,
        description="Keep the temp names (else, for lists of equal length, take the formal names by position).",
    ),
)
OUTPUT = (
    OutputColumn("partition_name", "string", "A formal partition after the operation."),
    OutputColumn("from_temp_partition", "string", "The temp partition whose rows it now holds."),
    OutputColumn("row_count", "bigint", "Rows moved in (records minus deleted records)."),
    OutputColumn("data_files", "bigint", "Data files moved, not rewritten."),
    OutputColumn("delete_files", "bigint", "Deletion vectors / position deletes moved with them."),
    OutputColumn("replaced_by_temp", "string", "Swap only: the temp partition now holding the replaced rows."),
    OutputColumn("snapshot_id", "bigint", "The snapshot on main."),
)


class TempReplacementProcedure(Procedure):
    """Shared by doris.swap_temp_partition and doris.replace_partition: ``operation`` is which."""

    operation: ClassVar[Callable[["SparkSession", str, PartitionReplacementRequest], list[MovedPartition]]]
    parameters = PARAMETERS
    output = OUTPUT

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        request = PartitionReplacementRequest(
            tuple(args["partitions"]),
            tuple(args["temp_partitions"]),
            strict_range=args["strict_range"],
            use_temp_partition_name=args["use_temp_partition_name"],
        )
        moved = type(self).operation(spark, args["table"], request)
        return [
            (m.partition_name, m.from_temp_partition, m.row_count, m.data_files, m.delete_files, m.replaced_by_temp, m.snapshot_id)
            for m in moved
        ]
