"""``doris.drop_temp_partition``: Doris ``ALTER TABLE t DROP TEMPORARY PARTITION [IF EXISTS]``.

The contract's short form of ``doris.drop_partition(..., temporary => true)``: removes the temp
partition's branch in one commit; formal rows are untouched.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.operations import DropPartitionRequest
from iceberg_doris.procedures.drop_partition import DropPartitionProcedure
from iceberg_doris.procedures.parameter_types import BOOLEAN, STRING
from iceberg_doris.procedures.registry import Arguments, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class DropTempPartitionProcedure(Procedure):
    name = "drop_temp_partition"
    summary = "Drops a temporary partition (its branch) in one commit; formal partitions are untouched."
    details = (
        "Same as drop_partition with temporary => true. An unknown name is an error unless if_exists => true. "
        "As in Doris, a dropped temp partition cannot be recovered with recover_partition."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("partition", STRING, required=True, description="Temp partition name."),
        Parameter("if_exists", BOOLEAN, default=False, description="No error when the temp partition does not exist."),
    )
    output = DropPartitionProcedure.output

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        request = DropPartitionRequest(args["partition"], temporary=True, if_exists=args["if_exists"])
        result = operations.drop_partition(spark, args["table"], request)
        return [(result.partition_name, result.is_temp, result.dropped, result.snapshot_id, result.deleted_rows)]
