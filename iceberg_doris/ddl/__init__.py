"""Doris ``CREATE TABLE`` parsing (pure Python, no third-party parser).

- :func:`parse_create_table` turns a Doris ``CREATE TABLE`` statement into a validated
  :class:`TableDefinition`.
- :func:`spark_type_for` maps a :class:`DorisType` to the Spark SQL type of the Iceberg column;
  :func:`doris_type_from_sql` reads a stored type string back; :func:`sequence_type_from_text` reads
  ``function_column.sequence_type`` with Doris's checks.
"""

from iceberg_doris.ddl.model import (
    MAXVALUE,
    ColumnDef,
    DistributionDesc,
    DorisType,
    KeysModel,
    PartitionDesc,
    PartitionItemDef,
    PartitionValue,
    StepPartitionDef,
    TableDefinition,
    lookup_property,
)
from iceberg_doris.ddl.parser import ALL_AGGREGATIONS, SUPPORTED_AGGREGATIONS, parse_create_table
from iceberg_doris.ddl.tokens import Token, tokenize
from iceberg_doris.ddl.types import doris_type_from_sql, spark_type_for
from iceberg_doris.ddl.validation import sequence_type_from_text

__all__ = [
    "ALL_AGGREGATIONS",
    "MAXVALUE",
    "SUPPORTED_AGGREGATIONS",
    "ColumnDef",
    "DistributionDesc",
    "DorisType",
    "KeysModel",
    "PartitionDesc",
    "PartitionItemDef",
    "PartitionValue",
    "StepPartitionDef",
    "TableDefinition",
    "Token",
    "doris_type_from_sql",
    "lookup_property",
    "parse_create_table",
    "sequence_type_from_text",
    "spark_type_for",
    "tokenize",
]
