"""What one action costs the driver, counted rather than timed: Spark jobs, SQL executions, py4j
round trips and catalog loads of an Iceberg table.

Jobs are counted by Spark's next job id (a load starts some of its jobs from JVM threads, which a
job group would not see); nothing else may run jobs in the session meanwhile. Round trips and
table loads are counted by wrapping the real calls: every call still reaches the real JVM and
catalog. A py4j round trip that only releases a Java object Python no longer holds is counted
apart (``releases``): Python's cycle collector sends those in batches, whenever it runs, so they
belong to whatever ran before as much as to the body."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from py4j import protocol

from benchmarks.load_breakdown import last_execution_id
from iceberg_doris.engine.iceberg_java import IcebergJava


@dataclass
class Costs:
    jobs: int = 0
    sql_executions: int = 0
    round_trips: int = 0
    table_loads: int = 0
    releases: int = 0  # round trips that release a Java object (not in round_trips)


RELEASE = protocol.MEMORY_COMMAND_NAME + protocol.MEMORY_DEL_SUBCOMMAND_NAME


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
    client = spark.sparkContext._gateway._gateway_client
    send, load = client.send_command, IcebergJava.load_table

    def sent(command: str, *args: Any, **kwargs: Any) -> Any:
        if command.startswith(RELEASE):
            costs.releases += 1
        else:
            costs.round_trips += 1
        return send(command, *args, **kwargs)

    def loaded(self: IcebergJava, name: Any) -> Any:
        costs.table_loads += 1
        return load(self, name)

    gc.collect()  # what earlier code left is released now, not while the body runs
    jobs, executions = _next_job_id(spark), _executions(spark)
    monkeypatch.setattr(client, "send_command", sent)
    monkeypatch.setattr(IcebergJava, "load_table", loaded)
    try:
        yield costs
    finally:
        monkeypatch.setattr(client, "send_command", send)
        monkeypatch.setattr(IcebergJava, "load_table", load)
        costs.jobs = _next_job_id(spark) - jobs
        costs.sql_executions = _executions(spark) - executions


def costs_of(spark: Any, monkeypatch: Any, action: Callable[[], object]) -> Costs:
    with counted(spark, monkeypatch) as costs:
        action()
    return costs
