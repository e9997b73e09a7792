"""``doris.swap_temp_partition``: the seed design's swap, one atomic commit on main.

The named formal partitions take the temp partitions' rows (data files and deletion vectors moved,
not rewritten), and the replaced formal rows become temp partitions that can be inspected with
``VERSION AS OF 'doris_temp_<name>'`` and then dropped. See
:mod:`iceberg_doris.procedures.partition_replacement`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris.procedures.partition_replacement import OUTPUT, PARAMETERS, replace_with_temp
from iceberg_doris.procedures.registry import Arguments, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class SwapTempPartitionProcedure(Procedure):
    name = "swap_temp_partition"
    summary = "Swaps temp partitions into the table in one commit; the replaced rows become temp partitions."
    details = (
        "Doris's REPLACE PARTITION rules (strict_range, use_temp_partition_name, RANGE and LIST, many-to-many, "
        "Doris's messages), but the replaced formal rows are kept as temp partitions (names trade places when "
        "the temp partitions take the formal names) so they can be checked, then dropped. Time travel to the "
        "snapshot before the swap reads the old rows too."
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
            swap=True,
        )
