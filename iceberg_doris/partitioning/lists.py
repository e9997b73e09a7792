"""LIST partitions: enumerated key tuples and Doris's list texts.

Mirrors ``ListPartitionInfo.java`` (``createAndCheckPartitionItem``), ``ListPartitionItem.java``
(``toSql``/``toString``), ``PartitionKeyDesc.java`` (``IN`` text, MAXVALUE refusal) and the NULL
nullity check of ``CreateTableInfo.checkPartitionNullity``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from iceberg_doris.errors import PartitionError
from iceberg_doris.partitioning.keys import (
    MAX,
    MIN,
    PartitionColumnType,
    coerce_value,
    format_key_value,
    key_sort_key,
    key_value_to_sql,
    parse_key_literal,
)

__all__ = [
    "ListPartition",
    "list_key_to_sql",
    "list_key_to_string",
    "make_list_values",
    "normalize_list_row_key",
    "values_in_sql",
]


def _types_tuple(types: Iterable[PartitionColumnType | str] | PartitionColumnType | str) -> tuple[PartitionColumnType, ...]:
    if isinstance(types, (PartitionColumnType, str)):
        types = (types,)
    return tuple(PartitionColumnType.coerce(t) for t in types)


def list_key_to_sql(key: Sequence[Any], types: Sequence[PartitionColumnType]) -> str:
    """``PartitionKey.toSql`` of one list key: ``("1", "beijing")``, ``('2020-01-01')``, ``(NULL)``."""
    return "(" + ", ".join(key_value_to_sql(v, t) for v, t in zip(key, types)) + ")"


def list_key_to_string(key: Sequence[Any], types: Sequence[PartitionColumnType]) -> str:
    """``PartitionKey.toString`` of one list key: ``types: [INT]; keys: [4]; ``."""
    type_text = ", ".join(t.doris_name for t in types)
    keys = ", ".join(format_key_value(v, t) for v, t in zip(key, types))
    return f"types: [{type_text}]; keys: [{keys}]; "


def _raw_value_sql(v: Any, t: PartitionColumnType) -> str:
    if v is None:
        return "NULL"
    if v is MAX or (isinstance(v, str) and not t.is_string and v.strip().upper() == "MAXVALUE"):
        return "MAXVALUE"
    if isinstance(v, str):
        return f"'{v}'"
    return f"'{format_key_value(v, t)}'"


def values_in_sql(raw_values: Sequence[Sequence[Any]], types: Sequence[PartitionColumnType]) -> str:
    """``PartitionKeyDesc.toSql`` for ``VALUES IN``: ``('1','2')`` or ``(('1', 'beijing'),('2', 'x'))``."""
    parts = []
    for tup in raw_values:
        inner = ", ".join(_raw_value_sql(v, t) for v, t in zip(tup, types))
        parts.append(inner if len(tup) == 1 else f"({inner})")
    return "(" + ",".join(parts) + ")"


def _as_tuples(values_in: Any, ncols: int) -> list[tuple]:
    """Accepts ``["a", "b"]`` (single column), ``[("1", "x"), ...]`` or already-built tuples."""
    if isinstance(values_in, (str, bytes)) or values_in is None or values_in is MAX:
        values_in = [values_in]
    out = []
    for item in values_in:
        if isinstance(item, (list, tuple)):
            out.append(tuple(item))
        else:
            out.append((item,))
    for tup in out:
        if len(tup) != ncols:
            raise PartitionError(
                f"partition key desc list size[{len(tup)}] is not equal to partition column size[{ncols}]"
            )
    return out


def make_list_values(
    values_in: Any,
    types: Iterable[PartitionColumnType | str] | PartitionColumnType | str,
    nullable: Sequence[bool] | bool | None = None,
) -> tuple[tuple, ...]:
    """Parses and checks a ``VALUES IN`` list: arity, MAXVALUE, NULL on NOT NULL columns, duplicates.

    ``nullable`` is one flag per column (``None``: all nullable). Returns the typed key tuples in
    the order written.
    """
    ts = _types_tuple(types)
    if nullable is None:
        flags = tuple(True for _ in ts)
    elif isinstance(nullable, bool):
        flags = tuple(nullable for _ in ts)
    else:
        flags = tuple(bool(f) for f in nullable)
    raw = _as_tuples(values_in, len(ts))
    if not raw:
        raise PartitionError("LIST partition needs at least one value in VALUES IN")
    desc = values_in_sql(raw, ts)
    for tup in raw:
        for v, t in zip(tup, ts):
            if v is MAX or (isinstance(v, str) and not t.is_string and v.strip().upper() == "MAXVALUE"):
                raise PartitionError(
                    f"MAXVALUE is not allowed in LIST partition values: {desc}. MAXVALUE can only be used in "
                    "RANGE partition with 'VALUES LESS THAN (MAXVALUE)'. Please use explicit values or NULL instead."
                )
    for tup in raw:
        for i, (v, ok) in enumerate(zip(tup, flags)):
            if v is None and not ok:
                raise PartitionError(
                    f"Can't have null partition is for NOT NULL partition column in partition expr's index {i}"
                )
    keys: list[tuple] = []
    seen: set[tuple] = set()
    for tup in raw:
        key = tuple(parse_key_literal(v, t) for v, t in zip(tup, ts))
        if any(v is MIN for v in key):
            raise PartitionError(f"Invalid list value: {desc}")
        if key in seen:
            raise PartitionError(
                f"The partition key[{desc}] has duplicate item [{list_key_to_sql(key, ts)}]."
            )
        seen.add(key)
        keys.append(key)
    return tuple(keys)


def normalize_list_row_key(key: Any, types: Sequence[PartitionColumnType]) -> tuple:
    """A row's partition-column values as the tuple used to look up its LIST partition."""
    raw = list(key) if isinstance(key, (list, tuple)) else [key]
    if len(raw) != len(types):
        raise PartitionError(f"Row key has {len(raw)} values but the table has {len(types)} partition columns")
    return tuple(coerce_value(v, t) for v, t in zip(raw, types))


