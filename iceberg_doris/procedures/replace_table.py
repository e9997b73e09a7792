"""``doris.replace_table``: Doris ``ALTER TABLE t REPLACE WITH TABLE t2 PROPERTIES('swap' = ...)``;
see :mod:`iceberg_doris.operations.replace_table`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.operations import ReplaceTableRequest
from iceberg_doris.procedures.parameter_types import BOOLEAN, STRING
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class ReplaceTableProcedure(Procedure):
    name = "replace_table"
    summary = "Doris REPLACE WITH TABLE: one catalog transaction swaps two tables' names, or replaces and drops."
    details = (
        "Doris ALTER TABLE table REPLACE WITH TABLE with_table. swap => true (Doris's default): the names trade "
        "tables. swap => false: table names with_table's table and the table it named leaves the catalog (its "
        "files stay; dropped_metadata_location registers it again). Both tables must exist in one database; "
        "models and schemas are not compared, as in Doris. Readers see both names before or both after; a commit "
        "to either table meanwhile is never lost (the swap reads again). Needs iceberg-doris's JDBC catalog."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl: the name that takes with_table's table."),
        Parameter("with_table", STRING, required=True, description="tbl or db.tbl, in table's database."),
        Parameter("swap", BOOLEAN, default=True, description="Doris's 'swap' property: false drops table's old table."),
    )
    output = (
        OutputColumn("table", "string"),
        OutputColumn("with_table", "string"),
        OutputColumn("swap", "boolean"),
        OutputColumn("table_metadata_location", "string", "The metadata file table names now."),
        OutputColumn("with_table_metadata_location", "string", "The metadata file with_table names now; NULL without swap."),
        OutputColumn("dropped_metadata_location", "string", "Without swap: the replaced table's metadata file; else NULL."),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        r = operations.replace_table(spark, args["table"], ReplaceTableRequest(args["with_table"], swap=args["swap"]))
        return [(r.table, r.with_table, r.swap, r.table_metadata, r.with_table_metadata, r.dropped_metadata)]
