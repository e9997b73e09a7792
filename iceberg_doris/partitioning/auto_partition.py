"""Auto partitions (spec §5.5): ``AUTO PARTITION BY RANGE (date_trunc(col, 'unit'))`` and
``AUTO PARTITION BY LIST (cols)``.

Mirrors ``PartitionExprUtil.java`` (range end, MAXVALUE beyond the type maximum, the
``p`` + ``yyyyMMddHHmmss`` range names, the list name algorithm with the 50-character cut and
``Integer.toHexString(String.hashCode())``) and the FE limit ``max_auto_partition_num``.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from iceberg_doris.errors import PartitionError
from iceberg_doris.partitioning.keys import MAX, PartitionColumnType, coerce_value, format_key_value
from iceberg_doris.partitioning.lists import ListPartition
from iceberg_doris.partitioning.partition_set import Partition, PartitionKind, PartitionSet
from iceberg_doris.partitioning.ranges import RangeKey, RangePartition

__all__ = [
    "AUTO_RANGE_UNITS",
    "DEFAULT_MAX_AUTO_PARTITION_NUM",
    "AutoPartitionPlan",
    "auto_list_partition",
    "auto_list_partition_name",
    "auto_range_bounds",
    "auto_range_partition",
    "auto_range_partition_name",
    "check_auto_partition_limit",
    "date_trunc",
    "java_string_hash",
    "plan_auto_partitions",
    "validate_auto_list_columns",
    "validate_auto_range_column",
    "validate_date_trunc_unit",
]

AUTO_RANGE_UNITS = ("year", "quarter", "month", "week", "day", "hour", "minute", "second")
DEFAULT_MAX_AUTO_PARTITION_NUM = 2000
MAX_PARTITION_NAME_LENGTH = 50

# use_simple_auto_partition_name: the significant prefix of p + yyyyMMddHHmmss per unit
# (test_auto_partition_name.groovy: year 5, quarter 7, month 7, week 9, day 9, hour 11, minute 13, second 15).
_SIMPLE_NAME_LENGTH = {
    "year": 5,
    "quarter": 7,
    "month": 7,
    "week": 9,
    "day": 9,
    "hour": 11,
    "minute": 13,
    "second": 15,
}


def validate_date_trunc_unit(unit: str) -> str:
    """The lower-cased unit, or Doris's INSERT-time error for an unknown one (e.g. ``'yeear'``)."""
    u = str(unit).strip().lower() if unit is not None else ""
    if u not in AUTO_RANGE_UNITS:
        raise PartitionError(
            "date_trunc function second param only support argument is year|quarter|month|week|day|hour|minute|second"
        )
    return u


def validate_auto_range_column(column_type: PartitionColumnType | str, nullable: bool = False) -> PartitionColumnType:
    """CREATE-time checks of an auto RANGE column: DATE/DATETIME and NOT NULL."""
    t = PartitionColumnType.coerce(column_type)
    if not t.is_temporal:
        raise PartitionError("partition expr date_trunc is illegal!")
    if nullable:
        raise PartitionError("AUTO RANGE PARTITION doesn't support NULL column")
    return t


def validate_auto_list_columns(column_types: Iterable[PartitionColumnType | str]) -> tuple[PartitionColumnType, ...]:
    """Auto LIST columns: BOOLEAN, integers, DATE, DATETIME, CHAR, VARCHAR (STRING)."""
    return tuple(PartitionColumnType.coerce(t) for t in column_types)


