"""Typed Doris partition keys: column kinds, literal parsing, MIN/MAX sentinels and Doris text forms.

Doris sources mirrored here: ``PartitionKey.java`` (``toString``/``toSql``), ``IntLiteral.java``,
``LargeIntLiteral.java``, ``DateLiteral.java`` (literal validation messages) and
``LiteralExpr.createInfinity`` (what "MIN" means per type).

Values are plain Python objects so they compare and hash naturally:

========================  =========================================
Doris type                Python value
========================  =========================================
TINYINT .. LARGEINT       ``int``
DATE / DATEV2             ``datetime.date``
DATETIME / DATETIMEV2     ``datetime.datetime`` (naive)
CHAR / VARCHAR / STRING   ``str``
BOOLEAN                   ``bool``
NULL                      ``None``
========================  =========================================

plus two sentinels, :data:`MIN` (below every value) and :data:`MAX` (``MAXVALUE``, above every value).
"""

from __future__ import annotations

import datetime as _dt
import enum
import re
from decimal import Decimal
from typing import Any

from iceberg_doris.errors import PartitionError

__all__ = [
    "MAX",
    "MAXVALUE",
    "MIN",
    "PartitionColumnType",
    "coerce_value",
    "format_key_value",
    "is_type_min",
    "key_sort_key",
    "key_value_to_sql",
    "parse_key_literal",
    "type_max_value",
    "type_min_text",
]


# --------------------------------------------------------------------------------------------
# Sentinels
# --------------------------------------------------------------------------------------------


class _Bound:
    """A value that sorts below (MIN) or above (MAX) every other value, itself included once."""

    __slots__ = ("_rank", "_label")

    def __init__(self, rank: int, label: str) -> None:
        self._rank = rank
        self._label = label

    def __repr__(self) -> str:
        return self._label

    __str__ = __repr__

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # Keep identity across pickling (Spark ships closures to executors).
        return (_bound_by_label, (self._label,))

    def __hash__(self) -> int:
        return hash(("iceberg_doris.partition_bound", self._label))

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    def _order(self, other: object) -> int:
        """-1 if self < other, 0 if equal, 1 if greater."""
        if other is self:
            return 0
        if isinstance(other, _Bound):
            return -1 if self._rank < other._rank else 1
        return self._rank  # MIN (-1) is below any value, MAX (+1) above

    def __lt__(self, other: object) -> bool:
        return self._order(other) < 0

    def __le__(self, other: object) -> bool:
        return self._order(other) <= 0

    def __gt__(self, other: object) -> bool:
        return self._order(other) > 0

    def __ge__(self, other: object) -> bool:
        return self._order(other) >= 0


MIN = _Bound(-1, "MIN")
"""The smallest key of a column: the lower bound of a first ``VALUES LESS THAN`` partition."""

MAX = _Bound(1, "MAXVALUE")
"""``MAXVALUE``: above every value of every type."""

MAXVALUE = MAX


def _bound_by_label(label: str) -> _Bound:
    return MIN if label == "MIN" else MAX


# --------------------------------------------------------------------------------------------
# Column types
# --------------------------------------------------------------------------------------------

_INT_BOUNDS = {
    "TINYINT": (-(2**7), 2**7 - 1),
    "SMALLINT": (-(2**15), 2**15 - 1),
    "INT": (-(2**31), 2**31 - 1),
    "BIGINT": (-(2**63), 2**63 - 1),
    "LARGEINT": (-(2**127), 2**127 - 1),
}

_TYPE_ALIASES = {
    "TINYINT": "TINYINT",
    "BYTE": "TINYINT",
    "SMALLINT": "SMALLINT",
    "SHORT": "SMALLINT",
    "INT": "INT",
    "INTEGER": "INT",
    "BIGINT": "BIGINT",
    "LONG": "BIGINT",
    "LARGEINT": "LARGEINT",
    "DATEV2": "DATEV2",
    "DATETIMEV2": "DATETIMEV2",
    "TIMESTAMP": "DATETIMEV2",
    "TIMESTAMP_NTZ": "DATETIMEV2",
    "CHAR": "CHAR",
    "VARCHAR": "VARCHAR",
    "STRING": "STRING",
    "TEXT": "STRING",
    "BOOLEAN": "BOOLEAN",
    "BOOL": "BOOLEAN",
}


