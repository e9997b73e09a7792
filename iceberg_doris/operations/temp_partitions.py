"""A Doris temporary partition is an Iceberg branch holding exactly that partition's rows.

The branch is named ``doris_temp_<partition>``; it starts from an empty snapshot, loads write to
it, and ``SELECT ... FROM t VERSION AS OF 'doris_temp_<partition>'`` reads it. Plain reads of the
table (branch ``main``) never see it. Its range or list lives with the formal partitions in the
``doris.partitions`` property, so adding or dropping one is a single commit.
"""

from __future__ import annotations

from iceberg_doris.engine.branches import create_empty_branch, has_branch, remove_branch
from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.errors import PartitionError
from iceberg_doris.operations.tables import DorisTable

BRANCH_PREFIX = "doris_temp_"


def branch_name(partition: str) -> str:
    return BRANCH_PREFIX + partition


def stage_create(handle: DorisTable, transaction: JavaObject, partition: str) -> str:
    """Creates the temp partition's branch, empty, on the transaction."""
    branch = branch_name(partition)
    if has_branch(handle.table, branch):
        raise PartitionError(
            f"Cannot add temporary partition {partition}: the table already has a branch {branch}; "
            f"remove it first (ALTER TABLE {handle.name.qualified} DROP BRANCH {branch})"
        )
    stage_empty_branch(handle, transaction, branch)
    return branch


def stage_empty_branch(handle: DorisTable, transaction: JavaObject, branch: str) -> None:
    """A new branch with no rows (see :func:`iceberg_doris.engine.branches.create_empty_branch`)."""
    create_empty_branch(handle.iceberg, transaction, branch, operation="add_temp_partition")


def stage_drop(transaction: JavaObject, partition: str) -> None:
    """Removes the temp partition's branch, if the table has it."""
    remove_branch(transaction, branch_name(partition))
