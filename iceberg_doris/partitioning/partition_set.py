"""A table's formal and temporary partitions, with Doris's rules for adding, dropping and routing.

Immutable: every operation returns a new :class:`PartitionSet`. Rules and messages follow
``RangePartitionInfo.java`` (``VALUES LESS THAN`` lower bounds, intersection checks),
``ListPartitionInfo.java`` (key conflicts), ``InternalCatalog.dropPartition`` (unknown names) and
the temp-partition rules of spec §1.2 (temp partitions may overlap formal ones but not each other;
names are unique across formal and temp partitions).
"""

from __future__ import annotations

import bisect
import dataclasses
import datetime as _dt
import enum
import functools
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence, Union

from iceberg_doris.errors import PartitionError
from iceberg_doris.names.rules import shown
from iceberg_doris.partitioning.keys import MIN, PartitionColumnType, key_sort_key
from iceberg_doris.partitioning.lists import (
    ListPartition,
    list_key_to_sql,
    make_list_values,
    normalize_list_row_key,
    values_in_sql,
)
from iceberg_doris.partitioning.ranges import (
    RangeKey,
    RangePartition,
    expand_batch,
    intersects,
    normalize_row_key,
    raw_values_sql,
)

__all__ = [
    "Partition",
    "PartitionColumn",
    "PartitionKind",
    "PartitionSet",
    "check_partition_name",
]

Partition = Union[RangePartition, ListPartition]

_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_\-]{0,127}")


def _bare(name: object) -> str:
    """A name as Doris's messages print it (unquoted), unless it would garble the message."""
    return name if isinstance(name, str) and name.isprintable() and len(name) <= 64 else shown(name)


def check_partition_name(name: str) -> str:
    """Letters, digits, ``_`` and ``-``; at most 128 characters (a relaxed ``FeNameFormat``: names
    may start with a digit or ``_``, as dynamic partitions with an empty prefix are named). A
    partition name also names an Iceberg branch (``doris_temp_<name>``), so nothing else may pass."""
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise PartitionError(
            f"Incorrect partition name {shown(name)}: a partition name is 1 to 128 letters, digits, '_' or '-' "
            "and does not start with '-', e.g. 'p202405'"
        )
    return name



class PartitionKind(str, enum.Enum):
    RANGE = "RANGE"
    LIST = "LIST"

    @classmethod
    def coerce(cls, value: PartitionKind | str) -> PartitionKind:
        if isinstance(value, PartitionKind):
            return value
        try:
            return cls(str(value).strip().upper())
        except ValueError:
            raise PartitionError("Only support adding partition to range and list partitioned table") from None


@dataclass(frozen=True)
class PartitionColumn:
    """One partition column: name, Doris kind, nullability."""

    name: str
    type: PartitionColumnType
    nullable: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "type", PartitionColumnType.coerce(self.type))
        object.__setattr__(self, "nullable", bool(self.nullable))


def _coerce_column(c: Any) -> PartitionColumn:
    if isinstance(c, PartitionColumn):
        return c
    if isinstance(c, dict):
        return PartitionColumn(c["name"], c["type"], c.get("nullable", False))
    return PartitionColumn(*c)


def _exact_types(t: PartitionColumnType) -> tuple[type, ...]:
    """Python types whose values need no conversion for a column (the routing fast path)."""
    if t.is_integer:
        return (int,)
    if t.is_date:
        return (_dt.date,)
    if t.is_datetime:
        return (_dt.datetime,)
    if t.is_boolean:
        return (bool,)
    return (str,)


class _Router:
    """Finds the partition of a row key among a fixed group of non-overlapping partitions."""

    def __init__(self, kind: PartitionKind, types: tuple[PartitionColumnType, ...], partitions: Sequence[Partition]):
        self.kind = kind
        self.types = types
        self._exact = tuple(_exact_types(t) for t in types)
        if kind is PartitionKind.RANGE:
            ordered = sorted(partitions, key=lambda p: p.lower)
            self._lowers = [p.lower.values for p in ordered]
            self._uppers = [p.upper.values for p in ordered]
            self._names = [p.name for p in ordered]
        else:
            self._lookup = {key: p.name for p in partitions for key in p.values}

    def _key(self, row_key: Any) -> tuple:
        values = row_key if isinstance(row_key, tuple) else (row_key,) if not isinstance(row_key, list) else tuple(row_key)
        if len(values) == len(self.types) and all(
            v is None or (type(v) in exact and getattr(v, "tzinfo", None) is None)
            for v, exact in zip(values, self._exact)
        ):
            if self.kind is PartitionKind.RANGE:
                return tuple(MIN if v is None else v for v in values)
            return values
        if self.kind is PartitionKind.RANGE:
            return normalize_row_key(row_key, self.types)
        return normalize_list_row_key(row_key, self.types)

    def __call__(self, row_key: Any) -> str | None:
        key = self._key(row_key)
        if self.kind is PartitionKind.RANGE:
            i = bisect.bisect_right(self._lowers, key) - 1
            if i >= 0 and key < self._uppers[i]:
                return self._names[i]
            return None
        return self._lookup.get(key)


