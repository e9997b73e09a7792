"""``doris.insert_overwrite``: Doris ``INSERT OVERWRITE TABLE t [PARTITION (...) | PARTITION (*)] query``.

See :mod:`iceberg_doris.operations.insert_overwrite`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.operations import InsertOverwriteRequest
from iceberg_doris.procedures.load import LoadProcedure, load_row
from iceberg_doris.procedures.parameter_types import BOOLEAN, LABEL, SOURCE, STRING, STRING_ARRAY
from iceberg_doris.procedures.registry import Arguments, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class InsertOverwriteProcedure(Procedure):
    name = "insert_overwrite"
    summary = "Doris INSERT OVERWRITE: replaces the table, named partitions or array('*') touched ones, in one snapshot."
    details = (
        "partitions => NULL overwrites the whole table (partitions that get no rows become empty, not dropped); "
        "array('p1', 'p2') only those (every row must fall in them); array('*') the partitions the rows touch "
        "(zero rows change nothing). Any filtered row fails the statement: 'Insert has filtered data in strict "
        "mode'. auto_create => true lets auto-partition tables create partitions (Doris's "
        "enable_auto_create_when_overwrite)."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter(
            "query", SOURCE, required=True,
            description="A SELECT producing the new rows (table column order); Python: also a DataFrame.",
        ),
        Parameter("partitions", STRING_ARRAY, description="NULL: whole table; names; or array('*')."),
        Parameter("auto_create", BOOLEAN, default=False, description="Auto-partition tables may create partitions."),
        Parameter("label", LABEL, description="Exactly-once label: letters, digits, '-', '_', ':' (default: generated)."),
    )
    output = LoadProcedure.output

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        partitions = args["partitions"]
        request = InsertOverwriteRequest(
            query=args["query"],
            partitions=tuple(partitions) if partitions is not None else None,
            auto_create=args["auto_create"],
            label=args["label"],
        )
        return [load_row(operations.insert_overwrite(spark, args["table"], request))]
