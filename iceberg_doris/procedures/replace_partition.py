"""``doris.replace_partition``: Doris ``REPLACE PARTITION (...) WITH TEMPORARY PARTITION (...)``.

One atomic commit on main: the named formal partitions' rows are dropped (reachable by time travel
only) and the temp partitions become formal partitions, their files moved, not rewritten.
"""

from __future__ import annotations

from iceberg_doris import operations
from iceberg_doris.procedures.temp_replacement import TempReplacementProcedure
from iceberg_doris.procedures.registry import register


@register
class ReplacePartitionProcedure(TempReplacementProcedure):
    name = "replace_partition"
    operation = staticmethod(operations.replace_partition)
    summary = "Doris REPLACE PARTITION WITH TEMPORARY PARTITION: one commit; replaced rows dropped, temps become formal."
    details = (
        "strict_range => true: the replaced ranges (or lists) must equal the temp ones exactly; false: the temp "
        "partitions must only not overlap the partitions that stay. use_temp_partition_name => false with lists "
        "of equal length renames the temp partitions to the formal names by position. Doris's messages."
    )
