"""A Doris temporary partition is an Iceberg branch holding exactly that partition's rows.

The branch is named ``doris_temp_<partition>``; it starts from an empty snapshot, loads write to
it, and ``SELECT ... FROM t VERSION AS OF 'doris_temp_<partition>'`` reads it. Plain reads of the
table (branch ``main``) never see it. Its range or list lives with the formal partitions in the
``doris.partitions`` property, so adding or dropping one is a single commit.
"""

from __future__ import annotations

from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.errors import PartitionError
from iceberg_doris.procedures.table_access import DorisTable

BRANCH_PREFIX = "doris_temp_"


def branch_name(partition: str) -> str:
    return BRANCH_PREFIX + partition


def stage_create(handle: DorisTable, transaction: JavaObject, partition: str) -> str:
    """Creates the temp partition's branch, empty, on the transaction."""
    branch = branch_name(partition)
    if handle.table.refs().containsKey(branch):
        raise PartitionError(
            f"Cannot add temporary partition {partition}: the table already has a branch {branch}; "
            f"remove it first (ALTER TABLE {handle.name.qualified} DROP BRANCH {branch})"
        )
    stage_empty_branch(handle, transaction, branch)
    return branch


def stage_empty_branch(handle: DorisTable, transaction: JavaObject, branch: str) -> None:
    """A new branch with no rows. It starts at main's snapshot (as of the transaction); one
    metadata-only delete empties it (Iceberg drops the deletion vectors of removed files too)."""
    transaction.manageSnapshots().createBranch(branch).commit()
    if transaction.table().currentSnapshot() is not None:
        empty = transaction.newDelete().deleteFromRowFilter(handle.iceberg.expressions.alwaysTrue())
        empty.toBranch(branch).set("doris.operation", "add_temp_partition").commit()


def stage_drop(handle: DorisTable, transaction: JavaObject, partition: str) -> None:
    branch = branch_name(partition)
    if handle.table.refs().containsKey(branch):
        transaction.manageSnapshots().removeBranch(branch).commit()
