"""``set_properties``: Doris ``ALTER TABLE t SET ("key" = "value", ...)``.

Modelled properties are validated as Doris validates them (``dynamic_partition.*`` and
``partition.retention_count`` with Doris's messages; enabling dynamic partitions creates the
partitions due now in the same commit, while expired partitions, and history partitions beyond the
retention count, are dropped only by scheduler passes, which report what they drop);
properties fixed at creation are refused; storage settings are kept (they change no row), and
refused or unknown properties are refused by name (``ddl.features``, as at ``create_table``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import TYPE_CHECKING

from iceberg_doris.ddl.features import check_properties
from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.errors import PartitionError, ProcedureArgumentError
from iceberg_doris.operations import recycle_bin
from iceberg_doris.operations.partition_changes import commit_model_change
from iceberg_doris.operations.requests import PropertyChange
from iceberg_doris.operations.tables import DorisTable, open_table
from iceberg_doris.partitioning import PartitionKind, check_retention_on_alter, plan_dynamic_partitions
from iceberg_doris.table_model import DorisTableModel

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

FIXED_AT_CREATION = {
    "enable_unique_key_merge_on_write": "merge-on-write is chosen when the table is created",
    "function_column.sequence_col": "the sequence column is chosen when the table is created",
    "function_column.sequence_type": (
        "the sequence column is chosen when the table is created; give a UNIQUE KEY table a hidden one with "
        "doris.enable_feature(table, 'SEQUENCE_LOAD', map('function_column.sequence_type', '<type>'))"
    ),
    "format-version": "the Iceberg format version is chosen when the table is created",
    "enable_unique_key_skip_bitmap_column": (
        "it is chosen when the table is created; turn flexible partial updates on with "
        "doris.enable_feature(table, 'UPDATE_FLEXIBLE_COLUMNS')"
    ),
}


# Doris's ALTER TABLE ... SET on a table without dynamic properties whose new ones fail its input
# check, as on a table without one RANGE partition column (Alter.processAlterOlapTable; AlterTest
# testSetDynamicPropertiesInNormalTable). CREATE TABLE says "Only support dynamic partition
# properties on range partition table" instead (table_model.model).
NOT_DYNAMIC_MESSAGE = (
    "Table {db}.{table} is not a dynamic partition table. Use command `HELP ALTER TABLE` to see how to change "
    "a normal table to a dynamic partition table."
)


def _takes_dynamic_partitions(model: DorisTableModel) -> bool:
    """Partitioned by RANGE on one column: the only tables Doris gives dynamic partitions."""
    partitions = model.partitions
    return partitions is not None and partitions.kind is PartitionKind.RANGE and len(partitions.column_names) == 1


def set_properties(spark: "SparkSession", table: str, properties: Mapping[str, str]) -> list[PropertyChange]:
    """Doris ALTER TABLE ... SET (...): validates and stores the properties in one commit."""
    changes = {key.strip().lower(): value for key, value in properties.items()}
    if not changes:
        raise ProcedureArgumentError("properties is empty: give map('key', 'value', ...)")
    for key, reason in FIXED_AT_CREATION.items():
        if key in changes:
            raise ProcedureArgumentError(f"Cannot set {key}: {reason}")
    check_properties(changes)  # nothing is stored and ignored
    if recycle_bin.EXPIRE_PROPERTY in changes:
        recycle_bin.parse_expire_seconds(changes[recycle_bin.EXPIRE_PROPERTY])
    handle = open_table(spark, table)

    def change(fresh: DorisTable, transaction: JavaObject) -> tuple[DorisTableModel, list[PropertyChange]]:
        old = dict(fresh.model.properties)
        model = fresh.model.with_properties(old | changes)
        check_retention_on_alter(changes, model.properties, auto_range=fresh.model.is_auto_range)
        if any(k.startswith("dynamic_partition.") for k in changes):
            if not _takes_dynamic_partitions(fresh.model):
                raise PartitionError(NOT_DYNAMIC_MESSAGE.format(db=fresh.name.namespace, table=fresh.name.name))
            config = model.dynamic_partition()
            if config is not None and config.enable:
                # Partitions due now appear at once; expired ones are dropped only by a
                # scheduler pass (run_dynamic_partition), which reports what it drops.
                plan = plan_dynamic_partitions(config, model.partitions, dt.datetime.now(dt.timezone.utc))
                model = model.with_partitions(model.partitions.add_all(plan.create))
        return model, [PropertyChange(key, old.get(key), value) for key, value in sorted(changes.items())]

    return commit_model_change(handle, change, operation="set properties of").result
