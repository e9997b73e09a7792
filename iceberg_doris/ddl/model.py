"""The parsed form of a Doris ``CREATE TABLE`` statement.

Every class is a frozen dataclass. Classes that hold a ``dict`` (``properties``) compare by value
but are not hashable. Column names referenced by keys, partitions, distribution and cluster keys
are resolved to the column's name *as declared in the column list* (Doris column names are
case-insensitive), so ``definition.column(name)`` always finds them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Literal

from iceberg_doris.ddl.types import DorisType, doris_type_from_sql

__all__ = [
    "KeysModel",
    "DorisType",
    "ColumnDef",
    "PartitionValue",
    "PartitionItemDef",
    "StepPartitionDef",
    "PartitionDesc",
    "DistributionDesc",
    "TableDefinition",
    "MAXVALUE",
    "SUPPORTED_AGGREGATIONS",
    "ALL_AGGREGATIONS",
    "lookup_property",
]

#: The marker stored in :attr:`PartitionValue.values` for ``MAXVALUE``.
MAXVALUE = "MAXVALUE"

#: Aggregations iceberg-doris implements on Iceberg tables.
SUPPORTED_AGGREGATIONS = ("SUM", "MAX", "MIN", "REPLACE", "REPLACE_IF_NOT_NULL")
#: Every aggregation Doris's grammar accepts.
ALL_AGGREGATIONS = SUPPORTED_AGGREGATIONS + ("HLL_UNION", "BITMAP_UNION", "QUANTILE_UNION", "GENERIC")


class KeysModel(str, Enum):
    """Doris's data models (``KeysType``)."""

    DUPLICATE = "DUPLICATE"
    UNIQUE = "UNIQUE"
    AGGREGATE = "AGGREGATE"


@dataclass(frozen=True)
class ColumnDef:
    """One column definition.

    ``default`` is the literal text without quotes (``"10.5"``, ``""``), or ``"CURRENT_TIMESTAMP"``,
    ``"CURRENT_DATE"``, ``"PI"``, ``"E"``, ``"BITMAP_EMPTY"`` for those defaults, or None when there is
    no default or it is ``DEFAULT NULL``; ``default_kind`` tells them apart (``"literal"``,
    ``"null"``, ``"current_timestamp"``, ``"current_date"``, ``"pi"``, ``"e"``, ``"bitmap_empty"`` or None).
    ``nullable`` is what was written (``NOT NULL`` → False), True when nothing was written.
    """

    name: str
    type: DorisType
    nullable: bool = True
    default: str | None = None
    aggregation: str | None = None
    auto_increment: bool = False
    comment: str | None = None
    #: ``KEY`` written after the type (ALTER-style column syntax; informational).
    key: bool = False
    default_kind: str | None = None
    #: precision of ``DEFAULT CURRENT_TIMESTAMP(p)``
    default_precision: int | None = None
    #: start value of ``AUTO_INCREMENT(start)``
    auto_increment_start: int | None = None
    #: ``ON UPDATE CURRENT_TIMESTAMP[(p)]`` was written
    on_update_current_timestamp: bool = False
    #: precision of ``ON UPDATE CURRENT_TIMESTAMP(p)``
    on_update_precision: int | None = None
    #: the expression text of ``[GENERATED ALWAYS] AS (expr)``
    generated: str | None = None
    #: True if ``NULL`` / ``NOT NULL`` was written explicitly
    nullable_explicit: bool = False


@dataclass(frozen=True)
class PartitionValue:
    """One bound or one list tuple: one raw literal per partition column (quoted strings without
    their quotes, numbers as written, None for NULL, :data:`MAXVALUE` for MAXVALUE). A LESS THAN or
    range bound may have fewer values than there are partition columns (Doris fills the rest with
    the minimum)."""

    values: tuple[str | None, ...]

    @property
    def is_max(self) -> bool:
        """True when every value is MAXVALUE."""
        return bool(self.values) and all(v == MAXVALUE for v in self.values)


@dataclass(frozen=True)
class PartitionItemDef:
    """One named partition: ``VALUES LESS THAN`` (``less_than``), ``VALUES [lower, upper)``
    (``lower``/``upper``) or ``VALUES IN (...)`` (``values_in``)."""

    name: str
    kind: Literal["less_than", "fixed_range", "in"]
    less_than: PartitionValue | None = None
    lower: PartitionValue | None = None
    upper: PartitionValue | None = None
    values_in: tuple[PartitionValue, ...] = ()
    properties: dict[str, str] = field(default_factory=dict)
    if_not_exists: bool = False

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True)
class StepPartitionDef:
    """``FROM ("start") TO ("end") INTERVAL n [unit]``; ``unit`` is upper-case (``YEAR``) or None
    for integer steps."""

    start: str
    end: str
    interval: int
    unit: str | None = None


