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


# -- values longer than a file name -------------------------------------------------------------

LONG_A, LONG_B = "a" * 300, "Ω" * 200  # 300 bytes; 400 bytes of UTF-8: each longer than a folder name may be


def file_paths(spark: Any, table: str) -> list[str]:
    return [r[0] for r in spark.sql(f"SELECT file_path FROM {table}.all_files").collect()]


def test_list_values_longer_than_a_file_name_load_and_update(spark, namespace, py_catalog):
    table = f"{namespace}.long_list"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, c VARCHAR(1000) NOT NULL, v INT) UNIQUE KEY(k, c) "
        f"PARTITION BY LIST(c) (PARTITION p_a VALUES IN ('{LONG_A}'), PARTITION p_b VALUES IN ('{LONG_B}')) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=table, query=f"SELECT * FROM VALUES (1, '{LONG_A}', 1), (2, '{LONG_B}', 2) AS t(k, c, v)")
    doris.load(spark, table=table, query=f"SELECT * FROM VALUES (1, '{LONG_A}', 10) AS t(k, c, v)")  # a deletion vector
    assert readers_agree(spark, py_catalog, table) == [(1, LONG_A, 10), (2, LONG_B, 2)]
    assert [(name, rows) for name, _, rows in partitions(spark, table)] == [("p_a", 1), ("p_b", 1)]
    paths = file_paths(spark, table)  # data files and the deletion vector's Puffin file
    assert len(paths) == 4 and any(path.endswith("-deletes.puffin") for path in paths)
    assert not any("c=" in path or "aaaa" in path for path in paths)
    properties = dict(spark.sql(f"SHOW TBLPROPERTIES {table}").collect())
    assert properties["write.object-storage.enabled"] == "true"
    assert properties["write.object-storage.partitioned-paths"] == "false"
    # Metadata-only partition operations still see the values.
    doris.drop_partition(spark, table=table, partition="p_a")
    assert readers_agree(spark, py_catalog, table) == [(2, LONG_B, 2)]


def test_auto_list_value_longer_than_a_file_name_loads(spark, namespace, py_catalog):
    table = f"{namespace}.long_auto"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, c VARCHAR(1000)) DUPLICATE KEY(k) AUTO PARTITION BY LIST(c) () "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=table, query=f"SELECT * FROM VALUES (1, '{LONG_A}'), (2, 'short') AS t(k, c)")
    assert readers_agree(spark, py_catalog, table) == [(1, LONG_A), (2, "short")]
    [(name, _, rows)] = [p for p in partitions(spark, table) if p[0] != "pshort5"]
    assert rows == 1 and len(name) <= 128  # Doris cuts a long auto partition name and suffixes its hash
    assert not any("aaaa" in path or "short" in path for path in file_paths(spark, table))


def test_tables_without_string_partition_values_keep_readable_folders(spark, namespace):
    table = f"{namespace}.by_int"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, n INT NOT NULL) DUPLICATE KEY(k) PARTITION BY LIST(n) "
        "(PARTITION p1 VALUES IN (1)) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=table, query="SELECT 1 AS k, 1 AS n")
    [path] = file_paths(spark, table)
    assert "/data/n=1/" in path
    assert "write.object-storage.enabled" not in dict(spark.sql(f"SHOW TBLPROPERTIES {table}").collect())
