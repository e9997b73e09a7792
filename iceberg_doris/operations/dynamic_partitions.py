"""``run_dynamic_partition``: one pass of Doris's dynamic-partition scheduler.

For one table, or every table of the catalog with ``dynamic_partition.enable`` or
``partition.retention_count``, it creates the partitions due from now to ``end`` (and history when
asked) and drops whole partitions before ``start`` unless reserved, in the table's
``dynamic_partition.time_zone``; on an AUTO RANGE table with ``partition.retention_count`` = N it
drops the history partitions (upper bound at or before now) beyond the N newest and puts them into
the recycle bin, as Doris's scheduler drops them without ``FORCE``. Each table's pass is one
commit; dropped partitions' rows stay reachable by time travel. The CLI runs it on an interval
(``iceberg-doris --dynamic-partitions-every 600``).
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import TYPE_CHECKING

from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.iceberg_tables import tables_with_any_property
from iceberg_doris.errors import DorisError
from iceberg_doris.operations.partition_changes import commit_model_change, stage_formal_drop, stage_partition_delete
from iceberg_doris.operations.requests import DynamicPartitionChange
from iceberg_doris.operations.tables import DorisTable, open_table
from iceberg_doris.partitioning import RETENTION_COUNT, expired_history_partitions, plan_dynamic_partitions
from iceberg_doris.table_model import DorisTableModel
from iceberg_doris.table_model.partition_predicates import partition_predicate, union
from iceberg_doris.table_model.table_properties import DORIS_PROPERTY_PREFIX

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)
ENABLE_KEY = DORIS_PROPERTY_PREFIX + "dynamic_partition.enable"
RETENTION_KEY = DORIS_PROPERTY_PREFIX + RETENTION_COUNT
RETENTION_OPERATION = "drop history partitions"


def run_dynamic_partition(spark: "SparkSession", table: str | None = None) -> list[DynamicPartitionChange]:
    """One scheduler pass over ``table``, or over every table with dynamic partitions enabled or a
    retention count (a table whose pass fails gets an ERROR line; the others still get their pass)."""
    names = [table] if table else scheduled_tables(spark)
    changes: list[DynamicPartitionChange] = []
    for name in names:
        try:
            changes += run_pass(open_table(spark, name), dt.datetime.now(dt.timezone.utc))
        except DorisError as error:
            if table:
                raise
            log.warning("dynamic partition pass on %s failed: %s", name, error)
            changes.append(DynamicPartitionChange(name, "ERROR", None, None, str(error)))
    return changes


def scheduled_tables(spark: "SparkSession") -> list[str]:
    """The tables a pass without a table visits: dynamic partitions enabled, or a retention count."""
    return tables_with_any_property(IcebergJava(spark), {ENABLE_KEY: "true", RETENTION_KEY: None})


def run_pass(handle: DorisTable, now: dt.datetime) -> list[DynamicPartitionChange]:
    if handle.model.retention_count() is not None:
        return run_retention_pass(handle, now)
    config = handle.model.dynamic_partition()
    if config is None or not config.enable:
        raise DorisError(
            f"Table {handle.name.qualified} has no enabled dynamic partitions and no partition.retention_count: set "
            "dynamic_partition.enable and the other dynamic_partition.* properties (or, on an AUTO RANGE table, "
            "partition.retention_count) first"
        )

    def change(fresh: DorisTable, transaction: JavaObject) -> tuple[DorisTableModel, list[DynamicPartitionChange]]:
        partitions = fresh.require_partitions()
        plan = plan_dynamic_partitions(config, partitions, now)
        dropped = [partitions.get(n) for n in plan.drop]
        if dropped:
            predicate = union([partition_predicate(partitions, p) for p in dropped if p is not None])
            stage_partition_delete(fresh, transaction, predicate, operation="drop expired partitions", partitions=",".join(plan.drop))
        updated = partitions
        for name in plan.drop:
            updated = updated.drop_partition(name, if_exists=True)
        updated = updated.add_all(plan.create)
        table = fresh.name.qualified
        rows = [DynamicPartitionChange(table, "DROP", p.name, p.range_text(), None) for p in dropped if p is not None]
        rows += [DynamicPartitionChange(table, "CREATE", p.name, p.range_text(), None) for p in plan.create]
        rows += [DynamicPartitionChange(table, "ERROR", None, None, message) for message in plan.errors]
        return fresh.model.with_partitions(updated), rows

    return commit_model_change(handle, change, operation="run dynamic partitions on").result


def run_retention_pass(handle: DorisTable, now: dt.datetime) -> list[DynamicPartitionChange]:
    """Drops the history partitions beyond the table's ``partition.retention_count`` newest ones,
    into the recycle bin, in one commit (none when there is nothing to drop)."""

    def change(fresh: DorisTable, transaction: JavaObject) -> tuple[DorisTableModel, list[DynamicPartitionChange]]:
        count = fresh.model.retention_count()
        partitions = fresh.require_partitions()
        expired = expired_history_partitions(partitions, count, now) if count is not None else []
        if not expired:
            return fresh.model, []
        stage_formal_drop(fresh, transaction, partitions, expired, operation=RETENTION_OPERATION)
        updated = partitions
        for partition in expired:
            updated = updated.drop_partition(partition.name)
        table = fresh.name.qualified
        return fresh.model.with_partitions(updated), [
            DynamicPartitionChange(table, "DROP", p.name, p.range_text(), None) for p in expired
        ]

    return commit_model_change(handle, change, operation="run dynamic partitions on").result
