"""``doris.add_temp_partition``: Doris ``ALTER TABLE t ADD TEMPORARY PARTITION``.

The contract's short form of ``doris.add_partition(..., temporary => true)``: the same operation,
the same rows. On an unpartitioned table it takes no values (Doris's ``ADD TEMPORARY PARTITION
name``) and the temp partition stages rows for the whole table.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.operations import AddPartitionRequest, PartitionValues
from iceberg_doris.procedures.add_partition import PARTITION_VALUE_PARAMETERS, AddPartitionProcedure
from iceberg_doris.procedures.parameter_types import PARTITION_NAME, STRING
from iceberg_doris.procedures.registry import Arguments, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class AddTempPartitionProcedure(Procedure):
    name = "add_temp_partition"
    summary = "Adds a temporary partition: an Iceberg branch doris_temp_<name> that loads can fill and swaps can move in."
    details = (
        "Same as add_partition with temporary => true. On a RANGE or LIST table give exactly one of "
        "values_less_than, values_range or values_in; temp partitions may overlap formal partitions but not "
        "each other (VALUES LESS THAN starts at the previous temp partition's upper bound). On an unpartitioned "
        "table give no values: the temp partition stages rows for the whole table, and "
        "swap_temp_partition / replace_partition with partitions => array('<table name>') replace all of it."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("partition", PARTITION_NAME, required=True, description="New temp partition name (letters, digits, '_', '-')."),
        *PARTITION_VALUE_PARAMETERS,
    )
    output = AddPartitionProcedure.output

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        values = PartitionValues(args["values_less_than"], args["values_range"], args["values_in"])
        result = operations.add_partition(spark, args["table"], AddPartitionRequest(args["partition"], values, temporary=True))
        return [(result.partition_name, result.range, result.is_temp, result.branch, result.partition_spec)]
