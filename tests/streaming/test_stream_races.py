"""Streams racing on one table, with the interleaving forced: another commit lands between a
batch's key lookup and its commit (``engine.interleaving.LOOKED_UP``).

The sinks are called as ``foreachBatch`` calls them (the batch's DataFrame and its id), with
names, so no streaming query is needed to make the race.
"""

from __future__ import annotations

import json

import pytest

from iceberg_doris import doris
from iceberg_doris.engine.interleaving import LOOKED_UP, inject
from iceberg_doris.table_model.stream_marks import mark_key

from tests.streaming.streams import committed_batches


def marks(spark, table: str) -> dict[str, dict]:
    rows = {row.key: row.value for row in spark.sql(f"SHOW TBLPROPERTIES {table}").collect()}
    return {stream: json.loads(rows[mark_key(stream)]) for stream in ("a", "b") if mark_key(stream) in rows}


def once(action):
    """A hook that runs ``action`` the first time it is reached (the nested load reaches it too)."""
    done = []

    def hook(_name):
        if not done:
            done.append(True)
            action()

    return hook


@pytest.mark.spark
def test_a_stream_committing_between_another_s_lookup_and_commit_keeps_both_marks(spark, namespace):
    table = f"{namespace}.t"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    a, b = doris.stream_to(table, name="a"), doris.stream_to(table, name="b")
    batch_a = spark.sql("SELECT * FROM VALUES (1, 'a'), (2, 'a') AS t(k, v)")
    batch_b = spark.sql("SELECT * FROM VALUES (2, 'b'), (3, 'b') AS t(k, v)")

    with inject(LOOKED_UP, once(lambda: b(batch_b, 0))):
        a(batch_a, 0)

    assert not a.last_batch.skipped and not b.last_batch.skipped
    assert marks(spark, table) == {"a": {"batch": 0}, "b": {"batch": 0}}
    assert sorted(tuple(r) for r in spark.table(table).collect()) == [(1, "a"), (2, "a"), (3, "b")]  # a committed last
    assert sorted(committed_batches(spark, table)) == [("a", 0), ("b", 0)]


@pytest.mark.spark
def test_the_same_batch_committed_meanwhile_by_another_run_is_skipped_inside_the_commit(spark, namespace):
    table = f"{namespace}.t"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, n BIGINT SUM) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    first, zombie = doris.stream_to(table, name="a"), doris.stream_to(table, name="a")
    first(spark.sql("SELECT 1 AS k, CAST(1 AS BIGINT) AS n"), 0)
    batch = spark.sql("SELECT 1 AS k, CAST(10 AS BIGINT) AS n")

    # A run of the query that Spark thinks dead commits batch 1 after this run passed its first check.
    with inject(LOOKED_UP, once(lambda: zombie(batch, 1))):
        first(batch, 1)

    assert not zombie.last_batch.skipped and first.last_batch.skipped
    assert [tuple(r) for r in spark.table(table).collect()] == [(1, 11)]  # batch 1 added once
    assert committed_batches(spark, table) == [("a", 0), ("a", 1)]
    assert marks(spark, table) == {"a": {"batch": 1}}
