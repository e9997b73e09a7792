"""``doris.cleanup``: expire old snapshots and remove files no snapshot references.

Dropped temp partitions, replaced partitions, overwritten rows and unpublished staged loads leave
files that time travel may still need. Once snapshots older than ``older_than`` are expired (the
newest ``retain_last`` kept), their files and any orphan files under the table's location are
deleted. It wraps Iceberg's own actions; ``older_than`` defaults to 24 hours ago because removing
younger orphans can delete the files of a write that is still running.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris.procedures.parameter_types import STRING, TIMESTAMP, AtLeastType
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register
from iceberg_doris.procedures.table_access import open_table

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DEFAULT_AGE = dt.timedelta(hours=24)


@register
class CleanupProcedure(Procedure):
    name = "cleanup"
    summary = "Expires snapshots older than older_than (keeping retain_last) and deletes unreferenced files."
    details = (
        "older_than is a timestamp ('2024-05-01 00:00:00', a date, or an expression such as "
        "current_timestamp() - INTERVAL 7 DAYS); default 24 hours ago. Time travel to expired "
        "snapshots is no longer possible afterwards. Use a recent older_than only when no write is running."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("older_than", TIMESTAMP, description="Timestamp or date; default: 24 hours ago."),
        Parameter(
            "retain_last",
            AtLeastType(1, "the current snapshot is always kept"),
            default=1,
            description="Snapshots to keep whatever their age (at least 1).",
        ),
    )
    output = (
        OutputColumn("expired_snapshots", "bigint"),
        OutputColumn("deleted_data_files", "bigint"),
        OutputColumn("deleted_delete_files", "bigint"),
        OutputColumn("deleted_orphan_files", "bigint"),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        handle = open_table(spark, args["table"])
        if args["older_than"] is not None:
            cutoff = args["older_than"]
        else:
            cutoff = dt.datetime.now() - DEFAULT_AGE
        cutoff_ms = int(cutoff.timestamp() * 1000)
        # Table.snapshots() and the orphan list are Java Iterables: counted in the JVM.
        iterables = handle.iceberg.jvm.org.apache.iceberg.relocated.com.google.common.collect.Iterables
        before = int(iterables.size(handle.table.snapshots()))
        actions = spark.sparkContext._jvm.org.apache.iceberg.spark.actions.SparkActions.get(spark._jsparkSession)
        expired = (
            actions.expireSnapshots(handle.table).expireOlderThan(cutoff_ms).retainLast(int(args["retain_last"])).execute()
        )
        table = handle.iceberg.load_table(handle.name)
        orphans = actions.deleteOrphanFiles(table).olderThan(cutoff_ms).execute()
        after = int(iterables.size(table.snapshots()))
        orphan_count = int(iterables.size(orphans.orphanFileLocations()))
        return [
            (
                before - after,
                int(expired.deletedDataFilesCount()),
                int(expired.deletedPositionDeleteFilesCount()) + int(expired.deletedEqualityDeleteFilesCount()),
                orphan_count,
            )
        ]
