"""Loads into tables of 4 to 1,000 columns: the rows and reasons Doris gives, and Spark runs every
plan as compiled code (issue 57).

A load's checks are one Spark plan per load; Spark compiles each stage of a plan into Java
methods, and a method over 64 KB of bytecode fails to compile: Spark then logs the error with
its stack trace and runs the stage without whole-stage codegen. The tests listen to the driver's
log4j output while they load and refuse any such fallback.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from iceberg_doris import doris
from iceberg_doris.loading import read_error_rows

pytestmark = pytest.mark.spark

# 48: the widest of these whose projections Spark still compiles as one whole stage (100 fields at most).
WIDTHS = [4, 16, 48, 64, 256, 1000]

# Columns 0 and 1 are the key (BIGINT NOT NULL, DATE NOT NULL); the others cycle through the
# types below, so a 4-column table already has a VARCHAR and an INT to reject values of.
_CYCLE = ["VARCHAR(8)", "INT", "DATETIME", "DECIMAL(10, 2)", "BIGINT", "DATE"]

# What Spark logs when a plan's generated code does not compile or is too large to run compiled
# (WholeStageCodegenExec's "Found too long generated codes" is an INFO line: listened to below).
_FALLBACK_SIGNS = (
    "Failed to compile",
    "grows beyond 64 KB",
    "Whole-stage codegen disabled",
    "Found too long generated codes",
    "falling back to interpreter",
)
_CODEGEN_LOGGER = "org.apache.spark.sql.execution.WholeStageCodegenExec"


def column_types(width: int) -> list[str]:
    return ["BIGINT", "DATE"] + [_CYCLE[(i - 2) % len(_CYCLE)] for i in range(2, width)]


def ddl(table: str, width: int, model: str) -> str:
    columns = []
    for i, doris_type in enumerate(column_types(width)):
        columns.append(f"c{i} {doris_type}{' NOT NULL' if i < 2 else ''}")
    properties = '"replication_num" = "1"'
    if model == "UNIQUE":
        properties += ', "enable_unique_key_merge_on_write" = "true"'
    # Partitioned on the DATE, as the demo's table: routing reads the converted date again.
    return (
        f"CREATE TABLE {table} ({', '.join(columns)}) {model} KEY(c0, c1) "
        f"PARTITION BY RANGE(c1) (PARTITION p2024 VALUES LESS THAN (\"2025-01-01\")) "
        f"DISTRIBUTED BY HASH(c0) BUCKETS 1 PROPERTIES ({properties})"
    )


def last(types: list[str], doris_type: str) -> int:
    """The last column of ``doris_type``: the check furthest into the row rejects it."""
    return max(i for i, t in enumerate(types) if t == doris_type)


def good_text(doris_type: str, key: int, column: int) -> str:
    """A field of a CSV line that loads."""
    return {
        "BIGINT": str(key * 1000 + column),
        "DATE": f"2024-01-{key % 28 + 1:02d}",
        "VARCHAR(8)": f"v{key}",
        "INT": str(key * 10 + column),
        "DATETIME": "2024-01-05 10:11:12",
        "DECIMAL(10, 2)": "12.50",
    }[doris_type]


def good_value(doris_type: str, key: int, column: int) -> Any:
    """What a reader of the table gets for :func:`good_text`'s field."""
    return {
        "BIGINT": key * 1000 + column,
        "DATE": dt.date(2024, 1, key % 28 + 1),
        "VARCHAR(8)": f"v{key}",
        "INT": key * 10 + column,
        "DATETIME": dt.datetime(2024, 1, 5, 10, 11, 12),
        "DECIMAL(10, 2)": Decimal("12.50"),
    }[doris_type]


def literal(doris_type: str, text: str) -> str:
    """A typed Spark SQL literal of a field, for the query source."""
    if text == "\\N":
        return "NULL"
    return {
        "BIGINT": f"{text}L",
        "DATE": f"DATE'{text}'",
        "VARCHAR(8)": f"'{text}'",
        "INT": text,
        "DATETIME": f"TIMESTAMP_NTZ'{text}'",
        "DECIMAL(10, 2)": f"{text}BD",
    }[doris_type]


