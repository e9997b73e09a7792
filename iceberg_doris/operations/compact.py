"""``compact``: rewrite files to drop deleted rows and the delete bitmaps that hid them.

One commit, and no reader sees a difference: the live rows of every data file that has deletes
are rewritten into new files, and the old files go with their deletion vectors / position deletes.

Tombstones (the delete rows of sequence tables, written and deleted in one commit so that an older,
late row cannot bring a deleted key back) live in data files whose every row is deleted. Such a
file is kept, with its bitmap, while it is younger than the table property
``doris.tombstone-retention-hours`` (default 168, one week); older ones are dropped, as Doris's base
compaction drops delete-sign rows. A row older than a delete that arrives after its tombstone was
dropped is loaded like a new row. Tables without a sequence column have no tombstones: their fully
deleted files are dropped at once.

Compaction never makes a load fail, nor fails because of one (Doris's rowid conversion): it
copies live rows in file order and keeps where each went (``engine.compaction.ordered_rewrite``;
files it cannot copy so are rewritten by a scan and paired, ``engine.compaction.rowid_map``),
and its commit deletes in
the new files the rows that commits made after its start deleted in the replaced files
(``engine.compaction.carry_over``). The mapping outlives the commit (named in the snapshot's
summary, ``doris.rowid-map``, kept an hour): a keyed load that looked its keys up before the
compaction committed converts its deletes through it at its own commit instead of looking up again
(``engine.compaction.past_compactions``). Only a commit that removed a replaced file meanwhile (a
partition dropped or truncated, another compaction) or added equality deletes to one makes it fail,
with nothing committed.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from iceberg_doris.ddl import KeysModel
from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.engine import key_index
from iceberg_doris.engine.commit import commit_atomically
from iceberg_doris.engine.compaction import ordered_rewrite
from iceberg_doris.engine.compaction.carry_over import ReplacedFiles
from iceberg_doris.engine.compaction.ordered_rewrite import SegmentMap
from iceberg_doris.engine.compaction.rewrite_candidates import rewrite_candidates
from iceberg_doris.engine.compaction.rowid_map import (
    MAPPING_RETENTION_MS,
    RowidMap,
    build_rowid_map,
    new_mapping_location,
    remove_stale_mappings,
)
from iceberg_doris.engine.compaction.staging import stage_compaction
from iceberg_doris.engine.deletion_vectors import plan_live_files
from iceberg_doris.engine.faults import crash_point
from iceberg_doris.engine.file_sets import FileSet, stage_replacement
from iceberg_doris.engine.file_sets import file_location
from iceberg_doris.engine.iceberg_java import JavaObject, file_format
from iceberg_doris.engine.iceberg_tables import current_snapshot_id, iceberg_expression, read_at_snapshot
from iceberg_doris.engine.live_files import locations_with_deletes
from iceberg_doris.engine.staged_writes import stage_data_files
from iceberg_doris.errors import CommitConflictError, CommitLockTimeoutError, PartitionError, TableStateError
from iceberg_doris.names.rules import shown
from iceberg_doris.operations.repair_keys import repair_foreign_writes
from iceberg_doris.operations.requests import CompactRequest, CompactResult
from iceberg_doris.operations.tables import DorisTable, open_table
from iceberg_doris.table_model import snapshot_summary
from iceberg_doris.table_model.partition_predicates import TRUE, Predicate, partition_predicate, to_sql, union

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

RETENTION_PROPERTY = "doris.tombstone-retention-hours"
RETENTION_DEFAULT_HOURS = 168.0
# Repairs of keys stored twice tried before a compaction gives up (each re-reads the table).
REPAIR_ATTEMPTS = 3


def compact(spark: "SparkSession", table: str, request: CompactRequest) -> CompactResult:
    """Rewrites the files with deleted rows into files of live rows and drops their delete files,
    in one commit no reader notices (tombstone files younger than the retention are kept)."""
    handle = open_table(spark, table)
    tombstone_retention_hours(handle.name.qualified, handle.property(RETENTION_PROPERTY))  # a bad value fails first
    handle = repaired_first(spark, handle)
    snapshot_id = current_snapshot_id(handle.table)
    if snapshot_id is None:
        return CompactResult(0, 0, 0, 0, 0, None)
    predicate = TRUE
    if request.partitions:
        partitions = handle.require_partitions()
        chosen = [partitions.get(n) for n in request.partitions]
        missing = [n for n, p in zip(request.partitions, chosen) if p is None]
        if missing:
            raise PartitionError(f"Partition[{missing[0]}] does not exist in {handle.name.qualified}")
        predicate = union([partition_predicate(partitions, p) for p in chosen if p is not None])
    plan = plan_live_files(handle.table, snapshot_id, iceberg_expression(handle.iceberg, predicate))
    return rewrite_files(spark, handle, snapshot_id, predicate, plan, locations_with_deletes(plan))


def repaired_first(spark: "SparkSession", handle: DorisTable) -> DorisTable:
    """``handle``, or the table reopened after repairing the keys writers outside iceberg-doris
    stored twice (:mod:`iceberg_doris.operations.repair_keys`, a commit of its own). A compaction
    must not run first: the rows it rewrites become iceberg-doris's own, newer than the other
    writer's, so the repair after it could keep the older version of a key or miss the key."""
    if handle.model.keys_model is KeysModel.DUPLICATE:
        return handle
    attempt = 1
    while True:
        try:
            return repaired(spark, handle)
        except CommitLockTimeoutError:
            raise  # waiting for the lock again would only wait longer
        except CommitConflictError:
            if attempt == REPAIR_ATTEMPTS:
                raise CommitConflictError(
                    f"Cannot compact {handle.name.qualified}: other writers kept changing the keys stored twice that "
                    f"it repairs first ({REPAIR_ATTEMPTS} attempts); nothing was committed. Run it again"
                ) from None
            # Another writer changed the rows the repair read: check again on the table it left,
            # which may need no repair any more (it deleted one of the two rows).
            attempt += 1
            handle = open_table(spark, handle.name.qualified)


