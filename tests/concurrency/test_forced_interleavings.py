"""Concurrent commits forced between a load's lookup and its commit (no sleeps, no hoping): the
load commits anyway, with the serial result by Doris's rules for every reader; a writer outside
the lock that never stops changing the table gets a short conflict message in words."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.engine import interleaving
from iceberg_doris.errors import CommitConflictError, CommitStateUnknownError
from tests.concurrency import once_for, readers_agree, snapshot_count, snapshot_summary, unique_table, values

pytestmark = pytest.mark.spark

SEQUENCE = '"function_column.sequence_col" = "s"'


def test_a_load_committed_between_lookup_and_commit_is_kept_by_sequence(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, properties=SEQUENCE)
    doris.load(spark, table=table, query=values(["(1,'a',1)", "(2,'b',1)", "(3,'c',1)"]))

    def competitor() -> None:
        doris.load(spark, table=table, query=values(["(1,'inner',3)", "(2,'inner',9)", "(4,'inner',1)"]), label="inner")

    with interleaving.inject(interleaving.LOOKED_UP, once_for(table, competitor)):
        doris.load(spark, table=table, query=values(["(1,'outer',5)", "(2,'outer',2)"]), label="outer")
    # Whatever the order, the larger sequence value wins each key.
    assert readers_agree(spark, py_catalog, table) == [(1, "outer", 5), (2, "inner", 9), (3, "c", 1), (4, "inner", 1)]
    assert snapshot_summary(spark, table, "inner")["doris.lookups"] == "1"
    assert snapshot_summary(spark, table, "outer")["doris.lookups"] == "2"  # looked up again, under the lock


def test_a_load_committed_between_lookup_and_commit_applies_first(spark, namespace, py_catalog):
    # One integer key, no sequence column: the key-index lookup, and the later commit wins.
    table = unique_table(spark, namespace)
    doris.load(spark, table=table, query=values(["(1,'a',0)", "(2,'b',0)", "(3,'c',0)"]))

    def competitor() -> None:
        doris.load(spark, table=table, query=values(["(2,'inner',0)", "(3,'inner',0)"]), label="inner")

    with interleaving.inject(interleaving.LOOKED_UP, once_for(table, competitor)):
        doris.load(
            spark, table=table, query=values(["(1,'outer',0)", "(2,'outer',0)", "(9,'gone',0)", "(3,'x',0)"]),
            merge_type="MERGE", delete_on="v = 'x'", label="outer",
        )
    assert readers_agree(spark, py_catalog, table) == [(1, "outer", 0), (2, "outer", 0), (9, "gone", 0)]
    outer = snapshot_summary(spark, table, "outer")
    assert outer["doris.lookups"] == "2"
    assert outer["doris.deleted-rows"] == "1"  # key 3 as the competitor left it
    assert "doris.key-index" in outer


def test_a_commit_elsewhere_in_the_table_needs_no_second_lookup(spark, namespace, py_catalog):
    # One bucket: same partition, other keys. Only what changed is checked (Iceberg's validation
    # with this load's keys), so the first lookup still holds.
    table = unique_table(spark, namespace, buckets=1)
    doris.load(spark, table=table, query=values(["(1,'a',0)", "(2,'b',0)"]))

    def competitor() -> None:
        doris.load(spark, table=table, query=values(["(100,'inner',0)", "(101,'inner',0)"]), label="inner")

    with interleaving.inject(interleaving.LOOKED_UP, once_for(table, competitor)):
        doris.load(spark, table=table, query=values(["(1,'outer',0)"]), label="outer")
    assert readers_agree(spark, py_catalog, table) == [(1, "outer", 0), (2, "b", 0), (100, "inner", 0), (101, "inner", 0)]
    assert snapshot_summary(spark, table, "outer")["doris.lookups"] == "1"


def test_aggregate_loads_racing_on_one_key_both_count(spark, namespace, py_catalog):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {namespace}.agg (k INT NOT NULL, total BIGINT SUM, hi INT MAX) AGGREGATE KEY(k) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    table = f"{namespace}.agg"
    doris.load(spark, table=table, query=values(["(1, 10, 1)", "(2, 1, 1)"], "k, total, hi"))

    def competitor() -> None:
        doris.load(spark, table=table, query=values(["(1, 7, 9)"], "k, total, hi"), label="inner")

    with interleaving.inject(interleaving.LOOKED_UP, once_for(table, competitor)):
        doris.load(spark, table=table, query=values(["(1, 5, 3)", "(3, 2, 2)"], "k, total, hi"), label="outer")
    # The outer load's new row merges with the row the competitor wrote: it is written again.
    assert readers_agree(spark, py_catalog, table) == [(1, 22, 9), (2, 1, 1), (3, 2, 2)]
    assert snapshot_summary(spark, table, "outer")["doris.lookups"] == "2"


def test_partial_updates_of_different_columns_racing_both_take_effect(spark, namespace, py_catalog):
    # Doris: the later-publishing partial update fills its missing columns from the earlier one.
    table = unique_table(spark, namespace, extra=", w STRING")
    doris.load(spark, table=table, query=values(["(1,'a',1,'w1')", "(2,'b',2,'w2')"], "k, v, s, w"))

    def competitor() -> None:
        doris.load(spark, table=table, query="SELECT 1 AS k, 'w-inner' AS w", columns="k, w", partial_columns=True)

    with interleaving.inject(interleaving.LOOKED_UP, once_for(table, competitor)):
        doris.load(spark, table=table, query="SELECT 1 AS k, 'v-outer' AS v", columns="k, v", partial_columns=True)
    assert readers_agree(spark, py_catalog, table) == [(1, "v-outer", 1, "w-inner"), (2, "b", 2, "w2")]


def test_a_plain_spark_delete_between_lookup_and_commit(spark, namespace, py_catalog):
    """A writer outside iceberg-doris (no lock) commits in between: the load looks up again."""
    table = unique_table(spark, namespace)
    doris.load(spark, table=table, query=values(["(1,'a',0)", "(2,'b',0)", "(3,'c',0)"]))
    with interleaving.inject(interleaving.LOOKED_UP, once_for(table, lambda: spark.sql(f"DELETE FROM {table} WHERE k IN (2, 3)"))):
        doris.load(spark, table=table, query=values(["(2,'outer',0)"]), label="outer")
    assert readers_agree(spark, py_catalog, table) == [(1, "a", 0), (2, "outer", 0)]
    assert snapshot_summary(spark, table, "outer")["doris.lookups"] == "2"


def test_a_plain_spark_merge_at_the_catalog_swap(spark, namespace, py_catalog):
    """The worst moment: a writer outside the lock commits after the load's lookup under the lock,
    right before its catalog swap. The swap fails, the load rebuilds, finds the rows changed,
    looks up again and commits."""
    table = unique_table(spark, namespace, properties=SEQUENCE)
    doris.load(spark, table=table, query=values(["(1,'a',1)", "(2,'b',1)"]))
    merge = (
        f"MERGE INTO {table} t USING (SELECT 2 AS k, 'merged' AS v, 7 AS s UNION ALL SELECT 5, 'merged', 7) m "
        "ON t.k = m.k WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    )
    with interleaving.inject(interleaving.BEFORE_COMMIT, once_for(table, lambda: spark.sql(merge))):
        doris.load(spark, table=table, query=values(["(2,'outer',3)", "(5,'outer',9)"]), label="outer")
    # Key 2: the MERGE's row has the larger sequence value; key 5: the load's.
    assert readers_agree(spark, py_catalog, table) == [(1, "a", 1), (2, "merged", 7), (5, "outer", 9)]
    assert snapshot_summary(spark, table, "outer")["doris.lookups"] == "2"


def test_a_writer_outside_the_lock_that_never_stops_gets_a_short_message(spark, namespace):
    table = unique_table(spark, namespace)
    doris.load(spark, table=table, query=values(["(1,'a',0)"]))
    inserted = []

    def insert(name) -> None:
        if name.qualified == table:
            inserted.append(100 + len(inserted))
            spark.sql(f"INSERT INTO {table} VALUES ({inserted[-1]}, 'plain', 0)")

    with interleaving.inject(interleaving.BEFORE_COMMIT, insert):
        with pytest.raises(CommitConflictError) as raised:
            doris.load(spark, table=table, query=values(["(1,'outer',0)"]), label="outer")
    message = str(raised.value)
    assert message == (
        f"Cannot load into {table}: other writers changed the table 8 times while it committed; "
        "nothing was committed. Run it again."
    )
    assert len(message) < 300
    assert spark.sql(f"SELECT count(*) FROM {table}.snapshots WHERE summary['doris.label'] = 'outer'").collect()[0][0] == 0
    rows = [tuple(r) for r in spark.sql(f"SELECT k, v FROM {table} ORDER BY k").collect()]
    assert rows == [(1, "a")] + [(k, "plain") for k in inserted]


def test_an_unconfirmed_commit_is_not_retried(spark, namespace):
    """A commit the catalog may or may not have applied must not be made twice. Iceberg raises
    CommitStateUnknownException at the catalog swap; it is raised here, in the JVM, right there."""
    table = unique_table(spark, namespace)
    doris.load(spark, table=table, query=values(["(1,'a',0)"]))
    before = snapshot_count(spark, table)
    swaps = []

    def unknown(name) -> None:
        if name.qualified == table:
            swaps.append(name)
            jvm = spark.sparkContext._jvm
            cause = jvm.java.lang.RuntimeException("connection reset")
            error = jvm.org.apache.iceberg.exceptions.CommitStateUnknownException(cause)
            jvm.org.apache.iceberg.relocated.com.google.common.base.Throwables.throwIfUnchecked(error)

    with interleaving.inject(interleaving.BEFORE_COMMIT, unknown):
        with pytest.raises(CommitStateUnknownError) as raised:
            doris.load(spark, table=table, query=values(["(2,'b',0)"]), label="maybe")
    assert len(swaps) == 1
    assert str(raised.value) == (
        f"The catalog did not confirm the commit (load into {table}): it may or may not have been applied, so it was "
        f"not retried. Check before running it again: SELECT snapshot_id FROM {table}.snapshots "
        "WHERE summary['doris.label'] = 'maybe'"
    )
    assert snapshot_count(spark, table) == before


def test_compact_racing_a_load_on_its_files_carries_its_deletes_over(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, buckets=1)
    doris.load(spark, table=table, query=values(["(1,'a',0)", "(2,'b',0)", "(3,'c',0)"]))
    doris.load(spark, table=table, query=values(["(1,'a2',0)"]))  # a DV on the first file: work for compact

    def competitor() -> None:  # a load committing to the file compact rewrites, before compact's swap
        doris.load(spark, table=table, query=values(["(2,'inner',0)"]), label="inner")

    with interleaving.inject(interleaving.BEFORE_COMMIT, once_for(table, competitor)):
        doris.compact(spark, table=table)
    assert readers_agree(spark, py_catalog, table) == [(1, "a2", 0), (2, "inner", 0), (3, "c", 0)]
    found = spark.sql(f"SELECT summary FROM {table}.snapshots WHERE summary['doris.operation'] = 'compact'").collect()
    assert [dict(r.summary)["doris.carried-deletes"] for r in found] == ["1"]
