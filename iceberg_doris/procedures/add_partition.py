"""``doris.add_partition``: Doris ``ALTER TABLE t ADD [TEMPORARY] PARTITION``.

A formal partition is a change to the table's Doris partitions (a property) and, when its bounds
need a finer Iceberg transform, an evolution of the partition spec, in one commit. A temporary
partition is also an Iceberg branch (see :mod:`iceberg_doris.operations.temp_partitions`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.operations import AddPartitionRequest, PartitionValues
from iceberg_doris.procedures.parameter_types import BOOLEAN, LIST_VALUE, PARTITION_NAME, STRING, VALUE, VALUE_ARRAY, ArrayType, OneOf
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

BOUND = OneOf(VALUE, VALUE_ARRAY)
RANGE_BOUNDS = OneOf(ArrayType(VALUE, accept_scalar=False), ArrayType(ArrayType(VALUE), accept_scalar=False))
LIST_VALUES = OneOf(ArrayType(LIST_VALUE, accept_scalar=True), ArrayType(ArrayType(LIST_VALUE), accept_scalar=False))

PARTITION_VALUE_PARAMETERS = (
    Parameter("values_less_than", BOUND, description="Upper bound: a value, an array (multi-column) or 'MAXVALUE'."),
    Parameter("values_range", RANGE_BOUNDS, description="array(lower, upper) meaning [lower, upper); arrays for multi-column."),
    Parameter("values_in", LIST_VALUES, description="LIST values: array('a', 'b'), or array(array(1, 'x'), ...) for multi-column; NULL holds the rows whose column is NULL."),
)


@register
class AddPartitionProcedure(Procedure):
    name = "add_partition"
    summary = "Adds a RANGE or LIST partition (or a temporary partition) to a partitioned table."
    details = (
        "Give exactly one of values_less_than, values_range or values_in. Overlapping ranges or lists are "
        "refused naming the conflicting partition. Refused on tables with dynamic_partition.enable=true "
        "(as Doris). temporary => true adds a temp partition: an Iceberg branch named doris_temp_<name>."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("partition", PARTITION_NAME, required=True, description="New partition name (letters, digits, '_', '-')."),
        *PARTITION_VALUE_PARAMETERS,
        Parameter("temporary", BOOLEAN, default=False, description="Add a temporary partition."),
    )
    output = (
        OutputColumn("partition_name", "string"),
        OutputColumn("range", "string", "Doris-style range or list text."),
        OutputColumn("is_temp", "boolean"),
        OutputColumn("branch", "string", "The Iceberg branch of a temp partition, NULL otherwise."),
        OutputColumn("partition_spec", "string", "The table's Iceberg partition fields afterwards."),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        values = PartitionValues(args["values_less_than"], args["values_range"], args["values_in"])
        request = AddPartitionRequest(args["partition"], values, temporary=args["temporary"])
        result = operations.add_partition(spark, args["table"], request)
        return [(result.partition_name, result.range, result.is_temp, result.branch, result.partition_spec)]
