"""``CALL doris.auto_compact``: one automatic compaction pass under each table's policy."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import TableNotFoundError
from tests.procedures.by_procedure import call, not_found, sql_error, table_rows

pytestmark = pytest.mark.spark

SIGNATURE = "doris.auto_compact(table string = NULL)"


def with_deleted_rows(spark, table: str) -> str:
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'b') AS t(k, v)")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a2') AS t(k, v)")  # half the first file deleted
    return table


def test_positional_arguments(spark, ns):
    table = with_deleted_rows(spark, f"{ns}.pos")
    [row] = call(spark, f"CALL doris.auto_compact('{table}')")
    head = spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0][0]
    assert row == (table, 1, 1, 1, head, None)  # the file with 50% deleted rows, rewritten into one
    assert table_rows(spark, table) == [(1, "a2"), (2, "b")]


def test_named_arguments(spark, ns):
    table = with_deleted_rows(spark, f"{ns}.named")
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('doris.compaction.delete-ratio' = '0.9')")
    assert call(spark, f"CALL doris.auto_compact(table => '{table}')") == [(table, 0, 0, 0, None, None)]


def test_invalid_state(spark, ns):
    with pytest.raises(TableNotFoundError) as raised:
        doris.auto_compact(spark, table=f"{ns}.nope")
    assert str(raised.value) == not_found(f"{ns}.nope")


def test_invalid_arguments(spark, ns):
    assert sql_error(spark, "CALL doris.auto_compact(1)") == "Wrong arg type for table: cannot cast bigint to string"
    assert sql_error(spark, "CALL doris.auto_compact(table => 'a.b', every => 1)") == (
        f"Unknown argument: every. Usage: {SIGNATURE}"
    )
