"""``recover_partition``: Doris ``RECOVER PARTITION p [AS new_p] FROM t``.

Doris keeps a dropped partition in its recycle bin until it expires. Here the recycle bin is the
table's history: ``drop_partition`` records the partition's definition in its snapshot's summary,
and that snapshot still lists the data files (and deletion vectors) it removed. Recovering adds
them back, unchanged, with the partition, in one commit. A partition is recoverable while its
drop snapshot is on main's history, that is until ``cleanup`` expires it (or a rollback undoes the
drop). Temp partitions and partitions replaced by swap/replace are not recoverable (as in Doris).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from iceberg_doris.engine.file_sets import FileSet, live_row_count, stage_append, stage_replacement
from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.engine.snapshot_history import HistoricSnapshot, main_lineage, removed_files
from iceberg_doris.errors import PartitionError
from iceberg_doris.operations.drop_partition import DROP_OPERATION
from iceberg_doris.operations.partition_changes import commit_model_change
from iceberg_doris.operations.requests import RecoverPartitionRequest, RecoverPartitionResult
from iceberg_doris.operations.tables import DorisTable, open_table
from iceberg_doris.partitioning import Partition, check_partition_name, from_json
from iceberg_doris.table_model import DorisTableModel, snapshot_summary

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

RECOVER_OPERATION = "recover partition"


def recover_partition(spark: "SparkSession", table: str, request: RecoverPartitionRequest) -> RecoverPartitionResult:
    """Brings back the most recently dropped partition named ``request.partition`` (as
    ``request.new_name`` if given) with the rows it had when dropped, in one commit."""
    handle = open_table(spark, table)
    partition, new_name = request.partition, request.new_name
    final = check_partition_name(new_name) if new_name else partition

    def change(fresh: DorisTable, transaction: JavaObject) -> tuple[DorisTableModel, tuple[str, str, int, int]]:
        partitions = fresh.model.partitions
        if partitions is not None and partitions.has(final, temporary=False):
            raise PartitionError(
                f"partition[{final}] already exist in table[{fresh.name.name}]: drop or rename it first, or recover "
                "this one under another name (new_name => ...)"
            )
        dropped = _latest_drop(fresh, partition)
        if partitions is None or dropped is None:
            raise PartitionError(
                f"No partition named '{partition}' in recycle bin that belongs to table '{fresh.name.name}': no drop "
                "of it is left in the table's history (doris.cleanup expires dropped partitions with their snapshots)"
            )
        definition: Partition = from_json(dropped.summary[snapshot_summary.DROPPED_PARTITION]).formal[0]
        # Without new_name the partition comes back as it was spelled (RECOVER PARTITION P1 finds p1).
        name = new_name or definition.name
        definition = definition.with_name(name)
        try:
            updated = partitions.add(definition)
        except PartitionError as conflict:
            other = getattr(conflict, "conflicting_partition", None)
            if other is None:
                raise
            raise PartitionError(
                f"Can not recover partition[{partition}]. Partition item conflict. It overlaps partition {other}; "
                "drop that partition first"
            ) from None
        files = removed_files(fresh.table, dropped.snapshot_id)
        summary = {
            snapshot_summary.OPERATION: RECOVER_OPERATION,
            snapshot_summary.PARTITIONS: name,
            snapshot_summary.RECOVERED_FROM: str(dropped.snapshot_id),
        }
        if files.data_files or files.delete_files:
            stage_replacement(transaction, FileSet(), files, summary=summary)
        else:
            stage_append(transaction, [], summary=summary)  # the recovery is recorded all the same
        return fresh.model.with_partitions(updated), (name, definition.range_text(), live_row_count(files), dropped.snapshot_id)

    committed = commit_model_change(handle, change, operation="recover partition of")
    recovered, text, rows, drop_snapshot = committed.result
    return RecoverPartitionResult(recovered, text, rows, drop_snapshot, committed.snapshot_id())


def _latest_drop(handle: DorisTable, partition: str) -> HistoricSnapshot | None:
    """The newest drop of ``partition`` on main's history that no recovery has brought back yet."""
    recovered: set[str] = set()
    for snapshot in main_lineage(handle.table):
        summary = snapshot.summary
        if snapshot_summary.RECOVERED_FROM in summary:
            recovered.add(summary[snapshot_summary.RECOVERED_FROM])
        if (
            summary.get(snapshot_summary.OPERATION) == DROP_OPERATION
            and (summary.get(snapshot_summary.PARTITIONS) or "").lower() == partition.lower()  # case-insensitive, as Doris
            and snapshot_summary.DROPPED_PARTITION in summary
            and str(snapshot.snapshot_id) not in recovered
        ):
            return snapshot
    return None
