"""How Doris partitions map onto an Iceberg partition spec.

Rule: every Doris partition must be a whole set of Iceberg partitions, so that dropping, replacing
or overwriting a Doris partition is a metadata-only commit that touches no file outside it.

- LIST partitions: ``identity`` on each partition column (a Doris partition is a set of values).
- RANGE on one DATE/DATETIME column: the coarsest of ``year``, ``month``, ``day``, ``hour`` that
  every finite bound is aligned to (``date_trunc`` units: year/quarter -> year/month, month ->
  month, week/day -> day, hour -> hour), else ``identity``. Dynamic partitions use their time unit.
- RANGE on one integer column: ``truncate(W)`` with W the greatest common divisor of the finite
  bounds, or ``identity`` when W is 1 (e.g. yyyyMMdd integers).
- RANGE on several columns: the first column as above when every bound is MIN in the others,
  else ``identity`` on every partition column.
- ``DISTRIBUTED BY HASH(c, ...) BUCKETS n``: ``bucket(n, c)`` on the first hash column (Iceberg
  buckets one column per field; more would multiply the file count) that Iceberg's bucket
  transform takes: BOOLEAN, FLOAT and DOUBLE columns are skipped, and with none left no bucket
  field is added. ``BUCKETS AUTO`` and ``RANDOM`` add no field.

Data file paths: Iceberg puts a file under one folder per identity partition value (``c=<value>``),
and a folder name holds at most 255 bytes, while Doris accepts LIST values of hundreds of
characters. So a table with an identity field on a string column writes its files through
Iceberg's object-storage location provider without partition paths (:func:`data_path_properties`):
``data/<hashed folders>/<file>``, no folder named after a value. Readers are unaffected (they find
files through the metadata).

Limits: ``date_trunc`` by minute or second, and DATETIME bounds that are not whole hours, fall back
to ``identity`` (one Iceberg partition per distinct value). A partition added later that breaks
the alignment evolves the spec to a finer transform; older files stay valid because they hold no
rows of the new partition.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from typing import Any

from iceberg_doris.partitioning import MAX, MIN, PartitionKind, PartitionSet, RangePartition
from iceberg_doris.table_model.model import DorisTableModel

TEMPORAL_ORDER = ("year", "month", "day", "hour", "identity")
DATE_TRUNC_TRANSFORM = {
    "year": "year",
    "quarter": "month",
    "month": "month",
    "week": "day",
    "day": "day",
    "hour": "hour",
}
DYNAMIC_UNIT_TRANSFORM = {"YEAR": "year", "MONTH": "month", "WEEK": "day", "DAY": "day", "HOUR": "hour"}


@dataclass(frozen=True)
class LayoutField:
    """One Iceberg partition field: ``transform`` of ``column`` (``width`` for truncate/bucket)."""

    transform: str  # identity, year, month, day, hour, truncate, bucket
    column: str
    width: int | None = None

    @property
    def text(self) -> str:
        if self.transform == "identity":
            return self.column
        if self.width is not None:
            return f"{self.transform}({self.width}, {self.column})"
        return f"{self.transform}({self.column})"


def choose_layout(model: DorisTableModel) -> list[LayoutField]:
    """The Iceberg partition fields for ``model`` (see the module docstring for the rule)."""
    fields: list[LayoutField] = []
    if model.partitions is not None:
        fields += partition_fields(model)
    d = model.distribution
    if d is not None and d.kind == "HASH" and d.buckets and d.columns:
        column = bucket_column(model, d.columns)
        if column is not None:
            fields.append(LayoutField("bucket", column, d.buckets))
    return fields


# Iceberg's bucket transform hashes neither booleans nor floating-point numbers.
UNBUCKETABLE_TYPES = frozenset({"boolean", "float", "double"})


def bucket_column(model: DorisTableModel, hash_columns: tuple[str, ...]) -> str | None:
    """The first hash column Iceberg can bucket; None when it can bucket none of them (Doris still
    accepts the table: its rows are then laid out by the partition fields alone)."""
    for name in hash_columns:
        try:
            spark_type = model.column(name).spark_type.lower()
        except KeyError:
            return name
        if spark_type not in UNBUCKETABLE_TYPES:
            return name
    return None


def partition_fields(model: DorisTableModel) -> list[LayoutField]:
    partitions = model.partitions
    assert partitions is not None
    names = partitions.column_names
    if partitions.kind is PartitionKind.LIST:
        return [LayoutField("identity", n) for n in names]
    ranges = [p for p in partitions.formal + partitions.temp if isinstance(p, RangePartition)]
    if len(names) > 1 and any(_has_inner_values(p) for p in ranges):
        return [LayoutField("identity", n) for n in names]
    column_type = partitions.column_types[0]
    if column_type.is_temporal:
        return [LayoutField(_temporal_transform(model, partitions, ranges), names[0])]
    width = _integer_width(ranges)
    return [LayoutField("identity", names[0]) if width <= 1 else LayoutField("truncate", names[0], width)]


def _temporal_transform(model: DorisTableModel, partitions: PartitionSet, ranges: list[RangePartition]) -> str:
    candidates = list(TEMPORAL_ORDER)
    if partitions.column_types[0].is_date:
        candidates.remove("hour")
    start = 0
    if model.auto_partition is not None and model.auto_partition.unit:
        start = _index(DATE_TRUNC_TRANSFORM.get(model.auto_partition.unit, "identity"), candidates)
    dynamic_unit = model.property("dynamic_partition.time_unit")
    if dynamic_unit:
        start = max(start, _index(DYNAMIC_UNIT_TRANSFORM.get(dynamic_unit.upper(), "identity"), candidates))
        if dynamic_unit.upper() == "MONTH" and model.property("dynamic_partition.start_day_of_month", "1") != "1":
            start = max(start, _index("day", candidates))
    for transform in candidates[start:]:
        if all(_aligned(v, transform) for p in ranges for v in _finite_first_values(p)):
            return transform
    return "identity"


def finer_transform_needed(current: str, partition: RangePartition) -> str | None:
    """The transform to evolve to when ``partition`` is not aligned with ``current`` (else None)."""
    if current not in TEMPORAL_ORDER:
        return None
    for transform in TEMPORAL_ORDER[TEMPORAL_ORDER.index(current):]:
        if all(_aligned(v, transform) for v in _finite_first_values(partition)):
            return None if transform == current else transform
    return "identity"


def integer_width_after(current_width: int, partition: RangePartition) -> int:
    """The truncate width that stays aligned once ``partition`` is added."""
    width = current_width
    for value in _finite_first_values(partition):
        width = math.gcd(width, abs(int(value)))
    return width


def _index(transform: str, candidates: list[str]) -> int:
    return candidates.index(transform) if transform in candidates else len(candidates) - 1


def _aligned(value: Any, transform: str) -> bool:
    if transform == "identity":
        return True
    moment = value if isinstance(value, dt.datetime) else dt.datetime.combine(value, dt.time())
    if moment.minute or moment.second or moment.microsecond:
        return False
    if transform == "hour":
        return True
    if moment.hour:
        return False
    if transform == "day":
        return True
    if moment.day != 1:
        return False
    if transform == "month":
        return True
    return moment.month == 1  # year


def _integer_width(ranges: list[RangePartition]) -> int:
    width = 0
    for partition in ranges:
        for value in _finite_first_values(partition):
            width = math.gcd(width, abs(int(value)))
    return width


def _finite_first_values(partition: RangePartition) -> list[Any]:
    """The first-column values of a range's bounds that are real values (not MIN/MAXVALUE)."""
    return [key.values[0] for key in (partition.lower, partition.upper) if _finite(key.values[0])]


def _has_inner_values(partition: RangePartition) -> bool:
    """Whether a multi-column bound sets a column after the first (not MIN)."""
    return any(_finite(v) for key in (partition.lower, partition.upper) for v in key.values[1:])


def _finite(value: Any) -> bool:
    return value is not MIN and value is not MAX


# Iceberg's own table properties (core ``LocationProviders``, also honoured by pyiceberg writers).
VALUE_FREE_PATHS = {"write.object-storage.enabled": "true", "write.object-storage.partitioned-paths": "false"}


def data_path_properties(model: DorisTableModel, layout: list[LayoutField]) -> dict[str, str]:
    """The Iceberg properties that keep raw partition values out of data file paths, for tables
    that need them (an identity field on a string column); empty for the others, whose folders
    (years, integers, buckets) stay short and readable."""
    types = {column.name.lower(): column.spark_type.lower() for column in model.columns}
    if any(field.transform == "identity" and types.get(field.column.lower()) == "string" for field in layout):
        return dict(VALUE_FREE_PATHS)
    return {}
