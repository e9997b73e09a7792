"""Committing a change to a table's Doris partitions: model, spec and data in one commit."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from iceberg_doris.engine.commit import Committed, commit_atomically, staged_table
from iceberg_doris.engine.file_sets import stage_partition_delete as stage_files_delete
from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.engine.iceberg_tables import stage_layout, stage_model
from iceberg_doris.operations.tables import DorisTable, reopen
from iceberg_doris.partitioning import PartitionSet
from iceberg_doris.table_model import DorisTableModel, choose_layout, snapshot_summary
from iceberg_doris.table_model.partition_predicates import Predicate

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


def partitions_after(handle: DorisTable, partitions: PartitionSet) -> DorisTableModel:
    return handle.model.with_partitions(partitions)