def date_trunc(value: Any, unit: str) -> Any:
    """Doris ``date_trunc``: a ``date`` stays a ``date``; ``week`` truncates to Monday."""
    u = validate_date_trunc_unit(unit)
    is_date_only = isinstance(value, _dt.date) and not isinstance(value, _dt.datetime)
    moment = _dt.datetime(value.year, value.month, value.day) if is_date_only else value
    if not isinstance(moment, _dt.datetime):
        raise PartitionError(f"date_trunc needs a DATE or DATETIME value, got {value!r}")
    moment = moment.replace(microsecond=0, tzinfo=None)
    if u == "year":
        moment = moment.replace(month=1, day=1, hour=0, minute=0, second=0)
    elif u == "quarter":
        moment = moment.replace(month=(moment.month - 1) // 3 * 3 + 1, day=1, hour=0, minute=0, second=0)
    elif u == "month":
        moment = moment.replace(day=1, hour=0, minute=0, second=0)
    elif u == "week":
        moment = (moment - _dt.timedelta(days=moment.weekday())).replace(hour=0, minute=0, second=0)
    elif u == "day":
        moment = moment.replace(hour=0, minute=0, second=0)
    elif u == "hour":
        moment = moment.replace(minute=0, second=0)
    elif u == "minute":
        moment = moment.replace(second=0)
    if is_date_only:
        return moment.date()
    return moment


def _plus_unit(moment: _dt.datetime, unit: str) -> _dt.datetime | None:
    """``PartitionExprUtil.getRangeEnd``; None when the result is beyond 9999-12-31."""
    try:
        if unit in ("year", "quarter", "month"):
            months = {"year": 12, "quarter": 3, "month": 1}[unit]
            index = moment.year * 12 + moment.month - 1 + months
            year, month0 = divmod(index, 12)
            if year > 9999:
                return None
            return moment.replace(year=year, month=month0 + 1)  # lower bounds are on day 1
        delta = {
            "week": _dt.timedelta(days=7),
            "day": _dt.timedelta(days=1),
            "hour": _dt.timedelta(hours=1),
            "minute": _dt.timedelta(minutes=1),
            "second": _dt.timedelta(seconds=1),
        }[unit]
        return moment + delta
    except OverflowError:
        return None


def auto_range_bounds(value: Any, unit: str, column_type: PartitionColumnType | str) -> tuple[Any, Any]:
    """``[date_trunc(value), date_trunc(value) + 1 unit)``; an upper bound beyond the type's maximum
    becomes :data:`MAX`."""
    t = validate_auto_range_column(column_type)
    u = validate_date_trunc_unit(unit)
    if value is None:
        raise PartitionError("Can't create partition for NULL Range")
    v = coerce_value(value, t)
    lower = date_trunc(v, u)
    moment = lower if isinstance(lower, _dt.datetime) else _dt.datetime(lower.year, lower.month, lower.day)
    end = _plus_unit(moment, u)
    if end is None:
        upper: Any = MAX
    elif t.is_date:
        upper = end.date()
        if upper == lower:
            raise PartitionError(f"date_trunc unit '{u}' is finer than a day; the DATE column cannot be split by it")
    else:
        upper = end
    return lower, upper


def auto_range_partition_name(lower: Any, unit: str | None = None, *, simple: bool = False) -> str:
    """``p`` + ``yyyyMMddHHmmss`` of the lower bound; with ``use_simple_auto_partition_name`` only the
    digits that matter for ``unit`` (``p2022``, ``p202212``, ``p20221214`` ...)."""
    moment = lower if isinstance(lower, _dt.datetime) else _dt.datetime(lower.year, lower.month, lower.day)
    name = "p%04d%02d%02d%02d%02d%02d" % (
        moment.year,
        moment.month,
        moment.day,
        moment.hour,
        moment.minute,
        moment.second,
    )
    if simple:
        if unit is None:
            raise PartitionError("use_simple_auto_partition_name needs the date_trunc unit")
        name = name[: _SIMPLE_NAME_LENGTH[validate_date_trunc_unit(unit)]]
    return name


def auto_range_partition(
    value: Any,
    unit: str,
    column_type: PartitionColumnType | str,
    *,
    simple_name: bool = False,
) -> RangePartition:
    """The partition auto RANGE creates for a row value."""
    t = PartitionColumnType.coerce(column_type)
    lower, upper = auto_range_bounds(value, unit, t)
    name = auto_range_partition_name(lower, unit, simple=simple_name)
    return RangePartition(name, RangeKey((lower,), (t,)), RangeKey((upper,), (t,)))


# -- LIST names -------------------------------------------------------------------------------------


def _utf16_units(s: str) -> list[int]:
    data = s.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2)]


def java_string_hash(s: str) -> int:
    """``String.hashCode()`` as a signed 32-bit int."""
    h = 0
    for unit in _utf16_units(s):
        h = (31 * h + unit) & 0xFFFFFFFF
    return h - (1 << 32) if h >= (1 << 31) else h


def _java_length(s: str) -> int:
    return len(_utf16_units(s))


def _format_partition_value(value: str) -> str:
    """``PartitionExprUtil.getFormatPartitionValue``: keep ``[A-Za-z0-9]``, other characters become the
    lower-case hex of ``codePointAt(i)`` (per UTF-16 unit), ``_`` first when the text starts with ``-``."""
    units = _utf16_units(value)
    out = []
    if units and units[0] == ord("-"):
        out.append("_")
    for i, u in enumerate(units):
        ch = chr(u) if u < 0xD800 or u > 0xDFFF else ""
        if ch and (("A" <= ch <= "Z") or ("a" <= ch <= "z") or ("0" <= ch <= "9")):
            out.append(ch)
            continue
        code = u
        if 0xD800 <= u <= 0xDBFF and i + 1 < len(units) and 0xDC00 <= units[i + 1] <= 0xDFFF:
            code = 0x10000 + ((u - 0xD800) << 10) + (units[i + 1] - 0xDC00)
        out.append(format(code, "x"))
    return "".join(out)


