"""Types of procedure parameters: what each accepts, and the error when it does not.

Arguments arrive as JSON values (from ``CALL doris.*``, where Spark evaluated each expression) or
as Python values (from the Python entry points); both go through the same checks, so both give the
same messages, in the shape of Iceberg's own: ``Wrong arg type for <name>: cannot cast <from> to <to>``.
"""

from __future__ import annotations

import datetime as dt
from enum import Enum
from abc import ABC, abstractmethod
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from iceberg_doris.errors import ProcedureArgumentError
from iceberg_doris.operations.names import check_label, shown

Scalar = str | int | float | bool


class _Mismatch(Exception):
    """Internal: the value does not fit the type."""


class ParamType(ABC):
    """A parameter type; ``name`` is how ``doris.help`` shows it, ``python_types`` how the Python
    functions of :mod:`iceberg_doris.doris` annotate it (the members of a union, as source text)."""

    name: str = "?"
    python_types: tuple[str, ...] = ("Any",)

    def coerce(self, value: Any, parameter: str) -> Any:
        """Returns the value in this type's Python form, or raises ProcedureArgumentError."""
        try:
            converted = self._convert(value)
        except _Mismatch as mismatch:
            hint = f": {mismatch}" if str(mismatch) else ""
            raise ProcedureArgumentError(
                f"Wrong arg type for {parameter}: cannot cast {type_name(value)} to {self.name}{hint}"
            ) from None
        return self.check(converted, parameter)

    @abstractmethod
    def _convert(self, value: Any) -> Any:
        """Returns the converted value or raises _Mismatch (optionally with a hint)."""

    def check(self, value: Any, parameter: str) -> Any:
        """Range and format rules of a value of the right type: returns it (possibly normalised) or
        raises ProcedureArgumentError naming the parameter and the fix. Runs at binding, before the
        procedure reads or writes anything."""
        return value

    def __repr__(self) -> str:
        return self.name


class StringType(ParamType):
    name = "string"
    python_types = ("str",)

    def _convert(self, value: Any) -> str:
        if isinstance(value, str):
            return value
        raise _Mismatch()


class LongType(ParamType):
    name = "bigint"
    python_types = ("int",)

    def _convert(self, value: Any) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise _Mismatch()


class DoubleType(ParamType):
    name = "double"
    python_types = ("float",)

    def _convert(self, value: Any) -> float:
        if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
            return float(value)
        raise _Mismatch()


class BooleanType(ParamType):
    name = "boolean"
    python_types = ("bool",)

    def _convert(self, value: Any) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            raise _Mismatch(f"write {value.lower()} without quotes")
        raise _Mismatch()


class ValueType(ParamType):
    """A scalar literal kept as text (partition bounds, property values): numbers and dates too."""

    name = "string"
    python_types = ("str", "int", "float", "Decimal")  # bool too: an int

    def _convert(self, value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (str, int, float, Decimal)):
            return str(value)
        raise _Mismatch()


class ListValueType(ValueType):
    """A LIST partition value: a literal as text, or NULL (Doris's ``VALUES IN ((NULL))`` holds the
    rows whose partition column is NULL)."""

    python_types = (*ValueType.python_types, "None")

    def _convert(self, value: Any) -> str | None:
        return None if value is None else super()._convert(value)


class ArrayType(ParamType):
    """An array; a single scalar is taken as a one-element array, as Doris's lists read."""

    def __init__(self, element: ParamType, *, accept_scalar: bool = True):
        self.element = element
        self.accept_scalar = accept_scalar
        self.name = f"array<{element.name}>"
        single = tuple(element.python_types) if accept_scalar else ()
        self.python_types = _union(f"Sequence[{' | '.join(element.python_types)}]", *single)

    def _convert(self, value: Any) -> list[Any]:
        if isinstance(value, (list, tuple)):
            try:
                return [self.element._convert(item) for item in value]
            except _Mismatch:
                raise _Mismatch() from None
        if self.accept_scalar and not isinstance(value, (dict, Mapping)):
            return [self.element._convert(value)]
        raise _Mismatch()


class MapType(ParamType):
    name = "map<string,string>"
    python_types = (f"Mapping[str, {' | '.join(ValueType.python_types)}]",)

    def _convert(self, value: Any) -> dict[str, str]:
        if not isinstance(value, Mapping):
            raise _Mismatch()
        text = ValueType()
        result: dict[str, str] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise _Mismatch("keys must be strings")
            result[key] = text._convert(item)
        return result


class OneOf(ParamType):
    """Accepts the first of several types that fits (e.g. a bound or an array of bounds)."""

    def __init__(self, *choices: ParamType):
        self.choices = choices
        self.name = "|".join(choice.name for choice in choices)
        self.python_types = _union(*(member for choice in choices for member in choice.python_types))

    def _convert(self, value: Any) -> Any:
        for choice in self.choices:
            try:
                return choice._convert(value)
            except _Mismatch:
                continue
        raise _Mismatch()


