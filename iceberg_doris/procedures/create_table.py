"""``doris.create_table``: a Doris CREATE TABLE statement becomes an Iceberg table.

The Doris model (keys, aggregates, sequence column, partitions, distribution, properties) goes into
the table's properties; key columns become Iceberg identifier fields (unique and aggregate tables)
and the sort order; the Doris partitions decide the Iceberg partition spec
(:mod:`iceberg_doris.table_model.iceberg_layout`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from py4j.protocol import Py4JJavaError

from iceberg_doris.ddl import parse_create_table
from iceberg_doris.engine.iceberg_java import IcebergJava, java_class
from iceberg_doris.engine.iceberg_tables import create_table
from iceberg_doris.engine.name_rules import check_column_name, check_database_name, check_table_name
from iceberg_doris.engine.table_names import TableName
from iceberg_doris.errors import ProcedureArgumentError, TableStateError
from iceberg_doris.faults import crash_point
from iceberg_doris.procedures.parameter_types import STRING
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register
from iceberg_doris.table_model import choose_layout, model_from_definition

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class CreateTableProcedure(Procedure):
    name = "create_table"
    summary = "Creates an Iceberg table from a Doris CREATE TABLE statement (models, partitions, properties)."
    details = (
        "Accepts DUPLICATE/UNIQUE/AGGREGATE KEY models, RANGE/LIST/AUTO partitions, DISTRIBUTED BY, and "
        "PROPERTIES (dynamic_partition.*, function_column.sequence_col/type, enable_unique_key_merge_on_write, ...). "
        "Unmodelled properties such as replication_num are kept and have no effect. The table name is db.tbl "
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
        definition = parse_create_table(args["ddl"])
        iceberg = IcebergJava(spark)
        if definition.catalog and definition.catalog.lower() != iceberg.catalog_name.lower():
            raise ProcedureArgumentError(
                f"Catalog {definition.catalog} is not this session's catalog ({iceberg.catalog_name}); "
                f"write db.tbl or {iceberg.catalog_name}.db.tbl"
            )
        database = definition.database or spark.catalog.currentDatabase()
        # Names become catalog keys, folders of the warehouse and SQL identifiers: refuse, before
        # anything is created, the ones that one of them cannot serve.
        check_table_name(definition.table)
        check_database_name(database)
        for column in definition.columns:
            check_column_name(column.name)
        name = TableName(database, definition.table)
        if not iceberg.namespace_exists(database):
            raise TableStateError(f"Unknown database '{database}': create it first with CREATE NAMESPACE {database}")
        model = model_from_definition(definition)
        layout = choose_layout(model)
        spec_text = ", ".join(f.text for f in layout) or "unpartitioned"
        partitions = len(model.partitions.formal) if model.partitions is not None else 0
        if iceberg.table_exists(name):
            if definition.if_not_exists:
                return [(name.qualified, model.keys_model.value, spec_text, partitions, "EXISTS")]
            raise TableStateError(f"Table '{definition.table}' already exists in {database}")
        try:
            crash_point("create_table", "before-commit")
            create_table(iceberg, name, model, layout)
        except Py4JJavaError as error:
            if java_class(error) == "org.apache.iceberg.exceptions.AlreadyExistsException":
                raise TableStateError(f"Table '{definition.table}' already exists in {database}") from None
            raise
        crash_point("create_table", "after-commit")
        return [(name.qualified, model.keys_model.value, spec_text, partitions, "CREATED")]
