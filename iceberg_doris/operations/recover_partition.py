"""``recover_partition``: Doris ``RECOVER PARTITION p [id] [AS new_p] FROM t``.

The recycle bin is the table's history (:mod:`iceberg_doris.operations.recycle_bin`): partitions
emptied by ``drop_partition``, ``truncate`` (both without ``force``) or ``insert_overwrite`` come
back with the data files and deletion vectors they had, unchanged, with their definition, in one
commit. As in Doris the newest entry of that name (case-insensitive) is chosen unless a partition id
(the snapshot id that recycled it) is given; a partition of the target name must not exist, and the
range or values must not overlap a partition that exists. Temp partitions and partitions replaced by
swap/replace are not recoverable (as in Doris).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import time

from iceberg_doris.engine.file_sets import FileSet, live_row_count, stage_append, stage_replacement
from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.errors import PartitionError
from iceberg_doris.operations import recycle_bin
from iceberg_doris.operations.partition_changes import commit_model_change
from iceberg_doris.operations.recycle_bin import RecycleEntry
from iceberg_doris.operations.requests import RecoverPartitionRequest, RecoverPartitionResult
from iceberg_doris.operations.tables import DorisTable, open_table
from iceberg_doris.partitioning import Partition, check_partition_name
from iceberg_doris.table_model import DorisTableModel, snapshot_summary

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

RECOVER_OPERATION = "recover partition"


def recover_partition(spark: "SparkSession", table: str, request: RecoverPartitionRequest) -> RecoverPartitionResult:
    """Brings back the most recently recycled partition named ``request.partition`` (or the one
    ``request.partition_id`` recycled), as ``request.new_name`` if given, with the rows it had, in
    one commit."""
    handle = open_table(spark, table)
    partition, new_name = request.partition, request.new_name
    final = check_partition_name(new_name) if new_name else partition

    def change(fresh: DorisTable, transaction: JavaObject) -> tuple[DorisTableModel, tuple[str, str, int, int]]:
        partitions = fresh.model.partitions
        if partitions is not None and any(p.name.lower() == final.lower() for p in partitions.formal):
            raise PartitionError(
                f"partition[{final}] already exist in table[{fresh.name.name}]: drop it first (force => true keeps it "
                "out of the recycle bin), rename it, or recover this one under another name (new_name => ...)"
            )
        entry = _choose(fresh, partition, request.partition_id) if partitions is not None else None
        files = recycle_bin.entry_files(fresh.iceberg, fresh.table, entry) if entry is not None else None
        if partitions is None or entry is None or files is None:
            raise PartitionError(
                f"No partition named '{partition}' or partition id '{request.partition_id or -1}' in table "
                f"{fresh.name.name}: the recycle bin keeps the partitions drop_partition, truncate (both without "
                f"force), insert_overwrite and partition.retention_count emptied for catalog_trash_expire_second "
                f"({recycle_bin.expire_seconds(fresh.model)}) seconds, while their snapshot is on the table's history"
            )
        # Without new_name the partition comes back as it was spelled (RECOVER PARTITION P1 finds p1).
        name = final if new_name else entry.partition.name
        definition: Partition = entry.partition.with_name(name)
        try:
            updated = partitions.add(definition)
        except PartitionError as conflict:
            other = getattr(conflict, "conflicting_partition", None)
            if other is None:
                raise
            raise PartitionError(
                f"Can not recover partition[{partition}]. Partition item conflict. It overlaps partition {other}; "
                "drop that partition first (force => true keeps it out of the recycle bin)"
            ) from None
        summary = {
            snapshot_summary.OPERATION: RECOVER_OPERATION,
            snapshot_summary.PARTITIONS: name,
            snapshot_summary.RECOVERED_FROM: str(entry.snapshot_id),
            snapshot_summary.RECOVERED_PARTITION: entry.name,
        }
        if files.data_files or files.delete_files:
            stage_replacement(transaction, FileSet(), files, summary=summary)
        else:
            stage_append(transaction, [], summary=summary)  # the recovery is recorded all the same
        return fresh.model.with_partitions(updated), (name, definition.range_text(), live_row_count(files), entry.snapshot_id)

    committed = commit_model_change(handle, change, operation="recover partition of")
    recovered, text, rows, recycled_in = committed.result
    return RecoverPartitionResult(recovered, text, rows, recycled_in, committed.snapshot_id())


def _choose(handle: DorisTable, partition: str, partition_id: int | None) -> RecycleEntry | None:
    """The newest unexpired, unrecovered entry named ``partition`` (Doris compares names
    case-insensitively), or the one recycled by snapshot ``partition_id``."""
    now_ms = int(time.time() * 1000)
    for entry in recycle_bin.entries(handle.table, handle.model, now_ms):
        if entry.name.lower() == partition.lower() and partition_id in (None, entry.snapshot_id):
            return entry
    return None
