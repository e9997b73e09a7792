"""What one procedure call needs of the driver, for ``CALL doris.*`` and the Python form alike."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from iceberg_doris.spark_session.java_errors import log as java_errors_log
from iceberg_doris.spark_session.java_errors import translate
from iceberg_doris.spark_session.job_groups import job_group
from iceberg_doris.spark_session.sizing import size_shuffle_partitions

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# PySpark logs every Spark error that carries a query context, with its Python traceback, on these
# loggers (pyspark.errors.exceptions.base, Spark 4) as it converts it: the operation's own error
# says the same in one message, so they are quiet while a procedure runs (but at DEBUG).
PYSPARK_CONTEXT_LOGGERS = ("SQLQueryContextLogger", "DataFrameQueryContextLogger")


@contextmanager
def procedure_call(spark: "SparkSession", what: str, description: str | None = None) -> Iterator[None]:
    """Runs the body as ``what`` (``"doris.load"``) on ``spark``: the session active on this thread,
    the shuffle sized, its Spark jobs in a job group described by ``description`` (default
    ``what``; :mod:`.job_groups`), and a failure from Spark's JVM raised as our error (:mod:`.java_errors`)."""
    # Each Python thread talks to its own JVM thread; Spark's thread-local settings need the
    # session to be active there.
    spark.sparkContext._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)
    # Executors of a cluster master may have registered since the session started.
    size_shuffle_partitions(spark)
    try:
        with job_group(spark, what, description or what), _quiet_pyspark_error_logs():
            yield
    except Exception as error:
        translated = translate(error, what)
        if translated is None or translated is error:
            raise
        raise translated from None


@contextmanager
def _quiet_pyspark_error_logs() -> Iterator[None]:
    try:
        from pyspark.logger import PySparkLogger  # Spark 4; 3.5 logs no such lines
    except ImportError:
        PySparkLogger = None  # noqa: N806
    if PySparkLogger is None or java_errors_log.isEnabledFor(logging.DEBUG):
        yield
        return
    # PySpark's own class: a plain logging.Logger made here would be handed to PySpark later.
    loggers = [PySparkLogger.getLogger(name) for name in PYSPARK_CONTEXT_LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)
