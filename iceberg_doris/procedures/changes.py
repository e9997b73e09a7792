"""``doris.changes``: the change feed of a table between two snapshots."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.operations import ChangesRequest
from iceberg_doris.procedures.parameter_types import BIGINT, BOOLEAN, PARTITION_NAME, STRING
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


@register
class ChangesProcedure(Procedure):
    name = "changes"
    summary = "Every row change after start_snapshot up to and including end_snapshot: the table's columns plus the change columns."
    details = (
        "Read from the commits in between: a merge-on-write load's delete bitmaps say which rows it replaced, "
        "so only the files each commit touched are read. _change_type is insert, delete, update_preimage or "
        "update_postimage (a key a commit replaced, on UNIQUE and AGGREGATE KEY tables); overwrites, truncates and "
        "swapped, replaced or dropped partitions delete every old row and insert every new one; compaction changes "
        "nothing. start_snapshot NULL reads from the table's first snapshot; end_snapshot NULL is the current one. "
        "net => true gives one change per key over the range (its first pre-image and last post-image, nothing "
        "where they are equal). temp_partition reads a temporary partition's branch. Snapshots expired by "
        "doris.cleanup are refused. The Python function returns a DataFrame; CALL returns the rows (Spark 4)."
    )
    returns_frame = True
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("start_snapshot", BIGINT, description="Changes after this snapshot (NULL: from the first)."),
        Parameter("end_snapshot", BIGINT, description="Changes up to and including this snapshot (NULL: current)."),
        Parameter("net", BOOLEAN, default=False, description="One change per key over the whole range."),
        Parameter("temp_partition", PARTITION_NAME, description="Read this temporary partition's branch instead of main."),
    )
    output = (
        OutputColumn("_change_type", "string", "insert, delete, update_preimage or update_postimage."),
        OutputColumn("_commit_snapshot_id", "bigint", "The commit that made the change."),
        OutputColumn("_commit_timestamp", "timestamp", "When that commit was made."),
    )

    def frame(self, spark: "SparkSession", args: Arguments) -> "DataFrame":
        request = ChangesRequest(
            start_snapshot=args["start_snapshot"], end_snapshot=args["end_snapshot"], net=bool(args["net"]),
            temp_partition=args["temp_partition"],
        )
        return operations.changes(spark, args["table"], request)

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        return [tuple(row) for row in self.frame(spark, args).collect()]
