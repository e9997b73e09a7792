"""``doris.compact``: rewrite files to drop deleted rows and the delete bitmaps that hid them.

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

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.operations import CompactRequest
from iceberg_doris.operations.compact import RETENTION_DEFAULT_HOURS, RETENTION_PROPERTY
from iceberg_doris.procedures.parameter_types import STRING, STRING_ARRAY
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

@register
class CompactProcedure(Procedure):
    name = "compact"
    summary = "Rewrites files with deleted rows into files of live rows, in one commit no reader notices."
    details = (
        "Drops deleted rows and their deletion vectors / position deletes; keeps tombstone files younger than "
        f"the table property {RETENTION_PROPERTY} (default {RETENTION_DEFAULT_HOURS:g}) on tables with a sequence "
        "column (elsewhere fully deleted files are dropped at once). partitions limits it to some partitions."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("partitions", STRING_ARRAY, description="Only these partitions (default: all)."),
    )
    output = (
        OutputColumn("rewritten_data_files", "bigint"),
        OutputColumn("removed_delete_files", "bigint"),
        OutputColumn("added_data_files", "bigint"),
        OutputColumn("dropped_tombstone_files", "bigint"),
        OutputColumn("kept_tombstone_files", "bigint"),
        OutputColumn("snapshot_id", "bigint"),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        partitions = args["partitions"]
        request = CompactRequest(tuple(partitions) if partitions else None)
        r = operations.compact(spark, args["table"], request)
        return [(
            r.rewritten_data_files, r.removed_delete_files, r.added_data_files, r.dropped_tombstone_files,
            r.kept_tombstone_files, r.snapshot_id,
        )]