class PartitionColumnType(enum.Enum):
    """The Doris column kinds a RANGE or LIST partition column may have.

    The value is Doris's ``PrimitiveType`` name, as printed in ``types: [...]``.
    """

    TINYINT = "TINYINT"
    SMALLINT = "SMALLINT"
    INT = "INT"
    BIGINT = "BIGINT"
    LARGEINT = "LARGEINT"
    DATE = "DATE"
    DATEV2 = "DATEV2"
    DATETIME = "DATETIME"
    DATETIMEV2 = "DATETIMEV2"
    CHAR = "CHAR"
    VARCHAR = "VARCHAR"
    STRING = "STRING"
    BOOLEAN = "BOOLEAN"

    @property
    def doris_name(self) -> str:
        """Doris's ``PrimitiveType`` name (``DATEV2``, ``INT`` ...)."""
        return self.value

    @property
    def sql_name(self) -> str:
        """Lower-case SQL spelling, as in Doris's ``type: tinyint`` messages."""
        return self.value.lower()

    @property
    def is_integer(self) -> bool:
        return self.value in _INT_BOUNDS

    @property
    def is_date(self) -> bool:
        return self in (PartitionColumnType.DATE, PartitionColumnType.DATEV2)

    @property
    def is_datetime(self) -> bool:
        return self in (PartitionColumnType.DATETIME, PartitionColumnType.DATETIMEV2)

    @property
    def is_temporal(self) -> bool:
        return self.is_date or self.is_datetime

    @property
    def is_string(self) -> bool:
        return self in (PartitionColumnType.CHAR, PartitionColumnType.VARCHAR, PartitionColumnType.STRING)

    @property
    def is_boolean(self) -> bool:
        return self is PartitionColumnType.BOOLEAN

    @property
    def int_bounds(self) -> tuple[int, int]:
        """(min, max) of an integer type."""
        return _INT_BOUNDS[self.value]

    @classmethod
    def from_sql(cls, text: str, *, date_v2: bool = True) -> PartitionColumnType:
        """Maps a SQL type spelling (``int(11)``, ``varchar(20)``, ``DATETIME(3)``, ``timestamp``) to a kind.

        With ``date_v2`` (Doris's default ``enable_date_conversion``) ``DATE``/``DATETIME`` become
        ``DATEV2``/``DATETIMEV2``, which is how current Doris stores and prints them.
        """
        if isinstance(text, PartitionColumnType):
            return text
        raw = str(text).strip()
        base = re.sub(r"\s*\(.*\)\s*$", "", raw).strip().upper()
        if base in ("DATE", "DATETIME"):
            name = base + "V2" if date_v2 else base
        else:
            name = _TYPE_ALIASES.get(base, "")
        if not name:
            raise PartitionError(f"Type[{raw}] cannot be a partition key")
        return cls(name)

    @classmethod
    def coerce(cls, value: PartitionColumnType | str) -> PartitionColumnType:
        """Accepts a member or a type spelling (see :meth:`from_sql`: ``"DATE"`` is DATEV2)."""
        if isinstance(value, PartitionColumnType):
            return value
        return cls.from_sql(value)


def _coerce_type(column_type: PartitionColumnType | str) -> PartitionColumnType:
    return PartitionColumnType.coerce(column_type)


def type_min_text(column_type: PartitionColumnType | str) -> str:
    """How Doris prints the MIN key of a type (``LiteralExpr.createInfinity(type, false)``)."""
    t = _coerce_type(column_type)
    if t.is_integer:
        return str(t.int_bounds[0])
    if t.is_date:
        return "0000-01-01"
    if t.is_datetime:
        return "0000-01-01 00:00:00"
    return ""


