"""Rows a load computes once: read from its source a single time, whatever happens meanwhile.

A load reads its rows several times (counting, looking keys up, writing, and under the commit lock
a second lookup when another commit landed). ``DataFrame.persist`` does not guarantee one read:
the cache belongs to Spark's cache manager, which drops a cached plan's data whenever a table that
plan reads is written in the session (an ``INSERT`` into the source, a load into the target that
the source reads), and the next use reads the source again. Such a load wrote rows whose keys it
had never looked up, beside the stored rows of those keys.

So the rows are cached in an in-memory relation of their own, outside the cache manager: the same
columnar cache Spark's ``persist`` builds (the plan's physical scan fixed as it was planned, the
batches kept in memory and on disk), which no write elsewhere invalidates. Only a lost executor
makes Spark compute its blocks again, from that same planned scan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from iceberg_doris.engine.iceberg_java import JavaObject


@dataclass
class ComputedOnce:
    """``frame``: the rows, computed by the first Spark job that reads them and kept from then on
    (call :meth:`release` when done)."""

    frame: "DataFrame"
    _relation: "JavaObject"

    def release(self) -> None:
        """Drops the kept batches (safe to call twice)."""
        self._relation.cacheBuilder().clearCache(False)


def computed_once(frame: "DataFrame") -> ComputedOnce:
    """``frame``'s rows as a frame whose plan reads a cache of them (lazily: the first job that
    reads them stores them, as ``persist`` would) that Spark never drops on its own."""
    from pyspark.sql import DataFrame

    spark = frame.sparkSession
    jvm = spark.sparkContext._jvm
    columnar = jvm.org.apache.spark.sql.execution.columnar
    # InMemoryRelation(storageLevel, queryExecution, tableName): what Dataset.persist registers
    # with the cache manager; here it is the frame's plan, registered nowhere.
    relation = getattr(getattr(columnar, "InMemoryRelation$"), "MODULE$").apply(
        jvm.org.apache.spark.storage.StorageLevel.MEMORY_AND_DISK(), frame._jdf.queryExecution(), jvm.scala.Option.empty()
    )
    rows = jvm.io.icebergdoris.spark.SparkCompat.ofRows(frame._jdf.sparkSession(), relation)
    return ComputedOnce(DataFrame(rows, spark), relation)
