"""Temporary partitions on an unpartitioned table: Doris's ``ADD TEMPORARY PARTITION name`` (no
VALUES); a swap or replace with the table's one partition (named after the table) replaces it all."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import PartitionError
from tests.support import duckdb_reader

pytestmark = pytest.mark.spark


def flat_table(spark, namespace: str, name: str = "flat") -> str:
    table = f"{namespace}.{name}"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'old'), (2, 'old') AS t(k, v)")
    doris.add_temp_partition(spark, table=table, partition="staged")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (7, 'new'), (8, 'new'), (9, 'new') AS t(k, v)", temporary_partitions=["staged"])
    return table


def rows(spark, table: str, ref: str | None = None) -> list[tuple]:
    version = f" VERSION AS OF '{ref}'" if ref else ""
    return [tuple(r) for r in spark.sql(f"SELECT k, v FROM {table}{version} ORDER BY k").collect()]


def test_swap_replaces_the_whole_table_and_keeps_the_old_rows_as_the_temp_partition(spark, namespace, py_catalog):
    table = flat_table(spark, namespace)
    shown = spark.sql(f"CALL doris.show_partitions(table => '{table}', temporary => true)").collect()
    assert [(r.partition_name, r.range, r.row_count, r.branch) for r in shown] == [("staged", None, 3, "doris_temp_staged")]
    [moved] = spark.sql(
        f"CALL doris.swap_temp_partition(table => '{table}', partitions => array('flat'), temp_partitions => array('staged'))"
    ).collect()
    assert (moved.partition_name, moved.from_temp_partition, moved.row_count, moved.replaced_by_temp) == ("flat", "staged", 3, "staged")
    assert rows(spark, table) == [(7, "new"), (8, "new"), (9, "new")]
    assert rows(spark, table, "doris_temp_staged") == [(1, "old"), (2, "old")]
    loaded = py_catalog.load_table(table)
    assert sorted(loaded.scan().to_arrow().to_pylist(), key=lambda r: r["k"]) == [
        {"k": 7, "v": "new"}, {"k": 8, "v": "new"}, {"k": 9, "v": "new"},
    ]
    assert duckdb_reader.read_rows(loaded.metadata_location, "k, v", order_by="k") == [(7, "new"), (8, "new"), (9, "new")]


def test_replace_drops_the_temp_partition_and_time_travel_reads_the_old_rows(spark, namespace):
    table = flat_table(spark, namespace)
    before = spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0][0]
    doris.replace_partition(spark, table=table, partitions=["flat"], temp_partitions=["staged"])
    assert rows(spark, table) == [(7, "new"), (8, "new"), (9, "new")]
    assert spark.sql(f"CALL doris.show_partitions(table => '{table}', temporary => true)").collect() == []
    assert spark.sql(f"SELECT count(*) FROM {table}.refs WHERE name = 'doris_temp_staged'").collect()[0][0] == 0
    assert rows(spark, table, str(before)) == [(1, "old"), (2, "old")]


def test_replacement_names_the_table_partition_and_one_temp_partition(spark, namespace):
    table = flat_table(spark, namespace)
    snapshots = spark.sql(f"SELECT count(*) FROM {table}.snapshots").collect()[0][0]
    with pytest.raises(PartitionError) as raised:
        doris.swap_temp_partition(spark, table=table, partitions=["p1"], temp_partitions=["staged"])
    assert str(raised.value) == f"Partition[p1] does not exist: {table} is unpartitioned, its one partition is named flat"
    with pytest.raises(PartitionError) as raised:
        doris.replace_partition(spark, table=table, partitions=["flat"], temp_partitions=["other"])
    assert str(raised.value) == "Temp partition[other] does not exist"
    doris.add_temp_partition(spark, table=table, partition="second")
    with pytest.raises(PartitionError) as raised:
        doris.replace_partition(spark, table=table, partitions=["flat"], temp_partitions=["staged", "second"])
    assert str(raised.value) == (
        f"{table} is unpartitioned: replace its one partition (flat) with exactly one temporary partition"
    )
    with pytest.raises(PartitionError) as raised:
        doris.add_temp_partition(spark, table=table, partition="flat")
    assert str(raised.value) == "Duplicate partition name flat"
    assert spark.sql(f"SELECT count(*) FROM {table}.snapshots").collect()[0][0] == snapshots + 1  # only add 'second'
    assert rows(spark, table) == [(1, "old"), (2, "old")]
