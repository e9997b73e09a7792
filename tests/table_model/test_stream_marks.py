"""A stream's mark (table property ``doris.stream.<stream>``) and the model's stale keys (pure)."""

from __future__ import annotations

import pytest

from iceberg_doris.errors import TableStateError
from iceberg_doris.table_model.stream_marks import StreamMark, mark_key, read_mark
from iceberg_doris.table_model.table_properties import stale_keys


def test_a_mark_reads_back_what_it_wrote():
    assert mark_key("orders_cdc") == "doris.stream.orders_cdc"
    assert read_mark("s", StreamMark(7, "8e12054c-7c1d-4054-b407-640730446948").text()) == StreamMark(7, "8e12054c-7c1d-4054-b407-640730446948")
    assert StreamMark(3).text() == '{"batch":3}' and read_mark("s", '{"batch":3}') == StreamMark(3)
    assert read_mark("s", None) is None


@pytest.mark.parametrize("text", ["7", "{}", '{"batch": "7"}', '{"batch": true}', '{"batch": 1, "query": 5}', "not json"])
def test_a_damaged_mark_is_refused_naming_the_property_and_the_fix(text):
    with pytest.raises(TableStateError) as refused:
        read_mark("feed", text)
    assert "doris.stream.feed cannot be read" in str(refused.value)
    assert "remove it" in str(refused.value)


def test_a_new_model_removes_only_the_model_s_own_keys():
    current = {
        "doris.keys-model": "UNIQUE", "doris.sequence-col": "seq", "doris.property.replication_num": "1",
        "doris.stream.feed": '{"batch":3}', "doris.compaction.enabled": "false", "doris.tombstone-retention-hours": "1",
        "write.format.default": "parquet",
    }
    wanted = {"doris.keys-model": "UNIQUE"}
    assert sorted(stale_keys(current, wanted)) == ["doris.property.replication_num", "doris.sequence-col"]
