"""The key index's Spark settings (read at each load) and the column types it covers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from iceberg_doris.engine import spark_settings

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ENABLED_CONF = "spark.doris.keyIndex.enabled"
MAX_ROWS_CONF = "spark.doris.keyIndex.maxRows"
PERSIST_CONF = "spark.doris.keyIndex.persist"
BUILD_ON_LOAD_CONF = "spark.doris.keyIndex.buildOnLoad"
# Read in the JVM (KeyIndexRows): ``false`` reads hit files through Iceberg's readers instead of
# decoding their pages.
ROWS_FROM_PAGES_CONF = "spark.doris.keyIndex.rowsFromPages"
DEFAULT_MAX_ROWS = 50_000_000
# Spark types of key columns the index encodes (``KeyCodec``): integers, dates and timestamps,
# strings, decimals (LARGEINT is DECIMAL(38,0)) and booleans.
INDEXABLE_SPARK_TYPES = frozenset({"tinyint", "smallint", "int", "bigint", "date", "timestamp", "timestamp_ntz", "string", "boolean"})
# Sequence columns the index keeps the values of: what Doris allows (integers, DATE, DATETIME).
SEQUENCE_SPARK_TYPES = frozenset({"tinyint", "smallint", "int", "bigint", "date", "timestamp", "timestamp_ntz"})


def enabled(spark: "SparkSession") -> bool:
    return str(spark.conf.get(ENABLED_CONF, "true")).strip().lower() != "false"


def persist(spark: "SparkSession") -> bool:
    return str(spark.conf.get(PERSIST_CONF, "true")).strip().lower() != "false"


def build_on_load(spark: "SparkSession") -> bool:
    return persist(spark) and str(spark.conf.get(BUILD_ON_LOAD_CONF, "true")).strip().lower() != "false"


def indexable_type(spark_type: str) -> bool:
    """Whether the index encodes a key column of this Spark type (``varchar(10)``, ``decimal(9,2)``, ...)."""
    name = spark_type.strip().lower()
    return name in INDEXABLE_SPARK_TYPES or name.startswith(("varchar(", "char(", "decimal("))


def max_rows(spark: "SparkSession") -> int:
    return max(0, spark_settings.whole_number(spark, MAX_ROWS_CONF, DEFAULT_MAX_ROWS, "rows"))
