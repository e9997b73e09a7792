"""A strict-mode partial update filters the rows whose key the table does not hold and loads the
rest; it fails only past ``max_filter_ratio`` (Doris suite
unique_with_mow_p0/partial_update/test_partial_update_strict_mode: 3 rows, 1 loaded, 2 filtered;
"too many filtered rows" with max_filter_ratio 0.5)."""

from __future__ import annotations

import datetime as dt

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import LoadError
from iceberg_doris.loading import read_error_rows
from iceberg_doris.operations.load.strict_partial import NEW_KEY_REASON
from tests.concurrency import readers_agree, snapshot_count

pytestmark = pytest.mark.spark

UPSERT = (
    "SELECT * FROM VALUES (1, 500, '2023-07-03 12:00:01'), (3, 23, '2023-07-03 12:00:02'), "
    "(18, 9999999, '2023-07-03 12:00:03') AS t(id, balance, last_access_time)"
)


def _table(spark, name: str) -> str:
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {name} (id INT NULL, name VARCHAR(10) NULL, age INT NULL DEFAULT '20', "
        "city VARCHAR(10) NOT NULL DEFAULT 'beijing', balance DECIMALV3(9, 0) NULL, last_access_time DATETIME NULL) "
        "UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS AUTO PROPERTIES ('enable_unique_key_merge_on_write' = 'true')"
    ))
    doris.load(spark, table=name, query="SELECT 1, 'kevin', 18, 'shenzhen', 400, '2023-07-01 12:00:00'")
    return name


def test_new_keys_are_filtered_rows_and_the_rest_loads(spark, namespace, py_catalog):
    table = _table(spark, f"{namespace}.strict1")
    [row] = doris.load(spark, table=table, query=UPSERT, partial_columns=True, strict_mode=True, max_filter_ratio=1.0)
    assert (row.status, row.loaded_rows, row.filtered_rows) == ("FINISHED", 1, 2)
    errors = sorted(read_error_rows(row.error_rows_path), key=lambda e: int(e["row"]["id"]))
    assert [(e["row"]["id"], e["reason"]) for e in errors] == [("3", NEW_KEY_REASON), ("18", NEW_KEY_REASON)]
    assert readers_agree(spark, py_catalog, table) == [
        (1, "kevin", 18, "shenzhen", 500, dt.datetime(2023, 7, 3, 12, 0, 1)),
    ]


def test_too_many_filtered_rows_fails_and_commits_nothing(spark, namespace, py_catalog):
    table = _table(spark, f"{namespace}.strict2")
    before = snapshot_count(spark, table)
    with pytest.raises(LoadError) as refused:
        doris.load(spark, table=table, query=UPSERT, partial_columns=True, strict_mode=True, max_filter_ratio=0.5)
    message = str(refused.value)
    assert message.startswith(
        "too many filtered rows: 2 of 3 rows were filtered, more than max_filter_ratio 0.5 (first rejected row: "
    )
    assert NEW_KEY_REASON in message and f"nothing was committed to {table}" in message
    assert snapshot_count(spark, table) == before
    assert readers_agree(spark, py_catalog, table) == [
        (1, "kevin", 18, "shenzhen", 400, dt.datetime(2023, 7, 1, 12, 0, 0)),
    ]


def test_a_new_key_without_a_value_for_a_not_null_column_fails_with_doris_message(spark, namespace):
    table = f"{namespace}.unmentioned"
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {table} (k INT NOT NULL, c1 INT, c2 INT NOT NULL) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
    ))
    before = snapshot_count(spark, table)
    with pytest.raises(LoadError) as refused:
        doris.load(spark, table=table, query="SELECT 1 AS k, 1 AS c1", partial_columns=True)
    assert str(refused.value) == (
        "the unmentioned column `c2` should have default value or be nullable for newly inserted rows in non-strict "
        "mode partial update; supply the column, or give it a default value"
    )
    assert snapshot_count(spark, table) == before


def test_a_temp_partition_holds_keys_of_its_own(spark, namespace, py_catalog):
    """Doris keeps a temp partition in tablets of its own: a strict partial update into it updates
    the keys loaded into it and filters the others, even keys main holds."""
    table = f"{namespace}.strict_temp"
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {table} (id INT NOT NULL, name VARCHAR(10) NULL, balance INT NULL) UNIQUE KEY(id) "
        "PARTITION BY RANGE(id) (PARTITION p1 VALUES LESS THAN (100)) DISTRIBUTED BY HASH(id) BUCKETS 1 "
        "PROPERTIES ('enable_unique_key_merge_on_write' = 'true')"
    ))
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'main', 10), (2, 'main', 20) AS t(id, name, balance)")
    doris.add_partition(spark, table=table, partition="tp1", values_less_than="100", temporary=True)
    doris.load(spark, table=table, query="SELECT 2 AS id, 'temp' AS name, 200 AS balance", temporary_partitions=["tp1"])
    [row] = doris.load(
        spark, table=table, query="SELECT * FROM VALUES (1, 1000), (2, 2000), (3, 3000) AS t(id, balance)",
        temporary_partitions=["TP1"], partial_columns=True, strict_mode=True, max_filter_ratio=1.0,
    )
    assert (row.status, row.loaded_rows, row.filtered_rows) == ("FINISHED", 1, 2)
    errors = sorted(read_error_rows(row.error_rows_path), key=lambda e: int(e["row"]["id"]))
    assert [(e["row"]["id"], e["reason"]) for e in errors] == [("1", NEW_KEY_REASON), ("3", NEW_KEY_REASON)]
    temp_rows = sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {table} VERSION AS OF 'doris_temp_tp1'").collect())
    assert temp_rows == [(2, "temp", 2000)]
    assert readers_agree(spark, py_catalog, table) == [(1, "main", 10), (2, "main", 20)]
