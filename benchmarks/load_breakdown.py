"""Where one load's time goes: Spark jobs, SQL executions, driver time and executor time.

:class:`LoadBreakdown` wraps one operation (a ``doris.load``, an ``INSERT INTO``, a ``MERGE INTO``)
and reads, from Spark's own status stores in the driver's JVM (no REST API, no listener of ours):

- **jobs**: the Spark jobs started inside the block. Job ids come from the DAG scheduler's counter
  (read before and after), not from a job group: ``doris.load`` runs its jobs in a job group of
  its own, so a group set around it would see none of them;
- **SQL executions** (plans Spark planned and ran: a query, a write, a command, a nested one) from
  the SQL status store, by execution id (read before and after);
- **executor time**: the summed run time of the jobs' tasks (``StageData.executorRunTime``; in
  local mode the tasks run on the driver's cores, so it can exceed the wall time on 2 cores);
- **job time**: the part of the wall time in which at least one job ran (union of the jobs'
  submission-to-completion intervals), and **driver time** = wall time - job time: planning,
  catalog reads and commits, py4j round trips, Python work, with no Spark job running;
- **py4j round trips** from Python to the JVM (the py4j connections' ``send_command``, counted;
  releases of Java objects apart, see :class:`Py4jCounter`);
- the largest stage's summed task peak execution memory and the bytes spilled (memory and disk).

The block must run on one thread with nothing else running Spark jobs in the session (the
benchmarks are single-threaded): jobs and executions are taken by id range. The store is read after
Spark's listener bus has delivered the block's events (``waitUntilEmpty``), outside the timing.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from py4j import protocol

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

COLUMNS = ["jobs", "SQL executions", "py4j calls", "driver time", "job time", "executor task time", "tasks"]


@dataclass
class Breakdown:
    """One operation's figures (seconds unless said otherwise)."""

    wall: float = 0.0
    jobs: int = 0
    executions: int = 0
    py4j_calls: int = 0
    job_seconds: float = 0.0  # wall time with at least one Spark job running
    executor_seconds: float = 0.0  # summed task run time
    tasks: int = 0
    peak_execution_bytes: int = 0  # largest stage: sum of its tasks' peak execution memory
    spilled_bytes: int = 0  # memory + disk bytes spilled, all stages
    descriptions: list[str] = field(default_factory=list)  # the SQL executions' descriptions
    sites: dict[str, list[float]] = field(default_factory=dict)  # call site -> [py4j round trips, seconds] (by_site)

    @property
    def driver_seconds(self) -> float:
        """Wall time with no Spark job running."""
        return max(0.0, self.wall - self.job_seconds)

    def cells(self) -> list[str]:
        """The values of :data:`COLUMNS`, formatted for a result table."""
        return [str(self.jobs), str(self.executions), str(self.py4j_calls), _seconds(self.driver_seconds),
                _seconds(self.job_seconds), _seconds(self.executor_seconds), str(self.tasks)]


def median_breakdown(items: list[Breakdown]) -> Breakdown:
    """The per-field median of several repetitions' breakdowns (counts rounded)."""
    import statistics

    def mid(values: list[float]) -> float:
        return float(statistics.median(values)) if values else 0.0

    return Breakdown(
        wall=mid([b.wall for b in items]),
        jobs=round(mid([b.jobs for b in items])),
        executions=round(mid([b.executions for b in items])),
        py4j_calls=round(mid([b.py4j_calls for b in items])),
        job_seconds=mid([b.job_seconds for b in items]),
        executor_seconds=mid([b.executor_seconds for b in items]),
        tasks=round(mid([b.tasks for b in items])),
        peak_execution_bytes=max((b.peak_execution_bytes for b in items), default=0),
        spilled_bytes=max((b.spilled_bytes for b in items), default=0),
        descriptions=items[0].descriptions if items else [],
    )


def last_execution_id(spark: "SparkSession") -> int:
    """The newest SQL execution's id in Spark's status store, -1 if none. An id, not the count: the
    store keeps only the last spark.sql.ui.retainedExecutions, so a long session's count stops growing."""
    store = spark._jsparkSession.sharedState().statusStore()
    while True:
        count = int(store.executionsCount())
        if count == 0:
            return -1
        newest = store.executionsList(count - 1, 1)
        # The store drops old executions in the background: between the count and the read the
        # list can shrink, leaving nothing at count - 1. Count again.
        if newest.size() > 0:
            return int(newest.apply(0).executionId())


#: The call site of round trips made outside iceberg-doris's code (Spark's own statements).
OUTSIDE = "outside iceberg_doris"

# The py4j command that releases a Java object (sent when Python drops its last reference).
RELEASE = protocol.MEMORY_COMMAND_NAME + protocol.MEMORY_DEL_SUBCOMMAND_NAME


