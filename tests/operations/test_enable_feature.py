"""``doris.enable_feature(..., 'SEQUENCE_LOAD', ...)`` on a UNIQUE KEY table that already has rows:
the rows hold a NULL sequence value, which every later version of their key beats, and from then
on the larger sequence value wins, through ``doris.load`` and through Spark's INSERT, with the key
index and with a scan."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from iceberg_doris import doris
from iceberg_doris.engine import interleaving, key_index
from iceberg_doris.errors import CommitConflictError, LoadError
from tests.concurrency import once_for, readers_agree, snapshot_count, values

pytestmark = pytest.mark.spark

COLUMNS = "user_id, username, city, age, __DORIS_SEQUENCE_COL__"


def users_table(spark: Any, namespace: str, name: str, merge_on_write: bool = True) -> str:
    table = f"{namespace}.{name}"
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {table} (user_id BIGINT NOT NULL, username VARCHAR(50) NOT NULL, city VARCHAR(20), age SMALLINT)
                UNIQUE KEY(user_id) DISTRIBUTED BY HASH(user_id) BUCKETS 1
                PROPERTIES ("enable_unique_key_merge_on_write" = "{str(merge_on_write).lower()}")""",
    )
    return table


@pytest.fixture(params=["true", "false"], ids=["key-index", "scan"])
def lookups(request: pytest.FixtureRequest, spark: Any) -> Iterator[str]:
    spark.conf.set(key_index.ENABLED_CONF, request.param)
    try:
        yield request.param
    finally:
        spark.conf.unset(key_index.ENABLED_CONF)


def load_rows(spark: Any, door: str, table: str, rows: list[str]) -> None:
    """Each row one load, through doris.load or through Spark's INSERT (a load with the table's model)."""
    for row in rows:
        if door == "load":
            doris.load(spark, table=table, query=values([row], COLUMNS))
        else:
            spark.sql(f"INSERT INTO {table} ({COLUMNS}) VALUES {row}")


@pytest.mark.parametrize("door", ["load", "insert"])
def test_rows_loaded_before_hold_null_and_later_sequences_win(spark_statements, namespace, py_catalog, door, lookups):
    # doris:regression-test/suites/unique_with_mow_p0/test_mow_enable_sequence_col.groovy and its
    # .out (regression-test/data/unique_with_mow_p0/test_mow_enable_sequence_col.out).
    spark = spark_statements
    table = users_table(spark, namespace, f"mow_{door}_{lookups}")
    for row in ["(111,'aaa','bbb',11)", "(222,'bbb','bbb',11)", "(333,'ccc','ddd',11)"]:
        doris.load(spark, table=table, query=values([row], "user_id, username, city, age"))
    snapshots = snapshot_count(spark, table)

    [row] = doris.enable_feature(
        spark, table=table, feature="SEQUENCE_LOAD", properties={"function_column.sequence_type": "bigint"}
    )
    assert tuple(row) == ("SEQUENCE_LOAD", "__DORIS_SEQUENCE_COL__", "BIGINT")
    assert snapshot_count(spark, table) == snapshots  # a schema change: no rows move
    assert readers_agree(spark, py_catalog, table) == [
        (111, "aaa", "bbb", 11, None), (222, "bbb", "bbb", 11, None), (333, "ccc", "ddd", 11, None),
    ]
    assert ("table", "sequence_type", "BIGINT") in [tuple(r) for r in doris.describe(spark, table=table)]

    load_rows(spark, door, table, [
        "(111,'zzz','yyy',100,99)", "(111,'hhh','mmm',200,88)", "(222,'qqq','ppp',300,77)", "(222,'xxx','www',400,99)",
    ])
    assert readers_agree(spark, py_catalog, table) == [
        (111, "zzz", "yyy", 100, 99), (222, "xxx", "www", 400, 99), (333, "ccc", "ddd", 11, None),
    ]


def test_merge_on_read_table_and_every_load_after_supplies_the_sequence(spark, namespace, py_catalog):
    # The same rule on a merge-on-read table (Doris allows the feature on both); a load without the
    # sequence value is refused as on any sequence_type table (StreamLoadPlanner's message).
    table = users_table(spark, namespace, "mor", merge_on_write=False)
    doris.load(spark, table=table, query=values(["(1,'a','x',1)", "(2,'b','x',1)"], "user_id, username, city, age"))
    spark.sql(f"CALL doris.enable_feature('{table}', 'sequence_load', map('function_column.sequence_type', 'Date'))")
    with pytest.raises(LoadError, match="^Table mor has sequence column, need to specify the sequence column"):
        doris.load(spark, table=table, query=values(["(1,'late','x',2)"], "user_id, username, city, age"))
    doris.load(spark, table=table, query=values(["(1,'new','y',2,DATE'2024-01-02')"], COLUMNS))
    doris.load(spark, table=table, query=values(["(1,'old','z',3,DATE'2024-01-01')"], COLUMNS))
    rows = readers_agree(spark, py_catalog, table)
    assert [r[:4] for r in rows] == [(1, "new", "y", 2), (2, "b", "x", 1)]
    assert str(rows[0][4]) == "2024-01-02" and rows[1][4] is None


def test_a_delete_after_the_feature_beats_the_null_of_older_rows(spark, namespace, py_catalog):
    # A tombstone wins when its sequence value is >= the stored one; NULL is the smallest
    # (test_mow_with_null_sequence.out, batch-delete-manual.md use case 4).
    table = users_table(spark, namespace, "deletes")
    doris.load(spark, table=table, query=values(["(1,'a','x',1)", "(2,'b','x',1)"], "user_id, username, city, age"))
    doris.enable_feature(spark, table=table, feature="SEQUENCE_LOAD", properties={"function_column.sequence_type": "int"})
    doris.load(spark, table=table, query=values(["(1,'a','x',1,5)"], COLUMNS), merge_type="DELETE")
    doris.load(spark, table=table, query=values(["(1,'late','x',1,4)"], COLUMNS))  # older than the delete
    assert readers_agree(spark, py_catalog, table) == [(2, "b", "x", 1, None)]


def test_a_load_that_ran_while_the_feature_was_enabled_commits_nothing(spark, namespace, py_catalog):
    # The load decided its versions without the sequence column; Doris's schema change waits for
    # such loads, here the load is refused and runs again.
    table = users_table(spark, namespace, "meanwhile")
    doris.load(spark, table=table, query=values(["(1,'a','x',1)"], "user_id, username, city, age"))
    before = snapshot_count(spark, table)

    def competitor() -> None:
        doris.enable_feature(spark, table=table, feature="SEQUENCE_LOAD", properties={"function_column.sequence_type": "int"})

    with interleaving.inject(interleaving.LOOKED_UP, once_for(table, competitor)):
        with pytest.raises(CommitConflictError) as raised:
            doris.load(spark, table=table, query=values(["(1,'b','y',2)"], "user_id, username, city, age"))
    assert str(raised.value) == (
        f"Cannot load into {table}: its sequence column changed while the load ran; nothing was committed. "
        "Run the load again."
    )
    assert snapshot_count(spark, table) == before
    assert readers_agree(spark, py_catalog, table) == [(1, "a", "x", 1, None)]
