"""``CALL doris.compact``: binds its arguments and runs :func:`iceberg_doris.operations.compact`
(what compaction does, tombstones included, is documented there)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.operations import CompactRequest, progress
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
        "column (elsewhere fully deleted files are dropped at once). partitions limits it to some partitions. "
        "Loads may commit meanwhile: rows they delete in the files being rewritten are deleted in the new ones."
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
        # One phase for the whole rewrite: its steps belong to the compaction package.
        with progress.phase("compact", str(args["table"]), "compact") as compacting:
            r = operations.compact(spark, args["table"], request)
            compacting.count(rewritten_data_files=r.rewritten_data_files, added_data_files=r.added_data_files)
        return [(
            r.rewritten_data_files, r.removed_delete_files, r.added_data_files, r.dropped_tombstone_files,
            r.kept_tombstone_files, r.snapshot_id,
        )]
