"""Doris's atomic table swap (``ALTER TABLE t1 REPLACE WITH TABLE t2``) as one catalog transaction.

A Doris table name is a row of the JDBC catalog's ``iceberg_tables`` pointing at a metadata file.
Replacing ``t1`` with ``t2`` moves ``t2``'s pointer into ``t1``'s row and, with ``swap``, ``t1``'s
into ``t2``'s row (without it, ``t2``'s row is deleted): one database transaction, in which each
row changes only if it still points at the metadata file read before
(``ClosedInitJdbcCatalog.replaceTable`` in the JVM). So a reader sees both names as they were or
both as they are after, never a name missing or two names on one table, and a commit to either
table that lands after the read makes the transaction change nothing: it is read again and tried
again, never overwritten.

Both tables' commit locks are held (taken in one fixed order, so two swaps of one pair cannot
wait on each other), so no iceberg-doris writer commits meanwhile; the compare-and-swap is for
writers that do not take the locks. A table carries its data, deletion vectors, key index and
rowid maps with it: all of them live under the table's location, which its metadata names.

Only the iceberg-doris JDBC catalog can do this; any other catalog is refused by name rather than
done as two renames.
"""

from __future__ import annotations

import logging
import random
import time
from contextlib import ExitStack
from dataclasses import dataclass

from py4j.protocol import Py4JJavaError

from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.engine import interleaving
from iceberg_doris.engine.commit import ATTEMPTS, BACKOFF_FIRST_SECONDS, BACKOFF_MAX_SECONDS
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, java_class, java_message
from iceberg_doris.engine.table_lock import LockKey, commit_lock
from iceberg_doris.engine.table_names import TableName
from iceberg_doris.errors import CommitConflictError, CommitStateUnknownError, TableStateError
from iceberg_doris.spark_session.catalog_conf import JDBC_CATALOG_IMPL

log = logging.getLogger(__name__)

STATE_UNKNOWN = "org.apache.iceberg.exceptions.CommitStateUnknownException"


@dataclass(frozen=True)
class TableSwap:
    """What the swap committed: the metadata file each name points at now (``source_metadata``
    None when ``source`` is gone), and the replaced table's metadata file when it was dropped."""

    target_metadata: str
    source_metadata: str | None
    dropped_metadata: str | None
    attempts: int


def replace_table(iceberg: IcebergJava, target: TableName, source: TableName, *, swap: bool) -> TableSwap:
    """``target`` names the table ``source`` named; with ``swap`` ``source`` names ``target``'s
    table, else ``target``'s table leaves the catalog (its files stay). One catalog transaction."""
    catalog = iceberg.catalog()
    kind = str(catalog.getClass().getName())
    if kind != JDBC_CATALOG_IMPL:
        raise TableStateError(
            f"Cannot replace {target.qualified} with {source.qualified}: catalog {iceberg.catalog_name} is a {kind}, where "
            "two tables cannot change names in one commit (iceberg-doris swaps them in one transaction of its JDBC "
            "catalog, iceberg_doris.session()'s SQLite or PostgreSQL catalog). Nothing was changed."
        )
    with ExitStack() as locks:
        # One order for every swapper: by the lock key, which is what the lock itself is.
        for name in sorted((target, source), key=lambda n: LockKey.of(iceberg.catalog_name, n).digest):
            locks.enter_context(commit_lock(iceberg, name, operation="swap the name of"))
        for attempt in range(1, ATTEMPTS + 1):
            target_now, source_now = _metadata(iceberg, target), _metadata(iceberg, source)
            interleaving.reached(interleaving.BEFORE_COMMIT, target)
            if _replace(catalog, iceberg, target, target_now, source, source_now, swap=swap):
                return TableSwap(
                    target_metadata=source_now[0],
                    source_metadata=target_now[0] if swap else None,
                    dropped_metadata=None if swap else target_now[0],
                    attempts=attempt,
                )
            log.info("replacing %s with %s: a table changed meanwhile (attempt %d); reading both again",
                     target.qualified, source.qualified, attempt)
            time.sleep(random.uniform(0, min(BACKOFF_MAX_SECONDS, BACKOFF_FIRST_SECONDS * 2 ** (attempt - 1))))
    raise CommitConflictError(
        f"Cannot replace {target.qualified} with {source.qualified}: another writer committed to one of them before "
        f"each of {ATTEMPTS} attempts; nothing was changed. Run it again when the writes stop."
    )


def refresh_cached_reads(iceberg: IcebergJava, names: list[TableName]) -> None:
    """Drops what Spark cached of the tables these names meant before: Iceberg's Spark tables are
    equal by name, so a DataFrame cached from the old table would otherwise answer for the new one."""
    for name in names:
        iceberg.spark.catalog.refreshTable(f"{quote_identifier(iceberg.catalog_name)}.{name.sql}")


def _metadata(iceberg: IcebergJava, name: TableName) -> tuple[str, str | None]:
    """The table's current and previous metadata files, as its catalog row holds them."""
    metadata = iceberg.load_table(name).operations().current()
    previous = metadata.previousFiles()
    last = str(previous.get(int(previous.size()) - 1).file()) if int(previous.size()) else None
    return str(metadata.metadataFileLocation()), last


def _replace(catalog: JavaObject, iceberg: IcebergJava, target: TableName, target_now: tuple[str, str | None],
             source: TableName, source_now: tuple[str, str | None], *, swap: bool) -> bool:
    try:
        return bool(catalog.replaceTable(
            iceberg.identifier(target), target_now[0], target_now[1],
            iceberg.identifier(source), source_now[0], source_now[1], swap,
        ))
    except Py4JJavaError as error:
        if java_class(error) == STATE_UNKNOWN:
            raise CommitStateUnknownError(
                f"Replacing {target.qualified} with {source.qualified}: the catalog did not confirm the transaction "
                f"({java_message(error)}); it may or may not have landed. Check which metadata file each name points "
                f"at (DESCRIBE TABLE EXTENDED, or the tables' history) before running it again."
            ) from None
        raise
