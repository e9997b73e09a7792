"""What one procedure call needs of the driver, for ``CALL doris.*`` and the Python form alike."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from iceberg_doris.spark_session.java_errors import translate
from iceberg_doris.spark_session.sizing import size_shuffle_partitions

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@contextmanager
def procedure_call(spark: "SparkSession", what: str) -> Iterator[None]:
    """Runs the body as ``what`` (``"doris.load"``) on ``spark``: the session active on this thread,
    the shuffle sized, and a failure from Spark's JVM raised as our error (:mod:`.java_errors`)."""
    # Each Python thread talks to its own JVM thread; Spark's thread-local settings need the
    # session to be active there.
    spark.sparkContext._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)
    # Executors of a cluster master may have registered since the session started.
    size_shuffle_partitions(spark)
    try:
        yield
    except Exception as error:
        translated = translate(error, what)
        if translated is None or translated is error:
            raise
        raise translated from None
