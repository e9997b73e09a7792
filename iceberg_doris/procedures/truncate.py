"""``doris.truncate``: Doris ``TRUNCATE TABLE t [PARTITION (p1, ...)]``; see
:mod:`iceberg_doris.operations.truncate`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.operations import TruncateRequest
from iceberg_doris.procedures.parameter_types import BOOLEAN, STRING, STRING_ARRAY
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class TruncateProcedure(Procedure):
    name = "truncate"
    summary = "Empties the table or some partitions in one metadata-only commit; the partitions stay."
    details = (
        "Doris TRUNCATE TABLE. partitions => NULL empties the whole table and drops all its temporary partitions "
        "(as Doris; they cannot be recovered); named formal partitions leave temp partitions alone. An "
        "unpartitioned table's one partition is named after the table. temporary => true (Doris TEMPORARY "
        "PARTITION) is refused: temp partitions cannot be truncated. Time travel reads the rows until cleanup. The "
        "emptied formal partitions' old contents go into the recycle bin (recover_partition, after dropping the "
        "emptied partition with force => true) unless force => true (Doris: TRUNCATE ... FORCE)."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("partitions", STRING_ARRAY, description="Formal partitions to empty (default: the whole table)."),
        Parameter("temporary", BOOLEAN, default=False, description="Doris's TEMPORARY PARTITION: refused."),
        Parameter("force", BOOLEAN, default=False, description="Skip the recycle bin: the old rows cannot be recovered."),
    )
    output = (
        OutputColumn("partitions", "string", "The partitions emptied, comma-separated (NULL: unpartitioned table)."),
        OutputColumn("dropped_temp_partitions", "string", "Comma-separated; NULL when none."),
        OutputColumn("deleted_rows", "bigint", "Records of the data files removed from main."),
        OutputColumn("snapshot_id", "bigint", "The table's snapshot after the truncate (main)."),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        partitions = args["partitions"]
        request = TruncateRequest(
            tuple(partitions) if partitions is not None else None, temporary=args["temporary"], force=args["force"]
        )
        r = operations.truncate(spark, args["table"], request)
        return [(",".join(r.partitions) or None, ",".join(r.dropped_temp_partitions) or None, r.deleted_rows, r.snapshot_id)]