@dataclass(frozen=True)
class PartitionDesc:
    """The partition clause.

    For ``AUTO PARTITION BY RANGE (date_trunc(col, 'unit'))`` (``AUTO`` optional): ``auto`` is True,
    ``auto_function`` is ``"date_trunc"``, ``auto_unit`` the unit lower-cased as written and
    ``columns`` is ``(col,)``. For ``AUTO PARTITION BY LIST (cols)``: ``auto`` True, no function.
    ``items`` are the named partitions, ``steps`` the ``FROM .. TO .. INTERVAL`` batches, each in
    written order.
    """

    kind: Literal["RANGE", "LIST"]
    columns: tuple[str, ...]
    auto: bool = False
    auto_function: str | None = None
    auto_unit: str | None = None
    items: tuple[PartitionItemDef, ...] = ()
    steps: tuple[StepPartitionDef, ...] = ()

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True)
class DistributionDesc:
    """``DISTRIBUTED BY HASH(cols) | RANDOM [BUCKETS n | AUTO]``; ``buckets`` is None for ``AUTO``
    or when no bucket count was written (``auto_buckets`` tells which)."""

    kind: Literal["HASH", "RANDOM"]
    columns: tuple[str, ...] = ()
    buckets: int | None = None
    auto_buckets: bool = False


def lookup_property(properties: dict[str, str], name: str, default: str | None = None) -> str | None:
    """Case-insensitive property lookup (the last matching key wins, as in Doris's map)."""
    found = default
    lowered = name.lower()
    for key, value in properties.items():
        if key.lower() == lowered:
            found = value
    return found


@dataclass(frozen=True)
class TableDefinition:
    """A parsed and validated ``CREATE TABLE``."""

    database: str | None
    table: str
    if_not_exists: bool = False
    external: bool = False
    columns: tuple[ColumnDef, ...] = ()
    #: raw ``INDEX ...`` clauses (kept, unused)
    indexes: tuple[str, ...] = ()
    #: lower-cased engine name, None if not written (Doris's default is olap)
    engine: str | None = None
    keys_model: KeysModel = KeysModel.DUPLICATE
    key_columns: tuple[str, ...] = ()
    cluster_by: tuple[str, ...] = ()
    comment: str | None = None
    partition: PartitionDesc | None = None
    distribution: DistributionDesc | None = None
    #: raw rollup definitions inside ``ROLLUP (...)`` (kept, unused)
    rollups: tuple[str, ...] = ()
    #: as written; use :meth:`get_property` for Doris's case-insensitive lookup
    properties: dict[str, str] = field(default_factory=dict)
    #: True when no KEY clause was written and Doris's default keys were chosen
    keys_defaulted: bool = False
    catalog: str | None = None
    temporary: bool = False

    __hash__ = None  # type: ignore[assignment]

    # -- convenience -------------------------------------------------------------------------
    @property
    def qualified_name(self) -> str:
        """``db.tbl`` (or just ``tbl`` when no database was written)."""
        return f"{self.database}.{self.table}" if self.database else self.table

    def get_property(self, name: str, default: str | None = None) -> str | None:
        """The property ``name`` looked up case-insensitively."""
        return lookup_property(self.properties, name, default)

    def column(self, name: str) -> ColumnDef:
        """The column called ``name`` (case-insensitive); KeyError if there is none."""
        lowered = name.lower()
        for col in self.columns:
            if col.name.lower() == lowered:
                return col
        raise KeyError(name)

    def has_column(self, name: str) -> bool:
        lowered = name.lower()
        return any(c.name.lower() == lowered for c in self.columns)

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    @property
    def value_columns(self) -> tuple[str, ...]:
        """Columns that are not key columns, in declaration order."""
        keys = {k.lower() for k in self.key_columns}
        return tuple(c.name for c in self.columns if c.name.lower() not in keys)

    @property
    def merge_on_write(self) -> bool:
        """UNIQUE tables are merge-on-write unless ``enable_unique_key_merge_on_write`` is false
        (the default since Doris 2.1); False for the other models."""
        if self.keys_model is not KeysModel.UNIQUE:
            return False
        value = self.get_property("enable_unique_key_merge_on_write")
        return value is None or value.strip().lower() == "true"

    @property
    def sequence_col(self) -> str | None:
        """The column named by ``function_column.sequence_col``, as declared, or None."""
        value = self.get_property("function_column.sequence_col")
        if value is None:
            return None
        try:
            return self.column(value.strip()).name
        except KeyError:
            return value.strip()

    @property
    def sequence_type(self) -> DorisType | None:
        """The type of the sequence column: the ``sequence_col`` column's type, else the parsed
        ``function_column.sequence_type``, else None."""
        col = self.sequence_col
        if col is not None and self.has_column(col):
            return self.column(col).type
        value = self.get_property("function_column.sequence_type")
        if value is None:
            return None
        return doris_type_from_sql(value)
