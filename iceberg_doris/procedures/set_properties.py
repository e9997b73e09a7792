"""``doris.set_properties``: Doris ``ALTER TABLE t SET ("key" = "value", ...)``.

Modelled properties are validated as Doris validates them (``dynamic_partition.*`` with Doris's
messages; enabling dynamic partitions creates the partitions due now in the same commit, while
expired partitions are dropped only by scheduler passes, which report what they drop);
properties fixed at creation are refused; storage settings are kept (they change no row), and
refused or unknown properties are refused by name (``ddl.features``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.procedures.parameter_types import STRING, STRING_MAP
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

@register
class SetPropertiesProcedure(Procedure):
    name = "set_properties"
    summary = "Doris ALTER TABLE ... SET (...): changes table properties such as dynamic_partition.*."
    details = (
        "dynamic_partition.* keys are validated together with the table's current ones, with Doris's "
        "messages; turning dynamic partitions on creates the partitions due now in the same commit (expired "
        "partitions are dropped only by doris.run_dynamic_partition, which reports them). "
        "partition.retention_count is Doris's too: AUTO RANGE tables only, never with dynamic_partition.*, a "
        "count > 0; doris.run_dynamic_partition drops the history partitions beyond it. "
        "Properties fixed at creation (enable_unique_key_merge_on_write, function_column.*) are refused. "
        "Storage settings (e.g. replication_num) are kept with no effect on rows; refused and unknown properties "
        "are refused by name, as at create_table (docs/doris-features.md)."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("properties", STRING_MAP, required=True, description="map('key', 'value', ...)"),
    )
    output = (
        OutputColumn("property", "string"),
        OutputColumn("old_value", "string"),
        OutputColumn("new_value", "string"),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        changes = operations.set_properties(spark, args["table"], args["properties"])
        return [(c.property, c.old_value, c.new_value) for c in changes]
