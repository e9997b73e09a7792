"""One test file per procedure, all of the same shape:

- ``test_positional_arguments`` / ``test_named_arguments``: ``CALL doris.<name>(...)`` through
  ``spark.sql``, asserting the rows returned and the effect a reader sees;
- ``test_invalid_state``: the table or partition is not in the state the call needs (unknown
  table or partition, wrong table model): the exact ``iceberg_doris.errors`` class and message;
- ``test_invalid_arguments``: a wrong type, an unknown named argument, a missing required one:
  the exact message.

``tests/procedures/test_bad_inputs.py`` is the wider catalogue of bad calls (each asserting that
no table changed); these files do not repeat it. Tables are made once per module (``ns``).
"""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.errors import IllegalArgumentException


def call(spark: Any, statement: str) -> list[tuple[Any, ...]]:
    """The rows of a ``CALL`` statement, as tuples."""
    return [tuple(r) for r in spark.sql(statement).collect()]


def sql_error(spark: Any, statement: str) -> str:
    """The message a failing ``CALL`` raises: PySpark shows ours as IllegalArgumentException."""
    with pytest.raises(IllegalArgumentException) as raised:
        spark.sql(statement).collect()
    return str(raised.value)


def snapshot_count(spark: Any, table: str) -> int:
    return spark.sql(f"SELECT count(*) FROM {table}.snapshots").collect()[0][0]


def partition_names(spark: Any, table: str, temporary: bool = False) -> list[str]:
    flag = "true" if temporary else "false"
    return [r[0] for r in spark.sql(f"CALL doris.show_partitions(table => '{table}', temporary => {flag})").collect()]


def table_rows(spark: Any, table: str, ref: str | None = None) -> list[tuple[Any, ...]]:
    version = f" VERSION AS OF '{ref}'" if ref else ""
    return [tuple(r) for r in spark.sql(f"SELECT * FROM {table}{version} ORDER BY 1, 2").collect()]


def not_found(table: str) -> str:
    namespace = table.split(".")[0]
    return (
        f"Table {table} does not exist in catalog iceberg: check the name (SHOW TABLES IN {namespace}) or create it "
        "with CALL doris.create_table(...)"
    )


def not_partitioned(table: str) -> str:
    return (
        f"Only support adding partition to range and list partitioned table: {table} is not partitioned "
        "(create it with PARTITION BY RANGE(...) or LIST(...))"
    )
