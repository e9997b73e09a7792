"""``doris.describe``: a table's Doris model, columns and properties, as stored in Iceberg."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.procedures.parameter_types import STRING
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class DescribeProcedure(Procedure):
    name = "describe"
    summary = "Shows a table's Doris model: keys, sequence column, partitioning, buckets, columns, properties."
    details = (
        "Rows of section 'table' describe the model, 'column' rows each column (type, KEY, aggregate, "
        "AS (expr), NULL, AUTO_INCREMENT(start), DEFAULT, ON UPDATE, as Doris's SHOW CREATE TABLE writes them), "
        "'property' rows the Doris PROPERTIES. A table created outside iceberg-doris is a DUPLICATE "
        "KEY table without keys."
    )
    parameters = (Parameter("table", STRING, required=True, description="db.tbl"),)
    output = (
        OutputColumn("section", "string", "table, column or property."),
        OutputColumn("name", "string"),
        OutputColumn("value", "string"),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        return operations.describe(spark, args["table"])