def type_max_value(column_type: PartitionColumnType | str) -> Any:
    """The largest valid value of a temporal or integer type (``9999-12-31`` ...)."""
    t = _coerce_type(column_type)
    if t.is_integer:
        return t.int_bounds[1]
    if t.is_date:
        return _dt.date(9999, 12, 31)
    if t.is_datetime:
        return _dt.datetime(9999, 12, 31, 23, 59, 59, 999999)
    raise PartitionError(f"Type {t.doris_name} has no maximum value")


def is_type_min(value: Any, column_type: PartitionColumnType | str) -> bool:
    """True for :data:`MIN` and for a value equal to the type's minimum (Doris's ``isMinValue``)."""
    if value is MIN:
        return True
    t = _coerce_type(column_type)
    if t.is_integer and isinstance(value, int) and not isinstance(value, bool):
        return value == t.int_bounds[0]
    return False


# --------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------

_INT_RE = re.compile(r"[+-]?\d+")
_DATE_DASH_RE = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?)?"
)
_DATE_COMPACT_RE = re.compile(r"(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2}))?")
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _invalid_date(text: str) -> PartitionError:
    return PartitionError(f"date/datetime literal [{text}] is invalid")


def _parse_temporal(text: str, t: PartitionColumnType) -> Any:
    s = text.strip()
    m = _DATE_DASH_RE.fullmatch(s) or _DATE_COMPACT_RE.fullmatch(s)
    if not m:
        raise _invalid_date(text)
    groups = m.groups()
    year, month, day = int(groups[0]), int(groups[1]), int(groups[2])
    hour = int(groups[3] or 0)
    minute = int(groups[4] or 0)
    second = int(groups[5] or 0)
    micro = 0
    if len(groups) > 6 and groups[6]:
        micro = int((groups[6] + "000000")[:6])
    if year == 0:
        # Python cannot hold year 0; the only year-0 key that matters is Doris's MIN value.
        if (month, day) == (1, 1) and (t.is_date or (hour, minute, second, micro) == (0, 0, 0, 0)):
            return MIN
        raise _invalid_date(text)
    try:
        value = _dt.datetime(year, month, day, hour, minute, second, micro)
    except ValueError:
        raise _invalid_date(text) from None
    return value.date() if t.is_date else value


def _parse_int(text: str, t: PartitionColumnType) -> int:
    s = text  # Long.parseLong / new BigInteger do not trim
    if t is PartitionColumnType.LARGEINT:
        if not _INT_RE.fullmatch(s):
            raise PartitionError(f"Invalid integer literal: {text}")
        value = int(s)
        lo, hi = t.int_bounds
        if value < lo or value > hi:
            raise PartitionError(f"Large int literal is out of range: {text}")
        return value
    if not _INT_RE.fullmatch(s):
        raise PartitionError(f"Invalid number format: {text}")
    value = int(s)
    if value < _LONG_MIN or value > _LONG_MAX:  # Java Long.parseLong fails
        raise PartitionError(f"Invalid number format: {text}")
    return _check_int_range(value, t)


def _check_int_range(value: int, t: PartitionColumnType) -> int:
    lo, hi = t.int_bounds
    if value < lo or value > hi:
        raise PartitionError(f"Number out of range[{value}]. type: {t.sql_name}")
    return value


