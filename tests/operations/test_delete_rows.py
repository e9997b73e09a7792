"""``doris.delete`` (Doris DELETE FROM) on every table model: which rows readers see afterwards,
what was committed, and the refusals that commit nothing."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import LoadError, PartitionError, ProcedureArgumentError
from tests.concurrency import readers_agree, snapshot_count, snapshot_summary, values

pytestmark = pytest.mark.spark


def create(spark, ddl: str) -> None:
    doris.create_table(spark, ddl=ddl)


def data_file_count(spark, table: str) -> int:
    return spark.sql(f"SELECT count(*) FROM {table}.data_files").collect()[0][0]


def test_duplicate_table_loses_every_matching_row_and_time_travel_keeps_them(spark, namespace, py_catalog):
    table = f"{namespace}.dup_del"
    create(spark, f"CREATE TABLE {table} (k INT NOT NULL, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    doris.load(spark, table=table, query=values(["(1,'x')", "(1,'x')", "(2,'y')", "(3,'x')"], "k, v"))
    before = spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0][0]
    files = data_file_count(spark, table)
    [row] = doris.delete(spark, table=table, where="v = 'x'", label="del_x")
    assert row.deleted_rows == 3 and row.label == "del_x"
    assert readers_agree(spark, py_catalog, table) == [(2, "y")]
    assert data_file_count(spark, table) == files  # marked deleted, no file rewritten
    assert spark.sql(f"SELECT count(*) FROM {table} VERSION AS OF {before}").collect()[0][0] == 4
    summary = snapshot_summary(spark, table, "del_x")
    assert summary["doris.operation"] == "delete" and summary["doris.deleted-rows"] == "3"


def test_a_condition_matching_nothing_commits_an_empty_delete(spark, namespace):
    table = f"{namespace}.dup_none"
    create(spark, f"CREATE TABLE {table} (k INT NOT NULL, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=table, query=values(["(1,'x')"], "k, v"))
    [row] = doris.delete(spark, table=table, where="k > 100")
    assert row.deleted_rows == 0
    assert [tuple(r) for r in spark.sql(f"SELECT * FROM {table}").collect()] == [(1, "x")]


def test_unique_table_deletes_by_a_value_column(spark, namespace, py_catalog):
    table = f"{namespace}.uniq_del"
    create(spark, f"CREATE TABLE {table} (k INT NOT NULL, v STRING, s INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    doris.load(spark, table=table, query=values(["(1,'a',1)", "(2,'b',1)", "(3,'a',1)"]))
    doris.load(spark, table=table, query=values(["(3,'c',2)"]))  # key 3's live row no longer matches
    [row] = doris.delete(spark, table=table, where="v = 'a'")
    assert row.deleted_rows == 1
    assert readers_agree(spark, py_catalog, table) == [(2, "b", 1), (3, "c", 2)]


def test_sequence_table_keeps_a_deleted_key_from_older_late_rows(spark, namespace, py_catalog):
    table = f"{namespace}.seq_del"
    create(
        spark,
        f"CREATE TABLE {table} (k INT NOT NULL, v STRING, s INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
        'PROPERTIES ("function_column.sequence_col" = "s")',
    )
    doris.load(spark, table=table, query=values(["(1,'a',10)", "(2,'b',5)"]))
    [row] = doris.delete(spark, table=table, where="k = 1")
    assert row.deleted_rows == 1
    assert readers_agree(spark, py_catalog, table) == [(2, "b", 5)]
    doris.load(spark, table=table, query=values(["(1,'late',9)"]))  # older than the deleted row: ignored
    assert readers_agree(spark, py_catalog, table) == [(2, "b", 5)]
    doris.load(spark, table=table, query=values(["(1,'newer',10)"]))  # equal sequence: the later load wins
    assert readers_agree(spark, py_catalog, table) == [(1, "newer", 10), (2, "b", 5)]


def test_aggregate_table_deletes_by_key_and_refuses_a_value_condition(spark, namespace, py_catalog):
    table = f"{namespace}.agg_del"
    create(
        spark,
        f"CREATE TABLE {table} (k INT NOT NULL, total BIGINT SUM) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=table, query=values(["(1, 5)", "(2, 7)", "(1, 1)"], "k, total"))
    snapshots = snapshot_count(spark, table)
    with pytest.raises(ProcedureArgumentError) as raised:
        doris.delete(spark, table=table, where="total > 5")
    assert str(raised.value) == (
        "delete predicate on value column only supports Unique table with merge-on-write enabled and Duplicate table, "
        "but Table[agg_del] is an Aggregate table. Name only its key columns (k) in the where condition"
    )
    assert snapshot_count(spark, table) == snapshots
    [row] = doris.delete(spark, table=table, where="k = 2")
    assert row.deleted_rows == 1
    assert readers_agree(spark, py_catalog, table) == [(1, 6)]


def test_partitions_narrow_the_delete(spark, namespace, py_catalog):
    table = f"{namespace}.part_del"
    create(
        spark,
        f"CREATE TABLE {table} (k INT NOT NULL, v STRING) DUPLICATE KEY(k) PARTITION BY RANGE(k) "
        "(PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20)) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=table, query=values(["(1,'a')", "(2,'b')", "(11,'a')", "(12,'b')"], "k, v"))
    [row] = doris.delete(spark, table=table, where="true", partitions=["p1"])
    assert row.deleted_rows == 2
    assert readers_agree(spark, py_catalog, table) == [(1, "a"), (2, "b")]
    with pytest.raises(PartitionError) as raised:
        doris.delete(spark, table=table, where="true", partitions=["p9"])
    assert str(raised.value) == (
        f"Partition[p9] does not exist in {table}: name one of its partitions (doris.show_partitions lists them)"
    )


def test_format_v2_table_gets_position_delete_files(spark, namespace, py_catalog):
    table = f"{namespace}.v2_del"
    spark.sql(f"CREATE TABLE {table} (k INT NOT NULL, v STRING) USING iceberg TBLPROPERTIES ('format-version'='2')")
    spark.sql(f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b')")
    [row] = doris.delete(spark, table=table, where="k = 1")
    assert row.deleted_rows == 1
    assert readers_agree(spark, py_catalog, table) == [(2, "b")]
    assert {r[0] for r in spark.sql(f"SELECT file_format FROM {table}.delete_files").collect()} == {"PARQUET"}


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("", "DELETE FROM {t} needs a where condition on its columns, e.g. where => \"k = 1\" (where => 'true' deletes every row)"),
        ("k = = 1", "the where condition 'k = = 1' of DELETE FROM {t} does not parse: "),
        ("nope = 1", "the where condition 'nope = 1' of DELETE FROM {t} cannot be applied to its columns: "),
        ("k + 1", "the where condition 'k + 1' of DELETE FROM {t} is a int, not a condition: write a comparison, e.g. where => \"k = 1\""),
    ],
)
def test_a_bad_condition_is_refused_before_anything_is_read(spark, namespace, where, message):
    table = f"{namespace}.bad_where"
    if not spark.catalog.tableExists(table):
        create(spark, f"CREATE TABLE {table} (k INT NOT NULL, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
        doris.load(spark, table=table, query=values(["(1,'a')"], "k, v"))
    snapshots = snapshot_count(spark, table)
    with pytest.raises(ProcedureArgumentError) as raised:
        doris.delete(spark, table=table, where=where)
    assert str(raised.value).startswith(message.format(t=table))
    assert snapshot_count(spark, table) == snapshots


def test_a_used_label_is_refused(spark, namespace):
    table = f"{namespace}.label_del"
    create(spark, f"CREATE TABLE {table} (k INT NOT NULL, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=table, query=values(["(1,'a')", "(2,'b')"], "k, v"), label="first")
    with pytest.raises(LoadError, match=r"^Label \[first\] has already been used"):
        doris.delete(spark, table=table, where="k = 1", label="first")
    assert spark.sql(f"SELECT count(*) FROM {table}").collect()[0][0] == 2
