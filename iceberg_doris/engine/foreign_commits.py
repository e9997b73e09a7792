"""Commits iceberg-doris did not make, found in main's history: a Doris key kept by a writer that
does not know it (a plain Spark ``INSERT``, a pyiceberg ``append``, another engine) is an Iceberg
snapshot without ``doris.operation`` in its summary.

Only such commits can give a key a second live row, so only the data files they added need
checking. A check records how far it got in the summary of the commit that follows it
(``doris.keys-checked``: the snapshot of main it checked up to), so the next one walks main's
history back to that snapshot only: on a table only iceberg-doris writes, one step.

A foreign ``replace`` (Iceberg's ``rewrite_data_files``) that removed more rows than it wrote
dropped deleted rows; on a sequence table those include the tombstones that keep a deleted key
from coming back (:attr:`ForeignCommit.dropped_deleted_rows`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.engine.live_files import live_files
from iceberg_doris.table_model import snapshot_summary

REPLACE = "replace"  # Iceberg's operation of a rewrite (rewrite_data_files, a compaction)


@dataclass(frozen=True)
class ForeignCommit:
    """A snapshot of main whose summary does not say iceberg-doris made it."""

    snapshot_id: int
    operation: str  # Iceberg's: append, overwrite, replace, delete
    added_records: int
    deleted_records: int  # rows of the data files it removed, deleted rows included

    @property
    def dropped_deleted_rows(self) -> bool:
        """A rewrite that wrote fewer rows than the files it removed held: their deleted rows
        (tombstones on a sequence table) are gone."""
        return self.operation == REPLACE and self.deleted_records > self.added_records


@dataclass(frozen=True)
class UncheckedCommits:
    """The foreign commits of main not checked yet, newest first, as of snapshot ``head``."""

    head: int | None
    commits: tuple[ForeignCommit, ...]


def unchecked_foreign_commits(table: JavaObject, *, everything: bool = False) -> UncheckedCommits:
    """The commits on main's lineage, newer than the last check's snapshot, that iceberg-doris did
    not make (``everything``: all foreign commits the table still keeps, checked or not)."""
    snapshot = table.currentSnapshot()
    head = int(snapshot.snapshotId()) if snapshot is not None else None
    found: list[ForeignCommit] = []
    checked_up_to: int | None = None
    while snapshot is not None:
        snapshot_id = int(snapshot.snapshotId())
        if snapshot_id == checked_up_to:
            break
        summary = snapshot.summary()
        if summary.get(snapshot_summary.OPERATION) is None:
            found.append(ForeignCommit(
                snapshot_id, str(snapshot.operation()),
                _count(summary.get("added-records")), _count(summary.get("deleted-records")),
            ))
        marker = summary.get(snapshot_summary.KEYS_CHECKED)
        if marker is not None and checked_up_to is None and not everything:
            checked_up_to = _count(marker)
        parent = snapshot.parentId()
        snapshot = table.snapshot(parent) if parent is not None else None
    return UncheckedCommits(head, tuple(found))


def live_files_added_by(table: JavaObject, commits: Iterable[ForeignCommit], snapshot_id: int) -> list[str]:
    """The locations of the data files ``commits`` added that are still live at ``snapshot_id``."""
    io = table.io()
    added: set[str] = set()
    for commit in commits:
        snapshot = table.snapshot(commit.snapshot_id)
        if snapshot is None:
            continue
        iterator = snapshot.addedDataFiles(io).iterator()
        while iterator.hasNext():
            added.add(str(iterator.next().location()))
    if not added:
        return []
    data_files, _ = live_files(table, snapshot_id=snapshot_id)
    return sorted(location for location in added if location in data_files)


def _count(text: object) -> int:
    try:
        return int(str(text))
    except (TypeError, ValueError):
        return 0
