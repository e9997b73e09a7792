"""INSERT OVERWRITE and overwrite loads on unique (with and without sequence column) and aggregate
tables: one overwrite snapshot, rows resolved per key as a load would, time travel to before it."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from tests.concurrency import readers_agree, values

pytestmark = pytest.mark.spark


def head(spark, table: str) -> int:
    return spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0][0]


def operation_of(spark, table: str, snapshot_id: int) -> str:
    return spark.sql(f"SELECT operation FROM {table}.snapshots WHERE snapshot_id = {snapshot_id}").collect()[0][0]


def test_unique_table_overwrite_keeps_one_row_per_key_and_time_travel_reads_the_old_rows(spark, namespace, py_catalog):
    table = f"{namespace}.u_over"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    doris.load(spark, table=table, query=values(["(1,'old')", "(2,'old')", "(3,'old')"], "k, v"))
    doris.load(spark, table=table, query=values(["(3,'newer')"], "k, v"))  # a delete bitmap the overwrite drops
    before = head(spark, table)
    [row] = doris.insert_overwrite(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (1, 'b'), (4, 'c') AS t(k, v)")
    assert row.loaded_rows == 3
    assert readers_agree(spark, py_catalog, table) == [(1, "b"), (4, "c")]  # the later row of key 1 wins
    assert operation_of(spark, table, row.snapshot_id) == "overwrite"
    assert spark.sql(f"SELECT count(*) FROM {table}.delete_files").collect()[0][0] == 0
    assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {table} VERSION AS OF {before}").collect()) == [
        (1, "old"), (2, "old"), (3, "newer"),
    ]


def test_sequence_table_overwrite_keeps_the_largest_sequence_value_and_guards_it_after(spark, namespace, py_catalog):
    table = f"{namespace}.s_over"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING, s INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
        'PROPERTIES ("function_column.sequence_col" = "s")',
    )
    doris.load(spark, table=table, query=values(["(1,'old',99)", "(2,'old',99)"]))
    doris.load(spark, table=table, query=values(["(1,'new',5)", "(1,'newest',3)", "(3,'x',1)"]), overwrite=True)
    # The old rows (sequence 99) are replaced, not compared with: the batch's own winner stays.
    assert readers_agree(spark, py_catalog, table) == [(1, "new", 5), (3, "x", 1)]
    doris.load(spark, table=table, query=values(["(1,'late',4)"]))  # older than the stored 5: ignored
    assert readers_agree(spark, py_catalog, table) == [(1, "new", 5), (3, "x", 1)]


def test_aggregate_table_overwrite_aggregates_the_new_rows_only(spark, namespace, py_catalog):
    table = f"{namespace}.a_over"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, total BIGINT SUM, hi INT MAX) AGGREGATE KEY(k) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=table, query=values(["(1, 100, 100)", "(2, 100, 100)"], "k, total, hi"))
    [row] = doris.insert_overwrite(spark, table=table, query="SELECT * FROM VALUES (1, 5, 1), (1, 7, 9), (3, 1, 1) AS t(k, total, hi)")
    assert readers_agree(spark, py_catalog, table) == [(1, 12, 9), (3, 1, 1)]
    assert operation_of(spark, table, row.snapshot_id) == "overwrite"


def test_named_partition_overwrite_of_a_unique_table_leaves_the_others(spark, namespace, py_catalog):
    table = f"{namespace}.p_over"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) UNIQUE KEY(k) PARTITION BY RANGE(k) "
        "(PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20)) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=table, query=values(["(1,'a')", "(2,'b')", "(11,'c')"], "k, v"))
    doris.insert_overwrite(spark, table=table, query="SELECT * FROM VALUES (3, 'n'), (3, 'm') AS t(k, v)", partitions=["p0"])
    assert readers_agree(spark, py_catalog, table) == [(3, "m"), (11, "c")]
    doris.load(spark, table=table, query=values(["(12,'d')", "(12,'e')"], "k, v"), overwrite=True)  # touched: p1
    assert readers_agree(spark, py_catalog, table) == [(3, "m"), (12, "e")]


def test_overwrite_of_a_keyed_temp_partition_replaces_its_branch(spark, namespace):
    table = f"{namespace}.t_over"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, total BIGINT SUM) AGGREGATE KEY(k) PARTITION BY RANGE(k) "
        "(PARTITION p0 VALUES LESS THAN (10)) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.add_partition(spark, table=table, partition="tp0", values_less_than="10", temporary=True)
    doris.load(spark, table=table, query=values(["(1, 1)"], "k, total"), temporary_partitions=["tp0"])
    doris.load(spark, table=table, query=values(["(2, 3)", "(2, 4)"], "k, total"), temporary_partitions=["tp0"], overwrite=True)
    rows = sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {table} VERSION AS OF 'doris_temp_tp0'").collect())
    assert rows == [(2, 7)]