def repaired(spark: "SparkSession", handle: DorisTable) -> DorisTable:
    """One repair of ``handle``'s keys stored twice; the table reopened if it committed."""
    repair = repair_foreign_writes(handle)
    return handle if repair.snapshot_id is None else open_table(spark, handle.name.qualified)


def rewrite_files(
    spark: "SparkSession", handle: DorisTable, snapshot_id: int, predicate: Predicate, plan: JavaObject,
    locations: list[str],
) -> CompactResult:
    """Rewrites the data files at ``locations`` (of ``plan``, the live files of ``snapshot_id``
    under ``predicate``) into files of their live rows, in one commit that also carries over the
    rows deleted in them meanwhile. Fully deleted files are dropped, unless they may still hold
    tombstones (younger than the retention, on a sequence table)."""
    retention_hours = tombstone_retention_hours(handle.name.qualified, handle.property(RETENTION_PROPERTY))
    cutoff_ms = int(time.time() * 1000 - retention_hours * 3600 * 1000)
    # Only sequence tables have tombstones (deleted rows that still guard their key against
    # late, older rows); elsewhere a fully deleted file guards nothing and goes at once.
    guards_tombstones = handle.model.sequence_column is not None
    chosen = rewrite_candidates(
        handle.iceberg, handle.table, plan, locations, guards_tombstones=guards_tombstones, cutoff_ms=cutoff_ms,
    )
    rewrite, removed_deletes, deletes_at_start = chosen.rewrite, chosen.removed_deletes, chosen.deletes_at_start
    kept, dropped, fully_deleted_files = chosen.kept, chosen.dropped, chosen.fully_deleted
    if not rewrite.data_files:
        return CompactResult(0, 0, 0, 0, kept, snapshot_id)
    mapping: RowidMap | SegmentMap | None
    if ordered_rewrite.applies(rewrite.data_files, deletes_at_start):
        # Live rows copied in order: the mapping is arithmetic per old file (Doris's rowid conversion).
        copied = [f for f in rewrite.data_files if file_location(f) not in fully_deleted_files]
        location = new_mapping_location(handle.table)
        try:
            ordered = ordered_rewrite.rewrite_in_order(handle.iceberg, handle.table, copied, deletes_at_start, location)
        except BaseException:
            RowidMap(location, 0).discard(spark)
            raise
        added, mapping = ordered.added, ordered.mapping
    else:
        added, mapping = _rewrite_by_scan(spark, handle, snapshot_id, predicate, rewrite.data_files)
    removed = FileSet(rewrite.data_files, removed_deletes.delete_files)
    crash_point("compact", "files-staged")
    indexing = _start_indexing(handle, added)
    replaced = ReplacedFiles({file_location(f): f for f in rewrite.data_files}, deletes_at_start)
    row_filter = iceberg_expression(handle.iceberg, predicate)
    summary = {snapshot_summary.OPERATION: "compact"}
    if mapping is not None:
        # Loads that looked their keys up before this commit convert their deletes through it.
        summary[snapshot_summary.ROWID_MAP] = mapping.location

    def build(table: JavaObject, transaction: JavaObject) -> None:
        if mapping is None:
            # No complete mapping: rewrite only if nothing changed the replaced files since the start.
            stage_replacement(
                transaction, removed, FileSet(added), summary=summary, validate_from=snapshot_id, conflict_filter=row_filter,
            )
            return
        stage_compaction(
            spark, handle.iceberg, table, transaction, replaced=replaced, added=added, mapping=mapping,
            row_filter=row_filter, table_name=handle.name.qualified, summary=summary,
        )

    try:
        committed = commit_atomically(handle.iceberg, handle.name, build, operation="compact")
    except BaseException:
        if mapping is not None:
            mapping.discard(spark)  # no snapshot names it
        raise
    finally:
        if indexing is not None:
            indexing.finish()  # never fails the compaction: a later lookup builds what is missing
    # The mapping stays for loads still in flight; those of earlier compactions go after their retention.
    # Housekeeping after the commit: it never turns a committed compaction into a failed one.
    try:
        remove_stale_mappings(spark, handle.table, int(time.time() * 1000) - MAPPING_RETENTION_MS, handle.name)
    except Exception as error:  # noqa: BLE001 - a leftover folder goes with the next compaction or doris.cleanup
        log.warning("compaction of %s committed; removing stale rowid mappings failed: %s", handle.name.qualified, error)
    return CompactResult(
        len(rewrite.data_files), len(removed_deletes.delete_files), len(added), dropped, kept, committed.snapshot_id()
    )


