"""``doris.check``: what writers outside iceberg-doris did to a table's keys and tombstones, reported without changing anything."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.procedures.parameter_types import STRING
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class CheckProcedure(Procedure):
    name = "check"
    summary = (
        "Reports keys with more than one live row, keys brought back past a tombstone, unchecked commits of other "
        "writers and lost tombstones; changes nothing."
    )
    details = (
        "One row per check: repeated_keys (unique/aggregate keys with more than one live row, e.g. from a plain "
        "Spark INSERT or a pyiceberg append; the next doris.load repairs them by Doris's rule), unchecked_commits "
        "(commits not made by iceberg-doris since the last keyed load), revived_keys (on a sequence table, keys whose live "
        "row has a smaller sequence value than a deleted version of the key, e.g. a tombstone, so a deleted key is "
        "back; PENDING when the next keyed load marks those rows deleted, VIOLATION when no load will: delete the key "
        "again with a sequence value at least the deleted one's), dropped_tombstones (a sequence table's "
        "rewrites by other writers, e.g. Iceberg's rewrite_data_files, that dropped deleted rows). Status is OK, "
        "VIOLATION, PENDING (the next keyed load handles it) or NOT APPLICABLE."
    )
    parameters = (Parameter("table", STRING, required=True, description="db.tbl"),)
    output = (
        OutputColumn("check", "string", "repeated_keys, unchecked_commits, revived_keys or dropped_tombstones."),
        OutputColumn("status", "string", "OK, VIOLATION, PENDING or NOT APPLICABLE."),
        OutputColumn("count", "bigint", "Keys or snapshots found."),
        OutputColumn("detail", "string"),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        return [finding.row() for finding in operations.check(spark, args["table"])]
