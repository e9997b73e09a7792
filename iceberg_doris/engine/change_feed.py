"""The change feed's Iceberg side: the commits of one ref between two snapshots, and the rows each
commit inserted or deleted, read from exactly the files that commit touched.

A Doris merge-on-write load says which rows it replaced in its delete bitmaps: per commit, the
rows it deleted are the positions its new deletion vectors (format v3) or position-delete files
(format v2) add to data files written earlier (a new DV less the DV it replaces), and the rows it
inserted are the rows of its new data files less the positions deleted in the same commit
(sequence tables' tombstones are written and deleted at once: they never show). A commit that
removes whole data files (overwrite, truncate, a dropped or swapped partition, a copy-on-write
rewrite by another engine) deleted their rows that were live just before it.

Nothing here diffs two snapshots: per commit only the manifests it wrote are read (Iceberg's added
and removed files of a snapshot), and only the data files it touched, by position where it
deleted rows. Only a commit that removes whole files plans its parent's files, to find the
deletes that applied to them.

Compaction produces no changes: snapshots whose Iceberg operation is ``replace`` (Iceberg's own
rewrites) or whose ``doris.operation`` is ``compact`` (``doris.compact``, ``doris.auto_compact``)
are skipped, their carried-over deletes included (the loads that made them reported them).
"""

from __future__ import annotations

import io
import sys
from array import array
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyroaring import BitMap64

from iceberg_doris.engine.deletion_vectors.reader import is_deletion_vector, read_deletion_vector
from iceberg_doris.engine.file_bytes import read_file_range
from iceberg_doris.engine.file_sets import ref_head
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, file_format, java_items
from iceberg_doris.engine.live_files import PlannedPositionDeletes, plan_live_files
from iceberg_doris.errors import TableStateError
from iceberg_doris.table_model import snapshot_summary

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

# What each read row is, in the kind column: a row of a data file the commit added; a row its new
# delete bitmaps marked; a live row of a data file it removed.
INSERTED, DELETED, DROPPED = "inserted", "deleted", "dropped"
COMPACT_OPERATION = "compact"
REPLACE = "replace"  # Iceberg's operation of a rewrite: no row changes


@dataclass(frozen=True)
class Commit:
    """One snapshot of the range, as the feed reports it."""

    snapshot_id: int
    parent_id: int | None
    committed_at_ms: int
    operation: str  # Iceberg's: append, overwrite, delete, replace
    summary: dict[str, str]

    @property
    def doris_operation(self) -> str | None:
        return self.summary.get(snapshot_summary.OPERATION)

    @property
    def changes_rows(self) -> bool:
        """False for rewrites (compaction): they change no row."""
        return self.operation != REPLACE and self.doris_operation != COMPACT_OPERATION


@dataclass
class CommitReads:
    """What one commit changed, by data file: positions to read, or whole files to read but some."""

    deleted: dict[str, BitMap64] = field(default_factory=dict)  # location -> positions
    dropped: dict[str, tuple[JavaObject, BitMap64]] = field(default_factory=dict)  # location -> (file, already deleted)
    inserted: dict[str, tuple[JavaObject, BitMap64]] = field(default_factory=dict)  # location -> (file, deleted at once)

    @property
    def row_estimate(self) -> int:
        """Rows the reads return at most."""
        whole = sum(int(f.recordCount()) - len(skipped) for f, skipped in (*self.dropped.values(), *self.inserted.values()))
        return whole + sum(len(p) for p in self.deleted.values())


def commits_between(
    table: JavaObject, table_name: str, *, start: int | None, end: int | None, ref: str | None
) -> list[Commit]:
    """The snapshots of ``ref`` (default main) after ``start`` up to and including ``end``
    (default: the ref's head), oldest first. ``start`` None: from the table's first snapshot.
    Refused with the reason and the fix when a snapshot of the range is gone (expired by
    ``doris.cleanup``) or ``start`` is not an ancestor of ``end``."""
    where = f"branch {ref}" if ref else "main"
    if end is None:
        head = ref_head(table, ref)
        if head is None:
            if ref is not None and not table.refs().containsKey(ref):
                raise TableStateError(f"Cannot read changes of {table_name}: it has no branch {ref}")
            return []
        end = int(head.snapshotId())
    snapshot = table.snapshot(int(end))
    if snapshot is None:
        raise TableStateError(
            f"Cannot read changes of {table_name} up to snapshot {end}: the table has no such snapshot "
            f"{_expired_hint()}"
        )
    if start is not None and int(start) == int(end):
        return []
    if start is not None and table.snapshot(int(start)) is None:
        raise TableStateError(
            f"Cannot read changes of {table_name} after snapshot {start}: the table no longer has it "
            f"{_expired_hint()}"
        )
    if start is not None and int(table.snapshot(int(start)).sequenceNumber()) >= int(snapshot.sequenceNumber()):
        raise _not_an_ancestor(table_name, int(start), int(end), where)
    commits: list[Commit] = []
    while True:
        parent = snapshot.parentId()
        parent_id = int(parent) if parent is not None else None
        commits.append(
            Commit(
                int(snapshot.snapshotId()), parent_id, int(snapshot.timestampMillis()),
                str(snapshot.operation()) if snapshot.operation() is not None else "", dict(snapshot.summary() or {}),
            )
        )
        if start is not None and parent_id == int(start):
            break
        if parent_id is None:
            if start is not None:
                raise _not_an_ancestor(table_name, int(start), int(end), where)
            break
        snapshot = table.snapshot(parent_id)
        if snapshot is None:
            raise TableStateError(
                f"Cannot read changes of {table_name} "
                + (f"after snapshot {start}" if start is not None else "from its first snapshot")
                + f": snapshot {parent_id} of that range is gone {_expired_hint()}"
            )
    commits.reverse()
    return commits


