"""One atomic commit per operation, under the table's commit lock, with one retry policy.

An operation builds its changes on a transaction started from the table's current metadata B, then
commits with a compare-and-swap: the catalog accepts it only if the table is still at B. Every
iceberg-doris writer does this holding the table's commit lock (:mod:`table_lock`), so among them
the swap cannot lose; a writer that does not take the lock (plain Spark SQL, pyiceberg, another
engine) still can make it fail. This is the one place that decides what happens then:

- the swap lost (Iceberg's CommitFailedException): the whole build runs again on the new metadata
  (its checks too), after a jittered backoff;
- Iceberg's validation found that rows the operation read have changed (ValidationException): an
  operation that can re-read them (``on_conflict``: a keyed load looks its keys up again) does so
  and commits; for the others it is a real conflict, reported in words;
- the catalog could not confirm the commit (CommitStateUnknownException, or a database failure
  during the swap): :class:`CommitStateUnknownError`, never retried, since the commit may have
  landed.

Iceberg's own transaction retry is not used: it would replay property updates last-writer-wins,
which could silently drop a concurrent writer's partitions.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

from py4j.protocol import Py4JJavaError

from iceberg_doris.engine import interleaving
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, java_class, java_message
from iceberg_doris.engine.table_lock import commit_lock
from iceberg_doris.engine.table_names import TableName
from iceberg_doris.errors import CommitConflictError, CommitStateUnknownError
from iceberg_doris.faults import crash_point

log = logging.getLogger(__name__)
T = TypeVar("T")

# Attempts per operation, first one included. Among iceberg-doris writers the second always
# commits; the rest are for writers that do not take the lock.
ATTEMPTS = 8
BACKOFF_FIRST_SECONDS = 0.1
BACKOFF_MAX_SECONDS = 2.0
COMMIT_FAILED = "org.apache.iceberg.exceptions.CommitFailedException"
VALIDATION = "org.apache.iceberg.exceptions.ValidationException"
# The JDBC catalog reports a database failure during the swap as UncheckedSQLException: whether
# the UPDATE landed is unknown, exactly what other catalogs call CommitStateUnknownException.
STATE_UNKNOWN = frozenset({
    "org.apache.iceberg.exceptions.CommitStateUnknownException",
    "org.apache.iceberg.jdbc.UncheckedSQLException",
})


def commit_atomically(
    iceberg: IcebergJava,
    name: TableName,
    build: Callable[[JavaObject, JavaObject], T],
    *,
    operation: str,
    on_conflict: Callable[[JavaObject], None] | None = None,
    label: str | None = None,
) -> T:
    """Runs ``build(table, transaction)`` and commits its changes as one catalog swap, holding the
    table's commit lock.

    ``build`` stages updates on the transaction (each committed to the transaction, not yet to the
    table) and returns the operation's result. It may run several times, each time on a freshly
    loaded table; it must not have effects outside the transaction. ``on_conflict(table)``, if
    given, is called before the next build when Iceberg's validation refused the last one: it
    re-reads what changed, from ``table``. ``operation`` ("load into", "compact") and ``label``
    word the errors. Returns ``build``'s result from the attempt that committed.
    """
    with commit_lock(iceberg, name, operation=operation):
        conflicted = False
        for attempt in range(1, ATTEMPTS + 1):
            table = iceberg.load_table(name)  # once per attempt
            try:
                if conflicted and on_conflict is not None:
                    on_conflict(table)
                operations = table.operations()
                base = operations.current()
                transaction = table.newTransaction()
                result = build(table, transaction)
                pending = transaction.table().operations().current()
                if pending is base or pending.equals(base):
                    return result  # nothing changed: no commit needed
                interleaving.reached(interleaving.BEFORE_COMMIT, name)
                crash_point(operation, "before-commit")
                operations.commit(base, pending)
                crash_point(operation, "after-commit")
                return result
            except Py4JJavaError as error:
                kind = java_class(error)
                if kind in STATE_UNKNOWN:
                    log.warning("commit of %s on %s unconfirmed: %s", operation, name.qualified, java_message(error))
                    raise CommitStateUnknownError(_unknown_message(operation, name, label)) from None
                if kind == VALIDATION and on_conflict is None:
                    log.debug("%s on %s: validation failed: %s", operation, name.qualified, java_message(error))
                    raise CommitConflictError(_conflict_message(operation, name)) from None
                if kind not in (COMMIT_FAILED, VALIDATION):
                    raise
                log.debug("%s on %s, attempt %d: %s", operation, name.qualified, attempt, java_message(error))
                # The first validation failure is the usual case (writers committed between this
                # operation's read and its lock): re-read at once. Anything after that is a writer
                # outside the lock; give it room.
                if attempt > 1 or kind == COMMIT_FAILED:
                    time.sleep(backoff_seconds(attempt))
                conflicted = kind == VALIDATION
        log.debug("%s on %s: gave up after %d attempts", operation, name.qualified, ATTEMPTS)
        raise CommitConflictError(_conflict_message(operation, name, gave_up=True))


def backoff_seconds(attempt: int) -> float:
    """Exponential backoff with full jitter: writers that collided do not collide again in step."""
    return random.uniform(0, min(BACKOFF_MAX_SECONDS, BACKOFF_FIRST_SECONDS * 2 ** (attempt - 1)))


def _conflict_message(operation: str, name: TableName, *, gave_up: bool = False) -> str:
    if gave_up:
        what = f"other writers changed the table {ATTEMPTS} times while it committed"
    else:
        what = "a concurrent commit changed the rows it read"
    return f"Cannot {operation} {name.qualified}: {what}; nothing was committed. Run it again."


def _unknown_message(operation: str, name: TableName, label: str | None) -> str:
    if label:
        quoted = label.replace("'", "''")
        check = f"SELECT snapshot_id FROM {name.qualified}.snapshots WHERE summary['doris.label'] = '{quoted}'"
    else:
        check = f"SELECT * FROM {name.qualified}.snapshots ORDER BY committed_at DESC"
    return (
        f"The catalog did not confirm the commit ({operation} {name.qualified}): it may or may not have been "
        f"applied, so it was not retried. Check before running it again: {check}"
    )
