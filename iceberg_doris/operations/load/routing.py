"""Routing a load's rows to partitions: each accepted row gets the name of its partition; rows that
fit none are rejected, except in auto-partition tables, which create the partitions the rows need
(named as Doris names them) in the load's commit."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.errors import CommitConflictError, LoadError
from iceberg_doris.loading import REASON_COLUMN, STATUS_COLUMN
from iceberg_doris.operations.requests import LoadRequest
from iceberg_doris.operations.tables import DorisTable
from iceberg_doris.partitioning import PartitionSet, plan_auto_partitions
from iceberg_doris.table_model import DorisTableModel
from iceberg_doris.table_model.partition_predicates import routing_sql

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

PARTITION_COLUMN = "__doris_partition"
# Auto-partition loads: the partition key of a row no partition holds yet (NULL for the others).
AUTO_KEY_COLUMN = "__doris_auto_key"
NO_PARTITION = "no partition for this tuple"


@dataclass
class RoutedRows:
    """Prepared rows with their target partition, and the partition set they were routed against."""

    frame: "DataFrame"
    partitions: PartitionSet | None
    temporary: bool = False
    created: tuple[Any, ...] = ()
    # Rows no partition holds carry AUTO_KEY_COLUMN; publish plans their partitions from its counts.
    auto_keys: bool = False


def route_rows(prepared: "DataFrame", handle: DorisTable, request: LoadRequest) -> RoutedRows:
    """Adds the partition of each accepted row; rows that fit none become error rows, except in
    auto-partition tables, where they carry the key of the partition to create (planned, with
    Doris's names, from the same pass that counts the rows: no extra read of the source)."""
    from pyspark.sql import functions as F

    partitions = handle.model.partitions
    if partitions is None and request.temporary_partitions:
        # An unpartitioned table's temp partition stages rows for the whole table: every row goes
        # there (checks.check_load_request made sure exactly one, existing, is named).
        [name] = request.temporary_partitions
        return RoutedRows(prepared.withColumn(PARTITION_COLUMN, F.lit(name)), None, temporary=True)
    if partitions is None:
        return RoutedRows(prepared, None)
    model = handle.model
    temporary = bool(request.temporary_partitions)
    named = request.temporary_partitions or request.partitions
    if model.auto_partition is not None and named is None and request.auto_create:
        routed = with_partition(prepared, partitions, list(partitions.formal))
        homeless = (F.col(STATUS_COLUMN) == "ok") & F.col(PARTITION_COLUMN).isNull()
        routed = routed.withColumn(AUTO_KEY_COLUMN, F.when(homeless, auto_partition_key(model, partitions)))
        return RoutedRows(routed, partitions, temporary, auto_keys=True)
    if named is not None:
        group = []
        for name in named:
            partition = partitions.get(name, temporary)
            if partition is None:
                kind = "Temp partition" if temporary else "Partition"
                raise LoadError(f"{kind}[{name}] does not exist in {handle.name.qualified}")
            group.append(partition)
    else:
        group = list(partitions.formal)
    return RoutedRows(unrouted_rows_rejected(with_partition(prepared, partitions, group)), partitions, temporary)


def with_partition(frame: "DataFrame", partitions: PartitionSet, group: list[Any]) -> "DataFrame":
    """``frame`` with the name of the partition of ``group`` each row belongs to (NULL: none)."""
    from pyspark.sql import functions as F

    return frame.withColumn(PARTITION_COLUMN, F.expr(routing_sql(partitions, group)))


def auto_partition_key(model: DorisTableModel, partitions: PartitionSet) -> "Column":
    """The key an auto partition is made for: ``date_trunc(unit, column)`` (RANGE) or the
    partition columns' values (LIST), as a struct (a NULL value is a key too)."""
    from pyspark.sql import functions as F

    from iceberg_doris.partitioning import validate_date_trunc_unit

    auto = model.auto_partition
    assert auto is not None
    columns = [F.col(quote_identifier(c)) for c in partitions.column_names]
    if auto.kind == "RANGE":
        return F.struct(F.date_trunc(validate_date_trunc_unit(auto.unit or ""), columns[0]))
    return F.struct(*columns)


def with_auto_partitions(routed: RoutedRows, model: DorisTableModel, keys: list[tuple[Any, ...]]) -> tuple[RoutedRows, bool]:
    """``routed`` with the partitions the rows' auto-partition ``keys`` need added (Doris's names
    and limits; the load commits them with its data), and whether every key got one. A key can
    miss out when it falls inside an existing partition that does not hold the row itself (a
    hand-made range starting mid-day); its rows then fit no partition."""
    auto = model.auto_partition
    assert auto is not None and routed.partitions is not None
    if not keys:
        return replace(routed, auto_keys=False), True
    simple = (model.property("use_simple_auto_partition_name") or "false").lower() == "true"
    plan = plan_auto_partitions(routed.partitions, keys, unit=auto.unit, simple_names=simple)
    created = {p.name for p in plan.created}
    route = plan.partition_set.router()
    placed = all(route(key) in created for key in keys)
    return replace(routed, partitions=plan.partition_set, created=plan.created, auto_keys=False), placed


def reroute(routed: RoutedRows) -> RoutedRows:
    """``routed`` routed again over all its formal partitions; rows that fit none become error rows."""
    assert routed.partitions is not None
    frame = with_partition(routed.frame.drop(AUTO_KEY_COLUMN), routed.partitions, list(routed.partitions.formal))
    return replace(routed, frame=unrouted_rows_rejected(frame), auto_keys=False)


def unrouted_rows_rejected(routed: "DataFrame") -> "DataFrame":
    from pyspark.sql import functions as F

    unrouted = (F.col(STATUS_COLUMN) == "ok") & F.col(PARTITION_COLUMN).isNull()
    routed = routed.withColumn(REASON_COLUMN, F.when(unrouted, F.lit(NO_PARTITION)).otherwise(F.col(REASON_COLUMN)))
    return routed.withColumn(STATUS_COLUMN, F.when(unrouted, F.lit("error")).otherwise(F.col(STATUS_COLUMN)))


def merge_partitions(fresh: DorisTable, routed: RoutedRows) -> PartitionSet | None:
    """The table's partitions with this load's new auto partitions; refuses if a partition the rows
    were routed to was changed by a concurrent commit."""
    current = fresh.model.partitions
    assert current is not None and routed.partitions is not None
    for partition in routed.partitions.temp if routed.temporary else ():
        if current.get(partition.name, True, exact=True) != partition:
            raise CommitConflictError(
                f"Cannot load into {fresh.name.qualified}: temp partition {partition.name} changed while the load "
                "ran; nothing was committed. Run the load again."
            )
    for partition in routed.partitions.formal:
        if partition in routed.created:
            continue
        if current.get(partition.name, exact=True) != partition:
            raise CommitConflictError(
                f"Cannot load into {fresh.name.qualified}: partition {partition.name} changed while the load ran; "
                "nothing was committed. Run the load again."
            )
    merged = current
    for partition in routed.created:
        # Exactly this name: an auto LIST partition may differ from another only by case (pxxx3, pXXX3).
        existing = current.get(partition.name, exact=True)
        if existing is None:
            merged = merged.add(partition, exact_names=True)
        elif existing != partition:
            raise CommitConflictError(
                f"Cannot load into {fresh.name.qualified}: another commit created partition {partition.name} "
                "with a different range; nothing was committed."
            )
    return merged
