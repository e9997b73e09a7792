"""RANGE partitions: multi-column keys, ``[lower, upper)`` ranges and Doris's range texts.

Mirrors ``PartitionKey.java`` (``toString``: ``types: [DATEV2]; keys: [2020-01-01]; ``), Guava's
``Range.toString`` (``[lower..upper)``), ``RangeUtils.java`` (intersection) and
``MultiPartitionDesc.java`` (``FROM .. TO .. INTERVAL`` batch creation and its names).
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from iceberg_doris.errors import PartitionError
from iceberg_doris.partitioning.keys import (
    MAX,
    MIN,
    PartitionColumnType,
    coerce_value,
    format_key_value,
    is_type_min,
    key_value_to_sql,
    parse_key_literal,
)

__all__ = [
    "RangeKey",
    "RangePartition",
    "contains",
    "expand_batch",
    "intersects",
    "normalize_row_key",
    "range_text",
    "raw_values_sql",
    "week_of_year",
]


def _types_tuple(types: Iterable[PartitionColumnType | str] | PartitionColumnType | str) -> tuple[PartitionColumnType, ...]:
    if isinstance(types, (PartitionColumnType, str)):
        types = (types,)
    return tuple(PartitionColumnType.coerce(t) for t in types)


def _as_value_list(values: Any) -> list[Any]:
    if isinstance(values, RangeKey):
        return list(values.values)
    if isinstance(values, (list, tuple)):
        return list(values)
    return [values]


def raw_values_sql(values: Sequence[Any]) -> str:
    """``PartitionKeyDesc.getPartitionValuesStr``: the values as written, quoted, MAXVALUE bare
    (``('0000-01-01 00:00:00')``)."""
    parts = []
    for v in values:
        if v is MAX or (isinstance(v, str) and v.strip().upper() == "MAXVALUE"):
            parts.append("MAXVALUE")
        elif v is None:
            parts.append("NULL")
        elif isinstance(v, str):
            parts.append(f"'{v}'")
        else:
            parts.append(f"'{format_key_value(v, _guess_type(v))}'")
    return "(" + ", ".join(parts) + ")"


def _guess_type(v: Any) -> PartitionColumnType:
    if isinstance(v, _dt.datetime):
        return PartitionColumnType.DATETIMEV2
    if isinstance(v, _dt.date):
        return PartitionColumnType.DATEV2
    if isinstance(v, bool):
        return PartitionColumnType.BOOLEAN
    if isinstance(v, int):
        return PartitionColumnType.LARGEINT
    return PartitionColumnType.STRING


def _parse_bound(value: Any, t: PartitionColumnType) -> Any:
    if value is None:
        raise PartitionError("NULL is not allowed in RANGE partition values")
    parsed = parse_key_literal(value, t)
    if is_type_min(parsed, t):
        return MIN
    return parsed


@dataclass(frozen=True, eq=False)
class RangeKey:
    """A multi-column range bound: one value per partition column, compared lexicographically.

    Equality, ordering and hashing use the values only; the types are there for display.
    """

    values: tuple
    types: tuple[PartitionColumnType, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(self.values))
        object.__setattr__(self, "types", _types_tuple(self.types))
        if len(self.values) != len(self.types):
            raise PartitionError(
                f"Partition key has {len(self.values)} values but {len(self.types)} partition columns"
            )

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def of(cls, values: Any, types: Iterable[PartitionColumnType | str] | PartitionColumnType | str) -> RangeKey:
        """Builds a bound from literals or typed values; missing trailing columns are MIN
        (``PartitionKey.createPartitionKey``). A bare ``MAXVALUE`` makes every column MAXVALUE."""
        ts = _types_tuple(types)
        if values is MAX or (isinstance(values, str) and values.strip().upper() == "MAXVALUE"):
            return cls.max(ts)
        raw = _as_value_list(values)
        if not raw or len(raw) > len(ts):
            raise PartitionError(f"Partition values number is more than partition column number: {raw_values_sql(raw)}")
        parsed = [_parse_bound(v, t) for v, t in zip(raw, ts)]
        parsed.extend(MIN for _ in range(len(ts) - len(parsed)))
        return cls(tuple(parsed), ts)

    @classmethod
    def min(cls, types: Iterable[PartitionColumnType | str] | PartitionColumnType | str) -> RangeKey:
        ts = _types_tuple(types)
        return cls(tuple(MIN for _ in ts), ts)

    @classmethod
    def max(cls, types: Iterable[PartitionColumnType | str] | PartitionColumnType | str) -> RangeKey:
        ts = _types_tuple(types)
        return cls(tuple(MAX for _ in ts), ts)

    # -- predicates -----------------------------------------------------------------------------

    @property
    def is_min(self) -> bool:
        return all(v is MIN for v in self.values)

    @property
    def is_max(self) -> bool:
        return all(v is MAX for v in self.values)

    # -- ordering -------------------------------------------------------------------------------

    def _other(self, other: object) -> tuple | None:
        if isinstance(other, RangeKey):
            return other.values
        return None

    def __eq__(self, other: object) -> bool:
        o = self._other(other)
        return NotImplemented if o is None else self.values == o

    def __hash__(self) -> int:
        return hash(self.values)

    def __lt__(self, other: object) -> bool:
        o = self._other(other)
        return NotImplemented if o is None else self.values < o

    def __le__(self, other: object) -> bool:
        o = self._other(other)
        return NotImplemented if o is None else self.values <= o

    def __gt__(self, other: object) -> bool:
        o = self._other(other)
        return NotImplemented if o is None else self.values > o

    def __ge__(self, other: object) -> bool:
        o = self._other(other)
        return NotImplemented if o is None else self.values >= o

    # -- text -----------------------------------------------------------------------------------

    def to_string(self) -> str:
        """``PartitionKey.toString``: ``types: [DATEV2]; keys: [2020-01-01]; ``."""
        types = ", ".join(t.doris_name for t in self.types)
        keys = ", ".join(format_key_value(v, t) for v, t in zip(self.values, self.types))
        return f"types: [{types}]; keys: [{keys}]; "

    def to_sql(self) -> str:
        """``PartitionKey.toSql``: ``("10", "20")`` / ``('2020-01-01')`` / ``(MAXVALUE)``."""
        return "(" + ", ".join(key_value_to_sql(v, t) for v, t in zip(self.values, self.types)) + ")"

    def texts(self) -> list[str]:
        """The values as Doris literal texts (``MAXVALUE`` for MAX, the type minimum for MIN)."""
        return [format_key_value(v, t) for v, t in zip(self.values, self.types)]

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"RangeKey({self.values!r})"


def range_text(lower: RangeKey, upper: RangeKey) -> str:
    """Guava ``Range.closedOpen(lower, upper).toString()`` over Doris keys (SHOW PARTITIONS ``Range``)."""
    return f"[{lower.to_string()}..{upper.to_string()})"


def normalize_row_key(key: Any, types: Sequence[PartitionColumnType]) -> tuple:
    """A row's partition-column values as a comparable tuple; NULL becomes MIN (a NULL range key
    belongs to the partition that starts at MIN)."""
    raw = _as_value_list(key)
    if len(raw) != len(types):
        raise PartitionError(f"Row key has {len(raw)} values but the table has {len(types)} partition columns")
    out = []
    for v, t in zip(raw, types):
        v = coerce_value(v, t)
        out.append(MIN if v is None else v)
    return tuple(out)


@dataclass(frozen=True)
class RangePartition:
    """A RANGE partition ``[lower, upper)``."""

    name: str
    lower: RangeKey
    upper: RangeKey

    def __post_init__(self) -> None:
        if len(self.lower.values) != len(self.upper.values):
            raise PartitionError("Lower and upper bound have different numbers of columns")
        if not self.lower < self.upper:
            raise PartitionError("The lower values must smaller than upper values")

    @classmethod
    def of(
        cls,
        name: str,
        lower: Any,
        upper: Any,
        types: Iterable[PartitionColumnType | str] | PartitionColumnType | str,
    ) -> RangePartition:
        """``VALUES [(lower), (upper))`` from literals or typed values."""
        ts = _types_tuple(types)
        lo = lower if isinstance(lower, RangeKey) else RangeKey.of(lower, ts)
        hi = upper if isinstance(upper, RangeKey) else RangeKey.of(upper, ts)
        if not lo < hi:
            raise PartitionError("The lower values must smaller than upper values")
        return cls(name, lo, hi)

    @property
    def types(self) -> tuple[PartitionColumnType, ...]:
        return self.lower.types

    def intersects(self, other: RangePartition) -> bool:
        return intersects(self, other)

    def contains(self, key: Any) -> bool:
        return contains(self, key)

    def range_text(self) -> str:
        return range_text(self.lower, self.upper)

    def key_desc_sql(self) -> str:
        """``VALUES`` clause body Doris prints for the partition: ``[("0"), ("10"))``."""
        return f"[{self.lower.to_sql()}, {self.upper.to_sql()})"

    def with_name(self, name: str) -> RangePartition:
        return RangePartition(name, self.lower, self.upper)


def intersects(a: RangePartition, b: RangePartition) -> bool:
    """True when two ``[lo, hi)`` ranges share at least one key (``RangeUtils.checkIsTwoRangesIntersect``)."""
    return a.lower.values < b.upper.values and b.lower.values < a.upper.values


def contains(partition: RangePartition, key: Any) -> bool:
    """True when a row key lies in ``[lower, upper)``; NULL values count as MIN."""
    values = key.values if isinstance(key, RangeKey) else normalize_row_key(key, partition.types)
    return partition.lower.values <= values < partition.upper.values


# --------------------------------------------------------------------------------------------
# Week numbering (java.util.Calendar / java.time.WeekFields semantics)
# --------------------------------------------------------------------------------------------


def _week1_start(year: int, first_day_of_week: int, min_days: int) -> _dt.date:
    jan1 = _dt.date(year, 1, 1)
    offset = (jan1.isoweekday() - first_day_of_week) % 7
    start = jan1 - _dt.timedelta(days=offset)
    if 7 - offset < min_days:
        start += _dt.timedelta(days=7)
    return start


def week_of_year(
    day: _dt.date,
    *,
    first_day_of_week: int = 7,
    min_days_in_first_week: int = 1,
    calendar_semantics: bool = True,
) -> int:
    """Week of year of ``day``; ``first_day_of_week`` is 1=Monday .. 7=Sunday.

    ``calendar_semantics`` follows ``java.util.Calendar.WEEK_OF_YEAR`` (late-December days in
    next year's first week give 1, early-January days before week 1 give last year's number);
    otherwise ``java.time.WeekFields.weekOfYear`` (week 0 before week 1, no wrap at year end).
    The defaults (Sunday, 1) are Java's ``Locale.US`` week rules, the usual FE default locale.
    """
    if isinstance(day, _dt.datetime):
        day = day.date()
    start = _week1_start(day.year, first_day_of_week, min_days_in_first_week)
    if not calendar_semantics:
        if day < start:
            return 0
        return (day - start).days // 7 + 1
    if day >= _week1_start(day.year + 1, first_day_of_week, min_days_in_first_week):
        return 1
    if day < start:
        start = _week1_start(day.year - 1, first_day_of_week, min_days_in_first_week)
    return (day - start).days // 7 + 1


# --------------------------------------------------------------------------------------------
# FROM (...) TO (...) INTERVAL n [unit]  (MultiPartitionDesc)
# --------------------------------------------------------------------------------------------

_BATCH_UNITS = ("HOUR", "DAY", "WEEK", "MONTH", "YEAR")
_KNOWN_UNITS = ("MICROSECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR")
_FRACTION_RE = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?")


def _is_datetime_text(s: str) -> bool:
    return len(s) == 19 or 21 <= len(s) <= 26


def _parse_batch_time(text: str, unit: str) -> _dt.datetime:
    """``MultiPartitionDesc.dateFormat`` + ``TimeUtils.formatDateTimeAndFullZero``."""
    s = text
    n = len(s)
    fmt: str | None = None
    if unit == "HOUR":
        fmt = {10: "%Y%m%d%H", 13: "%Y-%m-%d %H"}.get(n)
    elif unit in ("DAY", "WEEK"):
        fmt = {8: "%Y%m%d", 10: "%Y-%m-%d"}.get(n)
    elif unit == "MONTH":
        fmt = {6: "%Y%m", 7: "%Y-%m", 10: "%Y-%m-%d"}.get(n)
    elif unit == "YEAR":
        fmt = {4: "%Y", 8: "%Y%m%d", 10: "%Y-%m-%d"}.get(n)
    try:
        if fmt is None:
            if not (_is_datetime_text(s) and _FRACTION_RE.fullmatch(s)):
                raise ValueError(s)
            fmt = "%Y-%m-%d %H:%M:%S.%f" if "." in s else "%Y-%m-%d %H:%M:%S"
        if not re.fullmatch(r"[0-9 :.\-]+", s):
            raise ValueError(s)
        return _dt.datetime.strptime(s, fmt)
    except ValueError:
        raise PartitionError("Multi build partition start or end time style is illegal.") from None


def _to_column_value(moment: _dt.datetime, t: PartitionColumnType) -> Any:
    if t.is_date:
        return moment.date()
    if t.is_datetime:
        return moment
    raise PartitionError(f"Multi build partition does not support column type {t.doris_name} with a time unit")


def _add_months(moment: _dt.datetime, months: int) -> _dt.datetime:
    """``LocalDateTime.plusMonths``: the day is clamped to the target month's length."""
    index = moment.year * 12 + (moment.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    if not 1 <= year <= 9999:
        raise PartitionError("Multi build partition start or end time style is illegal.")
    if month == 12:
        last = 31
    else:
        last = (_dt.date(year, month + 1, 1) - _dt.timedelta(days=1)).day
    return moment.replace(year=year, month=month, day=min(moment.day, last))


def expand_batch(
    column_type: PartitionColumnType | str,
    start: Any,
    end: Any,
    interval: int,
    unit: str | None = None,
    *,
    prefix: str = "p_",
    start_day_of_week: int = 1,
    start_day_of_month: int = 1,
    max_partitions: int = 4096,
) -> list[RangePartition]:
    """Expands ``FROM (start) TO (end) INTERVAL interval [unit]`` into fixed-range partitions.

    Numbers (``unit`` None): ``p_<begin>_<end>`` for ``[begin, min(begin+interval, end))``.
    Time units HOUR/DAY/WEEK/MONTH/YEAR: names ``p_yyyyMMddHH`` / ``p_yyyyMMdd`` / ``p_yyyy_ww`` /
    ``p_yyyyMM`` / ``p_yyyy`` of each lower bound; after the first step the bounds snap to the
    start of the week (Monday) / the ``start_day_of_month`` / January 1st, and the last upper bound
    is clamped to ``end`` (except for DAY, as in Doris). ``prefix`` is FE config
    ``multi_partition_name_prefix`` (or ``dynamic_partition.prefix`` when given).
    """
    t = PartitionColumnType.coerce(column_type)
    start_text = format_key_value(start, t) if not isinstance(start, str) else start
    end_text = format_key_value(end, t) if not isinstance(end, str) else end
    interval = int(interval)
    unit_name = (unit or "").strip().upper()
    if unit_name and unit_name not in _KNOWN_UNITS:
        raise PartitionError(f"Multi build partition got an unknown time interval type: {unit}")
    if interval <= 0:
        raise PartitionError("Multi partition time interval must be larger than zero.")
    if unit_name and unit_name not in _BATCH_UNITS:
        raise PartitionError(f"Multi build partition does not support time interval type: {unit_name}")
    too_many = f"The number of Multi partitions too much, should not exceed:{max_partitions}"
    result: list[RangePartition] = []

    if not unit_name:
        try:
            begin = int(start_text)
            stop = int(end_text)
        except ValueError:
            raise PartitionError(
                "Batch build partition INTERVAL is number type but From or TO does not type match."
            ) from None
        if begin >= stop:
            raise PartitionError("Batch build partition From value should less then TO value.")
        while begin < stop:
            upper = min(begin + interval, stop)
            name = f"{prefix}{begin}_{upper}"
            result.append(RangePartition.of(name, str(begin), str(upper), (t,)))
            begin += interval
            if len(result) > max_partitions:
                raise PartitionError(too_many)
        return result

    current = _parse_batch_time(start_text, unit_name)
    stop_time = _parse_batch_time(end_text, unit_name)
    if not current < stop_time:
        raise PartitionError("Multi build partition start time should less than end time.")
    while current < stop_time:
        lower = current
        if unit_name == "HOUR":
            name = prefix + current.strftime("%Y%m%d%H")
            current = current + _dt.timedelta(hours=interval)
        elif unit_name == "DAY":
            name = prefix + current.strftime("%Y%m%d")
            current = current + _dt.timedelta(days=interval)
        elif unit_name == "WEEK":
            week = week_of_year(
                current.date(), first_day_of_week=start_day_of_week, min_days_in_first_week=1, calendar_semantics=False
            )
            name = f"{prefix}{current.year:04d}_{week:02d}"
            # Doris snaps with ``with(DAY_OF_WEEK, startDayOfMonth)`` (sic), i.e. Monday by default.
            if not 1 <= start_day_of_month <= 7:
                raise PartitionError(f"Invalid value for DayOfWeek (valid values 1 - 7): {start_day_of_month}")
            current = current + _dt.timedelta(days=start_day_of_month - current.isoweekday())
            current = current + _dt.timedelta(weeks=interval)
        elif unit_name == "MONTH":
            name = prefix + current.strftime("%Y%m")
            current = _add_months(current.replace(day=start_day_of_month), interval)
        else:  # YEAR
            name = prefix + f"{current.year:04d}"
            if current.year + interval > 9999:
                current = stop_time
            else:
                current = current.replace(month=1, day=1).replace(year=current.year + interval)
        if unit_name != "DAY" and current > stop_time:
            current = stop_time
        lo = _to_column_value(lower, t)
        hi = _to_column_value(current, t)
        result.append(RangePartition.of(name, lo, hi, (t,)))
        if len(result) > max_partitions:
            raise PartitionError(too_many)
    return result
