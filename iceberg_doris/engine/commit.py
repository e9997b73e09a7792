"""One atomic commit per operation, with optimistic concurrency.

An operation builds its changes on a transaction started from the table's current metadata B, then
commits with a compare-and-swap: the catalog accepts it only if the table is still at B. If another
writer got there first, the whole operation is rebuilt on the new metadata (its checks run again),
a few times, then refused with CommitConflictError. Iceberg's own transaction retry would replay
property updates last-writer-wins, which could silently drop a concurrent writer's partitions.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from py4j.protocol import Py4JJavaError

from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, java_class, java_message
from iceberg_doris.engine.table_names import TableName
from iceberg_doris.errors import CommitConflictError, DorisError
from iceberg_doris.faults import crash_point

log = logging.getLogger(__name__)
T = TypeVar("T")

DEFAULT_ATTEMPTS = 4
COMMIT_FAILED = "org.apache.iceberg.exceptions.CommitFailedException"
COMMIT_STATE_UNKNOWN = "org.apache.iceberg.exceptions.CommitStateUnknownException"


def commit_atomically(
    iceberg: IcebergJava,
    name: TableName,
    build: Callable[[JavaObject, JavaObject], T],
    *,
    operation: str,
    attempts: int = DEFAULT_ATTEMPTS,
) -> T:
    """Runs ``build(table, transaction)`` and commits its changes as one catalog swap.

    ``build`` stages updates on the transaction (each committed to the transaction, not yet to the
    table) and returns the operation's result. It may run several times; it must not have effects
    outside the transaction. Returns ``build``'s result from the attempt that committed.
    """
    for attempt in range(1, attempts + 1):
        table = iceberg.load_table(name)
        operations = table.operations()
        base = operations.current()
        transaction = table.newTransaction()
        result = build(table, transaction)
        pending = transaction.table().operations().current()
        if pending is base or pending.equals(base):
            return result  # nothing changed: no commit needed
        try:
            crash_point(operation, "before-commit")
            operations.commit(base, pending)
            crash_point(operation, "after-commit")
            return result
        except Py4JJavaError as error:
            kind = java_class(error)
            if kind == COMMIT_FAILED and attempt < attempts:
                log.info("%s on %s raced another commit; rebuilding (attempt %d)", operation, name.qualified, attempt)
                time.sleep(0.05 * attempt)
                continue
            if kind == COMMIT_FAILED:
                raise CommitConflictError(
                    f"Cannot {operation} {name.qualified}: other writers committed to the table {attempts} "
                    "times while this operation was being prepared; nothing was committed. Run it again."
                ) from None
            if kind == COMMIT_STATE_UNKNOWN:
                raise DorisError(
                    f"{operation} on {name.qualified}: the catalog did not confirm the commit "
                    f"({java_message(error)}). It may or may not have been applied; check the table's "
                    "snapshots before retrying."
                ) from None
            raise
    raise AssertionError("unreachable")
