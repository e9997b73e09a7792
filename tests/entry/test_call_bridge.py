"""CALL doris.* through the real Spark parser, Iceberg's analyzer and our Python procedures."""

from __future__ import annotations

import datetime as dt

import pytest
from pyspark.errors import AnalysisException, IllegalArgumentException, ParseException

from iceberg_doris import doris
from iceberg_doris.errors import ProcedureArgumentError, TableNotFoundError
from iceberg_doris.procedures import all_procedures
from iceberg_doris.spark_session.spark_lines import running_line
from tests.procedures import sample_procedures  # noqa: F401  (registers the test procedures)

NATIVE_CALL = running_line().native_call  # Spark 4: CALL is Spark's own

pytestmark = pytest.mark.spark

ECHO_USAGE = (
    "Usage: doris.test_echo(text string, number bigint = 7, ratio double = 0.5, flag boolean = false, "
    "names array<string> = NULL, props map<string,string> = NULL)"
)


def test_positional_arguments(spark):
    row = spark.sql("CALL doris.test_echo('a', 3, 1.5, true, array('x', 'y'), map('k', 'v'))").collect()[0]
    assert (row.text, row.number, row.ratio, row.flag, row.names, row.props) == ("a", 3, 1.5, True, ["x", "y"], {"k": "v"})


def test_named_arguments_in_any_order_with_defaults(spark):
    row = spark.sql("CALL doris.test_echo(flag => true, text => 'b')").collect()[0]
    assert (row.text, row.number, row.ratio, row.flag, row.names, row.props) == ("b", 7, 0.5, True, None, None)


def test_output_types_reach_spark_typed(spark):
    frame = spark.sql("CALL doris.test_echo(text => 'c')")
    assert [f.dataType.simpleString() for f in frame.schema.fields] == [
        "string", "bigint", "double", "boolean", "array<string>", "map<string,string>", "timestamp", "date",
    ]
    row = frame.collect()[0]
    assert row.day == dt.date(2024, 3, 5)
    # The session time zone is UTC, so the instant reads back unchanged.
    assert row.at == dt.datetime(2024, 3, 5, 12, 30)


def test_arguments_are_spark_expressions(spark):
    row = spark.sql(
        "CALL doris.test_echo(text => concat('a', 'b'), number => 40 + 2, names => split('p1,p2', ','), "
        "props => map('d', cast(date'2024-01-02' AS string)))"
    ).collect()[0]
    assert (row.text, row.number, row.names, row.props) == ("ab", 42, ["p1", "p2"], {"d": "2024-01-02"})


def test_scalar_accepted_for_array_and_null_means_default(spark):
    row = spark.sql("CALL doris.test_echo(text => 'x', names => 'only', number => NULL)").collect()[0]
    assert (row.names, row.number) == (["only"], 7)


def test_case_comments_semicolon_and_multiline(spark):
    # Spark 4 resolves the catalog itself, and Spark's catalog names are case-sensitive.
    catalog = "doris" if NATIVE_CALL else "DORIS"
    statement = f"-- load the thing\ncall {catalog}.Test_Echo(\n  TEXT => 'x',\n  number => 1\n);"
    assert spark.sql(statement).collect()[0].number == 1


def test_mixed_named_and_positional(spark):
    with pytest.raises(IllegalArgumentException) as error:
        spark.sql("CALL doris.test_echo('a', number => 1)")
    assert str(error.value) == f"Named and positional arguments cannot be mixed. {ECHO_USAGE}"


def test_missing_required(spark):
    with pytest.raises(IllegalArgumentException) as error:
        spark.sql("CALL doris.test_echo(number => 1)")
    assert str(error.value) == f"Missing required parameters: [text]. {ECHO_USAGE}"


def test_unknown_argument(spark):
    with pytest.raises(IllegalArgumentException) as error:
        spark.sql("CALL doris.test_echo(text => 'a', colour => 'red')")
    assert str(error.value) == f"Unknown argument: colour. {ECHO_USAGE}"


