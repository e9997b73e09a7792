"""Repairing keys that writers outside iceberg-doris stored twice, or on a sequence table brought
back past a tombstone, as one commit of its own.

Writers that do not know a table's key (a plain Spark ``INSERT`` without the extension, a pyiceberg
``append``, another engine) cannot be stopped, so a keyed load looks for what they did before it
runs: the commits of main without ``doris.operation`` in their summary since the last check
(:mod:`iceberg_doris.engine.foreign_commits`). Only the keys of the data files they added, still
live, can have a second live row; those keys' live rows are read and, where a key has several,
Doris's rule is applied (:mod:`iceberg_doris.merge_on_write.repair`). On a sequence table the
live rows of those files whose sequence value is smaller than a deleted version's of their key
(a tombstone, a replaced row) lose too, as they would have in a keyed load. The repair is its own
commit (``doris.operation = repair keys``, ``doris.repaired-keys``), made before the load; the
load's own commit then records the snapshot it checked up to (``doris.keys-checked``), so the
files are checked once.

The check costs nothing on a table only iceberg-doris writes (one step back in main's history);
after a foreign commit it reads the keys of the files that commit added, and the key columns of
the table's files (pruned by Iceberg's statistics where it can) to find their other rows.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from iceberg_doris.ddl import KeysModel
from iceberg_doris.engine.commit import Committed, commit_atomically
from iceberg_doris.engine.foreign_commits import UncheckedCommits, live_files_added_by, unchecked_foreign_commits
from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.engine.iceberg_tables import iceberg_expression, read_at_snapshot
from iceberg_doris.engine.live_files import file_order_column, live_files
from iceberg_doris.engine.row_deletes import write_row_deletes
from iceberg_doris.engine.row_deltas import stage_keyed_row_delta
from iceberg_doris.engine.staged_writes import discard_staged_files, stage_data_files
from iceberg_doris.merge_on_write.plan import FILE
from iceberg_doris.merge_on_write.repair import Repair, plan_repair, rows_of_keys_in, rows_older_than_deleted_versions
from iceberg_doris.operations import progress
from iceberg_doris.operations.tables import DorisTable
from iceberg_doris.table_model import snapshot_summary
from iceberg_doris.table_model.partition_predicates import TRUE

log = logging.getLogger(__name__)

OPERATION = "repair keys"


@dataclass(frozen=True)
class KeyRepair:
    """What the check before a keyed load found and did."""

    checked_up_to: int | None  # the snapshot of main the check covered (the repair's, if it committed)
    foreign_commits: int  # commits not made by iceberg-doris it checked
    repaired_keys: int
    deleted_rows: int = 0
    snapshot_id: int | None = None  # the repair's commit, if any


def repair_foreign_writes(handle: DorisTable) -> KeyRepair:
    """Finds the keys that commits not made by iceberg-doris gave more than one live row and
    repairs them in one commit (nothing is committed when there is nothing to repair)."""
    table = handle.table  # as the operation opened it, moments ago: a commit since is checked next time
    unchecked = unchecked_foreign_commits(table)
    if not unchecked.commits or unchecked.head is None:
        return KeyRepair(unchecked.head, 0, 0)
    warn_dropped_tombstones(handle, unchecked)
    name = handle.name.qualified
    files = live_files_added_by(table, unchecked.commits, unchecked.head)
    if not files:
        return KeyRepair(unchecked.head, len(unchecked.commits), 0)
    model = handle.model
    with progress.phase(OPERATION, name, "lookup") as looking_up:
        frame = read_at_snapshot(handle.iceberg.spark, handle.name, table, unchecked.head)
        rows = rows_of_keys_in(frame, model, files).cache()
        # On a sequence table a foreign row can also lose to a deleted version of its key (a
        # tombstone): a keyed load would have discarded it, so it is marked deleted too.
        older = None
        if model.keys_model is KeysModel.UNIQUE and model.sequence_column:
            older = rows_older_than_deleted_versions(frame, model, files).cache()
        try:
            data_files, existing = live_files(table, snapshot_id=unchecked.head)
            holding = [r[0] for r in rows.select(FILE).distinct().collect()]
            order = file_order_column(data_files, FILE, holding) if holding else None
            repair = plan_repair(rows, model, order, older)
            added = []
            if repair.merged_rows is not None and repair.keys:
                added = stage_data_files(handle.iceberg, handle.name, repair.merged_rows, table=table)
        finally:
            rows.unpersist()
            if older is not None:
                older.unpersist()
        looking_up.count(keys=repair.keys, files=len(files))
    if not repair.keys:
        return KeyRepair(unchecked.head, len(unchecked.commits), 0)
    try:
        committed = _commit(handle, table, unchecked, repair, data_files, existing, added)
    except BaseException:
        discard_staged_files(table, added)
        raise
    snapshot_id = committed.snapshot_id()
    log.warning(
        "%s: %d key(s) had more than one live row, or on a sequence table a live row older than a deleted version "
        "of the key, written by %d commit(s) not made by iceberg-doris (a plain Spark INSERT or pyiceberg append?); "
        "repaired by Doris's rule in snapshot %s",
        name, repair.keys, len(unchecked.commits), snapshot_id,
    )
    return KeyRepair(snapshot_id, len(unchecked.commits), repair.keys, repair.deleted_rows, snapshot_id)


def _commit(
    handle: DorisTable, table: JavaObject, unchecked: UncheckedCommits, repair: Repair,
    data_files: object, existing: object, added: list[JavaObject],
) -> Committed[None]:
    """One RowDelta, validated against every change since the snapshot the keys were read at."""
    iceberg = handle.iceberg
    deletes = write_row_deletes(iceberg, table, repair.deletes, data_files=data_files, existing=existing)  # type: ignore[arg-type]

    def build(fresh: JavaObject, transaction: JavaObject) -> None:
        stage_keyed_row_delta(
            iceberg, transaction, branch=None, looked_up_in=unchecked.head,
            conflict_filter=iceberg_expression(iceberg, TRUE), rows_must_exist=list(repair.deletes),
            added_rows=added, added_deletes=deletes[0], removed_deletes=deletes[1],
            summary={
                snapshot_summary.OPERATION: OPERATION,
                snapshot_summary.REPAIRED_KEYS: str(repair.keys),
                snapshot_summary.DELETED_ROWS: str(repair.deleted_rows),
                snapshot_summary.KEYS_CHECKED: str(unchecked.head),
            },
        )

    # A writer committing meanwhile fails the validation: the load then runs as it would have,
    # and its next check finds the keys again.
    return commit_atomically(iceberg, handle.name, build, operation=OPERATION, table=table)


def warn_dropped_tombstones(handle: DorisTable, unchecked: UncheckedCommits) -> None:
    """Logs the rewrites by other writers that dropped a sequence table's tombstones."""
    if not handle.model.sequence_column:
        return
    dropped = [c.snapshot_id for c in unchecked.commits if c.dropped_deleted_rows]
    if dropped:
        log.warning(
            "%s: snapshot(s) %s, not made by iceberg-doris (Iceberg's rewrite_data_files?), dropped deleted rows: "
            "the sequence tombstones among them no longer keep deleted keys from coming back when an older row "
            "arrives. Compact with CALL doris.compact, which keeps them; CALL doris.check reports these snapshots",
            handle.name.qualified, ", ".join(str(s) for s in dropped),
        )


__all__ = ["KeyRepair", "OPERATION", "repair_foreign_writes", "warn_dropped_tombstones"]
