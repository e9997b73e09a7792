"""What one action costs the driver, counted rather than timed: Spark jobs, SQL executions, py4j
round trips and catalog loads of an Iceberg table.

Jobs are counted by Spark's next job id (a load starts some of its jobs from JVM threads, which a
job group would not see); nothing else may run jobs in the session meanwhile. Round trips and
table loads are counted by wrapping the real calls: every call still reaches the real JVM and
catalog. Round trips are counted by the benchmarks' :class:`~benchmarks.load_breakdown.Py4jCounter`,
which counts the releases of Java objects apart (``releases``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from benchmarks.load_breakdown import Py4jCounter, last_execution_id
from iceberg_doris.engine.iceberg_java import IcebergJava


@dataclass
class Costs:
    jobs: int = 0
    sql_executions: int = 0
    round_trips: int = 0
    table_loads: int = 0
    releases: int = 0  # round trips that release a Java object (not in round_trips)


def _next_job_id(spark: Any) -> int:
    return int(spark.sparkContext._jsc.sc().dagScheduler().nextJobId())


def _executions(spark: Any) -> int:
    # SQL executions reach the status store through the listener bus: drained first.
    spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty()
    return last_execution_id(spark) + 1


@contextmanager
def counted(spark: Any, monkeypatch: Any) -> Iterator[Costs]:
    """Counts what the body costs into the yielded :class:`Costs` (filled when the body ends)."""
    costs = Costs()
    load = IcebergJava.load_table

    def loaded(self: IcebergJava, name: Any) -> Any:
        costs.table_loads += 1
        return load(self, name)

    jobs, executions = _next_job_id(spark), _executions(spark)
    with Py4jCounter() as py4j:
        monkeypatch.setattr(IcebergJava, "load_table", loaded)
        try:
            yield costs
        finally:
            monkeypatch.setattr(IcebergJava, "load_table", load)
    costs.round_trips, costs.releases = py4j.calls, py4j.releases
    costs.jobs = _next_job_id(spark) - jobs
    costs.sql_executions = _executions(spark) - executions


def costs_of(spark: Any, monkeypatch: Any, action: Callable[[], object]) -> Costs:
    with counted(spark, monkeypatch) as costs:
        action()
    return costs
