"""Temporary partitions of an unpartitioned table.

Doris gives an unpartitioned table one partition, named after the table, and accepts
``ALTER TABLE t ADD TEMPORARY PARTITION name`` (no VALUES) on it; ``REPLACE PARTITION (t) WITH
TEMPORARY PARTITION (name)`` then replaces the whole table. Here such a temp partition is an
Iceberg branch like any other (``doris_temp_<name>``); its name is kept in the model's
``unpartitioned_temp`` (the ``doris.temp-partitions`` property), since the table has no
partition set to hold it.

A load into such a temp partition (Doris: ``INSERT INTO t TEMPORARY PARTITION (name)``, stream
load ``temporary_partitions: name``) puts every row there: the table has no partition columns to
route by. Doris's sink takes the first of several names given; a load here names exactly one.
"""

from __future__ import annotations

from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.errors import CommitConflictError, LoadError, PartitionError
from iceberg_doris.operations import temp_partitions
from iceberg_doris.operations.tables import DorisTable
from iceberg_doris.partitioning import check_partition_name
from iceberg_doris.table_model import DorisTableModel


def applies(handle: DorisTable) -> bool:
    """Whether ``handle`` is unpartitioned (its temp partitions live here)."""
    return handle.model.partitions is None


def stage_add(handle: DorisTable, transaction: JavaObject, name: str, *, has_values: bool) -> tuple[DorisTableModel, str]:
    """Adds temp partition ``name`` (and its empty branch); returns the new model and the branch."""
    if has_values:
        raise PartitionError(
            f"Only support adding partition to range and list partitioned table: {handle.name.qualified} is not "
            "partitioned, so a temporary partition of it takes no values (give none: it stages rows for the "
            "whole table)"
        )
    check_partition_name(name)
    taken = {n.lower() for n in (handle.name.name, *handle.model.unpartitioned_temp)}  # case-insensitive, as Doris
    if name.lower() in taken:
        raise PartitionError(f"Duplicate partition name {name}")
    branch = temp_partitions.stage_create(handle, transaction, name)
    return handle.model.with_unpartitioned_temp(handle.model.unpartitioned_temp + (name,)), branch


def stage_drop(handle: DorisTable, transaction: JavaObject, name: str, *, if_exists: bool) -> DorisTableModel | None:
    """Drops temp partition ``name`` and its branch; None when it does not exist and ``if_exists``."""
    if name not in handle.model.unpartitioned_temp:
        if if_exists:
            return None
        raise PartitionError(
            f"Error in list of partitions to {name}: the table has no temporary partition {name}; "
            "doris.show_partitions lists them, and if_exists => true ignores a missing one"
        )
    temp_partitions.stage_drop(transaction, name)
    return handle.model.with_unpartitioned_temp(tuple(n for n in handle.model.unpartitioned_temp if n != name))


def check_replacement(handle: DorisTable, partitions: list[str], temps: list[str]) -> None:
    """An unpartitioned table's one partition (named after the table) replaced by one temp partition."""
    for name in partitions:
        if name.lower() != handle.name.name.lower():
            raise PartitionError(
                f"Partition[{name}] does not exist: {handle.name.qualified} is unpartitioned, its one partition is "
                f"named {handle.name.name}"
            )
    for name in temps:
        if name not in handle.model.unpartitioned_temp:
            raise PartitionError(f"Temp partition[{name}] does not exist")
    if len(partitions) != 1 or len(temps) != 1:
        raise PartitionError(
            f"{handle.name.qualified} is unpartitioned: replace its one partition ({handle.name.name}) with exactly "
            "one temporary partition"
        )


def check_load_target(handle: DorisTable, names: list[str]) -> None:
    """A load into temp partitions of an unpartitioned table names one that exists."""
    for name in names:
        if name not in handle.model.unpartitioned_temp:
            raise LoadError(
                f"Temp partition[{name}] does not exist in {handle.name.qualified}; doris.add_temp_partition "
                "creates it (an unpartitioned table takes temporary partitions without values)"
            )
    if len(names) != 1:
        raise LoadError(
            f"{handle.name.qualified} is unpartitioned: a load goes into exactly one of its temporary partitions "
            f"(each stages rows for the whole table), not {len(names)}; load each one separately"
        )


def check_still_there(fresh: DorisTable, names: list[str]) -> None:
    """Inside a load's commit: the temp partitions it loads were not dropped meanwhile."""
    for name in names:
        if name not in fresh.model.unpartitioned_temp:
            raise CommitConflictError(
                f"Cannot load into {fresh.name.qualified}: temp partition {name} was dropped or replaced while the "
                "load ran; nothing was committed. Add it again and run the load again."
            )
