"""A Doris table model on an Iceberg table: keys model, key columns, per-column Doris types and
aggregates, sequence column, partitions (formal and temporary), distribution and Doris properties.

It is built from a parsed ``CREATE TABLE`` (:func:`model_from_definition`) and stored in Iceberg
table properties (:mod:`iceberg_doris.table_model.table_properties`), so every engine sees it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from iceberg_doris.ddl import (
    MAXVALUE,
    ColumnDef,
    DorisType,
    KeysModel,
    PartitionDesc,
    PartitionItemDef,
    PartitionValue,
    TableDefinition,
    spark_type_for,
)
from iceberg_doris.errors import InvalidTableDefinitionError
from iceberg_doris.partitioning import (
    RETENTION_COUNT,
    DynamicPartitionConfig,
    PartitionColumnType,
    PartitionSet,
    apply_dynamic_plan,
    check_retention_on_create,
    parse_retention_count,
    plan_dynamic_partitions,
    validate_auto_range_column,
    validate_dynamic_properties,
)

AGGREGATIONS = ("SUM", "MAX", "MIN", "REPLACE", "REPLACE_IF_NOT_NULL")
HIDDEN_SEQUENCE_COLUMN = "__DORIS_SEQUENCE_COL__"
"""Doris's hidden sequence column; a real Iceberg column here (readers see it), fed by the load's
``sequence_col`` on tables declared with ``function_column.sequence_type``."""


@dataclass(frozen=True)
class ColumnModel:
    """One column: its Doris type (as Doris writes it) and the Spark type of its Iceberg column."""

    name: str
    doris_type: str
    spark_type: str
    nullable: bool
    is_key: bool = False
    aggregation: str | None = None
    default: str | None = None
    comment: str | None = None
    #: ``ON UPDATE CURRENT_TIMESTAMP``: an update that does not set the column sets it to the
    #: load's time (its default), where it would otherwise keep the stored value
    on_update: bool = False
    #: ``[GENERATED ALWAYS] AS (expr)``: the Spark SQL expression every load computes the column
    #: from (over the table's other columns); a load's own value for it is not used
    generated: str | None = None
    #: the ordinary (not generated) columns ``generated`` reads, found by Spark at create_table:
    #: a partial update must supply them (Doris's rule)
    generated_refs: tuple[str, ...] = ()
    #: ``AUTO_INCREMENT[(start)]``: the first value loads generate (Doris's default start is 1);
    #: None for any other column
    auto_increment_start: int | None = None

    @property
    def auto_increment(self) -> bool:
        return self.auto_increment_start is not None


@dataclass(frozen=True)
class AutoPartition:
    """``AUTO PARTITION BY RANGE (date_trunc(col, unit))`` or ``AUTO PARTITION BY LIST (cols)``."""

    kind: str  # "RANGE" or "LIST"
    unit: str | None = None


@dataclass(frozen=True)
class Distribution:
    """``DISTRIBUTED BY HASH(cols) BUCKETS n|AUTO`` or ``DISTRIBUTED BY RANDOM``."""

    kind: str
    columns: tuple[str, ...] = ()
    buckets: int | None = None  # None: AUTO

    @property
    def sql(self) -> str:
        cols = f"({', '.join(self.columns)})" if self.kind == "HASH" else ""
        return f"{self.kind}{cols} BUCKETS {self.buckets if self.buckets else 'AUTO'}"


@dataclass(frozen=True)
class DorisTableModel:
    """Everything Doris knows about a table beyond its Iceberg schema."""

    keys_model: KeysModel
    key_columns: tuple[str, ...]
    columns: tuple[ColumnModel, ...]
    merge_on_write: bool = False
    sequence_col: str | None = None
    sequence_type: str | None = None
    partitions: PartitionSet | None = None
    auto_partition: AutoPartition | None = None
    distribution: Distribution | None = None
    properties: Mapping[str, str] = field(default_factory=dict)
    # Temporary partitions of an unpartitioned table (Doris ``ADD TEMPORARY PARTITION name``, no
    # VALUES): names only, each an Iceberg branch like any temp partition. Partitioned tables keep
    # theirs in ``partitions``.
    unpartitioned_temp: tuple[str, ...] = ()

    def column(self, name: str) -> ColumnModel:
        for column in self.columns:
            if column.name.lower() == name.lower():
                return column
        raise KeyError(name)

    @property
    def null_safe_keys(self) -> bool:
        """Whether a key column of this UNIQUE or AGGREGATE KEY table is nullable (declared ``NULL``):
        then its keys match with NULL equal to NULL (Doris's one NULL key), and the table has no
        Iceberg identifier fields, which must be required."""
        if self.keys_model is KeysModel.DUPLICATE:
            return False
        return any(self.column(k).nullable for k in self.key_columns)

    @property
    def value_columns(self) -> tuple[ColumnModel, ...]:
        return tuple(c for c in self.columns if not c.is_key)

    @property
    def auto_increment_column(self) -> ColumnModel | None:
        """The table's ``AUTO_INCREMENT`` column (Doris allows one), if it has one."""
        return next((c for c in self.columns if c.auto_increment), None)

    @property
    def loadable_columns(self) -> tuple[ColumnModel, ...]:
        """The columns a load supplies (the hidden sequence column is fed by ``sequence_col``)."""
        return tuple(c for c in self.columns if c.name != HIDDEN_SEQUENCE_COLUMN)

    @property
    def sequence_column(self) -> str | None:
        """The Iceberg column holding each row's sequence value, if the table has one."""
        if self.sequence_col:
            return self.sequence_col
        if self.sequence_type:
            return HIDDEN_SEQUENCE_COLUMN
        return None

    @property
    def is_partitioned(self) -> bool:
        return self.partitions is not None

    @property
    def is_auto_range(self) -> bool:
        return self.auto_partition is not None and self.auto_partition.kind == "RANGE"

    @property
    def skip_bitmap(self) -> bool:
        """Whether the table takes flexible partial updates (``enable_unique_key_skip_bitmap_column``)."""
        return (self.property(SKIP_BITMAP_PROPERTY) or "").strip().lower() == "true"

    def property(self, key: str, default: str | None = None) -> str | None:
        return self.properties.get(key.lower(), default)

    def retention_count(self) -> int | None:
        """``partition.retention_count``: how many history partitions a scheduler pass keeps
        (None: the table keeps them all)."""
        text = self.property(RETENTION_COUNT)
        return None if text is None else parse_retention_count(text)

    def dynamic_partition(self) -> DynamicPartitionConfig | None:
        """The validated dynamic-partition config, or None when the table has none."""
        if self.partitions is None or not any(k.startswith("dynamic_partition.") for k in self.properties):
            return None
        return validate_dynamic_properties(
            dict(self.properties),
            self.partitions,
            self.auto_partition is not None,
            column_name=self.partitions.column_names[0],
            partition_kind=self.partitions.kind,
            auto_unit=self.auto_partition.unit if self.auto_partition else None,
            default_buckets=self.distribution.buckets if self.distribution else None,
        )

    def with_partitions(self, partitions: PartitionSet) -> "DorisTableModel":
        return replace(self, partitions=partitions)

    def with_unpartitioned_temp(self, names: tuple[str, ...]) -> "DorisTableModel":
        return replace(self, unpartitioned_temp=tuple(names))

    def with_properties(self, properties: Mapping[str, str]) -> "DorisTableModel":
        return replace(self, properties={k.lower(): v for k, v in properties.items()})

    def with_hidden_sequence(self, sequence: DorisType) -> "DorisTableModel":
        """The model with a hidden sequence column of type ``sequence`` (Doris ``ENABLE FEATURE
        "SEQUENCE_LOAD"``): the column is the last one, as Doris adds it."""
        return replace(self, columns=self.columns + (hidden_sequence_column(sequence),), sequence_type=sequence.sql)


def hidden_sequence_column(sequence: DorisType) -> ColumnModel:
    """``__DORIS_SEQUENCE_COL__`` of type ``sequence``: nullable, as Doris's is (rows written before
    it existed hold NULL, smaller than every value)."""
    return ColumnModel(HIDDEN_SEQUENCE_COLUMN, sequence.sql, spark_type_for(sequence), nullable=True)


def duplicate_model_for(columns: tuple[ColumnModel, ...]) -> DorisTableModel:
    """What a table created outside iceberg-doris is: a duplicate-key (append) table."""
    return DorisTableModel(KeysModel.DUPLICATE, (), columns)


#: Doris's property for flexible partial updates (``UPDATE_FLEXIBLE_COLUMNS``); Doris adds its
#: hidden skip-bitmap column, here the property alone says the table takes them.
SKIP_BITMAP_PROPERTY = "enable_unique_key_skip_bitmap_column"


def _check_skip_bitmap(properties: dict[str, str], merge_on_write_unique: bool) -> None:
    """``enable_unique_key_skip_bitmap_column``: true or false; true only on merge-on-write UNIQUE
    KEY tables. Kept as ``"true"``; ``"false"`` is dropped, as Doris's SHOW CREATE TABLE leaves it out."""
    value = properties.get(SKIP_BITMAP_PROPERTY)
    if value is None:
        return
    if value.strip().lower() not in ("true", "false"):
        raise InvalidTableDefinitionError(f"{SKIP_BITMAP_PROPERTY} must be `true` or `false`, not {value!r}")
    if value.strip().lower() == "false":
        del properties[SKIP_BITMAP_PROPERTY]
        return
    if not merge_on_write_unique:
        raise InvalidTableDefinitionError(
            f"{SKIP_BITMAP_PROPERTY} = true needs a merge-on-write UNIQUE KEY table (flexible partial updates are "
            "only supported on merge-on-write unique tables)"
        )
    properties[SKIP_BITMAP_PROPERTY] = "true"


def model_from_definition(definition: TableDefinition, *, now: dt.datetime | None = None) -> DorisTableModel:
    """Builds and validates the model of a parsed CREATE TABLE, including its initial partitions
    (predefined ones, FROM..TO..INTERVAL batches, and dynamic partitions due at ``now``)."""
    keys = set(definition.key_columns)
    columns = tuple(_column_model(c, c.name in keys, definition.keys_model) for c in definition.columns)
    if definition.sequence_type is not None and definition.sequence_col is None:
        columns += (hidden_sequence_column(definition.sequence_type),)
    properties = {k.lower(): v for k, v in definition.properties.items()}
    distribution = None
    if definition.distribution is not None:
        d = definition.distribution
        distribution = Distribution(d.kind, tuple(d.columns), d.buckets)
    auto = None
    partitions = None
    desc = definition.partition
    check_retention_on_create(properties, auto_range=desc is not None and desc.auto and desc.kind == "RANGE")
    _check_skip_bitmap(properties, definition.keys_model is KeysModel.UNIQUE and definition.merge_on_write)
    dynamic_keys = any(key.startswith("dynamic_partition.") for key in properties)
    if dynamic_keys and (definition.partition is None or definition.partition.kind != "RANGE"):
        # Doris's CREATE TABLE refuses them on unpartitioned and LIST tables with this message
        # (InternalCatalog.createOlapTable; CreateTableTest "tbl19", DynamicPartitionTableTest).
        raise InvalidTableDefinitionError("Only support dynamic partition properties on range partition table")
    if definition.partition is not None:
        auto, partitions = _partitions(definition, definition.partition)
    model = DorisTableModel(
        keys_model=definition.keys_model,
        key_columns=tuple(definition.key_columns),
        columns=columns,
        merge_on_write=definition.keys_model is KeysModel.UNIQUE and definition.merge_on_write,
        sequence_col=definition.sequence_col,
        sequence_type=definition.sequence_type.sql if definition.sequence_type else None,
        partitions=partitions,
        auto_partition=auto,
        distribution=distribution,
        properties=properties,
    )
    dynamic = model.dynamic_partition()
    if dynamic is not None and dynamic.enable and model.partitions is not None:
        moment = now or dt.datetime.now(dt.timezone.utc)
        plan = plan_dynamic_partitions(dynamic, model.partitions, moment)
        model = model.with_partitions(apply_dynamic_plan(model.partitions, plan))
    return model


def _column_model(column: ColumnDef, is_key: bool, keys_model: KeysModel) -> ColumnModel:
    aggregation = column.aggregation.upper() if column.aggregation else None
    nullable = column.nullable
    if is_key and keys_model is not KeysModel.DUPLICATE:
        # Doris makes a key column with no NULL / NOT NULL nullable (ColumnNullableType.DEFAULT);
        # here it stays NOT NULL, an Iceberg identifier field other engines find the key by. A key
        # declared NULL is nullable, as in Doris: NULL is then one key (docs/doris-features.md).
        nullable = column.nullable and column.nullable_explicit
    return ColumnModel(
        name=column.name,
        doris_type=column.type.sql,
        spark_type=spark_type_for(column.type),
        nullable=nullable,
        is_key=is_key,
        aggregation=aggregation,
        default=_default_text(column),
        comment=column.comment,
        on_update=column.on_update_current_timestamp,
        generated=column.generated,
        auto_increment_start=(1 if column.auto_increment_start is None else column.auto_increment_start)
        if column.auto_increment else None,
    )


def _default_text(column: ColumnDef) -> str | None:
    # Doris keeps CURRENT_TIMESTAMP(p) as written (its DefaultValue), and p = 0 as CURRENT_TIMESTAMP.
    if column.default_kind == "current_timestamp" and column.default_precision:
        return f"CURRENT_TIMESTAMP({column.default_precision})"
    return column.default


def partition_column_type(definition: TableDefinition, name: str) -> PartitionColumnType:
    column = definition.column(name)
    return PartitionColumnType.from_sql(column.type.sql)


def _partitions(definition: TableDefinition, desc: PartitionDesc) -> tuple[AutoPartition | None, PartitionSet]:
    names = list(desc.columns)
    types = [partition_column_type(definition, n) for n in names]
    nullable = [definition.column(n).nullable for n in names]
    auto = None
    if desc.auto:
        if desc.kind == "RANGE":
            validate_auto_range_column(types[0], nullable[0])
            auto = AutoPartition("RANGE", (desc.auto_unit or "").lower())
        else:
            auto = AutoPartition("LIST")
    partition_set = PartitionSet.new(desc.kind, names, types, nullable)
    for item in desc.items:
        partition_set = _add_item(partition_set, item)
    for step in desc.steps:
        partition_set = partition_set.add_batch(step.start, step.end, step.interval, step.unit)
    return auto, partition_set


def _add_item(partition_set: PartitionSet, item: PartitionItemDef) -> PartitionSet:
    if item.kind == "less_than":
        assert item.less_than is not None
        return partition_set.add_partition(item.name, values_less_than=_bound(item.less_than))
    if item.kind == "fixed_range":
        assert item.lower is not None and item.upper is not None
        return partition_set.add_partition(item.name, values_range=(_bound(item.lower), _bound(item.upper)))
    if item.kind == "in":
        values = [list(v.values) if len(v.values) > 1 else v.values[0] for v in item.values_in]
        return partition_set.add_partition(item.name, values_in=values)
    raise InvalidTableDefinitionError(f"Unsupported partition definition {item.kind} for {item.name}")


def _bound(value: PartitionValue) -> object:
    """A bound as PartitionSet takes it: one literal, MAXVALUE, or a list for several columns."""
    values = [MAXVALUE if v == MAXVALUE else v for v in value.values]
    return values[0] if len(values) == 1 else values
