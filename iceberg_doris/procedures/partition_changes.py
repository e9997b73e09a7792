"""Committing a change to a table's Doris partitions: model, spec and data in one commit."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from py4j.protocol import Py4JJavaError

from iceberg_doris.engine.commit import commit_atomically
from iceberg_doris.engine.iceberg_java import JavaObject, java_class, java_message
from iceberg_doris.engine.iceberg_tables import iceberg_expression, stage_layout, stage_model
from iceberg_doris.errors import TableStateError
from iceberg_doris.partitioning import PartitionSet
from iceberg_doris.procedures.table_access import DorisTable, reopen
from iceberg_doris.table_model import DorisTableModel, choose_layout
from iceberg_doris.table_model.partition_predicates import Predicate

T = TypeVar("T")


def commit_model_change(
    handle: DorisTable,
    change: Callable[[DorisTable, JavaObject], tuple[DorisTableModel, T]],
    *,
    operation: str,
) -> T:
    """Commits ``change``: given the fresh table and the transaction, it returns the new model
    (staged here with any partition-spec evolution it needs) and the procedure's result."""

    def build(table: JavaObject, transaction: JavaObject) -> T:
        fresh = reopen(handle, table)
        model, result = change(fresh, transaction)
        if model.partitions is not None:
            stage_layout(fresh.iceberg, table, transaction, choose_layout(model))
        stage_model(transaction, fresh.properties, model)
        return result

    return commit_atomically(handle.iceberg, handle.name, build, operation=operation)


def stage_partition_delete(
    handle: DorisTable, transaction: JavaObject, predicate: Predicate, *, operation: str, partitions: str
) -> None:
    """Removes the data files of the partitions matched by ``predicate``: metadata only."""
    if handle.table.currentSnapshot() is None:
        return
    delete = transaction.newDelete().deleteFromRowFilter(iceberg_expression(handle.iceberg, predicate))
    delete.set("doris.operation", operation).set("doris.partitions", partitions)
    try:
        delete.commit()
    except Py4JJavaError as error:
        if java_class(error) == "org.apache.iceberg.exceptions.ValidationException":
            raise TableStateError(
                f"Cannot {operation} {partitions} of {handle.name.qualified}: some data files hold rows of "
                f"other partitions too ({java_message(error)}). The table's Iceberg partition spec does "
                "not follow its Doris partitions; rewrite it with CALL doris.compact first."
            ) from None
        raise


def partitions_after(handle: DorisTable, partitions: PartitionSet) -> DorisTableModel:
    return handle.model.with_partitions(partitions)
