"""Main's history as Iceberg keeps it: the snapshots an operation can still reach, their summaries
and the files each removed. What ``recover_partition`` reads a dropped partition back from, so a
partition stays recoverable exactly as long as its drop snapshot (``cleanup`` expires it)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from iceberg_doris.engine.file_sets import FileSet
from iceberg_doris.engine.iceberg_java import JavaObject


@dataclass(frozen=True)
class HistoricSnapshot:
    snapshot_id: int
    summary: dict[str, str]


def main_lineage(table: JavaObject) -> Iterator[HistoricSnapshot]:
    """Main's snapshots, newest first, back to the oldest one the table still keeps."""
    snapshot = table.currentSnapshot()
    while snapshot is not None:
        yield HistoricSnapshot(int(snapshot.snapshotId()), dict(snapshot.summary()))
        parent = snapshot.parentId()
        snapshot = table.snapshot(parent) if parent is not None else None


def removed_files(table: JavaObject, snapshot_id: int) -> FileSet:
    """The data files and delete files snapshot ``snapshot_id`` removed."""
    snapshot = table.snapshot(snapshot_id)
    io = table.io()
    return FileSet(_each(snapshot.removedDataFiles(io)), _each(snapshot.removedDeleteFiles(io)))


def added_files(table: JavaObject, snapshot_id: int) -> list[JavaObject]:
    """The data files snapshot ``snapshot_id`` added."""
    return _each(table.snapshot(snapshot_id).addedDataFiles(table.io()))


def _each(iterable: JavaObject) -> list[JavaObject]:
    items, iterator = [], iterable.iterator()
    while iterator.hasNext():
        items.append(iterator.next())
    return items