class LabelType(StringType):
    """A load label: Doris's label rule (letters, digits, ``-``, ``_``, ``:``; at most 128)."""

    def check(self, value: str, parameter: str) -> str:
        return check_label(value)


class PartitionNameType(StringType):
    """The name of a partition to create: Doris's partition-name rule (it also names a branch)."""

    def check(self, value: str, parameter: str) -> str:
        from iceberg_doris.partitioning import check_partition_name

        return check_partition_name(value)


class RatioType(DoubleType):
    """A share between 0 and 1 (Doris's ``max_filter_ratio`` rule and message)."""

    def check(self, value: float, parameter: str) -> float:
        if not 0.0 <= value <= 1.0:  # NaN fails too
            raise ProcedureArgumentError(
                f"{parameter} must between 0.0 and 1.0, got {value!r}: give the largest share of rows "
                "that may be filtered, e.g. 0.1 for 10%"
            )
        return value


class AtLeastType(LongType):
    """A whole number no smaller than ``minimum``."""

    def __init__(self, minimum: int, meaning: str):
        self.minimum = minimum
        self.meaning = meaning

    def check(self, value: int, parameter: str) -> int:
        if value < self.minimum:
            raise ProcedureArgumentError(f"{parameter} must be at least {self.minimum}, got {value}: {self.meaning}")
        return value


class EnumType(StringType):
    """A mode named by a string (any case), bound to a member of ``enum``; an unknown name raises
    ``unknown(value)``'s message."""

    def __init__(self, enum: type[Enum], unknown: str, *, case_sensitive: bool = False):
        self.enum = enum
        self.unknown = unknown  # a format string with {value}
        self.case_sensitive = case_sensitive  # the name as Doris spells it, in upper case

    def check(self, value: str, parameter: str) -> Enum:
        given = value.strip() if self.case_sensitive else value.strip().upper()
        for member in self.enum:
            if (member.value if self.case_sensitive else member.value.upper()) == given:
                return member
        raise ProcedureArgumentError(self.unknown.format(value=value))


class SourceType(ParamType):
    """A table or view name; the Python form also takes a DataFrame."""

    name = "string"
    python_types = ("str", "DataFrame")

    def _convert(self, value: Any) -> Any:
        from pyspark.sql import DataFrame

        if isinstance(value, (str, DataFrame)):
            return value
        raise _Mismatch()


class TimestampType(ParamType):
    """A point in time: an ISO timestamp or date string (what ``to_json`` makes of a SQL TIMESTAMP
    or DATE argument), or a Python datetime/date. Returned as a datetime (naive: local time)."""

    name = "timestamp"
    python_types = ("str", "dt.datetime", "dt.date")

    def _convert(self, value: Any) -> dt.datetime:
        if isinstance(value, dt.datetime):
            return value
        if isinstance(value, dt.date):
            return dt.datetime.combine(value, dt.time())
        if isinstance(value, str):
            return value  # type: ignore[return-value] - parsed in check, which can name the parameter
        raise _Mismatch()

    def check(self, value: Any, parameter: str) -> dt.datetime:
        if isinstance(value, dt.datetime):
            return value
        try:
            return dt.datetime.fromisoformat(value.strip())
        except ValueError:
            raise ProcedureArgumentError(
                f"{parameter} must be a timestamp such as '2024-05-01 00:00:00' or a date such as '2024-05-01', "
                f"got {shown(value)}; for a time relative to now pass an expression, e.g. "
                f"{parameter} => current_timestamp() - INTERVAL 1 DAY"
            ) from None


def _union(*members: str) -> tuple[str, ...]:
    """The members in order, each once."""
    return tuple(dict.fromkeys(members))


STRING = StringType()
BIGINT = LongType()
DOUBLE = DoubleType()
BOOLEAN = BooleanType()
VALUE = ValueType()
STRING_ARRAY = ArrayType(STRING)
VALUE_ARRAY = ArrayType(VALUE)
LIST_VALUE = ListValueType()
STRING_MAP = MapType()
LABEL = LabelType()
PARTITION_NAME = PartitionNameType()
RATIO = RatioType()
TIMESTAMP = TimestampType()
SOURCE = SourceType()


def type_name(value: Any) -> str:
    """The Spark-style name of a JSON or Python value's type, for error messages."""
    if value is None:
        return "void"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "bigint"
    if isinstance(value, (float, Decimal)):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dt.datetime):
        return "timestamp"
    if isinstance(value, dt.date):
        return "date"
    if isinstance(value, Mapping):
        inner = next((type_name(v) for v in value.values() if v is not None), "void")
        return f"map<string,{inner}>"
    if isinstance(value, (list, tuple)):
        inner = next((type_name(v) for v in value if v is not None), "void")
        return f"array<{inner}>"
    return type(value).__name__


def python_argument(value: Any) -> Any:
    """Normalises a Python argument to the JSON shapes a SQL call produces."""
    if isinstance(value, tuple):
        return [python_argument(v) for v in value]
    if isinstance(value, list):
        return [python_argument(v) for v in value]
    if isinstance(value, Mapping):
        return {k: python_argument(v) for k, v in value.items()}
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
    return value
