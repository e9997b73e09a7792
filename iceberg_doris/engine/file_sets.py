"""The data files of some Doris partitions on one ref, with the delete files that apply to them.

Because the Iceberg spec follows the Doris partitions, a partition predicate selects whole files:
moving or removing them (with their deletion vectors / position deletes) never rewrites data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from py4j.protocol import Py4JJavaError

from iceberg_doris.engine.deletion_vectors import plan_live_files
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, java_class, java_items, java_message
from iceberg_doris.engine.iceberg_tables import iceberg_expression
from iceberg_doris.errors import TableStateError
from iceberg_doris.table_model.partition_predicates import Predicate


@dataclass
class FileSet:
    """Data files and the delete files attached to them (deletion vectors or position deletes)."""

    data_files: list[JavaObject] = field(default_factory=list)
    delete_files: list[JavaObject] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.data_files)


def files_matching(iceberg: IcebergJava, table: JavaObject, predicate: Predicate, *, ref: str | None = None) -> FileSet:
    """The live files of ``ref`` (default main) whose rows fall under ``predicate``."""
    snapshot = ref_head(table, ref)
    if snapshot is None:
        return FileSet()
    return _collect(plan_live_files(table, int(snapshot.snapshotId()), iceberg_expression(iceberg, predicate)))


def all_files(table: JavaObject, *, ref: str | None = None) -> FileSet:
    """Every live file of ``ref`` (default main)."""
    snapshot = ref_head(table, ref)
    if snapshot is None:
        return FileSet()
    return _collect(plan_live_files(table, int(snapshot.snapshotId())))


def stage_replacement(
    transaction: JavaObject,
    removed: FileSet,
    added: FileSet,
    *,
    branch: str | None = None,
    summary: dict[str, str] | None = None,
    validate_from: int | None = None,
    conflict_filter: JavaObject | None = None,
) -> None:
    """One snapshot on ``branch`` (default main) that removes ``removed`` and adds ``added``,
    data and delete files alike, without rewriting any file.

    ``validate_from``: the snapshot ``removed`` was read from, when what was read must not have
    changed since (rows rewritten elsewhere); Iceberg then refuses the commit if deletes were added
    to those files meanwhile. Default: the ref's head as the transaction sees it."""
    if not removed.data_files and not added.data_files and not removed.delete_files and not added.delete_files:
        return
    delta = transaction.newRowDelta()
    # Files moved back onto a ref can have been added (with their DVs) earlier in its history;
    # validate only against what happens after the ref's head, which the catalog swap pins anyway.
    head = transaction.table().refs().get(branch or "main")
    if validate_from is not None:
        delta.validateFromSnapshot(validate_from)
        delta.validateDeletedFiles().validateNoConflictingDeleteFiles()
        if conflict_filter is not None:
            delta.conflictDetectionFilter(conflict_filter)
    elif head is not None:
        delta.validateFromSnapshot(head.snapshotId())
    for data_file in removed.data_files:
        delta.removeRows(data_file)
    for delete_file in removed.delete_files:
        delta.removeDeletes(delete_file)
    for data_file in added.data_files:
        delta.addRows(data_file)
    for delete_file in added.delete_files:
        delta.addDeletes(delete_file)
    if branch is not None:
        delta.toBranch(branch)
    for key, value in (summary or {}).items():
        delta.set(key, value)
    delta.commit()


def stage_append(
    transaction: JavaObject, data_files: list[JavaObject], *, branch: str | None = None, summary: dict[str, str]
) -> None:
    """One append snapshot on ``branch`` (default main) adding ``data_files`` (none: a snapshot
    that only carries ``summary``, e.g. a load's label)."""
    append = transaction.newAppend()
    for data_file in data_files:
        append.appendFile(data_file)
    if branch is not None:
        append.toBranch(branch)
    for key, value in summary.items():
        append.set(key, value)
    append.commit()


def stage_partition_delete(
    iceberg: IcebergJava, transaction: JavaObject, predicate: Predicate, *, summary: dict[str, str], refused: str
) -> int:
    """Removes main's data files whose rows match ``predicate``, metadata only; returns the
    records removed. ``refused`` words the error when a file also holds rows outside it (the
    table's Iceberg spec does not follow its Doris partitions)."""
    if transaction.table().currentSnapshot() is None:
        return 0
    delete = transaction.newDelete().deleteFromRowFilter(iceberg_expression(iceberg, predicate))
    for key, value in summary.items():
        delete.set(key, value)
    try:
        delete.commit()
    except Py4JJavaError as error:
        if java_class(error) == "org.apache.iceberg.exceptions.ValidationException":
            raise TableStateError(
                f"{refused}: some data files hold rows of other partitions too ({java_message(error)}). The table's "
                "Iceberg partition spec does not follow its Doris partitions; rewrite it with CALL doris.compact first."
            ) from None
        raise
    head = transaction.table().currentSnapshot()
    return int(head.summary().get("deleted-records") or 0) if head is not None else 0


def ref_head(table: JavaObject, ref: str | None) -> JavaObject | None:
    """The snapshot ``ref`` (a branch; None: main) points at, or None if it has none."""
    if ref is None:
        return table.currentSnapshot()
    found = table.refs().get(ref)
    return table.snapshot(found.snapshotId()) if found is not None else None


def ref_snapshot_id(table: JavaObject, ref: str | None) -> int | None:
    """The id of the snapshot ``ref`` (a branch; None: main) points at, or None."""
    head = ref_head(table, ref)
    return int(head.snapshotId()) if head is not None else None


def committed_head(transaction: JavaObject, ref: str | None = None) -> int | None:
    """The snapshot id ``ref`` (default main) points at as ``transaction`` leaves it: what an
    operation committed (the table read after the commit may already show another writer's)."""
    head = ref_head(transaction.table(), ref)
    return int(head.snapshotId()) if head is not None else None


def _collect(plan: JavaObject) -> FileSet:
    # Each delete file once: DVs of several data files share one Puffin file, so the plan tells
    # them apart by location and blob offset.
    return FileSet(java_items(plan.dataFiles()), java_items(plan.deleteFiles()))


def record_count(content_file: JavaObject) -> int:
    """Rows a data file holds, or rows a delete file deletes."""
    return int(content_file.recordCount())


def file_location(content_file: JavaObject) -> str:
    return str(content_file.location())


def live_row_count(files: FileSet) -> int:
    """Rows of the data files less the rows their delete files delete."""
    return sum(map(record_count, files.data_files)) - sum(map(record_count, files.delete_files))
