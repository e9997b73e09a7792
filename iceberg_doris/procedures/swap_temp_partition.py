"""``doris.swap_temp_partition``: the seed design's swap, one atomic commit on main.

The named formal partitions take the temp partitions' rows (data files and deletion vectors moved,
not rewritten), and the replaced formal rows become temp partitions that can be inspected with
``VERSION AS OF 'doris_temp_<name>'`` and then dropped. See
:mod:`iceberg_doris.operations.partition_replacement`.
"""

from __future__ import annotations

from iceberg_doris import operations
from iceberg_doris.procedures.temp_replacement import TempReplacementProcedure
from iceberg_doris.procedures.registry import register


@register
class SwapTempPartitionProcedure(TempReplacementProcedure):
    name = "swap_temp_partition"
    operation = staticmethod(operations.swap_temp_partition)
    summary = "Swaps temp partitions into the table in one commit; the replaced rows become temp partitions."
    details = (
        "Doris's REPLACE PARTITION rules (strict_range, use_temp_partition_name, RANGE and LIST, many-to-many, "
        "Doris's messages), but the replaced formal rows are kept as temp partitions (names trade places when "
        "the temp partitions take the formal names) so they can be checked, then dropped. Time travel to the "
        "snapshot before the swap reads the old rows too."
    )
