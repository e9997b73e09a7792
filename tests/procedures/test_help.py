"""doris.help from the registry."""

from __future__ import annotations

import pytest
from pyspark.errors import IllegalArgumentException

from iceberg_doris import doris
from iceberg_doris.procedures import all_procedures
from tests.procedures import sample_procedures  # noqa: F401

pytestmark = pytest.mark.spark


def test_help_lists_every_registered_procedure(spark):
    rows = spark.sql("CALL doris.help()").collect()
    assert [r.procedure for r in rows] == [p.name for p in all_procedures()]
    echo = next(r for r in rows if r.procedure == "test_echo")
    assert echo.signature.startswith("doris.test_echo(text string, number bigint = 7, ratio double = 0.5")
    assert echo.description == "Returns its arguments (tests only)."


def test_help_for_one_procedure_lists_parameters(spark):
    rows = spark.sql("CALL doris.help(procedure => 'test_echo')").collect()
    assert rows[0].parameter is None and rows[0].description.startswith("Returns its arguments")
    assert "Returns: text string, number bigint" in rows[0].description
    params = [(r.parameter, r.type, r.required, r.default) for r in rows[1:]]
    assert params == [
        ("text", "string", True, None),
        ("number", "bigint", False, "7"),
        ("ratio", "double", False, "0.5"),
        ("flag", "boolean", False, "false"),
        ("names", "array<string>", False, "NULL"),
        ("props", "map<string,string>", False, "NULL"),
    ]


def test_help_for_unknown_procedure(spark):
    with pytest.raises(IllegalArgumentException) as error:
        spark.sql("CALL doris.help('nope')")
    known = ", ".join(p.name for p in all_procedures())
    assert str(error.value).startswith(f"Procedure doris.nope not found. Known procedures: {known}.")


def test_python_help_and_docstring(spark):
    assert doris.help(spark, procedure="help")[1].parameter == "procedure"
    assert "SQL: CALL doris.help(procedure string = NULL)" in doris.help.__doc__
