"""``create_table``: a Doris CREATE TABLE statement becomes an Iceberg table.

The Doris model (keys, aggregates, sequence column, partitions, distribution, properties) goes into
the table's properties; key columns become Iceberg identifier fields (unique and aggregate tables
whose key columns are all NOT NULL) and the sort order; the Doris partitions decide the Iceberg partition spec
(:mod:`iceberg_doris.table_model.iceberg_layout`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from iceberg_doris.ddl import parse_create_table
from iceberg_doris.engine.auto_increment import check_counters_available
from iceberg_doris.engine.faults import crash_point
from iceberg_doris.engine.iceberg_java import IcebergJava
from iceberg_doris.engine.iceberg_tables import create_table as create_iceberg_table
from iceberg_doris.engine.table_names import TableName
from iceberg_doris.errors import ProcedureArgumentError, TableStateError
from iceberg_doris.names.rules import check_column_name, check_database_name, check_table_name
from iceberg_doris.operations.generated_columns import check_generated_columns
from iceberg_doris.operations.requests import CreateTableResult
from iceberg_doris.table_model import choose_layout, model_from_definition

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def create_table(spark: "SparkSession", ddl: str) -> CreateTableResult:
    """Creates the Iceberg table a Doris CREATE TABLE statement describes, in one catalog commit."""
    definition = parse_create_table(ddl)
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
    model = check_generated_columns(spark, model_from_definition(definition))
    if model.auto_increment_column is not None:
        check_counters_available(iceberg)  # loads could not generate the column's values
    layout = choose_layout(model)
    spec_text = ", ".join(f.text for f in layout) or "unpartitioned"
    partitions = len(model.partitions.formal) if model.partitions is not None else 0
    if iceberg.table_exists(name):
        if definition.if_not_exists:
            return CreateTableResult(name.qualified, model.keys_model.value, spec_text, partitions, "EXISTS")
        raise TableStateError(f"Table '{definition.table}' already exists in {database}")
    crash_point("create_table", "before-commit")
    if create_iceberg_table(iceberg, name, model, layout, definition.comment) is None:
        raise TableStateError(f"Table '{definition.table}' already exists in {database}")
    crash_point("create_table", "after-commit")
    return CreateTableResult(name.qualified, model.keys_model.value, spec_text, partitions, "CREATED")