class Py4jCounter:
    """Counts py4j commands sent from this process while installed (all threads): ``calls``, the
    round trips, and apart from them ``releases``, the commands that only release a Java object
    Python no longer holds. Python's cycle collector sends those in batches, whenever it runs, so
    they belong to whatever ran before as much as to the block; entering collects first, so what
    earlier code left is released before counting starts."""

    def __init__(self, by_site: bool = False) -> None:
        self.calls = 0
        self.releases = 0
        self.by_site = by_site
        #: with ``by_site``: the round trips and seconds spent in them, by iceberg-doris call site
        #: (the innermost iceberg_doris function on the stack; :data:`OUTSIDE` for the others)
        self.sites: dict[str, list[float]] = {}
        self._package = ""  # the iceberg_doris package's folder, with by_site
        self._patched: list[tuple[type, Any]] = []

    def __enter__(self) -> "Py4jCounter":
        from py4j import clientserver, java_gateway

        if self.by_site:
            import iceberg_doris

            # once, not per round trip: the timed calls are the hot path of the profiled load
            self._package = os.path.dirname(os.path.abspath(iceberg_doris.__file__)) + os.sep
        gc.collect()
        for owner in (clientserver.ClientServerConnection, java_gateway.GatewayConnection):
            original = owner.send_command

            def counting(connection: Any, command: Any, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
                if isinstance(command, str) and command.startswith(RELEASE):
                    self.releases += 1
                    return _original(connection, command, *args, **kwargs)
                self.calls += 1
                if not self.by_site:
                    return _original(connection, command, *args, **kwargs)
                started = time.perf_counter()
                try:
                    return _original(connection, command, *args, **kwargs)
                finally:
                    self._record(sys._getframe(1), time.perf_counter() - started)

            owner.send_command = counting  # type: ignore[method-assign]
            self._patched.append((owner, original))
        return self

    def _record(self, frame: Any, seconds: float) -> None:
        package = self._package
        site = OUTSIDE
        while frame is not None:
            path = frame.f_code.co_filename
            if path.startswith(package):
                site = f"{path[len(package):].replace(os.sep, '/')}:{frame.f_code.co_name}"
                break
            frame = frame.f_back
        entry = self.sites.setdefault(site, [0, 0.0])
        entry[0] += 1
        entry[1] += seconds

    def __exit__(self, *exc: Any) -> None:
        for owner, original in self._patched:
            owner.send_command = original  # type: ignore[method-assign]
        self._patched.clear()


class LoadBreakdown:
    """``with LoadBreakdown(spark) as b: run()``; then ``b.result`` is a :class:`Breakdown`."""

    def __init__(self, spark: "SparkSession", *, by_site: bool = False):
        self.spark = spark
        self._sc = spark.sparkContext._jsc.sc()
        self.by_site = by_site  # also time the round trips by call site (Breakdown.sites)
        self.result = Breakdown()

    def _next_job_id(self) -> int:
        # DAGScheduler.numTotalJobs is its job-id counter (the next job's id).
        return int(self._sc.dagScheduler().numTotalJobs())

    def _sql_store(self) -> Any:
        return self.spark._jsparkSession.sharedState().statusStore()

    def _last_execution_id(self) -> int:
        return last_execution_id(self.spark)

    def _drain(self) -> None:
        """Waits until Spark's listener bus delivered every event so far to the status stores."""
        try:
            self._sc.listenerBus().waitUntilEmpty()
        except Exception:  # noqa: BLE001 - a Spark without it: the figures may miss the last events
            time.sleep(0.2)

    def __enter__(self) -> "LoadBreakdown":
        self._drain()
        self._first_job = self._next_job_id()
        self._last_execution = self._last_execution_id()
        self._counter = Py4jCounter(by_site=self.by_site).__enter__()
        self._started = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        wall = time.perf_counter() - self._started
        self._counter.__exit__(*exc)
        end_job = self._next_job_id()
        self._drain()
        result = Breakdown(wall=wall, py4j_calls=self._counter.calls, sites=dict(self._counter.sites))
        self._read_jobs(result, range(self._first_job, end_job))
        self._read_executions(result)
        self.result = result

    def _read_jobs(self, result: Breakdown, job_ids: range) -> None:
        store = self._sc.statusStore()
        intervals: list[tuple[float, float]] = []
        stages: set[int] = set()
        for job_id in job_ids:
            try:
                job = store.job(job_id)
            except Exception:  # noqa: BLE001 - evicted from the store (more than retainedJobs)
                continue
            result.jobs += 1
            start, end = job.submissionTime(), job.completionTime()
            if start.isDefined() and end.isDefined():
                intervals.append((start.get().getTime() / 1000, end.get().getTime() / 1000))
            ids = job.stageIds()
            stages.update(int(ids.apply(i)) for i in range(ids.size()))
        result.job_seconds = _union_length(intervals)
        for stage_id in sorted(stages):
            try:
                stage = store.lastStageAttempt(stage_id)
            except Exception:  # noqa: BLE001 - a skipped stage has no attempt
                continue
            result.executor_seconds += int(stage.executorRunTime()) / 1000
            result.tasks += int(stage.numCompleteTasks())
            result.peak_execution_bytes = max(result.peak_execution_bytes, int(stage.peakExecutionMemory()))
            result.spilled_bytes += int(stage.memoryBytesSpilled()) + int(stage.diskBytesSpilled())

    def _read_executions(self, result: Breakdown) -> None:
        store = self._sql_store()
        last = self._last_execution_id()
        for execution_id in range(self._last_execution + 1, last + 1):
            found = store.execution(execution_id)
            if found.isDefined():
                result.executions += 1
                result.descriptions.append(str(found.get().description())[:80])


def _union_length(intervals: list[tuple[float, float]]) -> float:
    """Total length covered by possibly overlapping intervals."""
    total, end = 0.0, float("-inf")
    for start, stop in sorted(intervals):
        if start > end:
            total += stop - start
            end = stop
        elif stop > end:
            total += stop - end
            end = stop
    return total


def _seconds(value: float) -> str:
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"