def _not_an_ancestor(table_name: str, start: int, end: int, where: str) -> TableStateError:
    return TableStateError(
        f"Cannot read changes of {table_name} from snapshot {start} to {end}: {start} is not an ancestor of {end} "
        f"on {where} (a later snapshot, another branch's, or one the table was rolled back past). Start from a "
        f"snapshot of {where}'s history (SELECT * FROM {table_name}.history)"
    )


def _expired_hint() -> str:
    return (
        "(snapshots older than the table's retention are expired by CALL doris.cleanup, and their changes "
        "with them). Read changes from a snapshot the table still keeps (SELECT snapshot_id FROM <table>.snapshots), "
        "and keep snapshots longer than your feed's slowest reader lags: doris.cleanup's older_than / retain_last"
    )


def commit_reads(iceberg: IcebergJava, table: JavaObject, commit: Commit, table_name: str) -> CommitReads:
    """The rows ``commit`` inserted and deleted, as files and positions to read."""
    reads = CommitReads()
    if not commit.changes_rows:
        return reads
    snapshot = table.snapshot(commit.snapshot_id)
    files = table.io()
    added_data = {str(f.location()): f for f in java_items(snapshot.addedDataFiles(files))}
    removed_data = {str(f.location()): f for f in java_items(snapshot.removedDataFiles(files))}
    added_deletes = java_items(snapshot.addedDeleteFiles(files))
    removed_deletes = java_items(snapshot.removedDeleteFiles(files))
    for delete_file in added_deletes:
        if str(delete_file.content().name()) == "EQUALITY_DELETES":
            raise TableStateError(
                f"Cannot read changes of {table_name} in snapshot {commit.snapshot_id}: it holds equality deletes "
                f"({delete_file.location()}), written by another engine; which rows they delete is not known "
                "without reading the whole table. Read the changes before and after it, or rewrite the table "
                "(CALL doris.compact) and read from the snapshot after that."
            )
    new_positions = _positions_by_data_file(iceberg, table, added_deletes)
    # A new DV replaces the file's old one; Spark's v2 writers likewise fold a file's earlier
    # position deletes into the new file and remove the old: what the commit deleted is the difference.
    replaced_positions = _positions_by_data_file(iceberg, table, removed_deletes)
    for location, positions in new_positions.items():
        if location in added_data:
            continue  # deleted in the commit that wrote it (a tombstone): never a visible row
        fresh = positions - replaced_positions.get(location, BitMap64())
        if fresh:
            reads.deleted[location] = fresh
    for location, replaced in replaced_positions.items():
        if location not in removed_data and not replaced.issubset(new_positions.get(location, BitMap64())):
            raise TableStateError(
                f"Cannot read changes of {table_name} in snapshot {commit.snapshot_id}: it removed deletes of "
                f"{location} without deleting those rows again or removing the file, bringing deleted rows back; "
                "such a commit (not one iceberg-doris or Spark's row-level writes make) has no exact change feed"
            )
    for location, data_file in added_data.items():
        reads.inserted[location] = (data_file, new_positions.get(location, BitMap64()))
    if removed_data:
        deleted_before = _deletes_at(iceberg, table, commit.parent_id, list(removed_data))
        for location, data_file in removed_data.items():
            reads.dropped[location] = (data_file, deleted_before.get(location, BitMap64()))
    return reads


def _positions_by_data_file(iceberg: IcebergJava, table: JavaObject, delete_files: list[JavaObject]) -> dict[str, BitMap64]:
    """Positions marked by deletion vectors or position-delete files, by the data file they delete in."""
    positions: dict[str, BitMap64] = {}
    for delete_file in delete_files:
        if str(delete_file.content().name()) != "POSITION_DELETES":
            continue
        if is_deletion_vector(delete_file):
            target = str(delete_file.referencedDataFile())
            positions.setdefault(target, BitMap64()).update(read_deletion_vector(iceberg, table, delete_file))
            continue
        for target, marked in _position_delete_rows(iceberg, table, delete_file).items():
            positions.setdefault(target, BitMap64()).update(marked)
    return positions