def _rewrite_by_scan(
    spark: "SparkSession", handle: DorisTable, snapshot_id: int, predicate: Predicate, data_files: list[JavaObject],
) -> tuple[list[JavaObject], RowidMap | None]:
    """The rewrite for files the order-keeping one cannot copy (not Parquet, equality deletes):
    Spark reads their live rows and writes them with the table's layout; the rows are then paired
    with their new places by :func:`build_rowid_map`."""
    from pyspark.sql import functions as F

    paths = {file_location(f) for f in data_files}
    frame = read_at_snapshot(spark, handle.name, handle.table, snapshot_id)
    # The partition filter prunes the scan to the chosen partitions; _file alone does not.
    frame = frame.filter(to_sql(predicate)) if predicate is not TRUE else frame
    rewritten = frame.filter(F.col("_file").isin(list(paths)))
    live = rewritten.select(*[quote_identifier(c) for c in frame.columns])
    added = stage_data_files(
        handle.iceberg, handle.name, live.repartition(max(1, len(paths) // 8 or 1)), table=handle.table, small_in_one_task=False,
        disjoint_files=True,
    )
    old_rows = rewritten.select(*[quote_identifier(c) for c in frame.columns], "_file", "_pos")
    # Unique and aggregate tables hold one live row per key: their keys alone pair the rows
    # (fewer columns read back, no ranking), checked by build_rowid_map.
    keys = handle.model.key_columns if handle.model.keys_model in (KeysModel.UNIQUE, KeysModel.AGGREGATE) else ()
    return added, build_rowid_map(spark, handle.table, old_rows, frame.columns, added, keys=keys)


def _start_indexing(handle: DorisTable, added: list[JavaObject]) -> "key_index.PendingEntries | None":
    """Starts building the key-index entries of the new files (as a load does for its own), so
    the next load finds them instead of building them on its latency path."""
    from iceberg_doris.merge_on_write.lookup import keys_not_encodable
    from iceberg_doris.merge_on_write.plan import KeyedLoadShape

    model = handle.model
    added = [f for f in added if file_format(f) == "PARQUET"]  # the index reads Parquet only
    if not added or model.keys_model not in (KeysModel.UNIQUE, KeysModel.AGGREGATE):
        return None
    if not key_index.build_on_load(handle.iceberg.spark):
        return None
    shape = KeyedLoadShape(model, tuple(c.name for c in model.columns), partial=False)
    if keys_not_encodable(shape) is not None:
        return None
    return key_index.start_indexing(handle.iceberg, handle.table, added, list(model.key_columns), model.sequence_column)


def tombstone_retention_hours(table: str, value: Any) -> float:
    """The table's tombstone retention in hours: a number >= 0 (default 168)."""
    if value is None or not str(value).strip():
        return float(RETENTION_DEFAULT_HOURS)
    try:
        hours = float(str(value))
    except ValueError:
        hours = float("nan")
    if not 0 <= hours < float("inf"):
        raise TableStateError(
            f"Table {table} has {RETENTION_PROPERTY} = {shown(str(value))}, which is not a number of hours >= 0: "
            f"set it with ALTER TABLE {table} SET TBLPROPERTIES ('{RETENTION_PROPERTY}' = '168')"
        )
    return hours
