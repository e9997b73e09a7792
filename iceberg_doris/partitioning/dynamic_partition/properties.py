"""Dynamic partitions (spec §5.4): the ``dynamic_partition.*`` properties, validated with Doris's
messages into a :class:`DynamicPartitionConfig`.

Mirrors ``DynamicPartitionUtil.java`` (property checks and messages) and
``DynamicPartitionProperty.java`` (keys, defaults).
"""

from __future__ import annotations

import calendar
import datetime as _dt
import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from iceberg_doris.errors import InvalidTableDefinitionError, PartitionError
from iceberg_doris.partitioning.dynamic_partition.time_zones import resolve_time_zone, system_time_zone
from iceberg_doris.partitioning.keys import PartitionColumnType
from iceberg_doris.partitioning.partition_set import PartitionKind, PartitionSet

PROPERTY_PREFIX = "dynamic_partition."
TIME_UNIT = "dynamic_partition.time_unit"
START = "dynamic_partition.start"
END = "dynamic_partition.end"
PREFIX = "dynamic_partition.prefix"
BUCKETS = "dynamic_partition.buckets"
ENABLE = "dynamic_partition.enable"
START_DAY_OF_WEEK = "dynamic_partition.start_day_of_week"
START_DAY_OF_MONTH = "dynamic_partition.start_day_of_month"
TIME_ZONE = "dynamic_partition.time_zone"
REPLICATION_NUM = "dynamic_partition.replication_num"
REPLICATION_ALLOCATION = "dynamic_partition.replication_allocation"
CREATE_HISTORY_PARTITION = "dynamic_partition.create_history_partition"
HISTORY_PARTITION_NUM = "dynamic_partition.history_partition_num"
HOT_PARTITION_NUM = "dynamic_partition.hot_partition_num"
RESERVED_HISTORY_PERIODS = "dynamic_partition.reserved_history_periods"
STORAGE_POLICY = "dynamic_partition.storage_policy"
STORAGE_MEDIUM = "dynamic_partition.storage_medium"

DYNAMIC_PARTITION_PROPERTIES = frozenset(
    {
        TIME_UNIT,
        START,
        END,
        PREFIX,
        BUCKETS,
        ENABLE,
        START_DAY_OF_WEEK,
        START_DAY_OF_MONTH,
        TIME_ZONE,
        REPLICATION_NUM,
        REPLICATION_ALLOCATION,
        CREATE_HISTORY_PARTITION,
        HISTORY_PARTITION_NUM,
        HOT_PARTITION_NUM,
        RESERVED_HISTORY_PERIODS,
        STORAGE_POLICY,
        STORAGE_MEDIUM,
    }
)

MIN_START_OFFSET = -(2**31)
MAX_END_OFFSET = 2**31 - 1
NOT_SET_HISTORY_PARTITION_NUM = -1
NOT_SET_RESERVED_HISTORY_PERIODS = "NULL"
DEFAULT_MAX_DYNAMIC_PARTITION_NUM = 500
TIME_UNITS = ("HOUR", "DAY", "WEEK", "MONTH", "YEAR")

_JAVA_INT_RE = re.compile(r"[+-]?\d+")
_PREFIX_RE = re.compile(r"[a-zA-Z][a-zA-Z0-9\-_]{0,63}")
_PERIODS_INVALID = (
    'Invalid " dynamic_partition.reserved_history_periods " value {value}. It must be like '
    '"[yyyy-MM-dd,yyyy-MM-dd],[...,...]" while time_unit is DAY/WEEK/MONTH or '
    '"[yyyy-MM-dd HH:mm:ss,yyyy-MM-dd HH:mm:ss],[...,...]" while time_unit is HOUR.'
)
_PERIODS_BAD_DATE = (
    'Invalid dynamic_partition.reserved_history_periods value. It must be correct DATE value '
    '"[yyyy-MM-dd,yyyy-MM-dd],[...,...]" while time_unit is DAY/WEEK/MONTH or '
    '"[yyyy-MM-dd HH:mm:ss,yyyy-MM-dd HH:mm:ss],[...,...]" while time_unit is HOUR.'
)
_PERIODS_UNPARSABLE = (
    'Invalid dynamic_partition.reserved_history_periods value. It must be like '
    '"[yyyy-MM-dd,yyyy-MM-dd],[...,...]" while time_unit is DAY/WEEK/MONTH '
    'or "[yyyy-MM-dd HH:mm:ss,yyyy-MM-dd HH:mm:ss],[...,...]" while time_unit is HOUR.'
)




