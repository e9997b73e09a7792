"""``add_partition``: Doris ``ALTER TABLE t ADD [TEMPORARY] PARTITION``.

A formal partition is a change to the table's Doris partitions (a property) and, when its bounds
need a finer Iceberg transform, an evolution of the partition spec, in one commit. A temporary
partition is also an Iceberg branch (see :mod:`iceberg_doris.operations.temp_partitions`), created
in the same commit.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.engine.iceberg_tables import current_layout
from iceberg_doris.operations import temp_partitions, unpartitioned_temp
from iceberg_doris.operations.partition_changes import commit_model_change, partitions_after
from iceberg_doris.operations.requests import AddPartitionRequest, AddPartitionResult
from iceberg_doris.operations.tables import DorisTable, open_table
from iceberg_doris.partitioning import check_alter_allowed
from iceberg_doris.table_model import DorisTableModel

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def add_partition(spark: "SparkSession", table: str, request: AddPartitionRequest) -> AddPartitionResult:
    """Adds a RANGE or LIST partition (or a temporary one) in one commit."""
    handle = open_table(spark, table)
    name, temporary, values = request.partition, request.temporary, request.values

    def change(fresh: DorisTable, transaction: JavaObject) -> tuple[DorisTableModel, AddPartitionResult]:
        if temporary and unpartitioned_temp.applies(fresh):
            given = any(v is not None for v in (values.values_less_than, values.values_range, values.values_in))
            model, branch = unpartitioned_temp.stage_add(fresh, transaction, name, has_values=given)
            return model, AddPartitionResult(name, None, True, branch, "")
        partitions = fresh.require_partitions()
        if not temporary:
            check_alter_allowed(fresh.model.dynamic_partition(), fresh.name.name)
        updated = partitions.add_partition(
            name,
            values_less_than=values.values_less_than,
            values_range=values.values_range,
            values_in=values.values_in,
            temporary=temporary,
        )
        branch = temp_partitions.stage_create(fresh, transaction, name) if temporary else None
        model = partitions_after(fresh, updated)
        return model, AddPartitionResult(name, updated.range_text(name, temporary), temporary, branch, "")

    def with_spec(result: AddPartitionResult, staged: JavaObject) -> AddPartitionResult:
        return replace(result, partition_spec=", ".join(current_layout(staged)))

    return commit_model_change(handle, change, operation="add partition to", finish=with_spec).result
