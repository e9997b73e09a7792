"""JSON form of a :class:`PartitionSet`, stored in an Iceberg table property.

Compact and versioned::

    {"v":1,"kind":"RANGE","cols":[["k1","DATEV2",false]],
     "formal":[["p1",["0000-01-01"],["2020-02-01"]]],"temp":[]}

A RANGE partition is ``[name, lower, upper]``; a LIST partition is ``[name, [[v, ...], ...]]``.
Values are text: integers in decimal, dates ``yyyy-MM-dd``, date-times ISO
(``2020-01-01T10:00:00``), booleans ``true``/``false``, strings as they are, NULL as JSON
``null``; a range bound's MIN is the type's minimum (``-2147483648``, ``0000-01-01``) and
``MAXVALUE`` is the text ``MAXVALUE``.
"""

from __future__ import annotations

import datetime as _dt
import json
from typing import Any

from iceberg_doris.errors import PartitionError
from iceberg_doris.partitioning.keys import (
    MAX,
    MIN,
    PartitionColumnType,
    format_key_value,
    parse_key_literal,
    type_min_text,
)
from iceberg_doris.partitioning.lists import ListPartition
from iceberg_doris.partitioning.partition_set import PartitionColumn, PartitionKind, PartitionSet
from iceberg_doris.partitioning.ranges import RangeKey, RangePartition

__all__ = ["FORMAT_VERSION", "from_json", "to_json"]

FORMAT_VERSION = 1


def _encode_value(value: Any, t: PartitionColumnType) -> Any:
    if value is None:
        return None
    if value is MAX:
        return "MAXVALUE"
    if value is MIN:
        return type_min_text(t)
    if isinstance(value, _dt.datetime):
        return value.isoformat()
    return format_key_value(value, t)


def _decode_value(text: Any, t: PartitionColumnType) -> Any:
    if text is None:
        return None
    if not isinstance(text, str):
        raise PartitionError(f"Invalid partition metadata value: {text!r}")
    return parse_key_literal(text, t)


def _encode_partition(p: Any, types: tuple[PartitionColumnType, ...]) -> list:
    if isinstance(p, RangePartition):
        return [
            p.name,
            [_encode_value(v, t) for v, t in zip(p.lower.values, types)],
            [_encode_value(v, t) for v, t in zip(p.upper.values, types)],
        ]
    return [p.name, [[_encode_value(v, t) for v, t in zip(key, types)] for key in p.values]]


def _decode_partition(item: Any, kind: PartitionKind, types: tuple[PartitionColumnType, ...]) -> Any:
    if kind is PartitionKind.RANGE:
        name, lower, upper = item
        return RangePartition(name, RangeKey.of(lower, types), RangeKey.of(upper, types))
    name, keys = item
    values = tuple(tuple(_decode_value(v, t) for v, t in zip(key, types)) for key in keys)
    return ListPartition(name, values, types)


def to_json(partition_set: PartitionSet) -> str:
    """The compact, versioned JSON text of a partition set."""
    types = partition_set.column_types
    doc = {
        "v": FORMAT_VERSION,
        "kind": partition_set.kind.value,
        "cols": [[c.name, c.type.value, c.nullable] for c in partition_set.columns],
        "formal": [_encode_partition(p, types) for p in partition_set.formal],
        "temp": [_encode_partition(p, types) for p in partition_set.temp],
    }
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


def from_json(text: str) -> PartitionSet:
    """Reads :func:`to_json` output back; the result is checked (unique names, no overlaps)."""
    try:
        doc = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise PartitionError(f"Invalid partition metadata: {exc}") from None
    if not isinstance(doc, dict) or "v" not in doc:
        raise PartitionError("Invalid partition metadata: missing version")
    if doc["v"] != FORMAT_VERSION:
        raise PartitionError(f"Unsupported partition metadata version {doc['v']} (this build reads {FORMAT_VERSION})")
    try:
        kind = PartitionKind.coerce(doc["kind"])
        columns = tuple(PartitionColumn(n, PartitionColumnType(t), bool(nullable)) for n, t, nullable in doc["cols"])
        types = tuple(c.type for c in columns)
        formal = tuple(_decode_partition(p, kind, types) for p in doc.get("formal", ()))
        temp = tuple(_decode_partition(p, kind, types) for p in doc.get("temp", ()))
    except (KeyError, TypeError, ValueError) as exc:
        raise PartitionError(f"Invalid partition metadata: {exc}") from None
    return PartitionSet(kind, columns, formal, temp).check_invariants()
