"""Main's history as Iceberg keeps it: the snapshots an operation can still reach, their summaries
and the files each removed. What ``recover_partition`` reads a dropped partition back from, so a
partition stays recoverable exactly as long as its drop snapshot (``cleanup`` expires it)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from iceberg_doris.engine.file_sets import FileSet
from iceberg_doris.engine.iceberg_java import JavaObject, java_items
from iceberg_doris.engine.live_files import delete_file_key, plan_live_files


@dataclass(frozen=True)
class HistoricSnapshot:
    snapshot_id: int
    summary: dict[str, str]
    timestamp_ms: int = 0
    parent_id: int | None = None


def main_lineage(table: JavaObject) -> Iterator[HistoricSnapshot]:
    """Main's snapshots, newest first, back to the oldest one the table still keeps."""
    snapshot = table.currentSnapshot()
    while snapshot is not None:
        parent = snapshot.parentId()
        yield HistoricSnapshot(
            int(snapshot.snapshotId()), dict(snapshot.summary()), int(snapshot.timestampMillis()),
            int(parent) if parent is not None else None,
        )
        snapshot = table.snapshot(parent) if parent is not None else None


def parent_committed_ms(table: JavaObject, snapshot_id: int) -> int:
    """When the parent of snapshot ``snapshot_id`` was committed (epoch ms): the snapshot whose
    live files are those the snapshot replaced. The snapshot's own time when it has no parent, or
    the parent was expired."""
    snapshot = table.snapshot(snapshot_id)
    parent_id = snapshot.parentId()
    parent = table.snapshot(parent_id) if parent_id is not None else None
    return int((parent or snapshot).timestampMillis())


def removed_files(table: JavaObject, snapshot_id: int) -> FileSet:
    """The data files and delete files snapshot ``snapshot_id`` removed."""
    snapshot = table.snapshot(snapshot_id)
    io = table.io()
    return FileSet(_each(snapshot.removedDataFiles(io)), _each(snapshot.removedDeleteFiles(io)))


def removed_files_matching(table: JavaObject, snapshot_id: int, row_filter: JavaObject) -> FileSet | None:
    """The files snapshot ``snapshot_id`` removed that hold rows matching the Iceberg expression
    ``row_filter`` (the live files of its parent that match, less any the snapshot kept), or None
    when the parent snapshot is gone (expired)."""
    snapshot = table.snapshot(snapshot_id)
    parent = snapshot.parentId() if snapshot is not None else None
    if parent is None or table.snapshot(parent) is None:
        return None
    removed = removed_files(table, snapshot_id)
    removed_data = {str(f.location()) for f in removed.data_files}
    removed_deletes = {delete_file_key(f) for f in removed.delete_files}
    plan = plan_live_files(table, int(parent), row_filter)
    data = [f for f in java_items(plan.dataFiles()) if str(f.location()) in removed_data]
    deletes = [f for f in java_items(plan.deleteFiles()) if delete_file_key(f) in removed_deletes]
    return FileSet(data, deletes)

def added_files(table: JavaObject, snapshot_id: int) -> list[JavaObject]:
    """The data files snapshot ``snapshot_id`` added."""
    return _each(table.snapshot(snapshot_id).addedDataFiles(table.io()))


def _each(iterable: JavaObject) -> list[JavaObject]:
    items, iterator = [], iterable.iterator()
    while iterator.hasNext():
        items.append(iterator.next())
    return items