def batch(types: list[str], first_key: int) -> tuple[list[list[str]], dict[int, str]]:
    """Five rows of fields: two that load, then a too-long VARCHAR, an INT out of range and a NULL
    DATE in the NOT NULL column; and the reason each rejected key gets."""
    varchar, integer = last(types, "VARCHAR(8)"), last(types, "INT")
    rows = [[good_text(t, first_key + r, i) if i else str(first_key + r) for i, t in enumerate(types)] for r in range(5)]
    rows[2][varchar] = "abcdefghijk"
    rows[3][integer] = "3000000000"
    rows[4][1] = "\\N"
    reasons = {
        first_key + 2: f"column c{varchar}: value 'abcdefghijk' is 11 bytes, longer than VARCHAR(8) allows (8 bytes)",
        first_key + 3: f"column c{integer}: value '3000000000' is out of range for INT",
        first_key + 4: "column c1 is NOT NULL but the value is NULL",
    }
    return rows, reasons


@pytest.fixture
def codegen_log(spark: Any) -> Iterator[Any]:
    """The driver JVM's log lines while the test runs (WARN and above from every logger, and
    whole-stage codegen's INFO lines), captured by a log4j appender added through py4j.

    A local master runs its tasks in the driver's JVM, so task-side compilation logs here too."""
    jvm = spark.sparkContext._jvm
    log4j = jvm.org.apache.logging.log4j
    context = log4j.LogManager.getContext(False)
    config = context.getConfiguration()
    writer = jvm.java.io.StringWriter()
    layout = log4j.core.layout.PatternLayout.newBuilder().withPattern("%p %c: %m%n").build()
    appender = log4j.core.appender.WriterAppender.createAppender(layout, None, writer, "wide-loads-test", False, True)
    appender.start()
    config.addAppender(appender)
    config.getRootLogger().addAppender(appender, log4j.Level.WARN, None)
    codegen = log4j.core.config.LoggerConfig(_CODEGEN_LOGGER, log4j.Level.INFO, True)
    codegen.addAppender(appender, log4j.Level.INFO, None)
    config.addLogger(_CODEGEN_LOGGER, codegen)
    context.updateLoggers()
    try:
        yield writer
    finally:
        config.removeLogger(_CODEGEN_LOGGER)
        config.getRootLogger().removeAppender("wide-loads-test")
        context.updateLoggers()
        appender.stop()


def fallbacks(writer: Any) -> list[str]:
    return [line for line in str(writer.toString()).splitlines() if any(sign in line for sign in _FALLBACK_SIGNS)]


# Both models at every width but 1,000, where one model (about 2 minutes of Spark's code generation
# on 2 cores) proves the width: the models share the projections that grow with it.
CASES = [(width, model) for width in WIDTHS for model in ("DUPLICATE", "UNIQUE") if width < 1000 or model == "UNIQUE"]


@pytest.mark.parametrize(("width", "model"), CASES)
def test_wide_loads_keep_their_rows_and_reasons_and_run_compiled(
    spark: Any, namespace: str, tmp_path: Path, codegen_log: Any, width: int, model: str
) -> None:
    table = f"{namespace}.wide"
    doris.create_table(spark, ddl=ddl(table, width, model))
    types = column_types(width)

    # A tab-separated file (Doris stream load's defaults), then a query with typed values.
    rows, reasons = batch(types, first_key=1)
    path = tmp_path / "rows.csv"
    path.write_text("".join("\t".join(fields) + "\n" for fields in rows))
    from_file = doris.load(spark, table=table, path=str(path), max_filter_ratio=0.9)[0]
    query_rows, query_reasons = batch(types, first_key=11)
    values = ", ".join("(" + ", ".join(literal(t, f) if i else f"{f}L" for i, (t, f) in enumerate(zip(types, fields))) + ")"
                       for fields in query_rows)
    names = ", ".join(f"c{i}" for i in range(width))
    from_query = doris.load(spark, table=table, query=f"SELECT * FROM VALUES {values} AS t({names})", max_filter_ratio=0.9)[0]

    for result, expected in ((from_file, reasons), (from_query, query_reasons)):
        assert (result.loaded_rows, result.filtered_rows, result.unselected_rows) == (2, 3, 0)
        errors = read_error_rows(result.error_rows_path)
        assert {int(row["row"]["c0"]): row["reason"] for row in errors} == expected
    stored = [row.asDict() for row in spark.sql(f"SELECT * FROM {table} ORDER BY c0").collect()]
    assert stored == [
        {f"c{i}": good_value(t, key, i) if i else key for i, t in enumerate(types)} for key in (1, 2, 11, 12)
    ]
    assert fallbacks(codegen_log) == []