def _list_value_string(value: Any, t: PartitionColumnType) -> str | None:
    """The text BE sends for a partition value (``TNullableStringLiteral``)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "1" if value else "0"
    return format_key_value(value, t)


def auto_list_partition_name(values: Any, column_types: Sequence[PartitionColumnType | str]) -> str:
    """Doris's auto LIST partition name: ``p`` + format(concat(value + length(value)))`` with NULL as
    ``X``; names of string-typed tables longer than 50 become the first 50 characters + ``_`` +
    ``Integer.toHexString(name.hashCode())``. Examples: ``Beijing`` → ``pBeijing7``, NULL → ``pX``,
    ``-9876`` → ``p_2d98765``, (``123``, ``123``) → ``p12331233``."""
    ts = tuple(PartitionColumnType.coerce(t) for t in column_types)
    raw = list(values) if isinstance(values, (list, tuple)) else [values]
    if len(raw) != len(ts):
        raise PartitionError(f"Row key has {len(raw)} values but the table has {len(ts)} partition columns")
    parts = []
    for v, t in zip(raw, ts):
        text = _list_value_string(coerce_value(v, t), t)
        parts.append("X" if text is None else text + str(_java_length(text)))
    name = "p" + _format_partition_value("".join(parts))
    if len(name) > MAX_PARTITION_NAME_LENGTH:
        if any(t.is_string for t in ts):
            name = name[:MAX_PARTITION_NAME_LENGTH] + "_" + format(java_string_hash(name) & 0xFFFFFFFF, "x")
        else:
            raise PartitionError("Partition name's length is over limit of 50.")
    return name


def auto_list_partition(values: Any, column_types: Sequence[PartitionColumnType | str]) -> ListPartition:
    """The partition auto LIST creates for one distinct value tuple."""
    ts = tuple(PartitionColumnType.coerce(t) for t in column_types)
    raw = list(values) if isinstance(values, (list, tuple)) else [values]
    key = tuple(coerce_value(v, t) for v, t in zip(raw, ts))
    return ListPartition(auto_list_partition_name(key, ts), (key,), ts)


# -- planning ---------------------------------------------------------------------------------------


def check_auto_partition_limit(
    existing: int, to_create: int, limit: int = DEFAULT_MAX_AUTO_PARTITION_NUM
) -> None:
    """FE config ``max_auto_partition_num``: the table may not grow beyond ``limit`` partitions."""
    if existing + to_create > limit:
        raise PartitionError(
            "create partition failed. partition numbers will exceed limit variable max_auto_partition_num"
        )


@dataclass(frozen=True)
class AutoPartitionPlan:
    """The partition set after auto-creating partitions for rows that fit none, and what was created."""

    partition_set: PartitionSet
    created: tuple[Partition, ...]


def plan_auto_partitions(
    partition_set: PartitionSet,
    row_keys: Iterable[Any],
    *,
    unit: str | None = None,
    simple_names: bool = False,
    max_partitions: int = DEFAULT_MAX_AUTO_PARTITION_NUM,
) -> AutoPartitionPlan:
    """Creates the partitions an auto-partition table needs for ``row_keys`` (rows that already fit a
    formal partition need none). RANGE tables need the ``date_trunc`` ``unit``.

    Doris semantics: one partition per distinct name; a new range that overlaps an existing
    partition fails (``... is intersected with range ...``); exceeding ``max_partitions`` fails
    before anything is created.
    """
    route = partition_set.router()
    types = partition_set.column_types
    planned: dict[str, Partition] = {}
    for row in row_keys:
        if route(row) is not None:
            continue
        if partition_set.kind is PartitionKind.RANGE:
            if unit is None:
                raise PartitionError("Auto Range Partition need FunctionCallExpr")
            if len(types) != 1:
                raise PartitionError("now only support one expr in range partition")
            value = row[0] if isinstance(row, (list, tuple)) else row
            partition: Partition = auto_range_partition(value, unit, types[0], simple_name=simple_names)
        else:
            partition = auto_list_partition(row, types)
            same = next((p for p in planned.values() if p.values == partition.values), None)
            if same is not None:
                continue
            # Doris names it "p" + the formatted values and nothing else: its partition map is
            # case-sensitive, so pxxx3 sits beside pXXX3 (PartitionExprUtil
            # .getAddPartitionClauseFromPartitionValues; OlapTable.nameToPartition).
        existing = planned.get(partition.name)
        if existing is None:
            planned[partition.name] = partition
        elif existing != partition:
            raise PartitionError(f"Duplicate partition name {partition.name}")
    check_auto_partition_limit(len(partition_set.formal), len(planned), max_partitions)
    result = partition_set.add_all(planned.values(), exact_names=True)
    return AutoPartitionPlan(result, tuple(planned.values()))
