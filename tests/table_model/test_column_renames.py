"""Following renames through field ids (pure): which stored names map to which columns now."""

from __future__ import annotations

import json

from iceberg_doris.table_model.column_renames import follow_renames, needs_history, renamed_columns


def stored(names: list[str], ids: dict[str, int] | None = None) -> dict[str, str]:
    props = {
        "doris.columns": json.dumps([{"name": n, "type": "INT"} for n in names]),
        "doris.key-columns": names[0],
        "doris.partitions": json.dumps({"v": 1, "kind": "LIST", "cols": [[names[1], "INT", False]], "formal": [], "temp": []}),
        "doris.distribution": json.dumps({"kind": "HASH", "columns": [names[0]], "buckets": 1}),
        "doris.sequence-col": names[2],
        "doris.property.function_column.sequence_col": names[2],
    }
    if ids is not None:
        props["doris.column-ids"] = json.dumps(ids)
    return props


def test_renames_resolve_through_recorded_ids():
    props = stored(["k", "c", "s"], {"k": 1, "c": 2, "s": 3})
    assert not needs_history(props)
    assert renamed_columns(props, {"id": 1, "c": 2, "seq": 3}) == {"k": "id", "s": "seq"}


def test_without_recorded_ids_the_oldest_schema_decides():
    props = stored(["k", "c", "s"])
    assert needs_history(props)
    history = [{"k": 1, "c": 2, "s": 3}, {"id": 1, "c": 2, "s": 3, "k": 4}]
    # k was renamed to id and a new column took the name k: the model's k is the renamed one.
    assert renamed_columns(props, {"id": 1, "c": 2, "s": 3, "k": 4}, history) == {"k": "id"}


def test_a_dropped_column_is_not_renamed_and_swaps_stay_apart():
    props = stored(["a", "b", "s"], {"a": 1, "b": 2, "s": 3})
    assert renamed_columns(props, {"b": 1, "a": 2}) == {"a": "b", "b": "a"}
    rewritten = follow_renames(props, {"a": "b", "b": "a"})
    assert [c["name"] for c in json.loads(rewritten["doris.columns"])] == ["b", "a", "s"]
    assert rewritten["doris.key-columns"] == "b"
    assert json.loads(rewritten["doris.partitions"])["cols"][0][0] == "a"
    assert json.loads(rewritten["doris.distribution"])["columns"] == ["b"]
    assert json.loads(rewritten["doris.column-ids"]) == {"b": 1, "a": 2, "s": 3}


def test_the_sequence_column_follows_in_both_places():
    rewritten = follow_renames(stored(["k", "c", "s"]), {"s": "seq"})
    assert rewritten["doris.sequence-col"] == "seq"
    assert rewritten["doris.property.function_column.sequence_col"] == "seq"
