"""``CALL doris.cleanup``: binds its arguments and runs :func:`iceberg_doris.operations.cleanup`
(what is expired and removed, and why ``older_than`` defaults to 24 hours ago, is documented there)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.operations import CleanupRequest
from iceberg_doris.procedures.parameter_types import STRING, TIMESTAMP, AtLeastType
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

@register
class CleanupProcedure(Procedure):
    name = "cleanup"
    summary = "Expires snapshots older than older_than (keeping retain_last) and deletes unreferenced files."
    details = (
        "older_than is a timestamp ('2024-05-01 00:00:00', a date, or an expression such as "
        "current_timestamp() - INTERVAL 7 DAYS); default 24 hours ago. Time travel to expired "
        "snapshots is no longer possible afterwards. Use a recent older_than only when no write is running. "
        "Snapshots the recycle bin still needs (partitions dropped, truncated or overwritten less than "
        "catalog_trash_expire_second ago) are kept whatever older_than says."
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
        request = CleanupRequest(older_than=args["older_than"], retain_last=int(args["retain_last"]))
        c = operations.cleanup(spark, args["table"], request)
        return [(c.expired_snapshots, c.deleted_data_files, c.deleted_delete_files, c.deleted_orphan_files)]
