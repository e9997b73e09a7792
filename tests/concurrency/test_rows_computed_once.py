"""A load's rows are computed once (issue 52): whatever happens under the commit lock (a second
lookup after another commit) works from the rows the load read, never from a new read of its
source, and the counts it reports are the rows it committed.

Each case forces its interleaving with the commit path's hooks: between a keyed load's lookup and
its commit, the source changes *and* a competing load commits to the target (which makes the load
look its keys up again). Before the fix, the second lookup read the source again: rows whose keys
were never looked up landed beside the stored row of their key."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.engine import interleaving
from tests.concurrency import once_for, readers_agree, snapshot_summary, unique_table, values

pytestmark = pytest.mark.spark

SEQUENCE = '"function_column.sequence_col" = "s"'


def one_row_per_key(spark, table: str) -> None:
    repeated = spark.sql(f"SELECT k, count(*) AS n FROM {table} GROUP BY k HAVING n > 1").collect()
    assert repeated == [], f"keys stored twice: {repeated}"


def test_a_source_table_gaining_a_key_meanwhile_is_not_read_again(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, properties=SEQUENCE)
    doris.load(spark, table=table, query=values(["(1,'a',1)", "(9,'old-nine',0)"]))
    spark.sql(f"CREATE TABLE {namespace}.src (k INT, v STRING, s INT) USING iceberg")
    spark.sql(f"INSERT INTO {namespace}.src VALUES (1, 'src-one', 5)")

    def competitor() -> None:
        spark.sql(f"INSERT INTO {namespace}.src VALUES (9, 'src-nine', 20)")
        # Key 1 too: the load's keys changed, so it looks them up again under the lock.
        doris.load(spark, table=table, query=values(["(1,'c-one',2)", "(9,'c-nine',1)"]), label="inner")

    with interleaving.inject(interleaving.LOOKED_UP, once_for(table, competitor)):
        result = doris.load(spark, table=table, query=f"SELECT k, v, s FROM {namespace}.src", label="outer")
    # The load read one row: key 9 arrived in src after it, so it is not this load's.
    assert result[0].loaded_rows == 1
    assert readers_agree(spark, py_catalog, table) == [(1, "src-one", 5), (9, "c-nine", 1)]
    assert snapshot_summary(spark, table, "outer")["doris.lookups"] == "2"


def test_a_source_view_over_a_changing_table(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, properties=SEQUENCE)
    doris.load(spark, table=table, query=values(["(1,'a',1)", "(2,'b',1)"]))
    spark.sql(f"CREATE TABLE {namespace}.src (k INT, v STRING, s INT) USING iceberg")
    spark.sql(f"INSERT INTO {namespace}.src VALUES (1, 'src-one', 5)")
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW changing_src AS SELECT * FROM {namespace}.src")

    def competitor() -> None:
        spark.sql(f"INSERT INTO {namespace}.src VALUES (2, 'src-two', 20)")
        doris.load(spark, table=table, query=values(["(2,'c-two',3)"]), label="inner")

    with interleaving.inject(interleaving.LOOKED_UP, once_for(table, competitor)):
        result = doris.load(spark, table=table, source="changing_src", label="outer")
    assert result[0].loaded_rows == 1
    assert readers_agree(spark, py_catalog, table) == [(1, "src-one", 5), (2, "c-two", 3)]


def test_a_file_replaced_meanwhile_is_not_read_again(spark, namespace, py_catalog, tmp_path):
    table = unique_table(spark, namespace, properties=SEQUENCE)
    doris.load(spark, table=table, query=values(["(1,'a',1)", "(2,'b',1)"]))
    source = tmp_path / "batch.csv"
    source.write_text("1,file-one,5\n")

    def competitor() -> None:
        source.write_text("1,file-one,5\n2,replaced-two,20\n")
        doris.load(spark, table=table, query=values(["(2,'c-two',3)"]), label="inner")

    with interleaving.inject(interleaving.LOOKED_UP, once_for(table, competitor)):
        result = doris.load(
            spark, table=table, path=str(source), format_options={"column_separator": ","}, label="outer"
        )
    assert result[0].loaded_rows == 1
    assert readers_agree(spark, py_catalog, table) == [(1, "file-one", 5), (2, "c-two", 3)]


def test_a_partial_update_from_a_changing_source(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, extra=", w STRING")
    doris.load(spark, table=table, query=values(["(1,'a',1,'w1')", "(2,'b',2,'w2')"], "k, v, s, w"))
    spark.sql(f"CREATE TABLE {namespace}.src (k INT, w STRING) USING iceberg")
    spark.sql(f"INSERT INTO {namespace}.src VALUES (1, 'w-src')")

    def competitor() -> None:
        spark.sql(f"INSERT INTO {namespace}.src VALUES (2, 'w-late')")
        doris.load(spark, table=table, query=values(["(2,'inner',7,'w-inner')"], "k, v, s, w"), label="inner")

    with interleaving.inject(interleaving.LOOKED_UP, once_for(table, competitor)):
        result = doris.load(
            spark, table=table, query=f"SELECT k, w FROM {namespace}.src", columns="k, w", partial_columns=True, label="outer"
        )
    assert result[0].loaded_rows == 1
    assert readers_agree(spark, py_catalog, table) == [(1, "a", 1, "w-src"), (2, "inner", 7, "w-inner")]


def test_an_update_of_the_table_itself_while_a_load_adds_a_key(spark_statements, namespace, py_catalog):
    spark = spark_statements
    table = unique_table(spark, namespace, name="a", properties=SEQUENCE)
    doris.load(spark, table=table, query=values(["(1,'one',10)"]))

    def competitor() -> None:
        doris.load(spark, table=table, query=values(["(1,'one-again',10)", "(2,'two',10)"]), label="inner")

    with interleaving.inject(interleaving.LOOKED_UP, once_for(table, competitor)):
        spark.sql(f"UPDATE {table} SET v = concat(v, '+u') WHERE true")
    rows = readers_agree(spark, py_catalog, table)
    one_row_per_key(spark, table)
    # Whichever order Doris's table lock gives them, key 2 is stored once.
    assert rows in ([(1, "one-again", 10), (2, "two", 10)], [(1, "one-again+u", 10), (2, "two+u", 10)])


def test_an_insert_select_from_the_table_itself(spark_statements, namespace, py_catalog):
    spark = spark_statements
    table = unique_table(spark, namespace, name="a", properties=SEQUENCE)
    doris.load(spark, table=table, query=values(["(1,'one',10)"]))

    def competitor() -> None:
        doris.load(spark, table=table, query=values(["(2,'two',10)"]), label="inner")

    with interleaving.inject(interleaving.LOOKED_UP, once_for(table, competitor)):
        spark.sql(f"INSERT INTO {table} SELECT k, concat(v, '+i'), s FROM {table}")
    one_row_per_key(spark, table)
    rows = readers_agree(spark, py_catalog, table)
    assert rows in ([(1, "one+i", 10), (2, "two", 10)], [(1, "one+i", 10), (2, "two+i", 10)])


def test_a_first_load_into_an_empty_table_then_a_competitor(spark, namespace, py_catalog):
    """The one-pass path for fresh keys: its rows are written before anything is looked up, and a
    competitor filling the table meanwhile makes it look its keys up under the lock."""
    table = unique_table(spark, namespace, properties=SEQUENCE)
    spark.sql(f"CREATE TABLE {namespace}.src (k INT, v STRING, s INT) USING iceberg")
    spark.sql(f"INSERT INTO {namespace}.src VALUES (1, 'src-one', 5), (2, 'src-two', 5)")

    def competitor() -> None:
        spark.sql(f"INSERT INTO {namespace}.src VALUES (3, 'src-three', 20)")
        doris.load(spark, table=table, query=values(["(2,'c-two',9)", "(3,'c-three',1)"]), label="inner")

    with interleaving.inject(interleaving.LOOKED_UP, once_for(table, competitor)):
        result = doris.load(spark, table=table, query=f"SELECT k, v, s FROM {namespace}.src", label="outer")
    assert result[0].loaded_rows == 2
    assert readers_agree(spark, py_catalog, table) == [(1, "src-one", 5), (2, "c-two", 9), (3, "c-three", 1)]
