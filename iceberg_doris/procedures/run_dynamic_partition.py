"""``CALL doris.run_dynamic_partition``: binds its arguments and runs
:func:`iceberg_doris.operations.run_dynamic_partition` (one pass of Doris's dynamic-partition
scheduler, documented there)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.procedures.parameter_types import STRING
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

@register
class RunDynamicPartitionProcedure(Procedure):
    name = "run_dynamic_partition"
    summary = "One pass of the dynamic-partition scheduler over one table or every enabled table."
    details = (
        "Creates and drops dynamic partitions; on an AUTO RANGE table with partition.retention_count = N, drops "
        "the history partitions (upper bound at or before now) beyond the N newest into the recycle bin. "
        "Returns one row per partition created or dropped (action CREATE / DROP), and ERROR rows for "
        "tables the pass could not change (the other tables still get their pass)."
    )
    parameters = (
        Parameter(
            "table", STRING,
            description="db.tbl; NULL for every table with dynamic_partition.enable or partition.retention_count",
        ),
    )
    output = (
        OutputColumn("table", "string"),
        OutputColumn("action", "string", "CREATE, DROP or ERROR."),
        OutputColumn("partition_name", "string"),
        OutputColumn("range", "string"),
        OutputColumn("message", "string", "Why a table or partition was skipped."),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        changes = operations.run_dynamic_partition(spark, args["table"])
        return [(c.table, c.action, c.partition_name, c.range, c.message) for c in changes]
