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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from py4j.protocol import Py4JJavaError

from iceberg_doris.ddl.sql_text import string_literal
from iceberg_doris.engine import interleaving
from iceberg_doris.engine.faults import crash_point
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, java_class, java_items, java_message
from iceberg_doris.engine.table_lock import commit_lock
from iceberg_doris.engine.table_names import TableName
from iceberg_doris.errors import CommitConflictError, CommitStateUnknownError
from iceberg_doris.table_model import snapshot_summary

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


MAIN = "main"


@dataclass(frozen=True)
class Committed(Generic[T]):
    """What one commit did: the build's result, and the refs it moved to new snapshots.

    The snapshot ids come from the metadata this commit swapped in, compared with the metadata it
    was built on, never from reading the table again (by then another writer may have moved it)."""

    result: T
    snapshot_ids: Mapping[str, int]  # ref ("main", "doris_temp_tp1", ...) -> its new snapshot
    heads: Mapping[str, int]  # every ref of the committed metadata -> its snapshot

    def snapshot_id(self, ref: str | None = None) -> int | None:
        """The snapshot ``ref`` (default main) points at in the committed metadata: the new one if
        this commit moved it, else the one it already had (None: the ref has no snapshot)."""
        return self.heads.get(ref or MAIN)


def staged_table(transaction: JavaObject) -> JavaObject:
    """The table as ``transaction`` leaves it, before the commit (e.g. its new partition spec)."""
    return transaction.table()


def commit_atomically(
    iceberg: IcebergJava,
    name: TableName,
    build: Callable[[JavaObject, JavaObject], T],
    *,
    operation: str,
    on_conflict: Callable[[JavaObject], None] | None = None,
    label: str | None = None,
    table: JavaObject | None = None,
) -> Committed[T]:
    """Runs ``build(table, transaction)`` and commits its changes as one catalog swap, holding the
    table's commit lock.

    ``build`` stages updates on the transaction (each committed to the transaction, not yet to the
    table) and returns the operation's result. It may run several times, each time on the table
    as the catalog holds it then (each attempt's transaction re-reads it); it must not have effects outside the transaction. ``on_conflict(table)``, if
    given, is called before the next build when Iceberg's validation refused the last one: it
    re-reads what changed, from ``table``. ``operation`` ("load into", "compact") and ``label``
    word the errors. Returns what the attempt that committed built and committed.

    ``table``: the table as loaded shortly before (outside the lock), used instead of loading it
    again; each attempt's transaction brings it up to date.
    """
    with commit_lock(iceberg, name, operation=operation):
        conflicted = False
        if table is None:
            table = iceberg.load_table(name)
        for attempt in range(1, ATTEMPTS + 1):
            try:
                operations = table.operations()
                # Iceberg refreshes the table from the catalog when a transaction starts: the
                # attempt's one catalog read. The transaction builds on exactly that metadata.
                transaction = table.newTransaction()
                base = operations.current()
                if conflicted and on_conflict is not None:
                    on_conflict(table)
                result = build(table, transaction)
                pending = transaction.table().operations().current()
                if pending is base or pending.equals(base):
                    return Committed(result, {}, _heads(iceberg, base))  # nothing changed: no commit needed
                interleaving.reached(interleaving.BEFORE_COMMIT, name)
                crash_point(operation, "before-commit")
                operations.commit(base, pending)
                crash_point(operation, "after-commit")
                heads = _heads(iceberg, pending)
                before = _heads(iceberg, base)
                moved = {ref: snapshot for ref, snapshot in heads.items() if before.get(ref) != snapshot}
                return Committed(result, moved, heads)
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


def _heads(iceberg: IcebergJava, metadata: JavaObject) -> dict[str, int]:
    """Each ref of a TableMetadata and the snapshot it points at (a few refs: main and the temp
    partitions' branches)."""
    refs = metadata.refs()
    names = java_items(iceberg.jvm.java.util.ArrayList(refs.keySet()))
    return {str(ref): int(refs.get(ref).snapshotId()) for ref in names}


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
        check = (f"SELECT snapshot_id FROM {name.qualified}.snapshots "
                 f"WHERE summary[{string_literal(snapshot_summary.LABEL)}] = {string_literal(label)}")
    else:
        check = f"SELECT * FROM {name.qualified}.snapshots ORDER BY committed_at DESC"
    return (
        f"The catalog did not confirm the commit ({operation} {name.qualified}): it may or may not have been "
        f"applied, so it was not retried. Check before running it again: {check}"
    )
