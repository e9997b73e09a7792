"""Generated columns (``col type [GENERATED ALWAYS] AS (expr)``): Spark checks each expression at
``create_table`` with Doris's rules; loads compute the column (``loading.prepare``).

A Doris generated column is an ordinary Iceberg column here whose values every load computes, so
every engine reads the stored value. The expression is Spark SQL over the table's columns (the
Doris functions a generated column usually calls, ``abs``, ``concat``, ``element_at``, ... are
Spark's too); the table's Doris model keeps it (``doris.columns``).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from iceberg_doris.engine.spark_runtime import expression_calls, select_sql
from iceberg_doris.errors import InvalidTableDefinitionError, LoadError
from iceberg_doris.spark_session.java_errors import error_class, spark_error_message
from iceberg_doris.table_model.model import ColumnModel, DorisTableModel

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["check_generated_columns", "check_insert_names", "partial_supplied"]

_EXPRESSION = "__doris_generated"


def check_generated_columns(spark: "SparkSession", model: DorisTableModel) -> DorisTableModel:
    """``model`` with each generated column's ordinary references, once Spark has analysed every
    expression over an empty relation of the table's columns; refuses, with Doris's messages
    (regression-test/suites/ddl_p0/test_create_table_generated_column/fault_tolerance_nereids.groovy),
    an unknown column, an aggregate, window, non-deterministic or user-defined function, and an
    expression Spark cannot evaluate or cast to the column's type (naming Spark's reason)."""
    if not any(c.generated is not None for c in model.columns):
        return model
    relation = _empty_relation(spark, model.columns)
    generated = {c.name.lower() for c in model.columns if c.generated is not None}
    columns = []
    for column in model.columns:
        if column.generated is not None:
            refs = _checked(relation, column)
            column = dataclasses.replace(column, generated_refs=tuple(r for r in refs if r.lower() not in generated))
        columns.append(column)
    return dataclasses.replace(model, columns=tuple(columns))


def _checked(relation: "DataFrame", column: ColumnModel) -> tuple[str, ...]:
    from pyspark.errors import PySparkException

    text = str(column.generated)
    try:
        # The line break ends a trailing -- comment; the text is the user's SQL, as a load's
        # columns and where are.
        analysed = select_sql(relation, [f"({text}\n) AS {_EXPRESSION}"])
        disallowed, refs = expression_calls(analysed)
    except PySparkException as exc:
        unknown = _unresolved_column(exc)
        if unknown is not None:
            raise InvalidTableDefinitionError(f"Unknown column '{unknown}' in 'generated column function'") from None
        raise InvalidTableDefinitionError(
            f"In generated column '{column.name}', {spark_error_message(exc)} (expression: {text})"
        ) from None
    if disallowed is not None:
        raise InvalidTableDefinitionError(
            f"Expression of generated column '{column.name}' contains a disallowed function:'{disallowed}'"
        )
    try:
        # Loads convert the value as they convert a loaded one: a type it cannot become is refused now.
        select_sql(analysed, [f"try_cast({_EXPRESSION} AS {column.spark_type})"]).schema
    except PySparkException as exc:
        raise InvalidTableDefinitionError(
            f"In generated column '{column.name}', {spark_error_message(exc)} (expression: {text})"
        ) from None
    return refs


def _unresolved_column(exc: BaseException) -> str | None:
    """The name Spark could not resolve, if that is the error."""
    if not str(error_class(exc) or "").startswith("UNRESOLVED_COLUMN"):
        return None
    parameters = getattr(exc, "getMessageParameters", lambda: None)() or {}
    name = str(parameters.get("objectName", ""))
    return name.replace("`", "") or None


def _empty_relation(spark: "SparkSession", columns: tuple[ColumnModel, ...]) -> "DataFrame":
    from pyspark.sql.types import StructField, StructType, _parse_datatype_string

    schema = StructType([StructField(c.name, _parse_datatype_string(c.spark_type), c.nullable) for c in columns])
    return spark.createDataFrame([], schema)


def check_insert_names(model: DorisTableModel, table: str, names: list[str]) -> None:
    """Doris's INSERT refuses a value for a generated column (``names``: the statement's columns);
    its loads ignore one (``loading.prepare``)."""
    given = {name.lower() for name in names}
    for column in model.columns:
        if column.generated is not None and column.name.lower() in given:
            raise LoadError(
                f"The value specified for generated column '{column.name}' in table '{table}' is not allowed. "
                "Leave the column out of the INSERT's column list (INSERT INTO t (a, b) ...): every load computes it"
            )


def partial_supplied(model: DorisTableModel, given: tuple[str, ...]) -> tuple[str, ...]:
    """The columns a partial update writes: those it supplies and every generated column, which
    it computes again; Doris refuses one that leaves out an ordinary column a generated column
    reads (regression-test/suites/ddl_p0/test_create_table_generated_column/
    test_partial_update_generated_column.groovy)."""
    generated = [c for c in model.columns if c.generated is not None]
    if not generated:
        return given
    have = {name.lower() for name in given}
    missing: list[str] = []
    for column in generated:
        missing += [r for r in column.generated_refs if r.lower() not in have and r not in missing]
    if missing:
        raise LoadError(
            "Partial update should include all ordinary columns referenced by generated columns, missing: "
            + ", ".join(missing)
        )
    return given + tuple(c.name for c in generated if c.name.lower() not in have)
