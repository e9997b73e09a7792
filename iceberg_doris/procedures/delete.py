"""``CALL doris.delete``: Doris ``DELETE FROM``; binds its arguments and runs
:func:`iceberg_doris.operations.delete` (what each table model does is documented there)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.operations import DeleteRequest
from iceberg_doris.procedures.parameter_types import LABEL, STRING, STRING_ARRAY
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class DeleteProcedure(Procedure):
    name = "delete"
    summary = "Deletes the rows matching a condition (Doris DELETE FROM), on any table model, in one commit."
    details = (
        "Rows are marked in deletion vectors (v3) or position-delete files (v2); no data file is rewritten and time "
        "travel still reads them. On unique tables the matching keys are deleted as a merge_type => 'DELETE' load "
        "would: with a sequence column each leaves a tombstone, so a late row with a smaller sequence value cannot "
        "bring the key back. On aggregate tables the condition may name key columns only (as Doris). partitions "
        "narrows the delete to formal partitions."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("where", STRING, required=True, description="Spark SQL condition on the table's columns, e.g. \"k = 1\"."),
        Parameter("partitions", STRING_ARRAY, description="Only rows of these formal partitions (default: all)."),
        Parameter("label", LABEL, description="Exactly-once label (default: generated)."),
    )
    output = (
        OutputColumn("label", "string"),
        OutputColumn("snapshot_id", "bigint", "The snapshot the delete committed (main)."),
        OutputColumn("deleted_rows", "bigint", "Live rows deleted."),
        OutputColumn("elapsed_ms", "bigint"),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        partitions = args["partitions"]
        request = DeleteRequest(args["where"], tuple(partitions) if partitions else None, args["label"])
        result = operations.delete(spark, args["table"], request)
        return [(result.label, result.snapshot_id, result.deleted_rows, result.elapsed_ms)]
