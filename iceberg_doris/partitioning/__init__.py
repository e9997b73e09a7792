"""The Doris partition domain model: keys, RANGE/LIST partitions, a table's formal and temp
partitions, REPLACE PARTITION rules, auto and dynamic partitions, and their JSON form.

Pure Python (standard library only); every rule violation raises
:class:`iceberg_doris.errors.PartitionError` (invalid ``dynamic_partition.*`` properties raise
:class:`iceberg_doris.errors.InvalidTableDefinitionError`) with Doris's own message.
"""

from __future__ import annotations

from iceberg_doris.partitioning.auto_partition import (
    AUTO_RANGE_UNITS,
    DEFAULT_MAX_AUTO_PARTITION_NUM,
    AutoPartitionPlan,
    auto_list_partition,
    auto_list_partition_name,
    auto_range_bounds,
    auto_range_partition,
    auto_range_partition_name,
    check_auto_partition_limit,
    date_trunc,
    plan_auto_partitions,
    validate_auto_range_column,
    validate_date_trunc_unit,
)
from iceberg_doris.partitioning.dynamic_partition import (
    DEFAULT_MAX_DYNAMIC_PARTITION_NUM,
    DYNAMIC_PARTITION_PROPERTIES,
    DynamicPartitionConfig,
    DynamicPlan,
    apply_dynamic_plan,
    check_alter_allowed,
    dynamic_partition_name,
    partition_border,
    plan_dynamic_partitions,
    resolve_time_zone,
    validate_dynamic_properties,
)
from iceberg_doris.partitioning.keys import (
    MAX,
    MAXVALUE,
    MIN,
    PartitionColumnType,
    coerce_value,
    format_key_value,
    parse_key_literal,
)
from iceberg_doris.partitioning.lists import ListPartition, make_list_values
from iceberg_doris.partitioning.partition_set import (
    Partition,
    PartitionColumn,
    PartitionKind,
    PartitionSet,
    check_partition_name,
)
from iceberg_doris.partitioning.ranges import (
    RangeKey,
    RangePartition,
    contains,
    expand_batch,
    intersects,
    range_text,
)
from iceberg_doris.partitioning.replace_rules import (
    ReplaceResult,
    check_replace,
    final_partition_names,
    parse_replace_properties,
    replace_partitions,
    swap_partitions,
)
from iceberg_doris.partitioning.retention import (
    RETENTION_COUNT,
    check_retention_on_alter,
    check_retention_on_create,
    expired_history_partitions,
    has_retention,
    parse_retention_count,
)
from iceberg_doris.partitioning.serialization import FORMAT_VERSION, from_json, to_json

__all__ = [
    "AUTO_RANGE_UNITS",
    "DEFAULT_MAX_AUTO_PARTITION_NUM",
    "DEFAULT_MAX_DYNAMIC_PARTITION_NUM",
    "DYNAMIC_PARTITION_PROPERTIES",
    "FORMAT_VERSION",
    "MAX",
    "MAXVALUE",
    "MIN",
    "AutoPartitionPlan",
    "DynamicPartitionConfig",
    "DynamicPlan",
    "ListPartition",
    "Partition",
    "PartitionColumn",
    "PartitionColumnType",
    "PartitionKind",
    "PartitionSet",
    "RangeKey",
    "RangePartition",
    "ReplaceResult",
    "apply_dynamic_plan",
    "auto_list_partition",
    "auto_list_partition_name",
    "auto_range_bounds",
    "auto_range_partition",
    "auto_range_partition_name",
    "check_alter_allowed",
    "check_auto_partition_limit",
    "check_partition_name",
    "check_replace",
    "coerce_value",
    "contains",
    "date_trunc",
    "dynamic_partition_name",
    "expand_batch",
    "final_partition_names",
    "format_key_value",
    "from_json",
    "intersects",
    "make_list_values",
    "parse_key_literal",
    "parse_replace_properties",
    "partition_border",
    "plan_auto_partitions",
    "plan_dynamic_partitions",
    "range_text",
    "replace_partitions",
    "resolve_time_zone",
    "swap_partitions",
    "to_json",
    "validate_auto_range_column",
    "validate_date_trunc_unit",
    "validate_dynamic_properties",
    # partition.retention_count
    "RETENTION_COUNT",
    "check_retention_on_alter",
    "check_retention_on_create",
    "expired_history_partitions",
    "has_retention",
    "parse_retention_count",
]
