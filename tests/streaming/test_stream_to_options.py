"""``doris.stream_to`` checks its options when called, with ``doris.load``'s messages (pure: the
sink only needs Spark when a batch arrives)."""

from __future__ import annotations

import enum
import inspect
import re
from pathlib import Path

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import ProcedureArgumentError
from iceberg_doris.operations import MergeType, OverwriteMode
from iceberg_doris.operations.requests import StreamBatch
from iceberg_doris.operations.stream_batch import STREAM_NAME_MAX_LENGTH, batch_label
from iceberg_doris.procedures.load import per_batch_parameters


def test_the_options_bind_as_doris_load_s():
    sink = doris.stream_to("crm.users", merge_type="merge", delete_on="op = 'D'", sequence_col="ts",
                           columns="id, email, ts", where="id > 0", partial_columns=True, max_filter_ratio=0.1,
                           strict_mode=True, name="users_cdc")
    request = sink.request
    assert sink.table == "crm.users" and sink.name == "users_cdc"
    assert request.merge_type is MergeType.MERGE and request.delete_on == "op = 'D'" and request.sequence_col == "ts"
    assert (request.columns, request.where, request.partial_columns) == ("id, email, ts", "id > 0", True)
    assert (request.max_filter_ratio, request.strict_mode) == (0.1, True)
    assert request.source is None and request.label is None and request.stream_batch is None
    assert doris.stream_to("sales.orders", overwrite=True).request.overwrite is OverwriteMode.TOUCHED
    assert doris.stream_to("sales.orders", partitions="p1").request.partitions == ("p1",)


@pytest.mark.parametrize(("options", "message"), [
    ({"merge_type": "UPSERT"}, "[INVALID_ARGUMENT]Invalid merge type UPSERT: use APPEND, MERGE, DELETE or NEGATIVE"),
    ({"max_filter_ratio": 1.5}, "max_filter_ratio must between 0.0 and 1.0, got 1.5"),
    ({"name": "orders feed"}, "Invalid stream name 'orders feed'"),
    ({"name": "x" * (STREAM_NAME_MAX_LENGTH + 1)}, f"A stream name has at most {STREAM_NAME_MAX_LENGTH} characters"),
])
def test_wrong_options_are_refused_when_the_sink_is_made(options, message):
    with pytest.raises(ProcedureArgumentError) as refused:
        doris.stream_to("crm.users", **options)
    assert message in str(refused.value)


def test_the_options_that_are_the_batch_itself_do_not_exist():
    for option in ("source", "query", "path", "label"):
        with pytest.raises(TypeError):
            doris.stream_to("crm.users", **{option: "x"})


def test_a_batch_s_label_is_a_valid_label_for_the_longest_name_and_batch_id():
    from iceberg_doris.names.rules import check_label

    longest = batch_label(StreamBatch("n" * STREAM_NAME_MAX_LENGTH, 2**63 - 1))
    assert check_label(longest) == longest and len(longest) == 128


def _stream_to_parameters() -> dict[str, object]:
    return {name: p.default for name, p in inspect.signature(doris.stream_to).parameters.items()}


def test_stream_to_takes_doris_load_s_per_batch_options_with_their_defaults():
    # One list: doris.load's parameters, less the source, label and progress (per_batch_parameters).
    stream_to = _stream_to_parameters()
    expected = {p.name: p.default for p in per_batch_parameters()}
    assert [name for name in stream_to if name != "name"] == list(expected)
    for name, default in expected.items():
        given = stream_to[name]
        assert (given if given is not inspect.Parameter.empty else None) == (
            default.value if isinstance(default, enum.Enum) else default), name


def _documented_options(bullet: str) -> set[str]:
    """The backquoted names in docs/change-streams.md's bullet that starts with ``bullet``."""
    text = (Path(__file__).parents[2] / "docs" / "change-streams.md").read_text()
    start = text.index(bullet)
    end = text.index("\n- ", start)
    return set(re.findall(r"`([a-z_]+)`", text[start:end]))


def test_the_docs_list_the_stream_options():
    options = set(_stream_to_parameters()) - {"table"}
    # stream_to's bullet also names what a stream does not take.
    assert _documented_options("- **Options.** Those of `doris.load`") == options | {"stream_to", "source", "query", "path", "label"}
    assert _documented_options("- **Options** are `stream_to`'s") == options | {"table", "stream_to", "true", "false"}
