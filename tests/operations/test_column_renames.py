"""Columns renamed by plain Spark (``ALTER TABLE ... RENAME COLUMN``) are followed through their
Iceberg field ids: the Doris model (keys, sequence column, partition and distribution columns)
reads the new names, and loads, partition operations and readers keep working."""

from __future__ import annotations

from typing import Any

import pytest

from iceberg_doris import doris
from tests.concurrency import readers_agree

pytestmark = pytest.mark.spark


def properties(spark: Any, table: str) -> dict[str, str]:
    return dict(spark.sql(f"SHOW TBLPROPERTIES {table}").collect())


def described(spark: Any, table: str) -> dict[str, str]:
    return {r.name: r.value for r in doris.describe(spark, table=table) if r.section == "table"}


def test_renamed_partition_distribution_and_value_columns_keep_the_model(spark, namespace, py_catalog):
    table = f"{namespace}.cities"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, city VARCHAR(20) NOT NULL, v STRING) DUPLICATE KEY(k) "
        "PARTITION BY LIST(city) (PARTITION p_bj VALUES IN ('Beijing'), PARTITION p_sh VALUES IN ('Shanghai')) "
        "DISTRIBUTED BY HASH(k) BUCKETS 2",
    )
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'Beijing', 'a'), (2, 'Shanghai', 'b') AS t(k, city, v)")
    for old, new in (("k", "id"), ("city", "town"), ("v", "name")):
        spark.sql(f"ALTER TABLE {table} RENAME COLUMN {old} TO {new}")

    [result] = doris.load(
        spark, table=table, query="SELECT * FROM VALUES (3, 'Beijing', 'c'), (4, 'Paris', 'x') AS t(id, town, name)",
        max_filter_ratio=0.5,
    )
    assert (result.loaded_rows, result.filtered_rows) == (1, 1)  # routed by the renamed column: Paris fits nothing
    assert readers_agree(spark, py_catalog, table) == [(1, "Beijing", "a"), (2, "Shanghai", "b"), (3, "Beijing", "c")]
    assert [(r.partition_name, r.partition_key, r.row_count) for r in doris.show_partitions(spark, table=table)] == [
        ("p_bj", "town", 2),
        ("p_sh", "town", 1),
    ]
    about = described(spark, table)
    assert about["key_columns"] == "id"
    assert about["distribution"] == "HASH(id) BUCKETS 2"

    # The next model change writes the model back under the new names (and the field ids).
    doris.add_partition(spark, table=table, partition="p_gz", values_in=["Guangzhou"])
    stored = properties(spark, table)
    assert stored["doris.key-columns"] == "id"
    assert '"cols":[["town"' in stored["doris.partitions"]
    assert stored["doris.column-ids"] == '{"id":1,"town":2,"name":3}'
    doris.load(spark, table=table, query="SELECT 5 AS id, 'Guangzhou' AS town, 'd' AS name")
    doris.drop_partition(spark, table=table, partition="p_bj")
    assert readers_agree(spark, py_catalog, table) == [(2, "Shanghai", "b"), (5, "Guangzhou", "d")]


def test_a_renamed_unique_key_still_replaces_rows(spark, namespace, py_catalog):
    table = f"{namespace}.users"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'b') AS t(k, v)")
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN k TO user_id")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a2'), (3, 'c') AS t(user_id, v)")
    assert readers_agree(spark, py_catalog, table) == [(1, "a2"), (2, "b"), (3, "c")]
    assert described(spark, table)["key_columns"] == "user_id"


def test_a_column_renamed_and_its_old_name_reused_stay_apart(spark, namespace, py_catalog):
    table = f"{namespace}.reuse"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, v BIGINT SUM DEFAULT '0') AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 10) AS t(k, v)")
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN k TO key_id")
    spark.sql(f"ALTER TABLE {table} ADD COLUMN k STRING")  # a new column under the key's old name
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 5, 'x') AS t(key_id, v, k)")
    # key_id is still the key (the rows aggregate), and k is a plain new column.
    assert readers_agree(spark, py_catalog, table) == [(1, 15, "x")]
    about = described(spark, table)
    assert about["key_columns"] == "key_id"
