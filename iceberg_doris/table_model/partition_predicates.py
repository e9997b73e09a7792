"""The rows of a Doris partition as a predicate, rendered to Spark SQL or to Iceberg expressions.

RANGE ``[lower, upper)`` compares the partition columns lexicographically; a NULL key counts as
MIN, so it belongs to the partition that starts at MIN. LIST matches the enumerated tuples (NULL
only where NULL is listed).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Union

from iceberg_doris.ddl.sql_text import quote_identifier, string_literal
from iceberg_doris.partitioning import MAX, MIN, ListPartition, PartitionColumnType, PartitionSet, RangePartition


@dataclass(frozen=True)
class Compare:
    column: str
    op: str  # =, <, <=, >, >=
    value: Any
    column_type: PartitionColumnType


@dataclass(frozen=True)
class IsNull:
    column: str


@dataclass(frozen=True)
class All:
    parts: tuple["Predicate", ...]


@dataclass(frozen=True)
class AnyOf:
    parts: tuple["Predicate", ...]


@dataclass(frozen=True)
class Constant:
    value: bool


@dataclass(frozen=True)
class InValues:
    """``column IN (values)``: used to prune files by key statistics."""

    column: str
    values: tuple[Any, ...]
    column_type: PartitionColumnType


Predicate = Union[Compare, IsNull, All, AnyOf, Constant, InValues]
TRUE = Constant(True)
FALSE = Constant(False)


def partition_predicate(partitions: PartitionSet, partition: RangePartition | ListPartition) -> Predicate:
    columns = list(zip(partitions.column_names, partitions.column_types))
    if isinstance(partition, RangePartition):
        predicate = _all(_at_least(columns, partition.lower.values), _below(columns, partition.upper.values))
        if partition.lower.values[0] is MIN:
            predicate = _any(IsNull(columns[0][0]), predicate)
        return predicate
    options = []
    for key in partition.values:
        parts = [IsNull(name) if value is None else Compare(name, "=", value, kind) for (name, kind), value in zip(columns, key)]
        options.append(_all(*parts))
    return _any(*options)


def union(predicates: list[Predicate]) -> Predicate:
    return _any(*predicates) if predicates else FALSE


def both(first: Predicate, second: Predicate) -> Predicate:
    return _all(first, second)


def _at_least(columns: list[tuple[str, PartitionColumnType]], values: tuple) -> Predicate:
    (name, kind), value = columns[0], values[0]
    if value is MIN:
        return TRUE
    if value is MAX:
        return FALSE
    if len(columns) == 1 or all(v is MIN for v in values[1:]):
        return Compare(name, ">=", value, kind)
    return _any(Compare(name, ">", value, kind), _all(Compare(name, "=", value, kind), _at_least(columns[1:], values[1:])))


def _below(columns: list[tuple[str, PartitionColumnType]], values: tuple) -> Predicate:
    (name, kind), value = columns[0], values[0]
    if value is MAX:
        return TRUE
    if value is MIN:
        return FALSE
    if len(columns) == 1 or all(v is MIN for v in values[1:]):
        return Compare(name, "<", value, kind)
    return _any(Compare(name, "<", value, kind), _all(Compare(name, "=", value, kind), _below(columns[1:], values[1:])))


def _all(*parts: Predicate) -> Predicate:
    if any(p == FALSE for p in parts):
        return FALSE
    kept = tuple(p for p in parts if p != TRUE)
    return kept[0] if len(kept) == 1 else (All(kept) if kept else TRUE)


def _any(*parts: Predicate) -> Predicate:
    if any(p == TRUE for p in parts):
        return TRUE
    kept = tuple(p for p in parts if p != FALSE)
    return kept[0] if len(kept) == 1 else (AnyOf(kept) if kept else FALSE)


def to_sql(predicate: Predicate) -> str:
    """Spark SQL text of the predicate (column names backquoted)."""
    if isinstance(predicate, Constant):
        return "TRUE" if predicate.value else "FALSE"
    if isinstance(predicate, IsNull):
        return f"{quote_identifier(predicate.column)} IS NULL"
    if isinstance(predicate, InValues):
        values = ", ".join(sql_literal(v, predicate.column_type) for v in predicate.values)
        return f"{quote_identifier(predicate.column)} IN ({values})" if values else "FALSE"
    if isinstance(predicate, Compare):
        return f"{quote_identifier(predicate.column)} {predicate.op} {sql_literal(predicate.value, predicate.column_type)}"
    joiner = " AND " if isinstance(predicate, All) else " OR "
    return "(" + joiner.join(to_sql(p) for p in predicate.parts) + ")"


def sql_literal(value: Any, column_type: PartitionColumnType) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, dt.datetime):
        return f"TIMESTAMP_NTZ'{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"DATE'{value.isoformat()}'"
    if isinstance(value, (int, Decimal)):
        if column_type is PartitionColumnType.LARGEINT:
            return f"CAST('{value}' AS DECIMAL(38,0))"
        return str(value)
    return string_literal(str(value))


def routing_sql(partitions: PartitionSet, group: "list[RangePartition | ListPartition]") -> str:
    """A Spark SQL expression naming the partition of ``group`` each row belongs to (NULL: none)."""
    if not group:
        return "CAST(NULL AS STRING)"
    branches = " ".join(
        f"WHEN {to_sql(partition_predicate(partitions, p))} THEN {string_literal(p.name)}" for p in group
    )
    return f"CASE {branches} ELSE CAST(NULL AS STRING) END"