def parse_key_literal(text: Any, column_type: PartitionColumnType | str) -> Any:
    """Turns a partition literal (as written in DDL, or an already typed value) into a key value.

    ``None`` is NULL. ``"MAXVALUE"`` (any case) is :data:`MAX` for non-string columns; the
    sentinels themselves pass through. Raises :class:`PartitionError` with Doris's message for
    out-of-range or malformed literals, e.g. ``Number out of range[3000]. type: tinyint``,
    ``Invalid number format: -50.1``, ``date/datetime literal [10000-01-01 00:00:00] is invalid``.
    """
    t = _coerce_type(column_type)
    if text is None:
        return None
    if text is MIN or text is MAX:
        return text
    if isinstance(text, str):
        if not t.is_string and text.strip().upper() == "MAXVALUE":
            return MAX
        if t.is_integer:
            return _parse_int(text, t)
        if t.is_temporal:
            return _parse_temporal(text, t)
        if t.is_boolean:
            low = text.strip().lower()
            if low in ("true", "1"):
                return True
            if low in ("false", "0"):
                return False
            raise PartitionError(f"Invalid BOOLEAN literal: {text}")
        return text
    return coerce_value(text, t)


def coerce_value(value: Any, column_type: PartitionColumnType | str) -> Any:
    """Converts a typed Python value (e.g. from a Spark row) to the canonical value of the column.

    Strings are parsed as literals; ``datetime`` → ``date`` for DATE columns (time dropped);
    ``date`` → midnight for DATETIME columns; time zones are dropped.
    """
    t = _coerce_type(column_type)
    if value is None or value is MIN or value is MAX:
        return value
    if isinstance(value, str):
        return parse_key_literal(value, t)
    if t.is_integer:
        if isinstance(value, bool):
            return _check_int_range(int(value), t)
        if isinstance(value, int):
            return _check_int_range(value, t)
        if isinstance(value, float) and value.is_integer():
            return _check_int_range(int(value), t)
        # LARGEINT is stored as decimal(38,0): Spark hands its values over as Decimal.
        if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
            return _check_int_range(int(value), t)
        raise PartitionError(f"Invalid number format: {value}")
    if t.is_date:
        if isinstance(value, _dt.datetime):
            return value.date()
        if isinstance(value, _dt.date):
            return value
        raise _invalid_date(str(value))
    if t.is_datetime:
        if isinstance(value, _dt.datetime):
            return value.replace(tzinfo=None) if value.tzinfo is not None else value
        if isinstance(value, _dt.date):
            return _dt.datetime(value.year, value.month, value.day)
        raise _invalid_date(str(value))
    if t.is_boolean:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        raise PartitionError(f"Invalid BOOLEAN literal: {value}")
    return str(value)


# --------------------------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------------------------


def _format_datetime(value: _dt.datetime) -> str:
    text = f"{value.year:04d}-{value.month:02d}-{value.day:02d} {value.hour:02d}:{value.minute:02d}:{value.second:02d}"
    if value.microsecond:
        text += f".{value.microsecond:06d}"
    return text


def format_key_value(value: Any, column_type: PartitionColumnType | str) -> str:
    """Doris's text for a key value (``PartitionKey.toString`` element): ``2020-01-01 00:00:00``,
    ``MAXVALUE``, ``NULL``, the type minimum for :data:`MIN`."""
    if value is None:
        return "NULL"
    if value is MAX:
        return "MAXVALUE"
    if value is MIN:
        return type_min_text(column_type)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, _dt.datetime):
        return _format_datetime(value)
    if isinstance(value, _dt.date):
        return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
    return str(value)


def key_value_to_sql(value: Any, column_type: PartitionColumnType | str) -> str:
    """One element of ``PartitionKey.toSql``: ``"10"``, ``'2020-01-01'``, ``MAXVALUE``, ``NULL``."""
    if value is None:
        return "NULL"
    if value is MAX:
        return "MAXVALUE"
    t = _coerce_type(column_type)
    text = format_key_value(value, t)
    if t.is_temporal:
        return f"'{text}'"
    return f'"{text}"'


def key_sort_key(value: Any) -> tuple:
    """A total order over key values with NULL first, then MIN, values, MAX (for sorting lists)."""
    if value is None:
        return (0,)
    if value is MIN:
        return (1,)
    if value is MAX:
        return (3,)
    return (2, value)