_EMPTY_MEANS_DEFAULT = (
    ENABLE, START, BUCKETS, TIME_ZONE, CREATE_HISTORY_PARTITION, HISTORY_PARTITION_NUM, RESERVED_HISTORY_PERIODS,
)


def _bad(message: str) -> InvalidTableDefinitionError:
    return InvalidTableDefinitionError(message)


def _java_int(text: str | None) -> int | None:
    """``Integer.parseInt`` or None."""
    if text is None or not _JAVA_INT_RE.fullmatch(text):
        return None
    value = int(text)
    if value < -(2**31) or value > 2**31 - 1:
        return None
    return value


def _java_bool_strict(text: str | None) -> bool | None:
    if text is None:
        return None
    low = text.lower()
    if low == "true":
        return True
    if low == "false":
        return False
    return None



# --------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DynamicPartitionConfig:
    """Validated ``dynamic_partition.*`` properties of a single-column RANGE table."""

    enable: bool
    time_unit: str
    start: int
    end: int
    prefix: str
    time_zone: str
    column_type: PartitionColumnType
    column_name: str = ""
    buckets: int | None = None
    create_history_partition: bool = False
    history_partition_num: int = NOT_SET_HISTORY_PARTITION_NUM
    reserved_history_periods: tuple[tuple[str, str], ...] = ()
    start_day_of_week: int = 1
    start_day_of_month: int = 1
    hot_partition_num: int = 0
    replication_num: int | None = None
    replication_allocation: str | None = None
    storage_medium: str | None = None
    storage_policy: str | None = None

    @property
    def tzinfo(self) -> _dt.tzinfo:
        return resolve_time_zone(self.time_zone)

    @property
    def real_start(self) -> int:
        """``DynamicPartitionUtil.getRealStart``: max(start, -history_partition_num) when set."""
        if self.history_partition_num == NOT_SET_HISTORY_PARTITION_NUM:
            return self.start
        return max(self.start, -self.history_partition_num)

    @property
    def first_offset(self) -> int:
        """The first offset a scheduler pass creates: the real start with history, else 0."""
        return self.real_start if self.create_history_partition else 0

    def to_properties(self) -> dict[str, str]:
        """The normalized property map (what SHOW CREATE TABLE prints), for storing."""
        props = {
            ENABLE: "true" if self.enable else "false",
            TIME_UNIT: self.time_unit,
            TIME_ZONE: self.time_zone,
            START: str(self.start),
            END: str(self.end),
            PREFIX: self.prefix,
            CREATE_HISTORY_PARTITION: "true" if self.create_history_partition else "false",
            HISTORY_PARTITION_NUM: str(self.history_partition_num),
            HOT_PARTITION_NUM: str(self.hot_partition_num),
            RESERVED_HISTORY_PERIODS: (
                ",".join(f"[{a},{b}]" for a, b in self.reserved_history_periods)
                if self.reserved_history_periods
                else NOT_SET_RESERVED_HISTORY_PERIODS
            ),
        }
        if self.buckets is not None:
            props[BUCKETS] = str(self.buckets)
        if self.replication_allocation is not None:
            props[REPLICATION_ALLOCATION] = self.replication_allocation
        if self.time_unit == "WEEK":
            props[START_DAY_OF_WEEK] = str(self.start_day_of_week)
        if self.time_unit == "MONTH":
            props[START_DAY_OF_MONTH] = str(self.start_day_of_month)
        if self.storage_medium:
            props[STORAGE_MEDIUM] = self.storage_medium
        if self.storage_policy:
            props[STORAGE_POLICY] = self.storage_policy
        return props


def _check_time_unit(value: str, t: PartitionColumnType, column: str) -> str:
    unit = (value or "").strip().upper()
    if unit not in TIME_UNITS:
        raise _bad(f"Unsupported time unit {value}. Expect HOUR/DAY/WEEK/MONTH/YEAR.")
    if unit == "HOUR" and t.is_date:
        raise _bad(
            f"{TIME_UNIT} could not be HOUR when type of partition column {column} is DATE or DATEV2"
        )
    if unit == "HOUR" and t.is_integer:
        raise _bad(f"{TIME_UNIT} could not be HOUR when type of partition column {column} is Integer")
    return unit