def _conflict(message: str, partition: str) -> PartitionError:
    err = PartitionError(f"{message} (conflicting partition: {partition})")
    err.conflicting_partition = partition  # type: ignore[attr-defined]
    return err


@dataclass(frozen=True)
class PartitionSet:
    """The formal and temporary partitions of one RANGE- or LIST-partitioned table."""

    kind: PartitionKind
    columns: tuple[PartitionColumn, ...]
    formal: tuple[Partition, ...] = ()
    temp: tuple[Partition, ...] = ()

    def __post_init__(self) -> None:
        kind = PartitionKind.coerce(self.kind)
        object.__setattr__(self, "kind", kind)
        columns = tuple(_coerce_column(c) for c in self.columns)
        if not columns:
            raise PartitionError("A partitioned table needs at least one partition column")
        object.__setattr__(self, "columns", columns)
        object.__setattr__(self, "formal", tuple(self.formal))
        object.__setattr__(self, "temp", tuple(self.temp))
        for c in columns:
            if kind is PartitionKind.RANGE and not (c.type.is_integer or c.type.is_temporal):
                raise PartitionError(f"Column[{c.name}] type[{c.type.doris_name}] cannot be a range partition key.")
        expected = RangePartition if kind is PartitionKind.RANGE else ListPartition
        for p in self.formal + self.temp:
            if not isinstance(p, expected):
                raise PartitionError(f"A {kind.value} partitioned table cannot hold {type(p).__name__} {p.name}")

    # -- construction ---------------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        kind: PartitionKind | str,
        column_names: Sequence[str] | str,
        column_types: Sequence[PartitionColumnType | str] | PartitionColumnType | str,
        nullable: Sequence[bool] | bool | None = None,
    ) -> PartitionSet:
        """An empty set: ``PartitionSet.new("RANGE", ["k1"], ["DATE"])``."""
        names = [column_names] if isinstance(column_names, str) else list(column_names)
        types = (
            [column_types] if isinstance(column_types, (str, PartitionColumnType)) else list(column_types)
        )
        if len(names) != len(types):
            raise PartitionError("Partition column names and types differ in length")
        if nullable is None or isinstance(nullable, bool):
            flags = [bool(nullable)] * len(names)
        else:
            flags = list(nullable)
        return cls(kind, tuple(PartitionColumn(n, t, f) for n, t, f in zip(names, types, flags)))

    # -- views ----------------------------------------------------------------------------------

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    @property
    def column_types(self) -> tuple[PartitionColumnType, ...]:
        return tuple(c.type for c in self.columns)

    @property
    def nullable(self) -> tuple[bool, ...]:
        return tuple(c.nullable for c in self.columns)

    @property
    def partition_key(self) -> str:
        """SHOW PARTITIONS ``PartitionKey``: the column names joined by ``, ``."""
        return ", ".join(self.column_names)

    @property
    def partition_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.formal)

    @property
    def temp_partition_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.temp)

    def partitions(self, temporary: bool = False) -> tuple[Partition, ...]:
        return self.temp if temporary else self.formal

    def get(self, name: str, temporary: bool = False, *, exact: bool = False) -> Partition | None:
        """The partition called ``name``: the one spelt exactly so, else the one whose name matches
        case-insensitively (``P1`` finds ``p1``); its :attr:`name` is the spelling it was created
        with. Auto LIST partitions may differ only by case (``pXXX3`` and ``pxxx3``, as Doris names
        them), and each is found by its exact name. ``exact``: the exact spelling only."""
        text = str(name)
        folded = text.lower()
        found = None
        for p in self.partitions(temporary):
            if p.name == text:
                return p
            if found is None and not exact and p.name.lower() == folded:
                found = p
        return found

    def stored_name(self, name: str, temporary: bool = False) -> str:
        """``name`` as the partition it names spells it (``P1`` -> ``p1``); ``name`` itself when no
        partition has it."""
        found = self.get(name, temporary)
        return found.name if found is not None else name

    def has(self, name: str, temporary: bool | None = None) -> bool:
        """Whether ``name`` is a formal (False), temp (True) or any (None) partition."""
        if temporary is None:
            return self.get(name, False) is not None or self.get(name, True) is not None
        return self.get(name, temporary) is not None

    def sorted_partitions(self, temporary: bool = False) -> list[Partition]:
        """RANGE by lower bound; LIST by first key (Doris's display comparators)."""
        items = list(self.partitions(temporary))
        if self.kind is PartitionKind.RANGE:
            return sorted(items, key=lambda p: p.lower)
        return sorted(items, key=lambda p: tuple(key_sort_key(v) for v in p.values[0]))

    def range_text(self, name: str, temporary: bool = False) -> str:
        p = self._require(name, temporary)
        return p.range_text()

    def describe(self, temporary: bool = False) -> list[dict[str, Any]]:
        """One dict per partition: ``partition_name``, ``partition_key``, ``range``, ``is_temp``."""
        return [
            {
                "partition_name": p.name,
                "partition_key": self.partition_key,
                "range": p.range_text(),
                "is_temp": temporary,
            }
            for p in self.sorted_partitions(temporary)
        ]

    def __len__(self) -> int:
        return len(self.formal)

    # -- internal helpers -------------------------------------------------------------------------

    def _require(self, name: str, temporary: bool) -> Partition:
        p = self.get(name, temporary)
        if p is None:
            raise PartitionError(f"Error in list of partitions to {name}")
        return p

    def with_partitions(
        self, formal: Iterable[Partition] | None = None, temp: Iterable[Partition] | None = None
    ) -> PartitionSet:
        """A copy with other formal and/or temp partitions (no rule checks; see :meth:`check_invariants`)."""
        return self._with(formal, temp)

    def _with(self, formal: Iterable[Partition] | None = None, temp: Iterable[Partition] | None = None) -> PartitionSet:
        return dataclasses.replace(
            self,
            formal=tuple(self.formal if formal is None else formal),
            temp=tuple(self.temp if temp is None else temp),
        )

    def _with_added(self, partition: Partition, temporary: bool) -> PartitionSet:
        if temporary:
            return self._with(temp=self.temp + (partition,))
        return self._with(formal=self.formal + (partition,))

    def _check_new_name(self, name: str, exact: bool = False) -> None:
        check_partition_name(name)
        taken = any(p.name == name for p in self.formal + self.temp) if exact else self.has(name)
        if taken:
            raise PartitionError(f"Duplicate partition name {name}")

    def _check_range_conflicts(self, new: RangePartition, temporary: bool) -> None:
        for p in self.partitions(temporary):
            if intersects(new, p):
                raise _conflict(
                    f"Range {new.range_text()} is intersected with range: {p.range_text()}", p.name
                )

    def _check_list_conflicts(self, new: ListPartition, temporary: bool, desc: str) -> None:
        for key in new.values:
            for p in self.partitions(temporary):
                if key in p.key_set:
                    raise _conflict(
                        f"The partition key[{list_key_to_sql(key, self.column_types)}] in partition item[{desc}] "
                        f"is conflict with current partitionKeys[{p.item_sql()}]",
                        p.name,
                    )

    def _less_than_partition(self, name: str, values_less_than: Any, temporary: bool) -> RangePartition:
        types = self.column_types
        upper = RangeKey.of(values_less_than, types)
        if upper.is_min:
            raw = values_less_than if isinstance(values_less_than, (list, tuple)) else [values_less_than]
            raise PartitionError(f"Partition's upper value should not be MIN VALUE: {raw_values_sql(raw)}")
        last: RangePartition | None = None
        current: RangePartition | None = None
        for p in self.sorted_partitions(temporary):
            current = p
            if p.upper >= upper:
                break
            last = p
        lower = last.upper if last is not None else RangeKey.min(types)
        if not lower < upper:
            raise PartitionError("The lower values must smaller than upper values")
        new = RangePartition(name, lower, upper)
        if current is not None and intersects(new, current):
            raise _conflict(
                f"Range {new.range_text()} is intersected with range: {current.range_text()}", current.name
            )
        return new

    @staticmethod
    def _split_range(values_range: Any) -> tuple[Any, Any]:
        if isinstance(values_range, RangePartition):
            return values_range.lower, values_range.upper
        if not isinstance(values_range, (list, tuple)) or len(values_range) != 2:
            raise PartitionError("values_range must be two bounds: [lower, upper)")
        return values_range[0], values_range[1]

    # -- operations ---------------------------------------------------------------------------------

    def add_partition(
        self,
        name: str,
        *,
        values_less_than: Any = None,
        values_range: Any = None,
        values_in: Any = None,
        temporary: bool = False,
        if_not_exists: bool = False,
    ) -> PartitionSet:
        """``ALTER TABLE t ADD [TEMPORARY] PARTITION name VALUES ...``.

        ``values_less_than``: a literal, a list (multi-column) or ``MAXVALUE``; its lower bound is the
        upper bound of the previous partition of the same kind (formal or temp), or MIN.
        ``values_range``: ``[lower, upper)`` as two literals or two lists. ``values_in``: list values.
        """
        given = [v is not None for v in (values_less_than, values_range, values_in)]
        if sum(given) != 1:
            raise PartitionError("Give exactly one of values_less_than, values_range or values_in")
        if if_not_exists and self.has(name, temporary):
            return self
        self._check_new_name(name)
        if self.kind is PartitionKind.RANGE:
            if values_in is not None:
                raise PartitionError(
                    "Range partition expected 'VALUES [LESS THAN or [(\"xxx\" ,...), (\"xxx\", ...))]'"
                )
            if values_less_than is not None:
                new: Partition = self._less_than_partition(name, values_less_than, temporary)
            else:
                lo, hi = self._split_range(values_range)
                new = RangePartition.of(name, lo, hi, self.column_types)
                self._check_range_conflicts(new, temporary)
        else:
            if values_in is None:
                raise PartitionError("List partition expected 'VALUES [IN or ((\"xxx\", \"xxx\"), ...)]'")
            keys = make_list_values(values_in, self.column_types, self.nullable)
            new = ListPartition(name, keys, self.column_types)
            raw = values_in if isinstance(values_in, (list, tuple)) else [values_in]
            raw_tuples = [tuple(v) if isinstance(v, (list, tuple)) else (v,) for v in raw]
            self._check_list_conflicts(new, temporary, values_in_sql(raw_tuples, self.column_types))
        return self._with_added(new, temporary)

    def add(self, partition: Partition, *, temporary: bool = False, exact_names: bool = False) -> PartitionSet:
        """Adds a ready-made partition (a fixed range or a key list), with the same checks.
        ``exact_names``: names that differ only by case are different partitions (the partitions
        auto LIST creates, as Doris's case-sensitive partition map holds them); otherwise such a
        name is a duplicate."""
        self._check_new_name(partition.name, exact_names)
        if self.kind is PartitionKind.RANGE:
            if not isinstance(partition, RangePartition):
                raise PartitionError("Range partition expected 'VALUES [LESS THAN or [(\"xxx\" ,...), (\"xxx\", ...))]'")
            if partition.types != self.column_types:
                partition = RangePartition(
                    partition.name,
                    RangeKey(partition.lower.values, self.column_types),
                    RangeKey(partition.upper.values, self.column_types),
                )
            self._check_range_conflicts(partition, temporary)
        else:
            if not isinstance(partition, ListPartition):
                raise PartitionError("List partition expected 'VALUES [IN or ((\"xxx\", \"xxx\"), ...)]'")
            if partition.types != self.column_types:
                partition = ListPartition(partition.name, partition.values, self.column_types)
            for key in partition.values:
                for i, (v, c) in enumerate(zip(key, self.columns)):
                    if v is None and not c.nullable:
                        raise PartitionError(
                            "Can't have null partition is for NOT NULL partition column in partition expr's "
                            f"index {i}"
                        )
            desc = values_in_sql(partition.values, self.column_types)
            self._check_list_conflicts(partition, temporary, desc)
        return self._with_added(partition, temporary)

    def add_all(
        self, partitions: Iterable[Partition], *, temporary: bool = False, exact_names: bool = False
    ) -> PartitionSet:
        """Adds several ready-made partitions with the checks of :meth:`add`, in O(n log n)."""
        items = list(partitions)
        if len(items) <= 1:
            return self.add(items[0], temporary=temporary, exact_names=exact_names) if items else self

        def fold(name: str) -> str:
            return name if exact_names else name.lower()

        names = {fold(n) for n in self.partition_names + self.temp_partition_names}
        accepted: list[Partition] = []
        if self.kind is PartitionKind.RANGE:
            ordered = sorted(self.partitions(temporary), key=lambda p: p.lower)
            uppers = [p.upper.values for p in ordered]
            for p in items:
                check_partition_name(p.name)
                if fold(p.name) in names:
                    raise PartitionError(f"Duplicate partition name {p.name}")
                if not isinstance(p, RangePartition):
                    return self._with_added_each(items, temporary, exact_names)
                if p.types != self.column_types:
                    p = RangePartition(
                        p.name, RangeKey(p.lower.values, self.column_types), RangeKey(p.upper.values, self.column_types)
                    )
                j = bisect.bisect_right(uppers, p.lower.values)
                if j < len(ordered) and ordered[j].lower.values < p.upper.values:
                    other = ordered[j]
                    raise _conflict(
                        f"Range {p.range_text()} is intersected with range: {other.range_text()}", other.name
                    )
                ordered.insert(j, p)
                uppers.insert(j, p.upper.values)
                names.add(fold(p.name))
                accepted.append(p)
        else:
            group = {p.name: p for p in self.partitions(temporary)}
            owner = {key: p.name for p in group.values() for key in p.values}
            for p in items:
                check_partition_name(p.name)
                if fold(p.name) in names:
                    raise PartitionError(f"Duplicate partition name {p.name}")
                if not isinstance(p, ListPartition):
                    return self._with_added_each(items, temporary, exact_names)
                if p.types != self.column_types:
                    p = ListPartition(p.name, p.values, self.column_types)
                desc = values_in_sql(p.values, self.column_types)
                for key in p.values:
                    for i, (v, c) in enumerate(zip(key, self.columns)):
                        if v is None and not c.nullable:
                            raise PartitionError(
                                "Can't have null partition is for NOT NULL partition column in partition expr's "
                                f"index {i}"
                            )
                    if key in owner:
                        other = group[owner[key]]
                        raise _conflict(
                            f"The partition key[{list_key_to_sql(key, self.column_types)}] in partition item[{desc}] "
                            f"is conflict with current partitionKeys[{other.item_sql()}]",
                            other.name,
                        )
                for key in p.values:
                    owner[key] = p.name
                group[p.name] = p
                names.add(fold(p.name))
                accepted.append(p)
        if temporary:
            return self._with(temp=self.temp + tuple(accepted))
        return self._with(formal=self.formal + tuple(accepted))

    def _with_added_each(self, items: Sequence[Partition], temporary: bool, exact_names: bool = False) -> PartitionSet:
        result = self
        for p in items:
            result = result.add(p, temporary=temporary, exact_names=exact_names)
        return result

    def add_batch(
        self,
        start: Any,
        end: Any,
        interval: int,
        unit: str | None = None,
        *,
        temporary: bool = False,
        prefix: str = "p_",
        start_day_of_week: int = 1,
        start_day_of_month: int = 1,
        max_partitions: int = 4096,
    ) -> PartitionSet:
        """``FROM (start) TO (end) INTERVAL interval [unit]`` (single-column RANGE tables)."""
        if self.kind is not PartitionKind.RANGE:
            raise PartitionError("Batch partition creation (FROM ... TO ... INTERVAL) needs a RANGE partitioned table")
        if len(self.columns) != 1:
            raise PartitionError(
                f"partition column number in multi partition clause must be one but start column size is "
                f"{len(self.columns)}, end column size is {len(self.columns)}."
            )
        created = expand_batch(
            self.column_types[0],
            start,
            end,
            interval,
            unit,
            prefix=prefix,
            start_day_of_week=start_day_of_week,
            start_day_of_month=start_day_of_month,
            max_partitions=max_partitions,
        )
        return self.add_all(created, temporary=temporary)

    def drop_partition(self, name: str, *, temporary: bool = False, if_exists: bool = False) -> PartitionSet:
        """``ALTER TABLE t DROP [TEMPORARY] PARTITION [IF EXISTS] name``."""
        if self.get(name, temporary) is None:
            if if_exists:
                return self
            kind = "temporary partition" if temporary else "partition"
            raise PartitionError(
                f"Error in list of partitions to {_bare(name)}: the table has no {kind} {_bare(name)}; "
                f"doris.show_partitions lists them, and if_exists => true ignores a missing one"
            )
        name = self.stored_name(name, temporary)
        if temporary:
            return self._with(temp=[p for p in self.temp if p.name != name])
        return self._with(formal=[p for p in self.formal if p.name != name])

    def drop_all_temp_partitions(self) -> PartitionSet:
        """What ``TRUNCATE TABLE t`` does to temp partitions."""
        return self._with(temp=())

    def rename_partition(self, old: str, new: str, *, temporary: bool = False) -> PartitionSet:
        """``ALTER TABLE t RENAME PARTITION old new``; the new name must be unused (formal and temp)."""
        if self.get(old, temporary) is None:
            raise PartitionError(f"Partition[{old}] does not exist")
        old = self.stored_name(old, temporary)
        check_partition_name(new)
        if new.lower() != old.lower() and self.has(new):
            raise PartitionError(f"Partition name[{new}] is already used")
        items = [p.with_name(new) if p.name == old else p for p in self.partitions(temporary)]
        return self._with(temp=items) if temporary else self._with(formal=items)

    # -- routing --------------------------------------------------------------------------------

    @functools.cached_property
    def _formal_router(self) -> _Router:
        return _Router(self.kind, self.column_types, self.formal)

    def router(
        self,
        *,
        temp_partitions: Sequence[str] | None = None,
        partitions: Sequence[str] | None = None,
    ) -> Callable[[Any], str | None]:
        """A fast ``row_key -> partition name | None`` function over the formal partitions, a named
        subset of them (``partitions``), or a named subset of temp partitions (``temp_partitions``).

        RANGE: a NULL value counts as MIN, so it lands in the partition starting at MIN (if any).
        LIST: NULL matches a partition that enumerates NULL.
        """
        if temp_partitions is not None and partitions is not None:
            raise PartitionError("Give either partitions or temp_partitions, not both")
        if temp_partitions is None and partitions is None:
            return self._formal_router
        if temp_partitions is not None:
            group = []
            for n in temp_partitions:
                p = self.get(n, True)
                if p is None:
                    raise PartitionError(f"Temp partition[{n}] does not exist")
                group.append(p)
        elif partitions is not None:
            group = []
            for n in partitions:
                p = self.get(n, False)
                if p is None:
                    raise PartitionError(f"Partition[{n}] does not exist")
                group.append(p)
        else:
            group = list(self.formal)
        return _Router(self.kind, self.column_types, group)

    def route(
        self,
        row_key: Any,
        *,
        temp_partitions: Sequence[str] | None = None,
        partitions: Sequence[str] | None = None,
    ) -> str | None:
        """The name of the partition a row key belongs to, or None (the row fits no partition)."""
        return self.router(temp_partitions=temp_partitions, partitions=partitions)(row_key)

    # -- integrity --------------------------------------------------------------------------------

    def check_invariants(self) -> PartitionSet:
        """Verifies unique names and no overlaps within formal and within temp partitions."""
        seen: set[str] = set()
        for p in self.formal + self.temp:
            check_partition_name(p.name)
            if p.name in seen:
                raise PartitionError(f"Duplicate partition name {p.name}")
            seen.add(p.name)
        for group in (self.formal, self.temp):
            if self.kind is PartitionKind.RANGE:
                ordered = sorted(group, key=lambda p: p.lower)
                for a, b in zip(ordered, ordered[1:]):
                    if intersects(a, b):
                        raise _conflict(f"Range {b.range_text()} is intersected with range: {a.range_text()}", a.name)
            else:
                owner: dict[tuple, str] = {}
                for p in group:
                    for key in p.values:
                        if key in owner:
                            raise _conflict(
                                f"The partition key[{list_key_to_sql(key, self.column_types)}] in partition item"
                                f"[{values_in_sql(p.values, self.column_types)}] is conflict with current "
                                f"partitionKeys[{self.get(owner[key], group is self.temp).item_sql()}]",
                                owner[key],
                            )
                        owner[key] = p.name
        return self

