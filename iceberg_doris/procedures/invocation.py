"""Running a procedure: bind, run, check the rows. Shared by ``CALL doris.*`` and Python calls."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from iceberg_doris.procedures.binding import bind
from iceberg_doris.procedures.registry import get_procedure
from iceberg_doris.spark_session.job_groups import describe_call
from iceberg_doris.spark_session.procedure_calls import procedure_call

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def run_frame_procedure(spark: "SparkSession", name: str, raw_arguments: Mapping[str, Any]) -> "DataFrame":
    """Binds ``raw_arguments`` to ``doris.<name>``, a ``returns_frame`` procedure; returns its DataFrame."""
    procedure = get_procedure(name)
    arguments = bind(procedure, raw_arguments)
    with procedure_call(spark, f"doris.{name}"):
        return procedure().frame(spark, arguments)


def run_procedure(spark: "SparkSession", name: str, raw_arguments: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    """Binds ``raw_arguments`` to ``doris.<name>`` and runs it; returns its rows as tuples."""
    procedure = get_procedure(name)
    arguments = bind(procedure, raw_arguments)
    width = len(procedure.output)
    what = f"doris.{name}"
    with procedure_call(spark, what, describe_call(what, arguments)):
        rows = [tuple(row) for row in procedure().run(spark, arguments)]
    for row in rows:
        if len(row) != width:
            raise AssertionError(f"doris.{name} returned a row of {len(row)} values for {width} output columns")
    return rows
