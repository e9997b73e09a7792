"""LIST and auto-LIST partition values Doris accepts: NULL, LARGEINT, values longer than a file
name, on real Spark, read back by Spark, pyiceberg and DuckDB."""

from __future__ import annotations

from typing import Any

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import PartitionError
from tests.concurrency import readers_agree

pytestmark = pytest.mark.spark


def partitions(spark: Any, table: str) -> list[tuple[str, str, int]]:
    return [(r.partition_name, r.range, r.row_count) for r in doris.show_partitions(spark, table=table)]


def snapshots(spark: Any, table: str) -> int:
    return spark.sql(f"SELECT count(*) FROM {table}.snapshots").collect()[0][0]


# -- NULL in VALUES IN --------------------------------------------------------------------------


@pytest.mark.parametrize("values_in", ["((NULL))", "(NULL)"])
def test_a_null_partition_holds_the_rows_whose_column_is_null(spark, namespace, py_catalog, values_in):
    table = f"{namespace}.cities"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, city VARCHAR(20)) DUPLICATE KEY(k) PARTITION BY LIST(city) "
        f"(PARTITION p_null VALUES IN {values_in}, PARTITION p_bj VALUES IN ('Beijing', 'Tianjin')) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    [result] = doris.load(
        spark, table=table, query="SELECT * FROM VALUES (1, 'Beijing'), (2, NULL), (3, NULL) AS t(k, city)"
    )
    assert (result.loaded_rows, result.filtered_rows) == (3, 0)
    assert readers_agree(spark, py_catalog, table) == [(1, "Beijing"), (2, None), (3, None)]
    assert partitions(spark, table) == [
        ("p_null", "[types: [VARCHAR]; keys: [NULL]; ]", 2),
        ("p_bj", "[types: [VARCHAR]; keys: [Beijing]; , types: [VARCHAR]; keys: [Tianjin]; ]", 1),
    ]
    # The NULL partition is a partition like any other: dropping it removes exactly its rows.
    doris.drop_partition(spark, table=table, partition="p_null")
    assert readers_agree(spark, py_catalog, table) == [(1, "Beijing")]


def test_rows_with_null_and_no_null_partition_are_filtered(spark, namespace):
    table = f"{namespace}.no_null"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, city VARCHAR(20)) DUPLICATE KEY(k) PARTITION BY LIST(city) "
        "(PARTITION p_bj VALUES IN ('Beijing')) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    [result] = doris.load(
        spark, table=table, query="SELECT * FROM VALUES (1, 'Beijing'), (2, NULL) AS t(k, city)", max_filter_ratio=0.5
    )
    assert (result.loaded_rows, result.filtered_rows) == (1, 1)
    rejected = spark.read.text(result.error_rows_path).collect()
    assert len(rejected) == 1 and "no partition for this tuple" in rejected[0].value
    assert [tuple(r) for r in spark.sql(f"SELECT * FROM {table}").collect()] == [(1, "Beijing")]


def test_add_partition_takes_null_in_values_in(spark, namespace, py_catalog):
    table = f"{namespace}.added"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, city VARCHAR(20), n INT) DUPLICATE KEY(k) PARTITION BY LIST(city, n) "
        "(PARTITION p1 VALUES IN (('Beijing', 1))) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    spark.sql(f"CALL doris.add_partition(table => '{table}', partition => 'p_null', values_in => array(array(NULL, NULL), array('Beijing', NULL)))")
    doris.add_partition(spark, table=table, partition="p_x", values_in=[[None, 1]])
    doris.load(
        spark,
        table=table,
        query="SELECT * FROM VALUES (1, 'Beijing', 1), (2, NULL, NULL), (3, 'Beijing', NULL), (4, NULL, 1) AS t(k, city, n)",
    )
    assert readers_agree(spark, py_catalog, table) == [(1, "Beijing", 1), (2, None, None), (3, "Beijing", None), (4, None, 1)]
    assert partitions(spark, table) == [  # ordered by their smallest key; NULL sorts first
        ("p_null", "[types: [VARCHAR, INT]; keys: [NULL, NULL]; , types: [VARCHAR, INT]; keys: [Beijing, NULL]; ]", 2),
        ("p_x", "[types: [VARCHAR, INT]; keys: [NULL, 1]; ]", 1),
        ("p1", "[types: [VARCHAR, INT]; keys: [Beijing, 1]; ]", 1),
    ]


