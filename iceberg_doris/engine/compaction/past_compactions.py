"""The load side of rowid conversion: a keyed load's deletes moved through the compactions that
committed after its lookup, instead of a second lookup.

A keyed load looks its keys up at snapshot L and marks (data file, position) pairs to delete. If
compactions commit before the load does, some of those files are gone: each was rewritten into new
files holding exactly its live rows. Doris converts the load's delete bitmaps through the
compaction's rowid mapping at publish; so does this. The load's other facts stay true: a
compaction changes where live rows are, never which rows are live (the deletes it carries over
were committed before it, and so before the load's lookup, see below), so the keys the table holds,
their stored values and sequence values are what the lookup saw.

It applies when every snapshot of the load's ref after L, up to some snapshot C, is a compaction
that kept its mapping (``doris.rowid-map`` in its summary); the load then validates from C, and
Iceberg checks everything committed after C as before. A compaction's carried-over deletes come
from commits between its start and its commit; those are before L here (only compactions follow L
up to C), so the load's lookup already saw them. Any other commit between L and C, a mapping that
is gone or does not hold a marked position, or a marked file missing from the plan at C: None,
and the caller keeps its lookup (its commit's validation fails and it looks its keys up again).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pyroaring import BitMap64

from iceberg_doris.engine.compaction.ordered_rewrite import is_segment_map, read_segment_map
from iceberg_doris.engine.compaction.rowid_map import RowidMap
from iceberg_doris.engine.file_sets import file_location, record_count, ref_snapshot_id
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.live_files import live_files
from iceberg_doris.engine.snapshot_history import added_files, removed_files
from iceberg_doris.table_model import snapshot_summary

log = logging.getLogger(__name__)

COMPACT = "compact"  # the doris.operation of a compaction snapshot


@dataclass(frozen=True)
class Converted:
    """A load's lookup moved past the compactions committed after it."""

    snapshot_id: int  # the last compaction converted through: the load validates from it
    marks: dict[str, BitMap64]  # data file location -> positions to delete, on the files at snapshot_id
    data_files: Mapping[str, JavaObject]  # the live data files at snapshot_id (under the load's row filter)
    existing: Mapping[str, Any]  # their position delete files / DVs at snapshot_id
    compactions: int  # how many compactions were passed


def convert_past_compactions(
    iceberg: IcebergJava,
    table: JavaObject,
    branch: str | None,
    looked_up_in: int | None,
    marks: Mapping[str, BitMap64],
    row_filter: JavaObject,
    *,
    own_files: frozenset[str] = frozenset(),
) -> Converted | None:
    """``marks`` (looked up at ``looked_up_in``) converted onto the files of the newest snapshot of
    ``branch`` up to which only compactions with a kept mapping committed; None when there is none
    or a conversion is incomplete. ``own_files``: locations in ``marks`` the load wrote itself
    (tombstones), never in a compaction and not planned."""
    compactions = _compactions_since(table, branch, looked_up_in)
    if not compactions:
        return None
    converted = {location: BitMap64(positions) for location, positions in marks.items()}
    for snapshot_id, mapping_location in compactions:
        replaced = {file_location(f): record_count(f) for f in removed_files(table, snapshot_id).data_files}
        moving = {location: positions for location, positions in converted.items() if location in replaced}
        if not moving:
            continue
        added = {file_location(f): (int(f.fileSizeInBytes()), record_count(f)) for f in added_files(table, snapshot_id)}
        moved = _open_mapping(iceberg, table, mapping_location, added, replaced).find(iceberg.spark, moving)
        if moved is None:
            return None
        for location in moving:
            del converted[location]
        for location, positions in moved.items():
            converted.setdefault(location, BitMap64()).update(positions)
    base = compactions[-1][0]
    data_files, existing = live_files(table, snapshot_id=base, row_filter=row_filter)
    if any(location not in data_files for location in converted if location not in own_files):
        return None  # a marked file the plan at C does not hold: let the validation decide
    return Converted(base, converted, data_files, existing, len(compactions))


def _compactions_since(table: JavaObject, branch: str | None, looked_up_in: int | None) -> list[tuple[int, str]]:
    """The compactions (snapshot id, mapping folder) that committed on ``branch`` right after
    ``looked_up_in``, oldest first, up to the first snapshot that is not one; empty when the head
    is ``looked_up_in`` or does not descend from it."""
    head = ref_snapshot_id(table, branch)
    if looked_up_in is None or head is None or head == looked_up_in:
        return []
    after: list[tuple[int, dict[str, str]]] = []  # newest first
    snapshot = table.snapshot(head)
    while snapshot is not None and int(snapshot.snapshotId()) != looked_up_in:
        after.append((int(snapshot.snapshotId()), dict(snapshot.summary())))
        parent = snapshot.parentId()
        snapshot = table.snapshot(parent) if parent is not None else None
    if snapshot is None:
        return []  # the lookup snapshot is not an ancestor of the head (a rollback): look up again
    compactions = []
    for snapshot_id, summary in reversed(after):
        location = summary.get(snapshot_summary.ROWID_MAP)
        if summary.get(snapshot_summary.OPERATION) != COMPACT or not location:
            break
        compactions.append((snapshot_id, location))
    return compactions


class _Unreadable:
    """A mapping that cannot be read: it converts nothing (the load looks its keys up again)."""

    def find(self, spark: Any, positions: Mapping[str, BitMap64]) -> None:
        return None


def _open_mapping(
    iceberg: IcebergJava, table: JavaObject, location: str,
    added: Mapping[str, tuple[int, int]], removed: Mapping[str, int],
) -> Any:
    """The compaction's mapping in the folder ``location``: the segments of an order-keeping
    rewrite (checked against the files the compaction ``added`` and ``removed``), or the pairs of
    a scan rewrite."""
    if is_segment_map(iceberg, table, location):
        return read_segment_map(iceberg, table, location, added, removed) or _Unreadable()
    return _CheckedPairs(RowidMap(location, 0), added)


class _CheckedPairs:
    """A scan rewrite's pairs, used only where what they give fits the compaction's new files:
    each position within its file's rows, no two old rows on one new row."""

    def __init__(self, mapping: RowidMap, added: Mapping[str, tuple[int, int]]):
        self.mapping, self.added = mapping, added

    def find(self, spark: Any, positions: Mapping[str, BitMap64]) -> dict[str, BitMap64] | None:
        found = self.mapping.find(spark, positions)
        if found is None:
            return None
        wanted = sum(len(p) for p in positions.values())
        fits = all(
            new_file in self.added and (not moved or moved.max() < self.added[new_file][1])
            for new_file, moved in found.items()
        )
        if not fits or sum(len(moved) for moved in found.values()) != wanted:
            log.warning("compaction mapping %s is not used (it does not fit the files the compaction added): "
                        "the load looks its keys up again", self.mapping.location)
            return None
        return found
