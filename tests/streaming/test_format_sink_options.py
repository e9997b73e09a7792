"""``format("doris")``'s options: Spark's text turned into ``stream_to``'s values, checked as
``stream_to`` checks them (pure: no Spark until a batch arrives)."""

from __future__ import annotations

import inspect

import pytest

from iceberg_doris.errors import ProcedureArgumentError
from iceberg_doris.operations import MergeType, OverwriteMode
from iceberg_doris.operations.requests import LoadResult, StreamBatch, StreamBatchResult
from iceberg_doris.streaming import stream_to
from iceberg_doris.streaming.format_sink import OPTIONS, batch_metrics, sink_from_options


def test_text_options_become_stream_to_s_values():
    sink = sink_from_options({
        "table": "crm.users", "checkpointLocation": "/tmp/c", "MERGE_TYPE": "merge", "delete_on": "op = 'D'",
        "partial_columns": "TRUE", "strict_mode": "false", "overwrite": "true", "max_filter_ratio": "0.25",
        "partitions": "p1, p2", "name": "users_cdc",
    })
    request = sink.request
    assert (sink.table, sink.name) == ("crm.users", "users_cdc")
    assert request.merge_type is MergeType.MERGE and request.delete_on == "op = 'D'"
    assert (request.partial_columns, request.strict_mode, request.max_filter_ratio) == (True, False, 0.25)
    assert request.overwrite is OverwriteMode.NAMED and request.partitions == ("p1", "p2")  # as doris.load
    assert sink_from_options({"table": "a.b", "overwrite": "true"}).request.overwrite is OverwriteMode.TOUCHED


def test_every_stream_to_option_is_an_option():
    assert OPTIONS == tuple(inspect.signature(stream_to).parameters)
    assert {"table", "name", "merge_type", "max_filter_ratio", "strict_mode"} <= set(OPTIONS)


@pytest.mark.parametrize(("options", "message"), [
    ({"table": "a.b", "label": "x"}, "format(\"doris\") has no option 'label': its options are table, name,"),
    ({"merge_type": "MERGE"}, "format(\"doris\") needs the table to write"),
    ({"table": "a.b", "overwrite": "1"}, "option overwrite is true or false, got '1'"),
    ({"table": "a.b", "max_filter_ratio": "lots"}, "option max_filter_ratio is a number between 0.0 and 1.0, got 'lots'"),
    ({"table": "a.b", "max_filter_ratio": "1.5"}, "max_filter_ratio must between 0.0 and 1.0, got 1.5"),
    ({"table": "a.b", "name": "my feed"}, "Invalid stream name 'my feed'"),
    ({"table": "a.b", "Name": "x", "name": "y"}, "was given option 'name' twice"),
])
def test_a_bad_option_is_refused_naming_it(options, message):
    with pytest.raises(ProcedureArgumentError) as refused:
        sink_from_options(options)
    assert message in str(refused.value)


def test_a_skipped_batch_reports_zero_counts_and_a_loaded_one_its_load():
    batch = StreamBatch("feed", 7, "q")
    assert batch_metrics(StreamBatchResult(batch, None)) == {
        "batch_id": "7", "stream": "feed", "skipped": "true", "loaded_rows": "0", "filtered_rows": "0",
        "unselected_rows": "0", "deleted_rows": "0",
    }
    load = LoadResult(label="stream:feed:7", status="Success", snapshot_id=42, loaded_rows=5, filtered_rows=1,
                      unselected_rows=2, deleted_rows=3, elapsed_ms=10, error_rows_path=None)
    assert batch_metrics(StreamBatchResult(batch, load)) == {
        "batch_id": "7", "stream": "feed", "skipped": "false", "loaded_rows": "5", "filtered_rows": "1",
        "unselected_rows": "2", "deleted_rows": "3", "snapshot_id": "42", "label": "stream:feed:7",
        "error_rows_path": None,
    }
