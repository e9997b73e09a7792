"""``doris.stream_to``: real streaming queries with checkpoints, restarted, writing Doris tables.

A replay is what Spark does after the driver died between a batch's commit and its checkpoint:
the restarted query runs the last batch again, with the same rows. The tests make one by removing
the checkpoint's record that the last batch finished (``commits/<id>``), then restart the query
from the checkpoint (the SIGKILL version is ``test_kill_and_restart.py``).
"""

from __future__ import annotations

import datetime as dt
import json

import pytest

from iceberg_doris import doris
from iceberg_doris.table_model.snapshot_summary import LABEL
from iceberg_doris.table_model.stream_marks import mark_key

from tests.streaming.streams import committed_batches, forget_last_checkpoint_commit, run_stream, write_batch

UNIQUE_SCHEMA = "k INT, v STRING, seq INT"
SUM_SCHEMA = "k INT, n BIGINT"


def stream_property(spark, table: str, stream: str) -> dict | None:
    rows = spark.sql(f"SHOW TBLPROPERTIES {table}").collect()
    found = {row.key: row.value for row in rows}.get(mark_key(stream))
    return json.loads(found) if found is not None else None


@pytest.mark.spark
def test_a_replayed_batch_is_skipped_on_a_unique_table_with_a_sequence_column(spark, namespace, tmp_path):
    table = f"{namespace}.users"
    doris.create_table(spark, ddl=f"""CREATE TABLE {table} (k INT NOT NULL, v VARCHAR(20), seq INT)
        UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("function_column.sequence_col" = "seq")""")
    source, checkpoint = tmp_path / "in", tmp_path / "checkpoint"
    write_batch(source, 0, [{"k": 1, "v": "a0", "seq": 1}, {"k": 2, "v": "b0", "seq": 1}])
    write_batch(source, 1, [{"k": 1, "v": "a1", "seq": 2}, {"k": 3, "v": "c1", "seq": 2}, {"k": 2, "v": "late", "seq": 0}])
    first = run_stream(spark, source, UNIQUE_SCHEMA, checkpoint, doris.stream_to(table))
    stream = str(first.id)
    assert committed_batches(spark, table) == [(stream, 0), (stream, 1)]

    # The driver "died" after batch 1's commit, before its checkpoint; batch 2 arrives meanwhile.
    assert forget_last_checkpoint_commit(checkpoint) == 1
    write_batch(source, 2, [{"k": 3, "v": "c2", "seq": 3}, {"k": 4, "v": "d2", "seq": 3}])
    sink = doris.stream_to(table)
    second = run_stream(spark, source, UNIQUE_SCHEMA, checkpoint, sink)

    assert str(second.id) == stream and second.runId != first.runId  # the query id survives the restart
    assert committed_batches(spark, table) == [(stream, 0), (stream, 1), (stream, 2)]  # batch 1 once
    rows = sorted(tuple(r) for r in spark.table(table).collect())
    assert rows == [(1, "a1", 2), (2, "b0", 1), (3, "c2", 3), (4, "d2", 3)]
    assert stream_property(spark, table, stream) == {"batch": 2, "query": stream}
    assert sink.last_batch is not None and sink.last_batch.batch.batch_id == 2
    assert sink.last_batch.load.loaded_rows == 2 and sink.last_batch.load.label == f"stream:{stream}:2"


@pytest.mark.spark
def test_the_guard_outlives_cleanup_expiring_the_batches_snapshots(spark, namespace, tmp_path):
    table = f"{namespace}.events"
    doris.create_table(spark, ddl=f"""CREATE TABLE {table} (k INT NOT NULL, n BIGINT)
        DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1""")
    source, checkpoint = tmp_path / "in", tmp_path / "checkpoint"
    write_batch(source, 0, [{"k": 1, "n": 1}, {"k": 2, "n": 1}])
    write_batch(source, 1, [{"k": 3, "n": 1}])
    query = run_stream(spark, source, SUM_SCHEMA, checkpoint, doris.stream_to(table, name="events_feed"))
    assert committed_batches(spark, table) == [("events_feed", 0), ("events_feed", 1)]
    doris.load(spark, table=table, query="SELECT 9 AS k, CAST(9 AS BIGINT) AS n")  # a later commit
    doris.cleanup(spark, table=table, older_than=dt.datetime.now() + dt.timedelta(days=1), retain_last=1)
    # The batches' snapshots, labels and all, are gone.
    assert committed_batches(spark, table) == []
    labels = spark.sql(f"SELECT summary['{LABEL}'] AS label FROM {table}.snapshots").collect()
    assert "stream:events_feed:1" not in {row.label for row in labels}

    forget_last_checkpoint_commit(checkpoint)
    again = run_stream(spark, source, SUM_SCHEMA, checkpoint, doris.stream_to(table, name="events_feed"))

    assert again.id == query.id
    assert spark.table(table).count() == 4  # batch 1 (k = 3) was not loaded twice
    assert committed_batches(spark, table) == []
    assert stream_property(spark, table, "events_feed") == {"batch": 1, "query": str(query.id)}


