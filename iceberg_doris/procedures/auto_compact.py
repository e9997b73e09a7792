"""``CALL doris.auto_compact``: binds its arguments and runs
:func:`iceberg_doris.operations.auto_compact.compact_automatically` (one automatic compaction
pass under each table's ``doris.compaction.*`` policy, documented there)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris.operations.auto_compact import compact_automatically
from iceberg_doris.procedures.parameter_types import STRING
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class AutoCompactProcedure(Procedure):
    name = "auto_compact"
    summary = "One automatic compaction pass over one table or every Doris table, as each table's policy picks files."
    details = (
        "Rewrites small files, files with many deleted rows and the files of partitions with many delete files "
        "(table properties doris.compaction.*; doris.compaction.enabled = 'false' skips a table). Loads may commit "
        "meanwhile: their deletes are carried over. One row per table; ERROR rows for tables the pass could not "
        "compact (the others still get their pass)."
    )
    parameters = (Parameter("table", STRING, description="db.tbl; NULL for every Doris table"),)
    output = (
        OutputColumn("table", "string"),
        OutputColumn("chosen_files", "bigint", "Files the policy picked (0: nothing to do, or disabled)."),
        OutputColumn("rewritten_data_files", "bigint"),
        OutputColumn("added_data_files", "bigint"),
        OutputColumn("snapshot_id", "bigint", "The compaction's snapshot; NULL if it committed nothing."),
        OutputColumn("error", "string", "Why the table could not be compacted."),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        done = compact_automatically(spark, args["table"])
        return [(d.table, d.chosen_files, d.rewritten_data_files, d.added_data_files, d.snapshot_id, d.error) for d in done]
