"""One pass of Doris's dynamic-partition scheduler: which partitions to create and which to drop at
a given time.

Mirrors ``DynamicPartitionUtil.java`` (``getPartitionRangeString``, ``getFormattedPartitionName``)
and ``DynamicPartitionScheduler.java`` (``getAddPartitionClause``: skip a computed range that
overlaps an existing partition; ``getDropPartitionClause``: keep ``[start, +inf)`` and the reserved
history periods, drop the rest).
"""

from __future__ import annotations

import calendar
import dataclasses
import datetime as _dt
from dataclasses import dataclass, field
from typing import Any

from iceberg_doris.errors import InvalidTableDefinitionError
from iceberg_doris.partitioning.dynamic_partition.properties import MIN_START_OFFSET, DynamicPartitionConfig
from iceberg_doris.partitioning.keys import PartitionColumnType
from iceberg_doris.partitioning.partition_set import PartitionKind, PartitionSet
from iceberg_doris.partitioning.ranges import RangeKey, RangePartition, intersects, week_of_year


def _plus_months(moment: _dt.datetime, months: int) -> _dt.datetime:
    index = moment.year * 12 + moment.month - 1 + months
    year, month0 = divmod(index, 12)
    if not 1 <= year <= 9999:
        raise OverflowError("year out of range")
    month = month0 + 1
    last = calendar.monthrange(year, month)[1]
    return moment.replace(year=year, month=month, day=min(moment.day, last))


def _local_now(config: DynamicPartitionConfig, now: _dt.datetime) -> _dt.datetime:
    if now.tzinfo is None:
        raise ValueError("now must be a timezone-aware datetime")
    return now.astimezone(config.tzinfo)


def _border_moment(config: DynamicPartitionConfig, now: _dt.datetime, offset: int) -> _dt.datetime | None:
    """``DynamicPartitionUtil.getPartitionRangeString`` as a local date-time, or None when out of range."""
    local = _local_now(config, now)
    naive = local.replace(tzinfo=None)
    try:
        if config.time_unit == "HOUR":
            shifted = (now.astimezone(_dt.timezone.utc) + _dt.timedelta(hours=offset)).astimezone(config.tzinfo)
            result = shifted.replace(tzinfo=None, minute=0, second=0, microsecond=0)
        elif config.time_unit == "DAY":
            result = naive + _dt.timedelta(days=offset)
        elif config.time_unit == "WEEK":
            shifted = naive + _dt.timedelta(weeks=offset)
            result = shifted + _dt.timedelta(days=config.start_day_of_week - shifted.isoweekday())
        elif config.time_unit == "MONTH":
            real = offset - 1 if naive.day < config.start_day_of_month else offset
            result = _plus_months(naive, real).replace(day=config.start_day_of_month)
        else:  # YEAR
            year = naive.year + offset
            if not 1 <= year <= 9999:
                return None
            result = naive.replace(year=year, month=1, day=1)
    except (OverflowError, ValueError):
        return None
    if config.time_unit != "HOUR":
        result = result.replace(hour=0, minute=0, second=0, microsecond=0)
    return result


def _to_column_value(moment: _dt.datetime, t: PartitionColumnType) -> Any:
    if t.is_date:
        return moment.date()
    if t.is_datetime:
        return moment.replace(microsecond=0)
    return int(moment.strftime("%Y%m%d"))  # integer columns hold yyyyMMdd


def partition_border(config: DynamicPartitionConfig, now: _dt.datetime, offset: int) -> Any:
    """The lower bound of the partition ``offset`` units from ``now`` (in ``config.time_zone``),
    as a value of the partition column, or None when out of the type's range."""
    moment = _border_moment(config, now, offset)
    if moment is None:
        return None
    return _to_column_value(moment, config.column_type)


def dynamic_partition_name(
    config: DynamicPartitionConfig,
    lower: _dt.datetime | _dt.date | int,
    *,
    week_first_day: int = 7,
    week_min_days: int = 1,
) -> str:
    """``prefix`` + ``getFormattedPartitionName``: DAY ``yyyyMMdd``, HOUR ``yyyyMMddHH``, MONTH ``yyyyMM``,
    YEAR ``yyyy``, WEEK ``yyyy_ww`` (``java.util.Calendar`` week of year; a late-December start that
    falls in next year's week 1 becomes week 53). The week rule defaults to Java's ``Locale.US``
    (weeks start on Sunday, week 1 holds January 1st)."""
    if isinstance(lower, int):
        text = f"{lower:08d}"
        moment = _dt.datetime(int(text[:4]), int(text[4:6]), int(text[6:8]))
    elif isinstance(lower, _dt.datetime):
        moment = lower
    else:
        moment = _dt.datetime(lower.year, lower.month, lower.day)
    unit = config.time_unit
    if unit == "DAY":
        suffix = moment.strftime("%Y%m%d")
    elif unit == "MONTH":
        suffix = moment.strftime("%Y%m")
    elif unit == "YEAR":
        suffix = f"{moment.year:04d}"
    elif unit == "HOUR":
        suffix = moment.strftime("%Y%m%d%H")
    else:
        week = week_of_year(moment.date(), first_day_of_week=week_first_day, min_days_in_first_week=week_min_days)
        if week <= 1 and moment.month == 12:
            week += 52
        suffix = f"{moment.year}_{week:02d}"
    return config.prefix + suffix


