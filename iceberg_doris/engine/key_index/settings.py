"""The key index's Spark settings (read at each load) and the column types it covers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from iceberg_doris.engine import spark_settings
from iceberg_doris.errors import ConfigurationError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ENABLED_CONF = "spark.doris.keyIndex.enabled"
MAX_ROWS_CONF = "spark.doris.keyIndex.maxRows"
PERSIST_CONF = "spark.doris.keyIndex.persist"
BUILD_ON_LOAD_CONF = "spark.doris.keyIndex.buildOnLoad"
# Read in the JVM (KeyIndexRows): ``false`` reads hit files through Iceberg's readers instead of
# decoding their pages.
ROWS_FROM_PAGES_CONF = "spark.doris.keyIndex.rowsFromPages"
# Unset (or "auto"): each executor JVM keeps a fifth of its maximum heap for the cache
# (EntryCache.budget), about 107 million keys in a 6 GiB heap, 18 million in a 1 GiB one.
AUTO_MAX_ROWS = "auto"
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


def max_rows(spark: "SparkSession") -> int | None:
    """The executors' cache budget in keys of about 12 bytes; None: each sizes it by its own heap."""
    text = str(spark.conf.get(MAX_ROWS_CONF, AUTO_MAX_ROWS)).strip()
    if text.lower() == AUTO_MAX_ROWS:
        return None
    rows = spark_settings.whole_number(spark, MAX_ROWS_CONF, 0, "rows (or auto)")
    if rows < 0:
        raise ConfigurationError(f"{MAX_ROWS_CONF} must be auto or a whole number of rows, 0 or more, not {text!r}")
    return rows
