"""Committing a change to a table's Doris partitions: model, spec and data in one commit."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from iceberg_doris.engine.commit import Committed, commit_atomically, staged_table
from iceberg_doris.engine.file_sets import committed_head, stage_append
from iceberg_doris.engine.file_sets import stage_partition_delete as stage_files_delete
from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.engine.iceberg_tables import stage_layout, stage_model
from iceberg_doris.operations.recycle_bin import recycle_summary
from iceberg_doris.operations.tables import DorisTable, reopen
from iceberg_doris.partitioning import Partition, PartitionSet
from iceberg_doris.table_model import DorisTableModel, choose_layout, snapshot_summary
from iceberg_doris.table_model.partition_predicates import Predicate, partition_predicate, union

T = TypeVar("T")


def commit_model_change(
    handle: DorisTable,
    change: Callable[[DorisTable, JavaObject], tuple[DorisTableModel, T]],
    *,
    operation: str,
    finish: Callable[[T, JavaObject], T] | None = None,
) -> Committed[T]:
    """Commits ``change``: given the fresh table and the transaction, it returns the new model
    (staged here with any partition-spec evolution it needs) and the operation's result.
    ``finish(result, staged_table)``, if given, completes the result from the table as the
    transaction leaves it (e.g. its partition spec)."""

    def build(table: JavaObject, transaction: JavaObject) -> T:
        fresh = reopen(handle, table)
        model, result = change(fresh, transaction)
        if model.partitions is not None:
            stage_layout(fresh.iceberg, table, transaction, choose_layout(model))
        stage_model(transaction, fresh.properties, model)
        return finish(result, staged_table(transaction)) if finish is not None else result

    return commit_atomically(handle.iceberg, handle.name, build, operation=operation)


def stage_partition_delete(
    handle: DorisTable,
    transaction: JavaObject,
    predicate: Predicate,
    *,
    operation: str,
    partitions: str,
    summary_extra: dict[str, str] | None = None,
) -> int:
    """Removes the data files of the partitions matched by ``predicate``: metadata only. Returns
    the records removed. ``summary_extra`` goes into the snapshot summary too."""
    summary = {snapshot_summary.OPERATION: operation, snapshot_summary.PARTITIONS: partitions, **(summary_extra or {})}
    refused = f"Cannot {operation} {partitions} of {handle.name.qualified}"
    return stage_files_delete(handle.iceberg, transaction, predicate, summary=summary, refused=refused)


def stage_formal_drop(
    handle: DorisTable,
    transaction: JavaObject,
    partitions: PartitionSet,
    dropped: Sequence[Partition],
    *,
    operation: str,
    force: bool = False,
) -> int:
    """Removes the rows of the formal partitions ``dropped`` of ``partitions`` (metadata only) and,
    unless ``force``, puts the partitions into the recycle bin: their definitions ride in the
    snapshot, even when they held no rows. Returns the records removed."""
    names = ",".join(p.name for p in dropped)
    definition = {} if force else recycle_summary(partitions, dropped)
    predicate = union([partition_predicate(partitions, p) for p in dropped])
    deleted = stage_partition_delete(
        handle, transaction, predicate, operation=operation, partitions=names, summary_extra=definition
    )
    if committed_head(transaction) is None and definition:  # nothing to delete, but keep them recoverable
        stage_append(transaction, [], summary={snapshot_summary.OPERATION: operation,
                                               snapshot_summary.PARTITIONS: names, **definition})
    return deleted


def partitions_after(handle: DorisTable, partitions: PartitionSet) -> DorisTableModel:
    return handle.model.with_partitions(partitions)