@dataclass(frozen=True)
class DynamicPlan:
    """What one scheduler pass would do: partitions to create and formal partition names to drop.

    ``errors`` records ranges the pass could not create (e.g. a name already taken), as Doris's
    ``createPartitionMsg``/``dropPartitionMsg`` would.
    """

    create: list[RangePartition]
    drop: list[str]
    errors: list[str] = field(default_factory=list)


def _period_bound(config: DynamicPartitionConfig, text: str) -> Any:
    if config.time_unit == "HOUR":
        moment = _dt.datetime.strptime(text, "%Y-%m-%d %H:%M:%S")
    else:
        moment = _dt.datetime.strptime(text, "%Y-%m-%d")
    moment = moment.replace(minute=0, second=0)
    return _to_column_value(moment, config.column_type)


def plan_dynamic_partitions(
    config: DynamicPartitionConfig,
    partition_set: PartitionSet,
    now: _dt.datetime,
) -> DynamicPlan:
    """One pass of Doris's dynamic-partition scheduler at ``now`` (an aware datetime).

    Creates the partitions for offsets ``[first_offset .. end]`` that do not overlap an existing
    formal partition; drops formal partitions whose whole range lies before ``start`` and which
    overlap no reserved history period. Partitions after ``end`` are never dropped. A disabled
    config plans nothing.
    """
    if not config.enable:
        return DynamicPlan([], [])
    if partition_set.kind is not PartitionKind.RANGE or len(partition_set.columns) != 1:
        raise InvalidTableDefinitionError("Dynamic partition only support single-column range partition")
    if now.tzinfo is None:
        raise ValueError("now must be a timezone-aware datetime")
    t = partition_set.column_types[0]
    if t is not config.column_type:
        config = _replace_type(config, t)
    types = (t,)
    existing = list(partition_set.formal)
    taken = set(partition_set.partition_names) | set(partition_set.temp_partition_names)

    create: list[RangePartition] = []
    errors: list[str] = []
    first = config.first_offset
    if first == MIN_START_OFFSET:
        raise InvalidTableDefinitionError(
            "Provide start or history_partition_num property when create_history_partition=true. "
            "Otherwise set create_history_partition=false"
        )
    for offset in range(first, config.end + 1):
        lower = partition_border(config, now, offset)
        upper = partition_border(config, now, offset + 1)
        if lower is None or upper is None or not lower < upper:
            errors.append(f"maybe dynamic_partition.start is too small: no valid range for offset {offset}")
            continue
        candidate = RangePartition("_", RangeKey((lower,), types), RangeKey((upper,), types))
        if any(intersects(candidate, p) for p in existing):
            continue
        name = dynamic_partition_name(config, lower)
        if name in taken:
            errors.append(f"Duplicate partition name {name}")
            continue
        taken.add(name)
        create.append(candidate.with_name(name))

    drop: list[str] = []
    if config.start != MIN_START_OFFSET:
        border = partition_border(config, now, config.start)
        if border is None:
            errors.append(
                f"'dynamic_partition.start' = {config.start}, maybe it's too small, can use alter table sql to "
                "increase it."
            )
        else:
            reserved = [(_period_bound(config, a), _period_bound(config, b)) for a, b in config.reserved_history_periods]
            for p in sorted(existing, key=lambda p: p.upper):
                lo, hi = p.lower.values[0], p.upper.values[0]
                if hi > border:
                    continue  # intersects [start, +inf)
                if any(lo <= b and a < hi for a, b in reserved):
                    continue
                drop.append(p.name)
    return DynamicPlan(create, drop, errors)


def _replace_type(config: DynamicPartitionConfig, t: PartitionColumnType) -> DynamicPartitionConfig:
    return dataclasses.replace(config, column_type=t)


def apply_dynamic_plan(partition_set: PartitionSet, plan: DynamicPlan) -> PartitionSet:
    """The partition set after a plan: drops first, then creations."""
    result = partition_set
    for name in plan.drop:
        result = result.drop_partition(name, if_exists=True)
    return result.add_all(plan.create)
