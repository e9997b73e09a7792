"""The one handle on the index in Spark's JVM: ``io.icebergdoris.keyindex.KeyIndex``. Every call
into the index goes through :func:`index` (and requests through :func:`request`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.key_index import wire

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def index(iceberg: IcebergJava) -> JavaObject:
    """The JVM's ``io.icebergdoris.keyindex.KeyIndex``."""
    return index_of(iceberg.spark)


def index_of(spark: "SparkSession") -> JavaObject:
    return spark.sparkContext._jvm.io.icebergdoris.keyindex.KeyIndex


def request(spark: "SparkSession", asked: wire.IndexRequest) -> JavaObject:
    """``asked`` as the JVM's ``IndexRequest`` (parsed there, strictly)."""
    return index_of(spark).request(asked.to_json())
