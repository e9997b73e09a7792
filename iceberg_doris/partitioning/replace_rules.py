"""``REPLACE PARTITION (p...) WITH TEMPORARY PARTITION (tp...)`` rules (spec §1.5).

Mirrors ``Env.replaceTempPartition`` (existence checks), ``ReplacePartitionClause`` (properties),
``OlapTable.replaceTempPartitions``/``checkPartition`` (strict/non-strict checks, naming),
``RangeUtils.checkPartitionItemListsMatch``/``checkRangeConflict`` and
``ListUtil.checkPartitionKeyListsMatch``/``checkListsConflict``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from iceberg_doris.errors import PartitionError
from iceberg_doris.partitioning.keys import key_sort_key
from iceberg_doris.partitioning.lists import ListPartition, list_key_to_sql
from iceberg_doris.partitioning.partition_set import PartitionKind, PartitionSet
from iceberg_doris.partitioning.ranges import RangePartition, intersects, range_text

__all__ = [
    "ReplaceResult",
    "check_replace",
    "final_partition_names",
    "parse_replace_properties",
    "replace_partitions",
    "swap_partitions",
]

STRICT_RANGE = "strict_range"
USE_TEMP_PARTITION_NAME = "use_temp_partition_name"


@dataclass(frozen=True)
class ReplaceResult:
    """The outcome of a replace or swap.

    ``renames`` maps every temp partition name to its formal name afterwards (equal when kept).
    ``replaced`` lists the formal partitions that were replaced. For a swap, ``swapped_to_temp``
    maps each replaced formal partition to the temp partition name that now holds its range and
    rows; for a plain replace it is empty (the replaced partitions are gone).
    """

    partition_set: PartitionSet
    renames: dict[str, str]
    replaced: tuple[str, ...]
    swapped_to_temp: dict[str, str] = field(default_factory=dict)


def _java_bool(value: object) -> bool:
    """``Boolean.parseBoolean``: only a case-insensitive ``true`` is true."""
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() == "true"


def parse_replace_properties(properties: Mapping[str, object] | None) -> tuple[bool, bool]:
    """``PROPERTIES(...)`` of REPLACE PARTITION → (strict_range, use_temp_partition_name).

    Only ``strict_range`` (default true) and ``use_temp_partition_name`` (default false) are
    known; anything else fails with ``Unknown properties: [invalid]``.
    """
    props = dict(properties or {})
    strict = _java_bool(props.pop(STRICT_RANGE)) if STRICT_RANGE in props else True
    use_temp = _java_bool(props.pop(USE_TEMP_PARTITION_NAME)) if USE_TEMP_PARTITION_NAME in props else False
    if props:
        raise PartitionError("Unknown properties: [" + ", ".join(props) + "]")
    return strict, use_temp


def final_partition_names(
    partitions: Sequence[str], temp_partitions: Sequence[str], use_temp_partition_name: bool
) -> dict[str, str]:
    """Temp name → formal name after the replace: pairwise by position when both lists have the
    same length and ``use_temp_partition_name`` is false, otherwise the temp names are kept."""
    if not use_temp_partition_name and len(partitions) == len(temp_partitions):
        return dict(zip(temp_partitions, partitions))
    return {t: t for t in temp_partitions}


def _check_names(ps: PartitionSet, partitions: Sequence[str], temp_partitions: Sequence[str]) -> None:
    for names in (partitions, temp_partitions):
        if not names:
            raise PartitionError("No partition specified in partition lists")
        if any(not n for n in names):
            raise PartitionError("there are empty partition name")
        seen: set[str] = set()
        for n in names:
            if n in seen:
                raise PartitionError(f"Duplicated partition name in partition lists: {n}")
            seen.add(n)
    for n in partitions:
        if not ps.has(n, False):
            raise PartitionError(f"Partition[{n}] does not exist")
    for n in temp_partitions:
        if not ps.has(n, True):
            raise PartitionError(f"Temp partition[{n}] does not exist")


# -- RANGE ------------------------------------------------------------------------------------------


def _range_list_text(items: Sequence[RangePartition]) -> str:
    return "[" + ", ".join(range_text(p.lower, p.upper) for p in items) + "]"


def _check_ranges_match(list1: Sequence[RangePartition], list2: Sequence[RangePartition]) -> None:
    """``RangeUtils.checkPartitionItemListsMatch``: the two unions must be exactly the same."""
    l1 = sorted(list1, key=lambda p: p.lower)
    l2 = sorted(list2, key=lambda p: p.lower)
    i1 = i2 = 0
    lo1, hi1 = l1[0].lower, l1[0].upper
    lo2, hi2 = l2[0].lower, l2[0].upper
    while True:
        if lo1 != lo2:
            raise PartitionError(f"2 range lists are not stricly matched. {lo1.to_string()} vs. {lo2.to_string()}")
        if hi1 == hi2:
            i1 += 1
            i2 += 1
            if i1 == len(l1) or i2 == len(l2):
                break
            lo1, hi1 = l1[i1].lower, l1[i1].upper
            lo2, hi2 = l2[i2].lower, l2[i2].upper
        elif hi1 > hi2:
            i2 += 1
            if i2 == len(l2):
                break
            lo1 = hi2
            lo2, hi2 = l2[i2].lower, l2[i2].upper
        else:
            i1 += 1
            if i1 == len(l1):
                break
            lo2 = hi1
            lo1, hi1 = l1[i1].lower, l1[i1].upper
    if i1 < len(l1) or i2 < len(l2):
        raise PartitionError(f"2 range lists are not stricly matched. {_range_list_text(l1)} vs. {_range_list_text(l2)}")


def _check_ranges_conflict(base: Sequence[RangePartition], checked: Sequence[RangePartition]) -> None:
    """``RangeUtils.checkRangeConflict``: no checked range may overlap a base range."""
    for item in checked:
        for b in base:
            if intersects(item, b):
                err = PartitionError(f"Range: {item.range_text()} conflicts with existing range")
                err.conflicting_partition = b.name  # type: ignore[attr-defined]
                raise err


# -- LIST -------------------------------------------------------------------------------------------


def _list_items_text(items: Sequence[ListPartition]) -> str:
    return "[" + ", ".join(p.item_string() for p in items) + "]"


def _check_lists_match(list1: Sequence[ListPartition], list2: Sequence[ListPartition]) -> None:
    """The enumerated keys of both sides must be the same set (spec §1.5, LIST strict)."""
    keys1 = {k for p in list1 for k in p.values}
    keys2 = {k for p in list2 for k in p.values}
    if keys1 != keys2:

        def order(p: ListPartition) -> tuple:
            return tuple(key_sort_key(v) for v in p.sorted_values()[0])

        raise PartitionError(
            "2 partition key lists are not matched. "
            f"{_list_items_text(sorted(list1, key=order))} vs. {_list_items_text(sorted(list2, key=order))}"
        )


def _check_lists_conflict(base: Sequence[ListPartition], checked: Sequence[ListPartition]) -> None:
    """``ListUtil.checkListsConflict``."""
    for item in checked:
        for key in item.values:
            for b in base:
                if key in b.key_set:
                    err = PartitionError(
                        f"The partition key[{list_key_to_sql(key, item.types or b.types)}] is overlap with current "
                        f"{b.item_string()}"
                    )
                    err.conflicting_partition = b.name  # type: ignore[attr-defined]
                    raise err


# -- public -----------------------------------------------------------------------------------------


def check_replace(
    ps: PartitionSet,
    partitions: Sequence[str],
    temp_partitions: Sequence[str],
    *,
    strict_range: bool = True,
) -> None:
    """Raises :class:`PartitionError` unless ``partitions`` may be replaced by ``temp_partitions``."""
    partitions = list(partitions)
    temp_partitions = list(temp_partitions)
    _check_names(ps, partitions, temp_partitions)
    old = [ps.get(n, False) for n in partitions]
    new = [ps.get(n, True) for n in temp_partitions]
    if strict_range:
        if ps.kind is PartitionKind.RANGE:
            _check_ranges_match(old, new)  # type: ignore[arg-type]
        else:
            _check_lists_match(old, new)  # type: ignore[arg-type]
    else:
        replaced = set(partitions)
        remaining = [p for p in ps.formal if p.name not in replaced]
        if ps.kind is PartitionKind.RANGE:
            _check_ranges_conflict(remaining, new)  # type: ignore[arg-type]
        else:
            _check_lists_conflict(remaining, new)  # type: ignore[arg-type]


def replace_partitions(
    ps: PartitionSet,
    partitions: Sequence[str],
    temp_partitions: Sequence[str],
    *,
    strict_range: bool = True,
    use_temp_partition_name: bool = False,
) -> ReplaceResult:
    """Doris ``REPLACE PARTITION``: the named formal partitions are dropped, the temp partitions
    become formal (renamed pairwise when the lists have equal length and
    ``use_temp_partition_name`` is false)."""
    partitions = list(partitions)
    temp_partitions = list(temp_partitions)
    check_replace(ps, partitions, temp_partitions, strict_range=strict_range)
    renames = final_partition_names(partitions, temp_partitions, use_temp_partition_name)
    replaced = set(partitions)
    moving = set(temp_partitions)
    formal = [p for p in ps.formal if p.name not in replaced]
    formal += [ps.get(n, True).with_name(renames[n]) for n in temp_partitions]  # type: ignore[union-attr]
    temp = [p for p in ps.temp if p.name not in moving]
    result = ps.with_partitions(formal=formal, temp=temp)
    return ReplaceResult(result, renames, tuple(partitions))


def swap_partitions(
    ps: PartitionSet,
    partitions: Sequence[str],
    temp_partitions: Sequence[str],
    *,
    strict_range: bool = True,
    use_temp_partition_name: bool = False,
) -> ReplaceResult:
    """The seed design's swap: like :func:`replace_partitions`, but the replaced formal partitions
    become temp partitions instead of disappearing.

    Names never collide: when the temp partitions take the formal names (pairwise rename), each
    replaced formal partition takes the temp name at the same position — the names stay where they
    were and the contents trade places. Otherwise the replaced partitions keep their own names
    (which the temp partitions did not use, since names are unique across formal and temp).
    The replaced ranges must not overlap the temp partitions that stay temp.
    """
    partitions = list(partitions)
    temp_partitions = list(temp_partitions)
    check_replace(ps, partitions, temp_partitions, strict_range=strict_range)
    renames = final_partition_names(partitions, temp_partitions, use_temp_partition_name)
    pairwise = not use_temp_partition_name and len(partitions) == len(temp_partitions)
    to_temp = dict(zip(partitions, temp_partitions)) if pairwise else {p: p for p in partitions}
    replaced = set(partitions)
    moving = set(temp_partitions)
    staying_temp = [p for p in ps.temp if p.name not in moving]
    old_as_temp = [ps.get(n, False).with_name(to_temp[n]) for n in partitions]  # type: ignore[union-attr]
    for name, old in zip(partitions, old_as_temp):
        for other in staying_temp:
            if ps.kind is PartitionKind.RANGE:
                clash = intersects(old, other)  # type: ignore[arg-type]
            else:
                clash = old.overlap(other) is not None  # type: ignore[union-attr]
            if clash:
                err = PartitionError(
                    f"Cannot swap: replaced partition {name} would become a temp partition that overlaps "
                    f"temp partition {other.name}: {old.range_text()} vs. {other.range_text()}"
                )
                err.conflicting_partition = other.name  # type: ignore[attr-defined]
                raise err
    formal = [p for p in ps.formal if p.name not in replaced]
    formal += [ps.get(n, True).with_name(renames[n]) for n in temp_partitions]  # type: ignore[union-attr]
    temp = staying_temp + old_as_temp
    result = ps.with_partitions(formal=formal, temp=temp)
    return ReplaceResult(result, renames, tuple(partitions), to_temp)