def test_duplicate_argument(spark):
    with pytest.raises((IllegalArgumentException, AnalysisException)) as error:
        spark.sql("CALL doris.test_echo(text => 'a', text => 'b')")
    if NATIVE_CALL:  # Spark 4 binds named arguments itself, and says so in its own words
        assert "multiple argument assignments to the same parameter name `text`" in str(error.value)
    else:
        assert str(error.value) == "Duplicate procedure argument: text"


def test_too_many_arguments(spark):
    with pytest.raises(IllegalArgumentException) as error:
        spark.sql("CALL doris.test_echo('a', 1, 1.0, true, array('x'), map('k','v'), 'extra')")
    assert str(error.value) == f"Too many arguments for procedure. {ECHO_USAGE}"


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("number => 'seven'", "Wrong arg type for number: cannot cast string to bigint"),
        ("flag => 'true'", "Wrong arg type for flag: cannot cast string to boolean: write true without quotes"),
        ("ratio => true", "Wrong arg type for ratio: cannot cast boolean to double"),
        ("names => map('a', 'b')", "Wrong arg type for names: cannot cast map<string,string> to array<string>"),
        ("props => array('a')", "Wrong arg type for props: cannot cast array<string> to map<string,string>"),
    ],
)
def test_wrong_argument_type(spark, argument, message):
    with pytest.raises(IllegalArgumentException) as error:
        spark.sql(f"CALL doris.test_echo(text => 'a', {argument})")
    assert str(error.value) == message


def test_unknown_procedure_lists_known_ones(spark):
    with pytest.raises(IllegalArgumentException if NATIVE_CALL else AnalysisException) as error:
        spark.sql("CALL doris.no_such_thing()")
    known = ", ".join(p.name for p in all_procedures())
    assert str(error.value) == (
        f"Procedure doris.no_such_thing not found. Known procedures: {known}. "
        "CALL doris.help() lists them with their parameters."
    )


def test_parse_error_points_at_the_users_statement(spark):
    with pytest.raises(ParseException) as error:
        spark.sql("CALL doris.test_echo(text => )")
    message = str(error.value)
    assert "(line 1, pos 29)" in message
    assert "CALL doris.test_echo(text => )" in message


def test_our_error_reaches_sql_caller_as_its_message(spark):
    with pytest.raises(IllegalArgumentException) as error:
        spark.sql("CALL doris.test_fail('ours')")
    assert str(error.value) == "Table db.missing does not exist: create it with CALL doris.create_table(...)"
    assert "Traceback" not in str(error.value)


def test_unexpected_python_error_is_named(spark):
    with pytest.raises(IllegalArgumentException) as error:
        spark.sql("CALL doris.test_fail(kind => 'bug')")
    assert str(error.value) == "doris.test_fail failed unexpectedly: ZeroDivisionError: integer division or modulo by zero"


def test_procedure_body_can_run_spark_sql(spark, namespace):
    spark.sql(f"CREATE TABLE {namespace}.t (id bigint) USING iceberg")
    spark.sql(f"INSERT INTO {namespace}.t VALUES (1), (2), (3)")
    assert spark.sql(f"CALL doris.test_count(table => '{namespace}.t')").collect()[0].rows == 3


def test_other_statements_still_parse(spark):
    # Iceberg's own CALL and plain SQL go to the wrapped parsers.
    assert spark.sql("SELECT 1 AS one").collect()[0].one == 1
    with pytest.raises(AnalysisException):
        spark.sql("CALL system.no_such_procedure()")


def test_python_entry_point_returns_the_same_rows(spark):
    sql_rows = spark.sql("CALL doris.test_echo(text => 'p', names => array('a'))").collect()
    python_rows = doris.test_echo(spark, text="p", names=["a"])
    assert python_rows == sql_rows


def test_python_entry_point_raises_our_errors(spark):
    with pytest.raises(TableNotFoundError, match="Table db.missing does not exist"):
        doris.test_fail(spark, kind="ours")
    with pytest.raises(ProcedureArgumentError, match=r"^Missing required parameters: \[text\]"):
        doris.test_echo(spark)
    with pytest.raises(ProcedureArgumentError, match="^Wrong arg type for number: cannot cast string to bigint$"):
        doris.test_echo(spark, text="a", number="1")
