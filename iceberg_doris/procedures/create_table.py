"""``doris.create_table``: a Doris CREATE TABLE statement becomes an Iceberg table.

The Doris model (keys, aggregates, sequence column, partitions, distribution, properties) goes into
the table's properties; key columns become Iceberg identifier fields (unique and aggregate tables
whose key columns are all NOT NULL) and the sort order; the Doris partitions decide the Iceberg partition spec
(:mod:`iceberg_doris.table_model.iceberg_layout`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.procedures.parameter_types import STRING
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class CreateTableProcedure(Procedure):
    name = "create_table"
    summary = "Creates an Iceberg table from a Doris CREATE TABLE statement (models, partitions, properties)."
    details = (
        "Accepts DUPLICATE/UNIQUE/AGGREGATE KEY models, RANGE/LIST/AUTO partitions, DISTRIBUTED BY, and "
        "PROPERTIES (dynamic_partition.*, function_column.sequence_col/type, enable_unique_key_merge_on_write, ...). "
        "Nothing is accepted and ignored: each clause, column attribute and property is implemented as Doris has it, "
        "kept as a storage setting with no effect on rows (replication_num, storage_medium, ...), or refused by name "
        "(TEMPORARY, unknown properties); docs/doris-features.md lists them. "
        "partition.retention_count keeps the newest N history partitions of an AUTO RANGE table "
        "(doris.run_dynamic_partition drops the others). The table name is db.tbl "
        "(or the current namespace); table and database names follow Doris's rule (a letter, then letters, "
        "digits, '-' or '_'; at most 64 characters). IF NOT EXISTS returns status EXISTS for an existing table."
    )
    parameters = (Parameter("ddl", STRING, required=True, description="A Doris CREATE TABLE statement."),)
    output = (
        OutputColumn("table", "string", "db.tbl"),
        OutputColumn("keys_model", "string", "DUPLICATE, UNIQUE or AGGREGATE."),
        OutputColumn("partition_spec", "string", "The Iceberg partition fields chosen for the Doris partitions."),
        OutputColumn("partitions", "bigint", "Formal partitions created with the table."),
        OutputColumn("status", "string", "CREATED, or EXISTS with IF NOT EXISTS."),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        r = operations.create_table(spark, args["ddl"])
        return [(r.table, r.keys_model, r.partition_spec, r.partitions, r.status)]