def test_a_null_value_overlapping_another_partition_or_on_a_not_null_column_is_refused(spark, namespace):
    table = f"{namespace}.refused"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, city VARCHAR(20), code VARCHAR(5) NOT NULL) DUPLICATE KEY(k) "
        "PARTITION BY LIST(city) (PARTITION p_null VALUES IN ((NULL))) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    before = snapshots(spark, table)
    with pytest.raises(PartitionError) as raised:
        doris.add_partition(spark, table=table, partition="p_again", values_in=["x", None])
    assert str(raised.value) == (
        "The partition key[(NULL)] in partition item[('x',NULL)] is conflict with current partitionKeys[(NULL)] "
        "(conflicting partition: p_null)"
    )
    with pytest.raises(PartitionError) as raised:
        doris.create_table(
            spark,
            ddl=f"CREATE TABLE {namespace}.nn (k INT NOT NULL, code VARCHAR(5) NOT NULL) DUPLICATE KEY(k) "
            "PARTITION BY LIST(code) (PARTITION p_null VALUES IN ((NULL))) DISTRIBUTED BY HASH(k) BUCKETS 1",
        )
    assert str(raised.value) == "Can't have null partition is for NOT NULL partition column in partition expr's index 0"
    assert snapshots(spark, table) == before
    assert [r.partition_name for r in doris.show_partitions(spark, table=table)] == ["p_null"]


def test_auto_list_names_the_null_partition_px(spark, namespace, py_catalog):
    table = f"{namespace}.auto"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, city VARCHAR(20)) DUPLICATE KEY(k) AUTO PARTITION BY LIST(city) () "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'Beijing'), (2, NULL) AS t(k, city)")
    assert readers_agree(spark, py_catalog, table) == [(1, "Beijing"), (2, None)]
    assert partitions(spark, table) == [
        ("pX", "[types: [VARCHAR]; keys: [NULL]; ]", 1),
        ("pBeijing7", "[types: [VARCHAR]; keys: [Beijing]; ]", 1),
    ]


# -- LARGEINT partition columns -----------------------------------------------------------------

BIG = 12345678901234567890123456789012345678  # 38 digits: the most decimal(38,0) holds


def test_largeint_list_partitions_route_their_rows(spark, namespace, py_catalog):
    table = f"{namespace}.big_list"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, g LARGEINT NOT NULL) DUPLICATE KEY(k) PARTITION BY LIST(g) "
        f"(PARTITION p_small VALUES IN ('1', '-2'), PARTITION p_big VALUES IN ('{BIG}', '-{BIG}')) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    [result] = doris.load(
        spark,
        table=table,
        query=f"SELECT * FROM VALUES (1, 1), (2, -2), (3, CAST('{BIG}' AS DECIMAL(38,0))), "
        f"(4, CAST('-{BIG}' AS DECIMAL(38,0))), (5, 7) AS t(k, g)",
        max_filter_ratio=0.5,
    )
    assert (result.loaded_rows, result.filtered_rows) == (4, 1)  # 7 fits no partition
    assert readers_agree(spark, py_catalog, table) == [(1, 1), (2, -2), (3, BIG), (4, -BIG)]
    assert [(name, rows) for name, _, rows in partitions(spark, table)] == [("p_small", 2), ("p_big", 2)]
    doris.drop_partition(spark, table=table, partition="p_small")
    assert readers_agree(spark, py_catalog, table) == [(3, BIG), (4, -BIG)]


def test_auto_list_on_largeint_creates_a_partition_per_value(spark, namespace, py_catalog):
    table = f"{namespace}.big_auto"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, g LARGEINT NOT NULL) DUPLICATE KEY(k) AUTO PARTITION BY LIST(g) () "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(
        spark, table=table, query=f"SELECT * FROM VALUES (1, 5), (2, 5), (3, CAST('{BIG}' AS DECIMAL(38,0))) AS t(k, g)"
    )
    doris.load(spark, table=table, query="SELECT * FROM VALUES (4, 5) AS t(k, g)")  # lands in the partition made above
    assert readers_agree(spark, py_catalog, table) == [(1, 5), (2, 5), (3, BIG), (4, 5)]
    assert partitions(spark, table) == [
        ("p51", "[types: [LARGEINT]; keys: [5]; ]", 3),
        (f"p{BIG}38", f"[types: [LARGEINT]; keys: [{BIG}]; ]", 1),
    ]
