"""``writeStream.format("doris")``: real streaming queries with checkpoints, whose progress carries
each batch's counts (``query.recentProgress[i]["sink"]["metrics"]``).

The sink runs ``doris.stream_to``'s per-batch code; these tests check what the format adds (the
metrics, the options as text, the errors at ``start()``) and that the guard works the same through
it. A replay is made as in ``test_stream_to.py``: the checkpoint's record of the last batch is
removed, as when the driver died after the commit and before the checkpoint.
"""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.table_model.stream_marks import mark_key

from tests.streaming.streams import (
    batch_progress,
    committed_batches,
    forget_last_checkpoint_commit,
    run_doris_format,
    write_batch,
)

CDC_SCHEMA = "k INT, v STRING, op STRING"
SUM_SCHEMA = "k INT, n BIGINT"


def summary_counts(spark, table: str) -> dict[int, tuple[int, int, int]]:
    """(loaded, filtered, deleted) of each stream batch's snapshot, by batch id."""
    rows = spark.sql(
        f"SELECT CAST(summary['doris.stream-batch'] AS BIGINT) AS batch, CAST(summary['doris.loaded-rows'] AS BIGINT) AS loaded, "
        f"CAST(summary['doris.filtered-rows'] AS BIGINT) AS filtered, CAST(summary['doris.deleted-rows'] AS BIGINT) AS deleted "
        f"FROM {table}.snapshots WHERE summary['doris.stream'] IS NOT NULL"
    ).collect()
    return {row.batch: (row.loaded, row.filtered, row.deleted) for row in rows}


@pytest.mark.spark
def test_each_merge_batch_s_counts_are_in_the_query_s_progress(spark, namespace, tmp_path):
    table = f"{namespace}.users"
    doris.create_table(spark, ddl=f"""CREATE TABLE {table} (k INT NOT NULL, v VARCHAR(20))
        UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1""")
    source, checkpoint = tmp_path / "in", tmp_path / "checkpoint"
    write_batch(source, 0, [{"k": 1, "v": "a", "op": "I"}, {"k": 2, "v": "b", "op": "I"}, {"k": 3, "v": "c", "op": "I"}])
    write_batch(source, 1, [{"k": 1, "v": "a1", "op": "U"}, {"k": 2, "v": None, "op": "D"},
                            {"k": 3, "v": None, "op": "D"}, {"k": 4, "v": "d", "op": "I"}])

    query = run_doris_format(spark, source, CDC_SCHEMA, checkpoint,
                             {"table": table, "merge_type": "MERGE", "delete_on": "op = 'D'", "columns": "k, v"})

    progress = batch_progress(query)
    assert sorted(progress) == [0, 1]
    stream = str(query.id)
    first, second = progress[0]["sink"], progress[1]["sink"]
    assert first["description"] == f"DorisSink[{table}]"
    assert first["metrics"] | {"snapshot_id": None} == {
        "batch_id": "0", "stream": stream, "skipped": "false", "loaded_rows": "3", "filtered_rows": "0",
        "unselected_rows": "0", "deleted_rows": "0", "snapshot_id": None, "label": f"stream:{stream}:0",
    }
    assert (second["metrics"]["loaded_rows"], second["metrics"]["deleted_rows"]) == ("4", "2")
    assert second["metrics"]["skipped"] == "false" and second["metrics"]["batch_id"] == "1"
    # The metrics are the batch's own load: its snapshot says the same.
    snapshots = {row.snapshot_id: row for row in spark.sql(f"SELECT snapshot_id FROM {table}.snapshots").collect()}
    assert int(first["metrics"]["snapshot_id"]) in snapshots and int(second["metrics"]["snapshot_id"]) in snapshots
    assert summary_counts(spark, table) == {0: (3, 0, 0), 1: (4, 0, 2)}
    assert sorted(tuple(r) for r in spark.table(table).collect()) == [(1, "a1"), (4, "d")]


@pytest.mark.spark
def test_a_strict_mode_batch_reports_its_filtered_row_which_goes_to_error_rows(spark, namespace, tmp_path):
    table = f"{namespace}.strict"
    doris.create_table(spark, ddl=f"""CREATE TABLE {table} (k INT NOT NULL, n BIGINT)
        DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1""")
    source, checkpoint = tmp_path / "in", tmp_path / "checkpoint"
    write_batch(source, 0, [{"k": 1, "n": "10"}, {"k": 2, "n": "not a number"}, {"k": 3, "n": "30"}])

    query = run_doris_format(spark, source, "k INT, n STRING", checkpoint,
                             {"table": table, "strict_mode": True, "max_filter_ratio": 0.5})

    metrics = batch_progress(query)[0]["sink"]["metrics"]
    assert (metrics["loaded_rows"], metrics["filtered_rows"], metrics["deleted_rows"]) == ("2", "1", "0")
    errors = spark.read.json(metrics["error_rows_path"]).collect()
    assert len(errors) == 1
    assert sorted(tuple(r) for r in spark.table(table).collect()) == [(1, 10), (3, 30)]


