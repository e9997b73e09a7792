"""Deletes committed during a compaction, carried over onto the files it wrote.

A compaction reads the replaced files' live rows at its start snapshot S0 and commits later, at
head H. A commit in between (a keyed load, ``doris.delete``, a plain Spark DELETE or MERGE) may
have deleted more rows of those files: their positions are the file's delete files at H minus
those at S0. They are converted through the rowid mapping and written as deletion vectors (v3) or
position deletes (v2) of the new files, in the compaction's own commit, so no delete is lost and
no row comes back. Everything here is computed per commit attempt, from H as that attempt reads it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pyroaring import BitMap64

from iceberg_doris.engine.deletion_vectors import delete_file_key, is_deletion_vector, read_deletion_vector
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, java_items, split_locations
from iceberg_doris.engine.live_files import locations_with_deletes
from iceberg_doris.engine.position_deletes import read_position_deletes
from iceberg_doris.errors import CommitConflictError

POSITION_DELETES = 1  # FileContent.POSITION_DELETES.id(); equality deletes are 2


@dataclass(frozen=True)
class ReplacedFiles:
    """The data files a compaction replaces, with the delete files each had at its start."""

    data_files: Mapping[str, JavaObject]  # location -> DataFile
    deletes_at_start: Mapping[str, list[JavaObject]]  # location -> its delete files at S0


@dataclass(frozen=True)
class CarryOver:
    """What one commit attempt found at head H."""

    deleted_since: dict[str, BitMap64]  # old file location -> positions deleted after S0
    delete_files: list[JavaObject]  # delete files at H that go with the replaced files


def carry_over(
    iceberg: IcebergJava, table: JavaObject, head_plan: JavaObject, replaced: ReplacedFiles, *, table_name: str,
) -> CarryOver:
    """Compares each replaced file's delete files at H (``head_plan``, the live files of H) with
    those at S0. Raises :class:`CommitConflictError` when a replaced file is gone at H (another
    commit removed it) or has an equality delete added since S0 (it would not apply to the new
    files, whose sequence number is newer)."""
    live = set(split_locations(str(head_plan.locations())))
    deleted_since: dict[str, BitMap64] = {}
    going: dict[str, JavaObject] = {}
    for location in replaced.data_files:
        if location not in live:
            raise CommitConflictError(
                f"Cannot compact {table_name}: a concurrent commit removed the data file {location} it rewrites; "
                "nothing was committed. Run it again."
            )
        at_head = java_items(head_plan.deletes(location))
        at_start = replaced.deletes_at_start.get(location, [])
        for delete_file in at_head:
            going.setdefault(delete_file_key(delete_file), delete_file)
        start_keys = {delete_file_key(d) for d in at_start}
        if {delete_file_key(d) for d in at_head} == start_keys:
            continue
        if any(int(d.content().id()) != POSITION_DELETES for d in at_head if delete_file_key(d) not in start_keys):
            raise CommitConflictError(
                f"Cannot compact {table_name}: a concurrent commit added equality deletes to the data file "
                f"{location} it rewrites; nothing was committed. Run it again."
            )
        since = positions(iceberg, table, at_head, location) - positions(iceberg, table, at_start, location)
        if since:
            deleted_since[location] = since
    return CarryOver(deleted_since, _only_replaced(head_plan, going, set(replaced.data_files)))


def positions(iceberg: IcebergJava, table: JavaObject, delete_files: Iterable[JavaObject], location: str) -> BitMap64:
    """The positions of the data file at ``location`` that its position delete files / DV delete."""
    found = BitMap64()
    for delete_file in delete_files:
        if int(delete_file.content().id()) != POSITION_DELETES:
            continue  # equality deletes: rows a compaction did not read, never positions
        if is_deletion_vector(delete_file):
            found |= read_deletion_vector(iceberg, table, delete_file)
        else:
            found |= read_position_deletes(iceberg, table, delete_file, location)
    return found


def _only_replaced(head_plan: JavaObject, candidates: dict[str, JavaObject], replaced: set[str]) -> list[JavaObject]:
    """The candidate delete files that apply to no data file the compaction keeps: a
    partition-scoped position delete file (v2) also covering a kept file must stay."""
    if not candidates:
        return []
    for location in locations_with_deletes(head_plan):
        if location in replaced:
            continue
        for delete_file in java_items(head_plan.deletes(location)):
            candidates.pop(delete_file_key(delete_file), None)
    return list(candidates.values())
