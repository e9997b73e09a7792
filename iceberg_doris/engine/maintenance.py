"""Iceberg's table maintenance actions (expire snapshots, delete orphan files), run by Spark."""

from __future__ import annotations

from dataclasses import dataclass

from iceberg_doris.engine.iceberg_java import IcebergJava
from iceberg_doris.engine.table_names import TableName


@dataclass(frozen=True)
class CleanupCounts:
    expired_snapshots: int
    deleted_data_files: int
    deleted_delete_files: int
    deleted_orphan_files: int


def expire_and_remove_orphans(
    iceberg: IcebergJava, name: TableName, *, cutoff_ms: int, retain_last: int, keep_from_ms: int | None = None
) -> CleanupCounts:
    """Expires snapshots older than ``cutoff_ms`` (keeping the newest ``retain_last``, and every
    snapshot committed at or after ``keep_from_ms``), then deletes files under the table's location
    that no snapshot references and that are older than ``cutoff_ms``."""
    spark = iceberg.spark
    # Table.snapshots() and the orphan list are Java Iterables: counted in the JVM.
    iterables = iceberg.jvm.org.apache.iceberg.relocated.com.google.common.collect.Iterables
    actions = iceberg.jvm.org.apache.iceberg.spark.actions.SparkActions.get(spark._jsparkSession)
    table = iceberg.load_table(name)
    before = int(iterables.size(table.snapshots()))
    expire_before = cutoff_ms if keep_from_ms is None else min(cutoff_ms, keep_from_ms)
    expired = actions.expireSnapshots(table).expireOlderThan(expire_before).retainLast(retain_last).execute()
    table = iceberg.load_table(name)
    orphans = actions.deleteOrphanFiles(table).olderThan(cutoff_ms).execute()
    return CleanupCounts(
        expired_snapshots=before - int(iterables.size(table.snapshots())),
        deleted_data_files=int(expired.deletedDataFilesCount()),
        deleted_delete_files=int(expired.deletedPositionDeleteFilesCount()) + int(expired.deletedEqualityDeleteFilesCount()),
        deleted_orphan_files=int(iterables.size(orphans.orphanFileLocations())),
    )
