"""A keyed load's lookup carried past compactions committed after it (rowid conversion at the
load's commit, :mod:`iceberg_doris.engine.compaction.past_compactions`), so a compaction never
makes the load look its keys up again."""

from __future__ import annotations

import dataclasses
from collections import ChainMap

from iceberg_doris.engine.compaction.past_compactions import convert_past_compactions
from iceberg_doris.engine.file_sets import file_location
from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.merge_on_write.lookup import KeyedTable, Lookup
from iceberg_doris.table_model import snapshot_summary


def past_compactions(handle: KeyedTable, table: JavaObject, branch: str | None, lookup: Lookup) -> Lookup | None:
    """``lookup`` moved onto the files of the compactions that committed on ``branch`` after it,
    validated from the last of them; None when none did or the conversion is not possible (the
    commit then validates ``lookup`` as it is). Its new rows, tombstones and counts stay."""
    tombstones = {file_location(f): f for f in lookup.tombstones}
    converted = convert_past_compactions(
        handle.iceberg, table, branch, lookup.snapshot_id, lookup.marks, lookup.row_filter, own_files=frozenset(tombstones),
    )
    if converted is None:
        return None
    passed = int(lookup.summary.get(snapshot_summary.PAST_COMPACTIONS, "0")) + converted.compactions
    return dataclasses.replace(
        lookup,
        snapshot_id=converted.snapshot_id,
        marks=converted.marks,
        data_files=ChainMap(tombstones, converted.data_files),
        existing=converted.existing,
        replaced_files=[location for location in converted.marks if location not in tombstones],
        summary=lookup.summary | {snapshot_summary.PAST_COMPACTIONS: str(passed)},
        _delete_files=None,
    )