@pytest.mark.spark
def test_a_replayed_batch_is_skipped_and_its_progress_says_so(spark, namespace, tmp_path):
    table = f"{namespace}.totals"
    doris.create_table(spark, ddl=f"""CREATE TABLE {table} (k INT NOT NULL, n BIGINT SUM)
        AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1""")
    source, checkpoint = tmp_path / "in", tmp_path / "checkpoint"
    options = {"table": table}
    write_batch(source, 0, [{"k": 1, "n": 1}, {"k": 2, "n": 10}])
    write_batch(source, 1, [{"k": 1, "n": 100}])
    first = run_doris_format(spark, source, SUM_SCHEMA, checkpoint, options)
    stream = str(first.id)

    # The driver "died" after batch 1's commit, before its checkpoint; batch 2 arrives meanwhile.
    assert forget_last_checkpoint_commit(checkpoint) == 1
    write_batch(source, 2, [{"k": 2, "n": 1000}])
    second = run_doris_format(spark, source, SUM_SCHEMA, checkpoint, options)

    assert str(second.id) == stream and second.runId != first.runId
    progress = batch_progress(second)
    assert sorted(progress) == [1, 2], second.recentProgress
    replayed, fresh = progress[1]["sink"]["metrics"], progress[2]["sink"]["metrics"]
    assert replayed == {"batch_id": "1", "stream": stream, "skipped": "true", "loaded_rows": "0",
                        "filtered_rows": "0", "unselected_rows": "0", "deleted_rows": "0"}
    assert fresh["skipped"] == "false" and fresh["loaded_rows"] == "1"
    assert {row.k: row.n for row in spark.table(table).collect()} == {1: 101, 2: 1010}  # no sum doubled
    assert committed_batches(spark, table) == [(stream, 0), (stream, 1), (stream, 2)]  # each batch once
    properties = {row.key: row.value for row in spark.sql(f"SHOW TBLPROPERTIES {table}").collect()}
    assert mark_key(stream) in properties


TABLE = "<table>"  # stands for the test's table


@pytest.mark.spark
@pytest.mark.parametrize(("options", "message"), [
    ({"tabel": TABLE}, "format(\"doris\") has no option 'tabel': its options are table, name, merge_type,"),
    ({"merge_type": "MERGE"}, "format(\"doris\") needs the table to write: .option(\"table\", \"db.tbl\")"),
    ({"table": TABLE, "strict_mode": "yes"}, "format(\"doris\") option strict_mode is true or false, got 'yes'"),
    ({"table": TABLE, "merge_type": "UPSERT"}, "Invalid merge type UPSERT: use APPEND, MERGE, DELETE or NEGATIVE"),
])
def test_a_bad_option_fails_start_with_a_message_naming_it(spark, namespace, tmp_path, options, message):
    source = tmp_path / "in"
    write_batch(source, 0, [{"k": 1, "n": 1}])
    options = {key: f"{namespace}.opts" if value == TABLE else value for key, value in options.items()}
    with pytest.raises(Exception) as refused:
        run_doris_format(spark, source, SUM_SCHEMA, tmp_path / "checkpoint", options)
    assert message in str(refused.value)
    assert not (tmp_path / "checkpoint" / "commits").exists() or not any((tmp_path / "checkpoint" / "commits").iterdir())


@pytest.mark.spark
def test_a_batch_over_max_filter_ratio_fails_the_query_with_the_load_s_message(spark, namespace, tmp_path):
    from pyspark.errors import StreamingQueryException

    table = f"{namespace}.ratio"
    doris.create_table(spark, ddl=f"""CREATE TABLE {table} (k INT NOT NULL, n BIGINT)
        DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1""")
    source, checkpoint = tmp_path / "in", tmp_path / "checkpoint"
    write_batch(source, 0, [{"k": 5, "n": 5}, {"k": None, "n": 6}])  # half the batch filtered
    with pytest.raises(StreamingQueryException) as failure:
        run_doris_format(spark, source, SUM_SCHEMA, checkpoint, {"table": table, "max_filter_ratio": "0.3"})
    assert "too many filtered rows" in str(failure.value)
    assert spark.table(table).count() == 0 and committed_batches(spark, table) == []
