"""Running a procedure: bind, run, check the rows. Shared by ``CALL doris.*`` and Python calls."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from iceberg_doris.session_sizing import size_shuffle_partitions
from iceberg_doris.java_errors import translate
from iceberg_doris.procedures.binding import bind
from iceberg_doris.procedures.registry import get_procedure

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def run_procedure(spark: "SparkSession", name: str, raw_arguments: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    """Binds ``raw_arguments`` to ``doris.<name>`` and runs it; returns its rows as tuples."""
    procedure = get_procedure(name)
    arguments = bind(procedure, raw_arguments)
    # Each Python thread talks to its own JVM thread; Spark's thread-local settings need the
    # session to be active there.
    spark.sparkContext._jvm.org.apache.spark.sql.SparkSession.setActiveSession(spark._jsparkSession)
    # Executors of a cluster master may have registered since the session started.
    size_shuffle_partitions(spark)
    width = len(procedure.output)
    try:
        rows = [tuple(row) for row in procedure().run(spark, arguments)]
    except Exception as error:
        translated = translate(error, f"doris.{name}")
        if translated is None or translated is error:
            raise
        raise translated from None
    for row in rows:
        if len(row) != width:
            raise AssertionError(f"doris.{name} returned a row of {len(row)} values for {width} output columns")
    return rows
