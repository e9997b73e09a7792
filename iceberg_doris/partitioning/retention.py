"""Doris's ``partition.retention_count``: an AUTO RANGE table keeps only its N newest history
partitions.

A history partition is one whose upper bound is at or before now; the current partition (now falls
inside it) and future ones are always kept. Of the history partitions, the N with the greatest
values stay (RANGE partitions never overlap, so the greatest upper bounds) and the others are
dropped by the next scheduler pass (Doris 3.1+, ``DynamicPartitionScheduler``; documented in
Doris's auto-partitioning page, "Lifecycle management"). The validations and their messages are
Doris's (regression-test/suites/partition_p0/auto_partition/test_auto_new_recycle.groovy).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping

from iceberg_doris.errors import InvalidTableDefinitionError
from iceberg_doris.partitioning.dynamic_partition.time_zones import resolve_time_zone, system_time_zone
from iceberg_doris.partitioning.keys import PartitionColumnType
from iceberg_doris.partitioning.partition_set import PartitionKind, PartitionSet
from iceberg_doris.partitioning.ranges import RangeKey, RangePartition

__all__ = [
    "RETENTION_COUNT",
    "check_retention_on_create",
    "check_retention_on_alter",
    "expired_history_partitions",
    "has_retention",
    "parse_retention_count",
]

RETENTION_COUNT = "partition.retention_count"

_NOT_AUTO_RANGE = "Only AUTO RANGE PARTITION table could set partition.retention_count"
_DYNAMIC_AT_CREATE = "Please remove dynamic_partition properties when partition.retention_count enabled"
_DYNAMIC_AT_ALTER = "Can not use partition.retention_count and dynamic_partition properties at the same time"


def has_retention(properties: Mapping[str, str]) -> bool:
    return RETENTION_COUNT in properties


def parse_retention_count(text: str) -> int:
    """The property's value: a whole number > 0 (Doris: ``partition.retention_count should be > 0``)."""
    try:
        value = int(str(text).strip())
    except ValueError:
        value = 0
    if value <= 0:
        raise InvalidTableDefinitionError(
            f"partition.retention_count should be > 0, not '{text}': give how many history partitions to keep"
        )
    return value


def _has_dynamic(properties: Mapping[str, str]) -> bool:
    return any(key.startswith("dynamic_partition.") for key in properties)


def check_retention_on_create(properties: Mapping[str, str], auto_range: bool) -> None:
    """CREATE TABLE with ``partition.retention_count`` (lower-case keys): an AUTO RANGE table
    without ``dynamic_partition.*``, and a positive count."""
    if not has_retention(properties):
        return
    if not auto_range:
        raise InvalidTableDefinitionError(_NOT_AUTO_RANGE)
    if _has_dynamic(properties):
        raise InvalidTableDefinitionError(_DYNAMIC_AT_CREATE)
    parse_retention_count(properties[RETENTION_COUNT])


def check_retention_on_alter(changes: Mapping[str, str], merged: Mapping[str, str], auto_range: bool) -> None:
    """ALTER TABLE ... SET: ``changes`` are the new properties, ``merged`` the table's afterwards
    (lower-case keys). Setting the count needs an AUTO RANGE table; the count and
    ``dynamic_partition.*`` never live on one table."""
    if has_retention(changes):
        parse_retention_count(changes[RETENTION_COUNT])
        if not auto_range:
            raise InvalidTableDefinitionError(_NOT_AUTO_RANGE)
    if (has_retention(changes) or _has_dynamic(changes)) and has_retention(merged) and _has_dynamic(merged):
        raise InvalidTableDefinitionError(_DYNAMIC_AT_ALTER)


def _now_key(now: _dt.datetime, partitions: PartitionSet) -> RangeKey:
    """``now`` as a bound of the table's one partition column: the wall-clock time of the FE's
    system time zone (``$TZ``), as Doris reads its clock; a DATE column sees today."""
    if now.tzinfo is None:
        raise ValueError("now must be a timezone-aware datetime")
    local = now.astimezone(resolve_time_zone(system_time_zone())).replace(tzinfo=None)
    column_type: PartitionColumnType = partitions.column_types[0]
    value: object = local.date() if column_type.is_date else local
    return RangeKey((value,), partitions.column_types)


def expired_history_partitions(partitions: PartitionSet, count: int, now: _dt.datetime) -> list[RangePartition]:
    """The formal partitions a retention pass drops at ``now`` (timezone-aware): the history
    partitions (upper bound <= now) beyond the ``count`` newest, oldest first."""
    if partitions.kind is not PartitionKind.RANGE or len(partitions.columns) != 1:
        return []
    now_key = _now_key(now, partitions)
    history = sorted(
        (p for p in partitions.formal if isinstance(p, RangePartition) and p.upper <= now_key),
        key=lambda p: p.upper,
    )
    return history[: max(len(history) - count, 0)]
