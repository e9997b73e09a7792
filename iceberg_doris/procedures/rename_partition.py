"""``doris.rename_partition``: Doris ``ALTER TABLE t RENAME PARTITION p new_p``; see
:mod:`iceberg_doris.operations.rename_partition`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.operations import RenamePartitionRequest
from iceberg_doris.procedures.parameter_types import PARTITION_NAME, STRING
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class RenamePartitionProcedure(Procedure):
    name = "rename_partition"
    summary = "Renames a formal partition in one metadata commit; no data file changes."
    details = (
        "Doris RENAME PARTITION. The new name must be unused by formal and temp partitions. Refused on "
        "unpartitioned tables; temp partitions cannot be renamed."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("partition", STRING, required=True, description="Current partition name."),
        Parameter("new_name", PARTITION_NAME, required=True, description="New name (letters, digits, '_', '-')."),
    )
    output = (
        OutputColumn("partition_name", "string", "The old name."),
        OutputColumn("new_name", "string"),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        r = operations.rename_partition(spark, args["table"], RenamePartitionRequest(args["partition"], args["new_name"]))
        return [(r.partition_name, r.new_name)]
