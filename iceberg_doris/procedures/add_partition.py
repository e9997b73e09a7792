"""``doris.add_partition``: Doris ``ALTER TABLE t ADD [TEMPORARY] PARTITION``.

A formal partition is a change to the table's Doris partitions (a property) and, when its bounds
need a finer Iceberg transform, an evolution of the partition spec, in one commit. A temporary
partition is also an Iceberg branch (see :mod:`iceberg_doris.procedures.temp_partitions`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.partitioning import check_alter_allowed
from iceberg_doris.procedures import temp_partitions
from iceberg_doris.procedures.parameter_types import BOOLEAN, PARTITION_NAME, STRING, VALUE, VALUE_ARRAY, ArrayType, OneOf
from iceberg_doris.procedures.partition_changes import commit_model_change, partitions_after
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register
from iceberg_doris.procedures.table_access import DorisTable, open_table
from iceberg_doris.table_model import DorisTableModel

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

BOUND = OneOf(VALUE, VALUE_ARRAY)
RANGE_BOUNDS = OneOf(ArrayType(VALUE, accept_scalar=False), ArrayType(ArrayType(VALUE), accept_scalar=False))
LIST_VALUES = OneOf(ArrayType(VALUE, accept_scalar=True), ArrayType(ArrayType(VALUE), accept_scalar=False))

PARTITION_VALUE_PARAMETERS = (
    Parameter("values_less_than", BOUND, description="Upper bound: a value, an array (multi-column) or 'MAXVALUE'."),
    Parameter("values_range", RANGE_BOUNDS, description="array(lower, upper) meaning [lower, upper); arrays for multi-column."),
    Parameter("values_in", LIST_VALUES, description="LIST values: array('a', 'b'), or array(array(1, 'x'), ...) for multi-column."),
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
        handle = open_table(spark, args["table"])
        name, temporary = args["partition"], args["temporary"]

        def change(fresh: DorisTable, transaction: JavaObject) -> tuple[DorisTableModel, tuple[Any, ...]]:
            partitions = fresh.require_partitions()
            if not temporary:
                check_alter_allowed(fresh.model.dynamic_partition(), fresh.name.name)
            updated = partitions.add_partition(
                name,
                values_less_than=args["values_less_than"],
                values_range=args["values_range"],
                values_in=args["values_in"],
                temporary=temporary,
            )
            branch = temp_partitions.stage_create(fresh, transaction, name) if temporary else None
            model = partitions_after(fresh, updated)
            return model, (name, updated.range_text(name, temporary), temporary, branch)

        row = commit_model_change(handle, change, operation="add partition to")
        spec = ", ".join(_spec_after(spark, args["table"]))
        return [(*row, spec)]


def _spec_after(spark: "SparkSession", table: str) -> list[str]:
    from iceberg_doris.engine.iceberg_tables import current_layout

    return current_layout(open_table(spark, table).table)
