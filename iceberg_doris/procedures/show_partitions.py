"""``doris.show_partitions``: Doris SHOW [TEMPORARY] PARTITIONS, from Iceberg metadata only."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.operations.show_partitions import UNPARTITIONED_ROWS
from iceberg_doris.procedures.parameter_types import BOOLEAN, STRING
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

@register
class ShowPartitionsProcedure(Procedure):
    name = "show_partitions"
    summary = "One row per partition (or temp partition) with its range and row/file counts and sizes."
    details = (
        "Counts come from Iceberg metadata (manifests and snapshot summaries); no data file is read. "
        "row_count is records minus deleted records. An unpartitioned table shows one partition named "
        "after the table. Rows that fit no Doris partition (written by another engine) show as "
        f"'{UNPARTITIONED_ROWS}'."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("temporary", BOOLEAN, default=False, description="Show temporary partitions instead."),
    )
    output = (
        OutputColumn("partition_name", "string"),
        OutputColumn("partition_key", "string", "The partition columns."),
        OutputColumn("range", "string", "Doris-style range or list text."),
        OutputColumn("row_count", "bigint", "Rows a reader sees."),
        OutputColumn("data_files", "bigint"),
        OutputColumn("delete_files", "bigint", "Deletion vectors and position-delete files."),
        OutputColumn("data_size", "bigint", "Bytes of data and delete files."),
        OutputColumn("visible_snapshot_id", "bigint", "Last snapshot that changed the partition."),
        OutputColumn("visible_time", "timestamp"),
        OutputColumn("is_temp", "boolean"),
        OutputColumn("branch", "string", "The Iceberg branch holding a temp partition."),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        return operations.show_partitions(spark, args["table"], temporary=args["temporary"])
