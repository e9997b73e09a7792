"""``doris.recover_partition``: Doris ``RECOVER PARTITION p [AS new_p] FROM t``; see
:mod:`iceberg_doris.operations.recover_partition`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.operations import RecoverPartitionRequest
from iceberg_doris.procedures.parameter_types import BIGINT, PARTITION_NAME, STRING
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class RecoverPartitionProcedure(Procedure):
    name = "recover_partition"
    summary = "Brings a dropped, truncated or overwritten partition back from the recycle bin, in one commit."
    details = (
        "Doris RECOVER PARTITION: the most recent recycle-bin entry of that name (or the one partition_id names) "
        "comes back with the data files and deletion vectors it had, none rewritten. drop_partition and truncate "
        "(without force) and insert_overwrite put partitions into the recycle bin; entries expire after the table "
        "property catalog_trash_expire_second (default 86400). Refused if a partition of that name exists (drop it "
        "with force => true, or recover under new_name) or if its range or values now belong to another "
        "partition. Temp partitions and partitions replaced by swap/replace cannot be recovered."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("partition", STRING, required=True, description="Name of the recycled partition."),
        Parameter("new_name", PARTITION_NAME, description="Recover it under this name (Doris: AS new_name)."),
        Parameter(
            "partition_id", BIGINT,
            description="Doris's partition id: the snapshot id that recycled it (default: the newest entry).",
        ),
    )
    output = (
        OutputColumn("partition_name", "string"),
        OutputColumn("range", "string", "Doris-style range or list text."),
        OutputColumn("recovered_rows", "bigint"),
        OutputColumn("dropped_in_snapshot", "bigint", "The snapshot (drop, truncate, overwrite) it came back from."),
        OutputColumn("snapshot_id", "bigint", "The table's snapshot after the recovery (main)."),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        partition_id = args["partition_id"]
        request = RecoverPartitionRequest(
            args["partition"], args["new_name"], int(partition_id) if partition_id is not None else None
        )
        r = operations.recover_partition(spark, args["table"], request)
        return [(r.partition_name, r.range, r.recovered_rows, r.dropped_in_snapshot, r.snapshot_id)]
