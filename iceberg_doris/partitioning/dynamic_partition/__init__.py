"""Dynamic partitions (spec §5.4), by job:

- ``properties``: the ``dynamic_partition.*`` keys, validated with Doris's messages into a
  :class:`DynamicPartitionConfig` (``validate_dynamic_properties``, ``check_alter_allowed``);
- ``time_zones``: ``dynamic_partition.time_zone`` values as a ``tzinfo``;
- ``scheduler``: one scheduler pass at a given time (``plan_dynamic_partitions``: what to create
  and what to drop; ``apply_dynamic_plan``).
"""

from iceberg_doris.partitioning.dynamic_partition.properties import (
    DEFAULT_MAX_DYNAMIC_PARTITION_NUM,
    DYNAMIC_PARTITION_PROPERTIES,
    MIN_START_OFFSET,
    DynamicPartitionConfig,
    check_alter_allowed,
    validate_dynamic_properties,
)
from iceberg_doris.partitioning.dynamic_partition.scheduler import (
    DynamicPlan,
    apply_dynamic_plan,
    dynamic_partition_name,
    partition_border,
    plan_dynamic_partitions,
)
from iceberg_doris.partitioning.dynamic_partition.time_zones import resolve_time_zone

__all__ = [
    "DEFAULT_MAX_DYNAMIC_PARTITION_NUM",
    "DYNAMIC_PARTITION_PROPERTIES",
    "DynamicPartitionConfig",
    "DynamicPlan",
    "MIN_START_OFFSET",
    "apply_dynamic_plan",
    "check_alter_allowed",
    "dynamic_partition_name",
    "partition_border",
    "plan_dynamic_partitions",
    "resolve_time_zone",
    "validate_dynamic_properties",
]
