"""``doris.enable_feature``: Doris ``ALTER TABLE t ENABLE FEATURE "<name>" [WITH PROPERTIES (...)]``.

``SEQUENCE_LOAD`` adds a hidden sequence column to an existing UNIQUE KEY table in one commit;
``BATCH_DELETE`` and ``UPDATE_FLEXIBLE_COLUMNS`` are answered as the operation says
(:mod:`iceberg_doris.operations.enable_feature`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.procedures.parameter_types import STRING, STRING_MAP
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class EnableFeatureProcedure(Procedure):
    name = "enable_feature"
    summary = "Doris ALTER TABLE ... ENABLE FEATURE: adds a hidden sequence column to a UNIQUE KEY table with rows."
    details = (
        "SEQUENCE_LOAD with map('function_column.sequence_type', '<integer or date type>') adds __DORIS_SEQUENCE_COL__ "
        "in one commit: the rows already there hold NULL, which every later version of their key beats; from then on "
        "every load supplies the sequence value. BATCH_DELETE is refused as Doris refuses it on a table that has the "
        "delete sign (every UNIQUE KEY table here has it); UPDATE_FLEXIBLE_COLUMNS sets "
        "enable_unique_key_skip_bitmap_column in one commit (merge-on-write UNIQUE KEY tables), which flexible partial "
        "updates need. Messages are Doris's."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("feature", STRING, required=True, description="SEQUENCE_LOAD, BATCH_DELETE or UPDATE_FLEXIBLE_COLUMNS"),
        Parameter("properties", STRING_MAP, description="map('function_column.sequence_type', 'bigint') for SEQUENCE_LOAD"),
    )
    output = (
        OutputColumn("feature", "string"),
        OutputColumn("hidden_column", "string", "The hidden column added."),
        OutputColumn("column_type", "string", "Its Doris type."),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        enabled = operations.enable_feature(spark, args["table"], args["feature"], args["properties"])
        return [(enabled.feature, enabled.column, enabled.column_type)]