def _parse_periods(value: str, unit: str) -> tuple[tuple[str, str], ...]:
    """``checkReservedHistoryPeriodValidate`` + ``convertStringToPeriodsList``."""
    if value == "":
        raise _bad("Dynamic reserved history periods is empty.")
    if value == NOT_SET_RESERVED_HISTORY_PERIODS:
        return ()
    if not (value.startswith("[") and value.endswith("]")):
        raise _bad(_PERIODS_INVALID.format(value=value))
    if unit == "HOUR":
        pattern = re.compile(
            r"\[([0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}),([0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2})\]"
        )
    else:
        pattern = re.compile(r"\[([0-9]{4}-[0-9]{2}-[0-9]{2}),([0-9]{4}-[0-9]{2}-[0-9]{2})\]")
    periods = []
    for m in pattern.finditer(value):
        lo, hi = m.group(1), m.group(2)
        if lo > hi:
            raise _bad(f"The first date is larger than the second date, [{lo},{hi}] is invalid.")
        periods.append((lo, hi))
    if len(periods) != len(value.split("],[")):
        raise _bad(_PERIODS_INVALID.format(value=value))
    for lo, hi in periods:
        for text in (lo, hi):
            _check_period_text(text)
    return tuple(periods)


def _check_period_text(text: str) -> None:
    """Java ``DateTimeFormatter`` (SMART): out-of-range fields fail to parse; a day beyond the month's
    length is clamped, which then differs from the input."""
    nums = [int(x) for x in re.findall(r"\d+", text)]
    year, month, day = nums[0], nums[1], nums[2]
    hms = nums[3:] or [0, 0, 0]
    if not (1 <= month <= 12 and 1 <= day <= 31 and hms[0] <= 23 and hms[1] <= 59 and hms[2] <= 59):
        raise _bad(_PERIODS_UNPARSABLE)
    if year == 0 or day > calendar.monthrange(year, month)[1]:
        raise _bad(_PERIODS_BAD_DATE)


def _replication_total(allocation: str) -> int:
    total = 0
    for part in allocation.split(","):
        if ":" not in part:
            raise _bad(f"Invalid replication allocation property: {allocation}")
        count = _java_int(part.split(":", 1)[1].strip())
        if count is None:
            raise _bad(f"Invalid replication allocation property: {allocation}")
        total += count
    return total


