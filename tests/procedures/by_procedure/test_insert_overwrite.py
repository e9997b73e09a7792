"""``CALL doris.insert_overwrite``: Doris INSERT OVERWRITE as one snapshot."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import LoadError, TableNotFoundError
from tests.procedures.by_procedure import call, not_found, sql_error, table_rows

pytestmark = pytest.mark.spark

SIGNATURE = (
    "doris.insert_overwrite(table string, query string, partitions array<string> = NULL, auto_create boolean = false, "
    "label string = NULL)"
)


@pytest.fixture(scope="module")
def tables(spark, ns):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {ns}.d (k INT NOT NULL, v STRING) DUPLICATE KEY(k) "
        "PARTITION BY RANGE(k) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20), "
        "PARTITION p2 VALUES LESS THAN (30)) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.create_table(spark, ddl=f"CREATE TABLE {ns}.flat (k INT NOT NULL, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=f"{ns}.flat", query="SELECT * FROM VALUES (1, 'a'), (2, 'b') AS t(k, v)")
    doris.load(spark, table=f"{ns}.d", query="SELECT * FROM VALUES (1, 'a'), (11, 'b'), (21, 'c') AS t(k, v)")
    return f"{ns}.d", f"{ns}.flat"


def test_positional_arguments(spark, tables):
    table = tables[1]
    before = spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0][0]
    [row] = call(spark, f"CALL doris.insert_overwrite('{table}', 'SELECT 3, \\'c\\'')")  # the whole table
    assert (row[1], row[3], row[4]) == ("FINISHED", 1, 0)
    assert table_rows(spark, table) == [(3, "c")]
    assert spark.sql(f"SELECT parent_id FROM {table}.snapshots WHERE snapshot_id = {row[2]}").collect()[0][0] == before
    assert sorted(table_rows(spark, table, str(before))) == [(1, "a"), (2, "b")]  # time travel


def test_named_arguments(spark, tables):
    table = tables[0]
    [row] = call(
        spark,
        f"CALL doris.insert_overwrite(table => '{table}', query => 'SELECT 12, \\'new\\'', partitions => array('p1'), "
        "label => 'ow_named')",
    )
    assert row[:2] == ("ow_named", "FINISHED") and row[3] == 1
    assert [r for r in table_rows(spark, table) if 10 <= r[0] < 20] == [(12, "new")]
    assert (21, "c") in table_rows(spark, table)


def test_invalid_state(spark, ns, tables):
    with pytest.raises(LoadError) as raised:
        doris.insert_overwrite(spark, table=tables[0], query="SELECT 1, 'x'", partitions=["zz"])
    assert str(raised.value) == f"Partition[zz] does not exist in {tables[0]}"
    with pytest.raises(LoadError) as raised:
        doris.insert_overwrite(spark, table=tables[1], query="SELECT 1, 'x'", partitions=["p0"])
    assert str(raised.value) == f"Table {tables[1]} is not partitioned: overwrite it without partitions"
    with pytest.raises(TableNotFoundError) as raised:
        doris.insert_overwrite(spark, table=f"{ns}.nope", query="SELECT 1")
    assert str(raised.value) == not_found(f"{ns}.nope")


def test_invalid_arguments(spark, tables):
    table = tables[0]
    assert sql_error(spark, f"CALL doris.insert_overwrite('{table}', 'SELECT 1, \\'a\\'', NULL, 'x')") == (
        "Wrong arg type for auto_create: cannot cast string to boolean"
    )
    assert sql_error(spark, f"CALL doris.insert_overwrite(table => '{table}', query => 'SELECT 1, \\'a\\'', mode => 'all')") == (
        f"Unknown argument: mode. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, f"CALL doris.insert_overwrite(table => '{table}')") == (
        f"Missing required parameters: [query]. Usage: {SIGNATURE}"
    )
