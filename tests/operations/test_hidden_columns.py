"""Doris's hidden columns written by loads: ``__DORIS_DELETE_SIGN__`` deletes keys (sequence rules
included), ``__DORIS_SEQUENCE_COL__`` feeds a ``sequence_type`` table's hidden sequence."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import LoadError
from tests.concurrency import readers_agree, snapshot_count, unique_table, values

pytestmark = pytest.mark.spark


def test_delete_sign_in_the_source_deletes_keys(spark, namespace, py_catalog):
    table = unique_table(spark, namespace)
    doris.load(spark, table=table, query=values(["(1,'a',1)", "(2,'b',1)", "(3,'c',1)"]))
    [row] = doris.load(
        spark, table=table,
        query=values(["(1,'x',1,1)", "(2,'y',2,0)", "(4,'z',1,NULL)"], "k, v, s, __DORIS_DELETE_SIGN__"),
    )
    assert row.deleted_rows == 1
    assert readers_agree(spark, py_catalog, table) == [(2, "y", 2), (3, "c", 1), (4, "z", 1)]


def test_delete_sign_from_a_columns_mapping_follows_the_sequence_rule(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, name="useq", properties='"function_column.sequence_col" = "s"')
    doris.load(spark, table=table, query=values(["(1,'a',10)", "(2,'b',10)"]))
    doris.load(
        spark, table=table, query=values(["(1,'a',9,'D')", "(2,'b',10,'D')"], "k, v, s, op"),
        columns="k, v, s, op, __DORIS_DELETE_SIGN__ = if(op = 'D', 1, 0)",
    )
    # Key 1's delete is older than its row (9 < 10): ignored. Key 2's has the same sequence: it deletes.
    assert readers_agree(spark, py_catalog, table) == [(1, "a", 10)]


def test_delete_sign_with_partial_columns_deletes_the_key(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, name="upart")
    doris.load(spark, table=table, query=values(["(1,'a',1)", "(2,'b',1)"]))
    doris.load(spark, table=table, query="SELECT 2 AS k, 1 AS __DORIS_DELETE_SIGN__", partial_columns=True)
    assert readers_agree(spark, py_catalog, table) == [(1, "a", 1)]


def test_delete_sign_on_a_duplicate_table_is_refused(spark, namespace):
    table = f"{namespace}.dup"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    before = snapshot_count(spark, table)
    with pytest.raises(LoadError) as raised:
        doris.load(spark, table=table, query="SELECT 1 AS k, 'a' AS v, 1 AS __DORIS_DELETE_SIGN__")
    assert str(raised.value) == (
        f"{table} has no column __DORIS_DELETE_SIGN__: only unique-key tables have the delete sign (batch delete); "
        "leave it out of the source"
    )
    assert snapshot_count(spark, table) == before


def test_hidden_sequence_column_listed_in_the_source(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, name="htype", properties='"function_column.sequence_type" = "int"')
    doris.load(spark, table=table, query=values(["(1,'a',0,7)", "(1,'b',0,3)"], "k, v, s, __DORIS_SEQUENCE_COL__"))
    doris.load(spark, table=table, query=values(["(1,'older',0,5)"], "k, v, s, __DORIS_SEQUENCE_COL__"))
    assert [tuple(r) for r in spark.sql(f"SELECT k, v, __DORIS_SEQUENCE_COL__ FROM {table}").collect()] == [(1, "a", 7)]


def test_delete_from_a_hidden_sequence_table_leaves_a_tombstone(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, name="hdel", properties='"function_column.sequence_type" = "int"')
    doris.load(spark, table=table, query=values(["(1,'a',0,7)", "(2,'b',0,7)"], "k, v, s, __DORIS_SEQUENCE_COL__"))
    [row] = doris.delete(spark, table=table, where="k = 1")
    assert row.deleted_rows == 1
    doris.load(spark, table=table, query=values(["(1,'late',0,6)"], "k, v, s, __DORIS_SEQUENCE_COL__"))
    assert [r[0] for r in spark.sql(f"SELECT k FROM {table} ORDER BY k").collect()] == [2]
