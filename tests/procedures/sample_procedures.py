"""Procedures that exist only in the tests, to drive the bridge through every argument type."""

from __future__ import annotations

import datetime as dt
from typing import Any

from iceberg_doris.errors import TableNotFoundError
from iceberg_doris.procedures.parameter_types import BIGINT, BOOLEAN, DOUBLE, STRING, STRING_ARRAY, STRING_MAP
from iceberg_doris.procedures.registry import OutputColumn, Parameter, Procedure, register


@register
class EchoProcedure(Procedure):
    name = "test_echo"
    summary = "Returns its arguments (tests only)."
    parameters = (
        Parameter("text", STRING, required=True),
        Parameter("number", BIGINT, default=7),
        Parameter("ratio", DOUBLE, default=0.5),
        Parameter("flag", BOOLEAN, default=False),
        Parameter("names", STRING_ARRAY),
        Parameter("props", STRING_MAP),
    )
    output = (
        OutputColumn("text", "string"),
        OutputColumn("number", "bigint"),
        OutputColumn("ratio", "double"),
        OutputColumn("flag", "boolean"),
        OutputColumn("names", "array<string>"),
        OutputColumn("props", "map<string,string>"),
        OutputColumn("at", "timestamp"),
        OutputColumn("day", "date"),
    )

    def run(self, spark: Any, args: Any) -> list[tuple[Any, ...]]:
        return [
            (
                args["text"], args["number"], args["ratio"], args["flag"], args["names"], args["props"],
                dt.datetime(2024, 3, 5, 12, 30, tzinfo=dt.timezone.utc), dt.date(2024, 3, 5),
            )
        ]


@register
class FailProcedure(Procedure):
    name = "test_fail"
    summary = "Raises the error it is asked for (tests only)."
    parameters = (Parameter("kind", STRING, required=True),)
    output = (OutputColumn("never", "string"),)

    def run(self, spark: Any, args: Any) -> list[tuple[Any, ...]]:
        if args["kind"] == "ours":
            raise TableNotFoundError("Table db.missing does not exist: create it with CALL doris.create_table(...)")
        return [(str(1 // 0),)]


@register
class CountProcedure(Procedure):
    name = "test_count"
    summary = "Counts a table's rows through spark.sql, from inside a CALL (tests only)."
    parameters = (Parameter("table", STRING, required=True),)
    output = (OutputColumn("rows", "bigint"),)

    def run(self, spark: Any, args: Any) -> list[tuple[Any, ...]]:
        return [(spark.sql(f"SELECT count(*) FROM {args['table']}").collect()[0][0],)]