def _position_delete_rows(iceberg: IcebergJava, table: JavaObject, delete_file: JavaObject) -> dict[str, BitMap64]:
    if file_format(delete_file) != "PARQUET":
        raise TableStateError(
            f"Cannot read position deletes from {delete_file.location()}: {delete_file.format()} files are not supported"
        )
    rows = pq.read_table(io.BytesIO(read_file_range(iceberg, table, str(delete_file.location()))), columns=["file_path", "pos"])
    by_file: dict[str, BitMap64] = {}
    for target in pc.unique(rows.column("file_path")).to_pylist():
        matching = rows.filter(pc.equal(rows.column("file_path"), target))
        by_file[target] = BitMap64(matching.column("pos").to_pylist())
    return by_file


def _deletes_at(iceberg: IcebergJava, table: JavaObject, snapshot_id: int | None, locations: list[str]) -> dict[str, BitMap64]:
    """The positions deleted in each of ``locations`` as of ``snapshot_id`` (the files' deletes then)."""
    if snapshot_id is None:
        return {}
    planned = PlannedPositionDeletes(plan_live_files(table, snapshot_id))
    result: dict[str, BitMap64] = {}
    for location in locations:
        if location not in planned:
            continue
        positions = BitMap64()
        for delete_file in planned[location]:
            if is_deletion_vector(delete_file):
                positions |= read_deletion_vector(iceberg, table, delete_file)
            else:
                positions |= _position_delete_rows(iceberg, table, delete_file).get(location, BitMap64())
        result[location] = positions
    return result


def read_changed_rows(iceberg: IcebergJava, table: JavaObject, commits: list[tuple[int, Commit, CommitReads]]) -> "DataFrame":
    """The rows of ``commits`` (ordinal, commit, reads): the table's current columns, then the
    change kind (:data:`INSERTED`, :data:`DELETED`, :data:`DROPPED`), the commit's snapshot id,
    its time in epoch ms, its ordinal, and the row's data file and position (see
    :func:`change_columns`). Lazy: the files are read when the frame is."""
    from pyspark.sql import DataFrame

    helpers = iceberg.helpers
    plan = helpers.ChangedRows.Plan()
    for ordinal, commit, reads in commits:
        for location, positions in reads.deleted.items():
            _add(plan, location, _format_of(location), -1, False, positions, DELETED, commit, ordinal)
        for location, (data_file, skipped) in reads.dropped.items():
            _add(plan, location, file_format(data_file), int(data_file.recordCount()), True, skipped, DROPPED, commit, ordinal)
        for location, (data_file, skipped) in reads.inserted.items():
            _add(plan, location, file_format(data_file), int(data_file.recordCount()), True, skipped, INSERTED, commit, ordinal)
    return DataFrame(helpers.ChangedRows.read(iceberg.spark._jsparkSession, table, plan), iceberg.spark)


def change_columns(iceberg: IcebergJava) -> tuple[str, str, str, str, str, str]:
    """The names of the columns :func:`read_changed_rows` adds: kind, snapshot, ms, ordinal, file, position."""
    rows = iceberg.helpers.ChangedRows
    return (str(rows.KIND), str(rows.SNAPSHOT), str(rows.COMMITTED_MS), str(rows.ORDINAL), str(rows.FILE), str(rows.POSITION))


def _add(
    plan: JavaObject, location: str, file_format: str, records: int, all_but: bool, positions: BitMap64, kind: str,
    commit: Commit, ordinal: int,
) -> None:
    try:
        plan.add(
            location, file_format, records, all_but, _long_bytes(positions), kind, commit.snapshot_id,
            commit.committed_at_ms, ordinal,
        )
    except Exception as error:  # noqa: BLE001 - the JVM's refusal of a non-Parquet file, in words
        if "reads Parquet data files only" in str(error):
            raise TableStateError(
                f"Cannot read the changes of snapshot {commit.snapshot_id}: the change feed reads Parquet data files "
                f"only, and {location} is {file_format}"
            ) from None
        raise


def _long_bytes(positions: BitMap64) -> bytearray:
    values = positions.to_array() if len(positions) else array("Q")
    if sys.byteorder != "little":
        values.byteswap()
    return bytearray(values.tobytes())


def _format_of(location: str) -> str:
    """A deleted-in data file's format, from its name (a DV names its file, not its format)."""
    return "PARQUET" if location.lower().endswith(".parquet") else location.rsplit(".", 1)[-1].upper()
