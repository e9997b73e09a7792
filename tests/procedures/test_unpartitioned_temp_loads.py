"""Loads into a temporary partition of an unpartitioned table (Doris: ``INSERT INTO t TEMPORARY
PARTITION (tp)`` / stream load ``temporary_partitions: tp``): every row goes to the temp
partition's branch, with the table model's rules (duplicates kept, unique keys merged on write,
aggregates summed), and a swap or replace then puts them in the table."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.engine import interleaving
from iceberg_doris.errors import CommitConflictError, LoadError
from tests.support import duckdb_reader

pytestmark = pytest.mark.spark

BRANCH = "doris_temp_staged"


def make_table(
    spark, namespace: str, keys: str, columns: str = "k INT NOT NULL, v INT", properties: str = "",
    rows_in_main: str = "SELECT * FROM VALUES (1, 10), (2, 20) AS t(k, v)",
) -> str:
    table = f"{namespace}.flat"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} ({columns}) {keys} DISTRIBUTED BY HASH(k) BUCKETS 2 {properties}")
    doris.load(spark, table=table, query=rows_in_main)
    doris.add_temp_partition(spark, table=table, partition="staged")
    return table


def rows(spark, table: str, ref: str | None = None) -> list[tuple]:
    version = f" VERSION AS OF '{ref}'" if ref else ""
    return [tuple(r) for r in spark.sql(f"SELECT k, v FROM {table}{version} ORDER BY k, v").collect()]


def pyiceberg_rows(py_catalog, table: str, ref: str | None = None) -> list[tuple]:
    loaded = py_catalog.load_table(table)
    snapshot_id = loaded.metadata.refs[ref].snapshot_id if ref else None
    return sorted((r["k"], r["v"]) for r in loaded.scan(snapshot_id=snapshot_id).to_arrow().to_pylist())


def snapshots(spark, table: str) -> int:
    return spark.sql(f"SELECT count(*) FROM {table}.snapshots").collect()[0][0]


def test_duplicate_key_load_stages_every_row_in_the_temp_partition_and_replace_puts_them_in(spark, namespace, py_catalog):
    table = make_table(spark, namespace, "DUPLICATE KEY(k)")
    [result] = spark.sql(
        f"CALL doris.load(table => '{table}', query => 'SELECT * FROM VALUES (1, 11), (1, 11), (7, 70) AS t(k, v)', "
        "temporary_partitions => array('staged'), label => 'staged_1')"
    ).collect()
    assert (result.status, result.loaded_rows) == ("FINISHED", 3)
    branch_head = spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = '{BRANCH}'").collect()[0][0]
    assert result.snapshot_id == branch_head
    assert rows(spark, table, BRANCH) == [(1, 11), (1, 11), (7, 70)]
    assert pyiceberg_rows(py_catalog, table, BRANCH) == [(1, 11), (1, 11), (7, 70)]
    assert rows(spark, table) == [(1, 10), (2, 20)]  # main is untouched until the replace
    shown = spark.sql(f"CALL doris.show_partitions(table => '{table}', temporary => true)").collect()
    assert [(r.partition_name, r.row_count) for r in shown] == [("staged", 3)]

    doris.replace_partition(spark, table=table, partitions=["flat"], temp_partitions=["staged"])
    assert rows(spark, table) == [(1, 11), (1, 11), (7, 70)]
    assert pyiceberg_rows(py_catalog, table) == [(1, 11), (1, 11), (7, 70)]
    metadata = py_catalog.load_table(table).metadata_location
    assert duckdb_reader.read_rows(metadata, "k, v", order_by="k, v") == [(1, 11), (1, 11), (7, 70)]


def test_unique_key_loads_merge_on_write_within_the_temp_partition_and_swap_trades_rows(spark, namespace, py_catalog):
    table = make_table(spark, namespace, "UNIQUE KEY(k)", properties='PROPERTIES ("enable_unique_key_merge_on_write" = "true")')
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 100), (5, 500) AS t(k, v)", temporary_partitions=["staged"])
    # The second load replaces key 1 inside the temp partition (a deletion vector on its branch) and
    # deletes key 5 there; main's key 1 is another partition's row and stays.
    [second] = doris.load(
        spark, table=table, query="SELECT * FROM VALUES (1, 101, false), (5, 0, true), (6, 600, false) AS t(k, v, gone)",
        temporary_partitions=["staged"], merge_type="MERGE", delete_on="gone", columns="k, v, gone",
    )
    assert second.loaded_rows == 3
    assert rows(spark, table, BRANCH) == [(1, 101), (6, 600)]
    assert pyiceberg_rows(py_catalog, table, BRANCH) == [(1, 101), (6, 600)]
    assert rows(spark, table) == [(1, 10), (2, 20)]
    branch_deletes = spark.sql(
        f"SELECT count(*) FROM {table}.all_delete_files WHERE file_path LIKE '%.puffin'"
    ).collect()[0][0]
    assert branch_deletes >= 1  # merge-on-write, not a rewrite of the branch's first file

    spark.sql(f"CALL doris.swap_temp_partition(table => '{table}', partitions => array('flat'), temp_partitions => array('staged'))")
    assert rows(spark, table) == [(1, 101), (6, 600)]
    assert pyiceberg_rows(py_catalog, table) == [(1, 101), (6, 600)]
    assert rows(spark, table, BRANCH) == [(1, 10), (2, 20)]  # the swapped-out rows are the temp partition now
    metadata = py_catalog.load_table(table).metadata_location
    assert duckdb_reader.read_rows(metadata, "k, v", order_by="k") == [(1, 101), (6, 600)]
    # A later load into main merges with the swapped-in rows as usual.
    doris.load(spark, table=table, query="SELECT * FROM VALUES (6, 601) AS t(k, v)")
    assert rows(spark, table) == [(1, 101), (6, 601)]


def test_sequence_column_keeps_the_newer_row_inside_the_temp_partition(spark, namespace, py_catalog):
    table = make_table(
        spark, namespace, "UNIQUE KEY(k)", columns="k INT NOT NULL, v INT, s INT",
        properties='PROPERTIES ("enable_unique_key_merge_on_write" = "true", "function_column.sequence_col" = "s")',
        rows_in_main="SELECT * FROM VALUES (1, 10, 9), (2, 20, 9) AS t(k, v, s)",
    )
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 100, 5), (2, 200, 5) AS t(k, v, s)", temporary_partitions=["staged"])
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 111, 4), (2, 222, 6) AS t(k, v, s)", temporary_partitions=["staged"])
    assert rows(spark, table, BRANCH) == [(1, 100), (2, 222)]  # sequence 4 < 5 loses, 6 wins
    assert pyiceberg_rows(py_catalog, table, BRANCH) == [(1, 100), (2, 222)]


def test_aggregate_key_loads_aggregate_within_the_temp_partition(spark, namespace, py_catalog):
    table = make_table(spark, namespace, "AGGREGATE KEY(k)", columns="k INT NOT NULL, v INT SUM")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 1), (1, 2), (3, 30) AS t(k, v)", temporary_partitions=["staged"])
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 4), (3, 3) AS t(k, v)", temporary_partitions=["staged"])
    assert rows(spark, table, BRANCH) == [(1, 7), (3, 33)]
    assert pyiceberg_rows(py_catalog, table, BRANCH) == [(1, 7), (3, 33)]
    assert rows(spark, table) == [(1, 10), (2, 20)]
    doris.replace_partition(spark, table=table, partitions=["flat"], temp_partitions=["staged"])
    assert rows(spark, table) == [(1, 7), (3, 33)]
    assert pyiceberg_rows(py_catalog, table) == [(1, 7), (3, 33)]


def test_overwrite_load_replaces_only_the_temp_partitions_rows(spark, namespace, py_catalog):
    table = make_table(spark, namespace, "UNIQUE KEY(k)")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 100), (5, 500) AS t(k, v)", temporary_partitions=["staged"])
    doris.load(
        spark, table=table, query="SELECT * FROM VALUES (8, 1), (8, 2) AS t(k, v)", temporary_partitions=["staged"], overwrite=True,
    )
    assert rows(spark, table, BRANCH) == [(8, 2)]  # de-duplicated per key as a load would, later row wins
    assert pyiceberg_rows(py_catalog, table, BRANCH) == [(8, 2)]
    assert rows(spark, table) == [(1, 10), (2, 20)]


def test_a_load_names_one_existing_temp_partition_and_commits_nothing_otherwise(spark, namespace):
    table = make_table(spark, namespace, "DUPLICATE KEY(k)")
    doris.add_temp_partition(spark, table=table, partition="second")
    before = snapshots(spark, table)
    with pytest.raises(LoadError) as raised:
        doris.load(spark, table=table, query="SELECT 1 AS k, 1 AS v", temporary_partitions=["missing"])
    assert str(raised.value) == (
        f"Temp partition[missing] does not exist in {table}; doris.add_temp_partition creates it (an unpartitioned "
        "table takes temporary partitions without values)"
    )
    with pytest.raises(LoadError) as raised:
        doris.load(spark, table=table, query="SELECT 1 AS k, 1 AS v", temporary_partitions=["staged", "second"])
    assert str(raised.value) == (
        f"{table} is unpartitioned: a load goes into exactly one of its temporary partitions (each stages rows for "
        "the whole table), not 2; load each one separately"
    )
    with pytest.raises(LoadError) as raised:
        doris.load(spark, table=table, query="SELECT 1 AS k, 1 AS v", partitions=["flat"])
    assert str(raised.value) == f"Table {table} is not partitioned: remove the partitions argument"
    assert snapshots(spark, table) == before
    assert rows(spark, table, BRANCH) == [] and rows(spark, table) == [(1, 10), (2, 20)]


def test_a_temp_partition_dropped_between_lookup_and_commit_refuses_the_load(spark, namespace):
    table = make_table(spark, namespace, "UNIQUE KEY(k)")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 100) AS t(k, v)", temporary_partitions=["staged"])
    dropped = []

    def drop_it(name) -> None:
        if not dropped:
            dropped.append(name)
            doris.drop_temp_partition(spark, table=table, partition="staged")

    with interleaving.inject(interleaving.LOOKED_UP, drop_it):
        with pytest.raises(CommitConflictError) as raised:
            doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 101) AS t(k, v)", temporary_partitions=["staged"])
    assert len(dropped) == 1
    assert str(raised.value) == (
        f"Cannot load into {table}: temp partition staged was dropped or replaced while the load ran; nothing was "
        "committed. Add it again and run the load again."
    )
    assert spark.sql(f"SELECT count(*) FROM {table}.refs WHERE name = '{BRANCH}'").collect()[0][0] == 0
    assert rows(spark, table) == [(1, 10), (2, 20)]
