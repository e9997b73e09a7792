"""Iceberg branches: how a Doris temporary partition exists on the table.

A temp partition is a branch that starts empty; these functions create, remove and look at
branches on a table or a transaction, so nothing above engine/ touches Iceberg's refs.
"""

from __future__ import annotations

from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.table_model import snapshot_summary


def has_branch(table: JavaObject, branch: str) -> bool:
    return bool(table.refs().containsKey(branch))


def create_empty_branch(iceberg: IcebergJava, transaction: JavaObject, branch: str, *, operation: str) -> None:
    """A new branch with no rows, staged on ``transaction``. It starts at main's snapshot (as the
    transaction sees it); one metadata-only delete empties it (Iceberg drops the deletion vectors
    of removed files too)."""
    transaction.manageSnapshots().createBranch(branch).commit()
    if transaction.table().currentSnapshot() is not None:
        empty = transaction.newDelete().deleteFromRowFilter(iceberg.expressions.alwaysTrue())
        empty.toBranch(branch).set(snapshot_summary.OPERATION, operation).commit()


def remove_branch(transaction: JavaObject, branch: str) -> None:
    """Removes ``branch`` on ``transaction`` if the table has it."""
    if has_branch(transaction.table(), branch):
        transaction.manageSnapshots().removeBranch(branch).commit()
