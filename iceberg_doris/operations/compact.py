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
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from iceberg_doris.engine.commit import commit_atomically
from iceberg_doris.engine.deletion_vectors import delete_file_key, plan_live_files
from iceberg_doris.engine.file_sets import FileSet, stage_replacement
from iceberg_doris.engine.iceberg_java import JavaObject, java_items, split_locations
from iceberg_doris.engine.iceberg_tables import committed_at_millis, current_snapshot_id, iceberg_expression
from iceberg_doris.engine.name_rules import shown
from iceberg_doris.engine.staged_writes import stage_data_files
from iceberg_doris.engine.table_names import quote_identifier
from iceberg_doris.errors import PartitionError, TableStateError
from iceberg_doris.faults import crash_point
from iceberg_doris.operations.requests import CompactRequest, CompactResult
from iceberg_doris.operations.tables import DorisTable, open_table
from iceberg_doris.table_model import snapshot_summary
from iceberg_doris.table_model.partition_predicates import TRUE, partition_predicate, to_sql, union
from iceberg_doris.engine.file_sets import file_location, record_count

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

RETENTION_PROPERTY = "doris.tombstone-retention-hours"
RETENTION_DEFAULT_HOURS = 168.0


def compact(spark: "SparkSession", table: str, request: CompactRequest) -> CompactResult:
    """Rewrites the files with deleted rows into files of live rows and drops their delete files,
    in one commit no reader notices (tombstone files younger than the retention are kept)."""
    from pyspark.sql import functions as F

    handle = open_table(spark, table)
    retention_hours = tombstone_retention_hours(handle.name.qualified, handle.property(RETENTION_PROPERTY))
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
    cutoff_ms = int(time.time() * 1000 - retention_hours * 3600 * 1000)
    # Only sequence tables have tombstones (deleted rows that still guard their key against
    # late, older rows); elsewhere a fully deleted file guards nothing and goes at once.
    guards_tombstones = handle.model.sequence_column is not None
    plan = plan_live_files(handle.table, snapshot_id, iceberg_expression(handle.iceberg, predicate))
    rewrite, removed_deletes = FileSet(), FileSet()
    kept = dropped = 0
    seen_deletes: set[str] = set()
    for location in split_locations(str(plan.locationsWithDeletes())):
        deletes = java_items(plan.deletes(location))
        data_file = plan.dataFile(location)
        deleted = sum(record_count(d) for d in deletes if _is_scoped_to(d, location))
        fully_deleted = deleted >= record_count(data_file)
        if fully_deleted and guards_tombstones and _added_after(handle, data_file, cutoff_ms):
            kept += 1  # may hold tombstones still guarding their keys
            continue
        if fully_deleted:
            dropped += 1
        rewrite.data_files.append(data_file)
        for delete_file in deletes:
            key = delete_file_key(delete_file)
            if key not in seen_deletes:
                seen_deletes.add(key)
                removed_deletes.delete_files.append(delete_file)
    if not rewrite.data_files:
        return CompactResult(0, 0, 0, 0, kept, snapshot_id)
    paths = {file_location(f) for f in rewrite.data_files}
    frame = spark.read.option("snapshot-id", snapshot_id).table(handle.name.sql)
    # The partition filter prunes the scan to the chosen partitions; _file alone does not.
    frame = frame.filter(to_sql(predicate)) if predicate is not TRUE else frame
    live = frame.filter(F.col("_file").isin(list(paths))).select(*[quote_identifier(c) for c in frame.columns])
    added = stage_data_files(handle.iceberg, handle.name, live.repartition(max(1, len(paths) // 8 or 1)), table=handle.table)
    removed = FileSet(rewrite.data_files, removed_deletes.delete_files)
    crash_point("compact", "files-staged")

    def build(table: JavaObject, transaction: JavaObject) -> None:
        stage_replacement(
            transaction, removed, FileSet(added), summary={snapshot_summary.OPERATION: "compact"},
            validate_from=snapshot_id, conflict_filter=iceberg_expression(handle.iceberg, predicate),
        )

    # A concurrent delete on a rewritten file fails the validation: CommitConflictError, in words.
    committed = commit_atomically(handle.iceberg, handle.name, build, operation="compact")
    return CompactResult(
        len(rewrite.data_files), len(removed_deletes.delete_files), len(added), dropped, kept, committed.snapshot_id()
    )


def _is_scoped_to(delete_file: Any, location: str) -> bool:
    referenced = delete_file.referencedDataFile()
    return referenced is None or str(referenced) == location


def _added_after(handle: DorisTable, data_file: Any, cutoff_ms: int) -> bool:
    """Whether the snapshot that added the file is younger than the retention cutoff."""
    sequence = data_file.dataSequenceNumber()
    if sequence is None:
        return True
    committed = committed_at_millis(handle.iceberg, handle.table, int(sequence))
    return committed >= cutoff_ms if committed is not None else False


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
