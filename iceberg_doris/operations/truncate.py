"""``truncate``: Doris ``TRUNCATE TABLE t [PARTITION (p1, ...)]``.

Empties the whole table or the named formal partitions in one metadata-only commit (their data
and delete files leave main; the partitions stay, empty; time travel still reads the rows until
``cleanup``). As in Doris, truncating the whole table also drops every temporary partition (not
recoverable), truncating named partitions leaves temp partitions alone, and temp partitions
themselves cannot be truncated. Unless ``force`` (Doris's ``TRUNCATE ... FORCE``), the emptied formal
partitions' old contents go into the recycle bin (:mod:`.recycle_bin`); an unpartitioned table's
are only reachable by time travel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.errors import PartitionError
from iceberg_doris.operations import temp_partitions
from iceberg_doris.operations.partition_changes import commit_model_change, stage_partition_delete
from iceberg_doris.operations.recycle_bin import recycle_summary
from iceberg_doris.operations.requests import TruncateRequest, TruncateResult
from iceberg_doris.operations.tables import DorisTable, open_table
from iceberg_doris.partitioning import Partition
from iceberg_doris.table_model import DorisTableModel, snapshot_summary
from iceberg_doris.table_model.partition_predicates import TRUE, Predicate, partition_predicate, union

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

TRUNCATE_OPERATION = "truncate"


def truncate(spark: "SparkSession", table: str, request: TruncateRequest) -> TruncateResult:
    """Empties ``table`` (``request.partitions`` None: all of it, dropping its temp partitions) or
    the named formal partitions, in one commit. ``request.temporary`` (Doris's ``TEMPORARY
    PARTITION``) is refused, as Doris refuses it."""
    partitions = request.partitions
    if request.temporary:
        raise PartitionError(
            "Not support truncate temp partitions: drop the temporary partition (doris.drop_temp_partition) and add "
            "it again instead"
        )
    handle = open_table(spark, table)

    def change(fresh: DorisTable, transaction: JavaObject) -> tuple[DorisTableModel, tuple[tuple[str, ...], tuple[str, ...], int]]:
        model = fresh.model
        if partitions is None:
            dropped = _temp_names(model)
            for name in dropped:
                temp_partitions.stage_drop(transaction, name)
            names = model.partitions.partition_names if model.partitions is not None else ()
            recycled = model.partitions.formal if model.partitions is not None and not request.force else ()
            deleted = _delete(fresh, transaction, TRUE, (snapshot_summary.ALL_PARTITIONS,), recycled)
            if model.partitions is not None:
                model = model.with_partitions(model.partitions.drop_all_temp_partitions())
            return model.with_unpartitioned_temp(()), (names, dropped, deleted)
        predicate = _named_partitions(fresh, partitions)
        # Reported and recorded as the partitions spell their names (Doris looks them up case-insensitively).
        named = tuple(model.partitions.stored_name(n) for n in partitions) if model.partitions is not None else tuple(partitions)
        recycled = () if request.force or model.partitions is None else _recycled(model, named)
        return model, (named, (), _delete(fresh, transaction, predicate, named, recycled))

    committed = commit_model_change(handle, change, operation="truncate")
    names, dropped, deleted = committed.result
    return TruncateResult(names, dropped, deleted, committed.snapshot_id())


def _temp_names(model: DorisTableModel) -> tuple[str, ...]:
    if model.partitions is not None:
        return model.partitions.temp_partition_names
    return model.unpartitioned_temp


def _named_partitions(handle: DorisTable, names: tuple[str, ...]) -> Predicate:
    """The rows of the named formal partitions (an unpartitioned table's one partition is named
    after the table); an unknown or temp name is refused with Doris's message."""
    partitions = handle.model.partitions
    if not names:
        raise PartitionError("partitions is empty: name at least one partition, or give NULL to truncate the whole table")
    chosen = []
    for name in names:
        found = partitions.get(name) if partitions is not None else None
        if found is None and not (partitions is None and name.lower() == handle.name.name.lower()):
            raise PartitionError(
                f"Partition {name} does not exist: doris.show_partitions lists the table's partitions (temporary "
                "partitions cannot be truncated)"
            )
        chosen.append(found)
    if partitions is None:
        return TRUE
    return union([partition_predicate(partitions, p) for p in chosen if p is not None])


def _recycled(model: DorisTableModel, names: tuple[str, ...]) -> tuple[Partition, ...]:
    """The named formal partitions (each name resolved as ``PartitionSet.get`` does: the exact
    spelling first, else case-insensitively), each once, in the table's order."""
    if model.partitions is None:
        return ()
    wanted = {found.name for n in names if (found := model.partitions.get(n)) is not None}
    return tuple(p for p in model.partitions.formal if p.name in wanted)


def _delete(
    handle: DorisTable, transaction: JavaObject, predicate: Predicate, names: tuple[str, ...], recycled: tuple[Partition, ...]
) -> int:
    extra = recycle_summary(handle.model.partitions, recycled) if handle.model.partitions is not None else {}
    return stage_partition_delete(
        handle, transaction, predicate, operation=TRUNCATE_OPERATION, partitions=",".join(names), summary_extra=extra
    )