@pytest.mark.spark
def test_two_streams_write_one_aggregate_table_and_each_skips_only_its_own_replays(spark, namespace, tmp_path):
    table = f"{namespace}.totals"
    doris.create_table(spark, ddl=f"""CREATE TABLE {table} (k INT NOT NULL, n BIGINT SUM)
        AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1""")
    a_in, b_in = tmp_path / "a", tmp_path / "b"
    a_checkpoint, b_checkpoint = tmp_path / "a-checkpoint", tmp_path / "b-checkpoint"
    write_batch(a_in, 0, [{"k": 1, "n": 1}, {"k": 2, "n": 10}])
    write_batch(b_in, 0, [{"k": 1, "n": 100}])
    write_batch(b_in, 1, [{"k": 2, "n": 1000}])
    a = run_stream(spark, a_in, SUM_SCHEMA, a_checkpoint, doris.stream_to(table))
    b = run_stream(spark, b_in, SUM_SCHEMA, b_checkpoint, doris.stream_to(table))
    assert a.id != b.id

    # Both "died" before checkpointing their last batch; both restart with a new batch.
    forget_last_checkpoint_commit(a_checkpoint)
    forget_last_checkpoint_commit(b_checkpoint)
    write_batch(a_in, 1, [{"k": 1, "n": 2}])
    run_stream(spark, a_in, SUM_SCHEMA, a_checkpoint, doris.stream_to(table))
    run_stream(spark, b_in, SUM_SCHEMA, b_checkpoint, doris.stream_to(table))

    totals = {row.k: row.n for row in spark.table(table).collect()}
    assert totals == {1: 1 + 100 + 2, 2: 10 + 1000}  # no sum doubled
    batches = committed_batches(spark, table)
    assert sorted(batches) == sorted([(str(a.id), 0), (str(b.id), 0), (str(b.id), 1), (str(a.id), 1)])
    assert stream_property(spark, table, str(a.id))["batch"] == 1
    assert stream_property(spark, table, str(b.id))["batch"] == 1


@pytest.mark.spark
def test_filtered_rows_go_to_error_rows_and_a_batch_over_the_ratio_fails_the_query(spark, namespace, tmp_path):
    from pyspark.errors import StreamingQueryException

    table = f"{namespace}.strict"
    doris.create_table(spark, ddl=f"""CREATE TABLE {table} (k INT NOT NULL, n BIGINT)
        DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1""")
    source, checkpoint = tmp_path / "in", tmp_path / "checkpoint"
    write_batch(source, 0, [{"k": 1, "n": 1}, {"k": None, "n": 2}, {"k": 3, "n": 3}, {"k": 4, "n": 4}])
    sink = doris.stream_to(table, max_filter_ratio=0.3)
    run_stream(spark, source, SUM_SCHEMA, checkpoint, sink)
    assert sink.last_batch.load.loaded_rows == 3 and sink.last_batch.load.filtered_rows == 1
    assert sink.last_batch.load.error_rows_path is not None
    errors = spark.read.json(sink.last_batch.load.error_rows_path).collect()
    assert len(errors) == 1

    write_batch(source, 1, [{"k": 5, "n": 5}, {"k": None, "n": 6}])  # half the batch filtered
    with pytest.raises(StreamingQueryException) as failure:
        run_stream(spark, source, SUM_SCHEMA, checkpoint, doris.stream_to(table, max_filter_ratio=0.3))
    assert "too many filtered rows" in str(failure.value)
    assert spark.table(table).count() == 3  # nothing of batch 1 was committed
    assert len(committed_batches(spark, table)) == 1


@pytest.mark.spark
def test_two_unnamed_sinks_of_one_query_into_one_table_are_refused(spark, namespace, tmp_path):
    from pyspark.errors import StreamingQueryException

    table = f"{namespace}.twice"
    doris.create_table(spark, ddl=f"""CREATE TABLE {table} (k INT NOT NULL, n BIGINT)
        UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1""")
    source = tmp_path / "in"
    write_batch(source, 0, [{"k": 1, "n": 1}, {"k": 2, "n": 0}])
    upsert = doris.stream_to(table, where="n > 0")
    delete = doris.stream_to(table, merge_type="DELETE", where="n = 0")

    def both(batch, batch_id):
        upsert(batch, batch_id)
        delete(batch, batch_id)

    with pytest.raises(StreamingQueryException) as failure:
        run_stream(spark, source, SUM_SCHEMA, tmp_path / "checkpoint", both)
    assert "give each a name" in str(failure.value)

    named_upsert = doris.stream_to(table, name="upserts", where="n > 0")
    named_delete = doris.stream_to(table, name="deletes", merge_type="DELETE", where="n = 0")

    def both_named(batch, batch_id):
        named_upsert(batch, batch_id)
        named_delete(batch, batch_id)

    run_stream(spark, source, SUM_SCHEMA, tmp_path / "checkpoint-2", both_named)
    assert sorted(tuple(r) for r in spark.table(table).collect()) == [(1, 1)]


@pytest.mark.spark
def test_a_name_belongs_to_one_checkpoint(spark, namespace, tmp_path):
    from pyspark.errors import StreamingQueryException

    table = f"{namespace}.named"
    doris.create_table(spark, ddl=f"""CREATE TABLE {table} (k INT NOT NULL, n BIGINT)
        DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1""")
    source = tmp_path / "in"
    write_batch(source, 0, [{"k": 1, "n": 1}])
    first = run_stream(spark, source, SUM_SCHEMA, tmp_path / "checkpoint", doris.stream_to(table, name="feed"))
    with pytest.raises(StreamingQueryException) as failure:
        run_stream(spark, source, SUM_SCHEMA, tmp_path / "new-checkpoint", doris.stream_to(table, name="feed"))
    message = str(failure.value)
    assert f"belongs to streaming query {first.id}" in message and "Give this stream another name" in message
    assert spark.table(table).count() == 1