@dataclass(frozen=True)
class ListPartition:
    """A LIST partition: ``values`` holds one tuple per enumerated key (one element per column)."""

    name: str
    values: tuple[tuple, ...]
    types: tuple[PartitionColumnType, ...] = ()

    def __post_init__(self) -> None:
        values = tuple(tuple(v) if isinstance(v, (list, tuple)) else (v,) for v in self.values)
        object.__setattr__(self, "values", values)
        types = _types_tuple(self.types) if self.types else ()
        object.__setattr__(self, "types", types)
        if types and any(len(v) != len(types) for v in values):
            raise PartitionError(
                f"partition key desc list size[{len(values[0]) if values else 0}] is not equal to "
                f"partition column size[{len(types)}]"
            )

    @classmethod
    def of(
        cls,
        name: str,
        values_in: Any,
        types: Iterable[PartitionColumnType | str] | PartitionColumnType | str,
        nullable: Sequence[bool] | bool | None = None,
    ) -> ListPartition:
        ts = _types_tuple(types)
        return cls(name, make_list_values(values_in, ts, nullable), ts)

    @functools.cached_property
    def key_set(self) -> frozenset:
        return frozenset(self.values)

    def contains(self, key: Any) -> bool:
        if self.types:
            key = normalize_list_row_key(key, self.types)
        elif not isinstance(key, tuple):
            key = (key,)
        return key in self.key_set

    def overlap(self, other: ListPartition) -> tuple | None:
        """The first of ``other``'s keys that this partition also holds, else None."""
        mine = self.key_set
        for key in other.values:
            if key in mine:
                return key
        return None

    def sorted_values(self) -> tuple[tuple, ...]:
        return tuple(sorted(self.values, key=lambda k: tuple(key_sort_key(v) for v in k)))

    def item_sql(self) -> str:
        """``ListPartitionItem.toSql``: ``("4")`` for one key, ``(("4"),("5"))`` for several."""
        parts = [list_key_to_sql(k, self.types) for k in self.values]
        body = ",".join(parts)
        return f"({body})" if len(parts) > 1 else body

    def item_string(self) -> str:
        """``ListPartitionItem.toString``: ``partitionKeys: [types: [INT]; keys: [4]; ...]; ``."""
        return "partitionKeys: [" + "".join(list_key_to_string(k, self.types) for k in self.values) + "]; "

    def range_text(self) -> str:
        """What SHOW PARTITIONS prints in ``Range`` for a list partition (Java list of keys)."""
        return "[" + ", ".join(list_key_to_string(k, self.types) for k in self.values) + "]"

    def values_sql(self) -> str:
        """A ``VALUES IN`` body that recreates the partition: ``("1","2")`` / ``(("1","x"))``."""
        multi = len(self.types) > 1
        parts = []
        for k in self.values:
            s = list_key_to_sql(k, self.types)
            parts.append(s if multi else s[1:-1])
        return "(" + ",".join(parts) + ")"

    def with_name(self, name: str) -> ListPartition:
        return ListPartition(name, self.values, self.types)