def validate_dynamic_properties(
    props: Mapping[str, str],
    column_type: PartitionColumnType | str | Sequence[PartitionColumnType | str] | PartitionSet,
    is_auto: bool = False,
    *,
    column_name: str | None = None,
    partition_kind: PartitionKind | str = PartitionKind.RANGE,
    auto_unit: str | None = None,
    existing: Mapping[str, str] | None = None,
    default_time_zone: str | None = None,
    default_buckets: int | None = None,
    max_dynamic_partition_num: int = DEFAULT_MAX_DYNAMIC_PARTITION_NUM,
) -> DynamicPartitionConfig | None:
    """Checks a table's ``dynamic_partition.*`` properties the way Doris does at CREATE/ALTER time.

    ``column_type`` is the partition column's type (or the table's :class:`PartitionSet`, which also
    gives kind, column count and name). ``is_auto``: the table is also auto-partitioned (then
    ``end`` may be 0 and ``auto_unit`` must equal the time unit). ``existing``: the table's current
    dynamic properties, merged under ``props`` (ALTER TABLE ... SET). Returns None when no
    ``dynamic_partition.*`` key is given. Raises :class:`InvalidTableDefinitionError` with
    Doris's message.
    """
    given = {k: ("" if v is None else str(v)) for k, v in props.items()}
    unknown = [k for k in given if k.startswith(PROPERTY_PREFIX) and k not in DYNAMIC_PARTITION_PROPERTIES]
    if unknown:
        raise _bad("Invalid dynamic partition properties: " + ", ".join(unknown))
    merged = {k: str(v) for k, v in (existing or {}).items() if k in DYNAMIC_PARTITION_PROPERTIES}
    first_time = not merged
    merged.update({k: v for k, v in given.items() if k in DYNAMIC_PARTITION_PROPERTIES})
    if not merged:
        return None
    if first_time:
        # checkInputDynamicPartitionProperties (table without dynamic properties yet): an empty
        # value of these keys means "not given", so the default applies instead of an error.
        for key in _EMPTY_MEANS_DEFAULT:
            if merged.get(key) == "":
                del merged[key]

    # -- the table shape -------------------------------------------------------------------------
    if isinstance(column_type, PartitionSet):
        kind = column_type.kind
        types = list(column_type.column_types)
        names = list(column_type.column_names)
    else:
        kind = PartitionKind.coerce(partition_kind)
        if isinstance(column_type, (str, PartitionColumnType)):
            types = [PartitionColumnType.coerce(column_type)]
        else:
            types = [PartitionColumnType.coerce(t) for t in column_type]
        names = [column_name or ""] * len(types)
    if kind is not PartitionKind.RANGE or len(types) != 1:
        raise _bad("Dynamic partition only support single-column range partition")
    t = types[0]
    column = column_name or names[0]
    if not (t.is_temporal or t.is_integer):
        raise _bad("Dynamic Partition Only Support DATE, DATETIME and INTEGER Type Now.")

    def get(key: str) -> str | None:
        return merged.get(key)

    # -- checkInputDynamicPartitionProperties: required keys and defaults ---------------------------
    if get(TIME_UNIT) in (None, ""):
        raise _bad("Must assign dynamic_partition.time_unit properties")
    if get(PREFIX) is None:
        raise _bad("Must assign dynamic_partition.prefix properties")
    if get(END) in (None, ""):
        raise _bad("Must assign dynamic_partition.end properties")

    # -- analyzeDynamicPartition, in Doris's order --------------------------------------------------
    unit = _check_time_unit(get(TIME_UNIT) or "", t, column)
    if is_auto and auto_unit is not None and auto_unit.strip().upper() != unit:
        raise _bad(
            "If support auto partition and dynamic partition at same time, they must have the same interval unit."
        )

    prefix = get(PREFIX) or ""
    if prefix and not _PREFIX_RE.fullmatch(prefix):
        raise _bad(f"Invalid dynamic partition prefix: {prefix}.")

    buckets = default_buckets
    if get(BUCKETS) is not None:
        text = get(BUCKETS) or ""
        if text == "":
            raise _bad("Dynamic partition buckets is empty")
        value = _java_int(text)
        if value is None:
            raise _bad(f"Invalid dynamic partition buckets {text}")
        if value <= 0:
            raise _bad("Dynamic partition buckets must greater than 0")
        buckets = value

    enable = True
    if get(ENABLE) is not None:
        parsed = _java_bool_strict(get(ENABLE))
        if parsed is None:
            raise _bad(f"Invalid dynamic partition enable: {get(ENABLE)}. Expected true or false")
        enable = parsed

    start = MIN_START_OFFSET
    if get(START) not in (None, ""):
        text = get(START) or ""
        value = _java_int(text)
        if value is None:
            raise _bad(f"Invalid dynamic partition start {text}")
        if value >= 0:
            raise _bad("Dynamic partition start must less than 0")
        start = value

    text = get(END) or ""
    end = _java_int(text)
    if end is None:
        raise _bad(f"Invalid dynamic partition end {text}")
    if end < 0 or (end == 0 and not is_auto):
        raise _bad("Dynamic partition end must greater than 0")

    create_history = False
    if get(CREATE_HISTORY_PARTITION) is not None:
        parsed = _java_bool_strict(get(CREATE_HISTORY_PARTITION))
        if parsed is None:
            raise _bad(
                f"Invalid dynamic partition create_history_partition: {get(CREATE_HISTORY_PARTITION)}. "
                "Expected true or false"
            )
        create_history = parsed

    history_num = NOT_SET_HISTORY_PARTITION_NUM
    if get(HISTORY_PARTITION_NUM) is not None:
        value = _java_int(get(HISTORY_PARTITION_NUM))
        if value is None:
            raise _bad(f"Invalid properties: {HISTORY_PARTITION_NUM}")
        if value < 0 and value != NOT_SET_HISTORY_PARTITION_NUM:
            raise _bad("Dynamic history partition num must greater than 0")
        history_num = value

    if create_history:
        real_start = start if history_num == NOT_SET_HISTORY_PARTITION_NUM else max(start, -history_num)
        if real_start == MIN_START_OFFSET:
            raise _bad(
                "Provide start or history_partition_num property when create_history_partition=true. "
                "Otherwise set create_history_partition=false"
            )
    else:
        real_start = 0
    expected = end - real_start
    if enable and expected > max_dynamic_partition_num:
        raise _bad(f"Too many dynamic partitions: {expected}. Limit: {max_dynamic_partition_num}")

    def day_number(key: str, highest: int) -> int:
        """start_day_of_month / start_day_of_week: 1..highest, default 1."""
        if get(key) is None:
            return 1
        value = _java_int(get(key))
        if value is None:
            raise _bad(f"Invalid properties: {key}")
        if not 1 <= value <= highest:
            raise _bad(f"{key} should between 1 and {highest}")
        return value

    start_day_of_month = day_number(START_DAY_OF_MONTH, 28)
    start_day_of_week = day_number(START_DAY_OF_WEEK, 7)

    if get(TIME_ZONE) is not None:
        time_zone = get(TIME_ZONE) or ""
        resolve_time_zone(time_zone)
    else:
        time_zone = default_time_zone or system_time_zone()
        resolve_time_zone(time_zone)

    hot = 0
    if get(HOT_PARTITION_NUM) is not None:
        text = get(HOT_PARTITION_NUM) or ""
        if text == "":
            raise _bad(f"Invalid properties: {HOT_PARTITION_NUM}")
        value = _java_int(text)
        if value is None:
            raise _bad(f"Invalid {HOT_PARTITION_NUM} value")
        if value < 0:
            raise _bad(f"{HOT_PARTITION_NUM} must larger than 0.")
        hot = value

    replication_num = None
    allocation = None
    if get(REPLICATION_ALLOCATION) is not None:
        allocation = get(REPLICATION_ALLOCATION) or ""
        if _replication_total(allocation) <= 0:
            raise _bad("Dynamic partition replication num must greater than 0")
    elif get(REPLICATION_NUM) is not None:
        text = get(REPLICATION_NUM) or ""
        if text == "":
            raise _bad(f"Invalid properties: {REPLICATION_NUM}")
        value = _java_int(text)
        if value is None:
            raise _bad(f"Invalid dynamic partition replication num: {text}.")
        if value <= 0:
            raise _bad("Dynamic partition replication num must greater than 0")
        replication_num = value
        allocation = f"tag.location.default: {value}"

    periods: tuple[tuple[str, str], ...] = ()
    if get(RESERVED_HISTORY_PERIODS) is not None:
        periods = _parse_periods(get(RESERVED_HISTORY_PERIODS) or "", unit)

    storage_policy = get(STORAGE_POLICY) or None
    storage_medium = None
    if get(STORAGE_MEDIUM) is not None:
        medium = get(STORAGE_MEDIUM) or ""
        if medium.upper() not in ("SSD", "HDD"):
            raise _bad(f"invalid storage medium: {medium}. Should be SSD or HDD")
        storage_medium = medium

    return DynamicPartitionConfig(
        enable=enable,
        time_unit=unit,
        start=start,
        end=end,
        prefix=prefix,
        time_zone=time_zone,
        column_type=t,
        column_name=column,
        buckets=buckets,
        create_history_partition=create_history,
        history_partition_num=history_num,
        reserved_history_periods=periods,
        start_day_of_week=start_day_of_week,
        start_day_of_month=start_day_of_month,
        hot_partition_num=hot,
        replication_num=replication_num,
        replication_allocation=allocation,
        storage_medium=storage_medium,
        storage_policy=storage_policy,
    )


def check_alter_allowed(config: DynamicPartitionConfig | None, table_name: str) -> None:
    """Manual ADD/DROP PARTITION is refused while dynamic partitioning is enabled."""
    if config is not None and config.enable:
        raise PartitionError(
            "Cannot add/drop partition on a Dynamic Partition Table, Use command `ALTER TABLE "
            f'{table_name} SET ("dynamic_partition.enable" = "false")` firstly.'
        )
