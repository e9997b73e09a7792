"""``doris.replace_partition``: Doris ``REPLACE PARTITION (...) WITH TEMPORARY PARTITION (...)``.

One atomic commit on main: the named formal partitions' rows are dropped (reachable by time travel
only) and the temp partitions become formal partitions, their files moved, not rewritten.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris.procedures.partition_replacement import OUTPUT, PARAMETERS, replace_with_temp
from iceberg_doris.procedures.registry import Arguments, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class ReplacePartitionProcedure(Procedure):
    name = "replace_partition"
    summary = "Doris REPLACE PARTITION WITH TEMPORARY PARTITION: one commit; replaced rows dropped, temps become formal."
    details = (
        "strict_range => true: the replaced ranges (or lists) must equal the temp ones exactly; false: the temp "
        "partitions must only not overlap the partitions that stay. use_temp_partition_name => false with lists "
        "of equal length renames the temp partitions to the formal names by position. Doris's messages."
    )
    parameters = PARAMETERS
    output = OUTPUT

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        return replace_with_temp(
            spark,
            args["table"],
            args["partitions"],
            args["temp_partitions"],
            strict_range=args["strict_range"],
            use_temp_partition_name=args["use_temp_partition_name"],
            swap=False,
        )
