"""``doris.recover_partition``: Doris ``RECOVER PARTITION p [AS new_p] FROM t``; see
:mod:`iceberg_doris.operations.recover_partition`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.operations import RecoverPartitionRequest
from iceberg_doris.procedures.parameter_types import PARTITION_NAME, STRING
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class RecoverPartitionProcedure(Procedure):
    name = "recover_partition"
    summary = "Brings a dropped partition back with its rows, from table history, in one commit."
    details = (
        "Doris RECOVER PARTITION: the most recent drop_partition of that name comes back with the data files and "
        "deletion vectors it had, none rewritten. Possible until doris.cleanup expires the drop's snapshot. "
        "Refused if a partition of that name exists (recover it under new_name) or if its range or values now "
        "belong to another partition. Temp partitions and partitions replaced by swap/replace cannot be recovered."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("partition", STRING, required=True, description="Name of the dropped partition."),
        Parameter("new_name", PARTITION_NAME, description="Recover it under this name (Doris: AS new_name)."),
    )
    output = (
        OutputColumn("partition_name", "string"),
        OutputColumn("range", "string", "Doris-style range or list text."),
        OutputColumn("recovered_rows", "bigint"),
        OutputColumn("dropped_in_snapshot", "bigint", "The drop's snapshot the partition came back from."),
        OutputColumn("snapshot_id", "bigint", "The table's snapshot after the recovery (main)."),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        request = RecoverPartitionRequest(args["partition"], args["new_name"])
        r = operations.recover_partition(spark, args["table"], request)
        return [(r.partition_name, r.range, r.recovered_rows, r.dropped_in_snapshot, r.snapshot_id)]
