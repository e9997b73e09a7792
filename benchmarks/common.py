"""What every suite shares: timing, row-set digests, result records, targets, memory probes."""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import resource
import statistics
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


class ContendersDisagree(AssertionError):
    """Two contenders (or a contender and the expected result) hold different rows."""


# ---------------------------------------------------------------------------------------------
# The context a suite runs in
# ---------------------------------------------------------------------------------------------


@dataclass
class Bench:
    """One suite run: the shared session, a namespace of its own, a folder for inputs."""

    spark: "SparkSession"
    namespace: str
    work_dir: Path
    home: Path  # the iceberg_doris home the session runs on (pyiceberg opens the same catalog)
    reps: int = 3
    profile: bool = False  # cProfile the iceberg-doris calls that matter (costs a little time)
    log: Callable[[str], None] = print
    _py_catalog: Any = None

    def py_catalog(self) -> Any:
        """pyiceberg's SqlCatalog on the session's catalog."""
        if self._py_catalog is None:
            import iceberg_doris

            self._py_catalog = iceberg_doris.catalog(home=self.home)
        return self._py_catalog

    def table(self, name: str) -> str:
        return f"{self.namespace}.{name}"

    def path(self, name: str) -> str:
        folder = self.work_dir / self.namespace
        folder.mkdir(parents=True, exist_ok=True)
        return str(folder / name)

    def sql(self, text: str) -> "DataFrame":
        return self.spark.sql(text)


def new_namespace(spark: "SparkSession", prefix: str) -> str:
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    spark.sql(f"CREATE NAMESPACE {name}")
    return name


def catalog_name(spark: "SparkSession") -> str:
    return str(spark.conf.get("spark.sql.defaultCatalog"))


def iceberg_table(spark: "SparkSession", table: str) -> Any:
    """The table through Iceberg's Java API (freshly loaded: the catalog does not cache)."""
    # Named with the session's catalog: Iceberg otherwise first tries the namespace as a catalog
    # name and logs that failure with a stack trace.
    if table.count(".") == 1:
        table = f"{spark.conf.get('spark.sql.defaultCatalog')}.{table}"
    return spark.sparkContext._jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, table)


def current_snapshot(spark: "SparkSession", table: str) -> int:
    return int(iceberg_table(spark, table).currentSnapshot().snapshotId())


def rollback(spark: "SparkSession", table: str, snapshot_id: int) -> None:
    """Main back to ``snapshot_id`` (an ancestor): the table is as it was, for the next repetition."""
    spark.sql(f"CALL {catalog_name(spark)}.system.rollback_to_snapshot(table => '{table}', snapshot_id => {snapshot_id})").collect()


def file_counts(spark: "SparkSession", table: str) -> dict[str, int]:
    """Live data files and delete files (a deletion vector counts as one) of main, from the
    current snapshot's summary."""
    snapshot = iceberg_table(spark, table).currentSnapshot()
    summary = snapshot.summary() if snapshot is not None else {}
    return {
        "data_files": int(summary.get("total-data-files") or 0),
        "delete_files": int(summary.get("total-delete-files") or 0),
    }


# ---------------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------------


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result


def run_bounded(spark: "SparkSession", action: Callable[[], Any], limit_seconds: float | None) -> bool:
    """Runs ``action`` (Spark work, on this thread) in a job group of its own, cancelled once it
    has run ``limit_seconds`` (None: no limit). True if it finished; False if it was cancelled,
    which fails its statement before it commits: a contender that would hold a run for an hour
    is reported as "did not finish" instead."""
    if limit_seconds is None:
        action()
        return True
    group = f"bench-bounded-{uuid.uuid4().hex}"
    finished = threading.Event()
    cancelled = threading.Event()

    def cancel_when_over() -> None:
        if finished.wait(limit_seconds):
            return
        cancelled.set()
        while not finished.is_set():  # a statement runs several jobs: cancel each as it starts
            spark.sparkContext.cancelJobGroup(group)
            finished.wait(1.0)

    spark.sparkContext.setJobGroup(group, "bounded benchmark step", interruptOnCancel=True)
    watcher = threading.Thread(target=cancel_when_over, daemon=True)
    watcher.start()
    try:
        action()
        return True
    except Exception:
        if cancelled.is_set():
            return False
        raise
    finally:
        finished.set()
        watcher.join()
        spark.sparkContext._jsc.clearJobGroup()


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100), as numpy's default."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = (len(ordered) - 1) * q / 100.0
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def fmt_seconds(value: float) -> str:
    if value != value:  # NaN
        return "n/a"
    if value < 1:
        return f"{value * 1000:.0f} ms"
    return f"{value:.2f} s"


def fmt_ratio(value: float) -> str:
    return "n/a" if value != value else f"{value:.2f}x"


# ---------------------------------------------------------------------------------------------
# Row-set digests: the "same rows" check
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Digest:
    """Row count, distinct key count and an order-independent checksum of whole rows."""

    rows: int
    keys: int
    checksum: str

    def __str__(self) -> str:
        keys = f", {self.keys} distinct keys" if self.keys >= 0 else ""
        return f"{self.rows} rows{keys}, checksum {self.checksum}"


def digest(frame: "DataFrame", columns: Sequence[str], key: str | None) -> Digest:
    """Sum of xxhash64 over every row (as a decimal: no overflow), plus counts: equal digests mean
    equal row multisets for any practical purpose, computed by one aggregation (no sort).
    ``key``: also count its distinct values (unique-key tables: must equal the row count)."""
    from pyspark.sql import functions as F

    row_hash = F.xxhash64(*[F.col(f"`{c}`") for c in columns]).cast("decimal(38,0)")
    keys = F.countDistinct(F.col(f"`{key}`")) if key is not None else F.lit(-1)
    result = frame.agg(
        F.count(F.lit(1)).alias("rows"),
        keys.alias("keys"),
        F.coalesce(F.sum(row_hash), F.lit(0).cast("decimal(38,0)")).alias("checksum"),
    ).collect()[0]
    return Digest(int(result.rows), int(result.keys), str(result.checksum))


def digests(frames: dict[str, "DataFrame"], columns: Sequence[str], key: str | None) -> dict[str, Digest]:
    """:func:`digest` of several frames (same columns and types) in one Spark job."""
    from functools import reduce

    from pyspark.sql import functions as F

    which = "__bench_which"
    tagged = [f.select(*[F.col(f"`{c}`") for c in columns]).withColumn(which, F.lit(name)) for name, f in frames.items()]
    union = reduce(lambda a, b: a.unionByName(b), tagged)
    row_hash = F.xxhash64(*[F.col(f"`{c}`") for c in columns]).cast("decimal(38,0)")
    keys = F.countDistinct(F.col(f"`{key}`")) if key is not None else F.lit(-1)
    rows = union.groupBy(which).agg(F.count(F.lit(1)).alias("rows"), keys.alias("keys"), F.sum(row_hash).alias("checksum")).collect()
    found = {r[which]: Digest(int(r.rows), int(r.keys), str(r.checksum)) for r in rows}
    empty = Digest(0, 0 if key is not None else -1, "0")
    return {name: found.get(name, empty) for name in frames}


def require_same(what: str, digests: dict[str, Digest], *, unique_keys: bool = True) -> Digest:
    """Fails loudly unless every digest is identical (and, for keyed tables, one row per key)."""
    first_name, first = next(iter(digests.items()))
    lines = [f"  {name}: {d}" for name, d in digests.items()]
    if any(d != first for d in digests.values()):
        raise ContendersDisagree(f"{what}: the contenders hold different rows\n" + "\n".join(lines))
    if unique_keys and first.keys >= 0 and first.rows != first.keys:
        raise ContendersDisagree(f"{what}: more than one row per key ({first_name}: {first})")
    return first


# ---------------------------------------------------------------------------------------------
# Results and targets
# ---------------------------------------------------------------------------------------------


@dataclass
class Target:
    """A goal from the issue: ``measured`` must be ``op`` ``required`` (op is '>=' or '<=')."""

    name: str
    measured: float
    op: str
    required: float
    kind: str = "ratio"  # "ratio" (shown as 1.23x), "percent" (shown as 1.2%) or "count" (shown as 3)
    detail: str = ""

    @property
    def met(self) -> bool:
        if self.measured != self.measured:
            return False
        return self.measured >= self.required if self.op == ">=" else self.measured <= self.required

    def show(self, value: float) -> str:
        if value != value:
            return "n/a"
        if self.kind == "count":
            return f"{value:.0f}"
        return f"{value * 100:.1f}%" if self.kind == "percent" else f"{value:.2f}x"

    @property
    def shortfall(self) -> str:
        """How far a missed target is from its goal."""
        if self.met:
            return ""
        if self.measured != self.measured:
            return "not measured"
        if self.kind == "percent":
            return f"{(self.measured - self.required) * 100:.1f} percentage points over"
        if self.kind == "count":
            return f"{self.measured - self.required:.0f} over"
        if self.op == ">=":
            return f"{self.required / self.measured:.2f}x too slow ({self.show(self.measured)} of the {self.show(self.required)} needed)"
        return f"{(self.measured / self.required - 1) * 100:.0f}% over ({self.show(self.measured)} vs at most {self.show(self.required)})"


@dataclass
class ResultTable:
    title: str
    columns: list[str]
    rows: list[list[Any]]


@dataclass
class SuiteResult:
    suite: str  # "a".."d"
    title: str
    scale: int
    parameters: dict[str, Any] = field(default_factory=dict)
    tables: list[ResultTable] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    profiles: list[tuple[str, str]] = field(default_factory=list)  # (title, text)
    memory: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    gc_seconds: float | None = None  # JVM garbage collection during the suite


# ---------------------------------------------------------------------------------------------
# Memory of the driver: Python process and Spark's JVM
# ---------------------------------------------------------------------------------------------


def _status_kib(pid: int | str, field_name: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak_rss(pid: int | str) -> bool:
    """Linux: writing 5 to clear_refs resets the peak RSS (VmHWM) of a process we own."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        return True
    except OSError:
        return False


class MemoryProbe:
    """Peak memory of the driver during one operation.

    Python: ``resource.getrusage`` peak RSS of this process (since it started) and VmHWM over the
    operation alone. JVM: the peak heap used over the operation (sum of the heap pools' peak usage,
    reset first), the heap limit, and the JVM process's peak RSS over the operation (VmHWM)."""

    def __init__(self, spark: "SparkSession"):
        self.spark = spark
        jvm = spark.sparkContext._jvm
        self.jvm = jvm
        self.jvm_pid = int(jvm.java.lang.ProcessHandle.current().pid())
        self.result: dict[str, Any] = {}

    def _heap_pools(self) -> list[Any]:
        management = self.jvm.java.lang.management
        heap = management.MemoryType.HEAP
        pools = management.ManagementFactory.getMemoryPoolMXBeans()
        return [p for p in (pools.get(i) for i in range(pools.size())) if p.getType().equals(heap)]

    def __enter__(self) -> "MemoryProbe":
        self.jvm.java.lang.System.gc()
        for pool in self._heap_pools():
            pool.resetPeakUsage()
        self.python_reset = _reset_peak_rss("self")
        self.jvm_reset = _reset_peak_rss(self.jvm_pid)
        self.python_rss_before = _status_kib("self", "VmRSS")
        return self

    def __exit__(self, *exc: Any) -> None:
        runtime = self.jvm.java.lang.Runtime.getRuntime()
        mib = 1024 * 1024
        heap_peak = sum(int(p.getPeakUsage().getUsed()) for p in self._heap_pools())
        self.result = {
            "python_ru_maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "python_peak_rss_during_mib": (_status_kib("self", "VmHWM") or 0) / 1024 if self.python_reset else None,
            "python_rss_before_mib": (self.python_rss_before or 0) / 1024,
            "jvm_heap_peak_during_mib": heap_peak / mib,
            "jvm_heap_used_after_mib": (int(runtime.totalMemory()) - int(runtime.freeMemory())) / mib,
            "jvm_heap_max_mib": int(runtime.maxMemory()) / mib,
            "jvm_peak_rss_during_mib": (_status_kib(self.jvm_pid, "VmHWM") or 0) / 1024 if self.jvm_reset else None,
        }


# ---------------------------------------------------------------------------------------------
# Profiling
# ---------------------------------------------------------------------------------------------

# Functions of iceberg-doris whose cumulative time tells where a keyed load spends it.
PHASES = {
    "open_table": "open the table (catalog load + Doris model)",
    "load_table": "catalog table loads (JDBC + metadata)",
    "read_model": "read the Doris model (properties, schema)",
    "check_label_unused": "label check (JVM walk of snapshots)",
    "repair_foreign_writes": "check for keys other writers stored twice",
    "read_source": "read source",
    "prepare_rows": "prepare rows (mapping, conversion)",
    "route_rows": "route rows to partitions",
    "stage_and_count": "write and count in one pass (Spark job)",
    "count_and_check": "count and check the rows (Spark job)",
    "stage_fresh": "write fresh keyed rows and count (Spark job)",
    "publish_rows": "publish appended rows (stage, commit)",
    "publish_keyed": "publish a keyed load (lookup, deletes, commit)",
    "live_files": "plan live files + deletes (JVM plan)",
    "stage_data_files": "write data files (Spark job, uncommitted)",
    "write_deletion_vectors": "write deletion vectors (pyroaring + Puffin)",
    "commit_atomically": "commit (catalog swap, validation)",
    "files_matching": "plan files of partitions",
    "all_files": "plan files of a branch",
    "stage_replacement": "stage the replacement RowDelta",
    "_collect": "file-set fetch (py4j)",
    "collect": "Spark collect() to the driver",
}


class SparkJobs:
    """Records the Spark jobs the current thread runs inside the ``with`` block: how many, their
    summed duration, and the slowest by call site.

    The jobs are found by a job tag, not a job group: every ``doris.*`` operation runs in a job group
    of its own (spark_session/job_groups.py), which replaces the caller's group while tags add up."""

    def __init__(self, spark: "SparkSession", label: str = "bench"):
        self.spark = spark
        self.tag = f"{label}-{uuid.uuid4().hex[:12]}"
        self.jobs: list[tuple[str, float, int]] = []  # (call site, seconds, tasks)
        self.job_ids: list[int] = []

    def __enter__(self) -> "SparkJobs":
        self.spark.sparkContext._jsc.sc().addJobTag(self.tag)
        return self

    def __exit__(self, *exc: Any) -> None:
        sc = self.spark.sparkContext
        sc._jsc.sc().removeJobTag(self.tag)
        try:
            store = sc._jsc.sc().statusStore()
            for job_id in sorted(sc._jsc.sc().statusTracker().getJobIdsForTag(self.tag)):
                job = store.job(job_id)
                self.job_ids.append(int(job_id))
                start, end = job.submissionTime(), job.completionTime()
                seconds = (end.get().getTime() - start.get().getTime()) / 1000 if start.isDefined() and end.isDefined() else float("nan")
                self.jobs.append((str(job.name()), seconds, int(job.numTasks())))
        except Exception:  # noqa: BLE001 - a Spark without this API: no job listing, nothing else lost
            self.jobs, self.job_ids = [], []

    @property
    def count(self) -> int:
        return len(self.jobs)

    @property
    def seconds(self) -> float:
        return sum(s for _, s, _ in self.jobs if s == s)

    def text(self, top: int = 12) -> str:
        lines = [f"{self.count} Spark jobs, {self.seconds:.3f} s summed job time; slowest by call site:"]
        by_site: dict[str, list[float]] = {}
        for name, seconds, _ in self.jobs:
            by_site.setdefault(name, []).append(seconds)
        ranked = sorted(by_site.items(), key=lambda item: -sum(item[1]))
        for name, times in ranked[:top]:
            lines.append(f"  {sum(times):7.3f} s  {len(times):3d} job(s)  {name}")
        return "\n".join(lines)


def profile_call(spark: "SparkSession", action: Callable[[], Any]) -> tuple[float, Any, pstats.Stats, SparkJobs]:
    """Runs ``action`` under cProfile and the Spark job recorder."""
    profiler = cProfile.Profile()
    with SparkJobs(spark, "profile") as jobs:
        started = time.perf_counter()
        profiler.enable()
        try:
            result = action()
        finally:
            profiler.disable()
        elapsed = time.perf_counter() - started
    return elapsed, result, pstats.Stats(profiler), jobs


def _phases(stats: pstats.Stats) -> dict[str, tuple[float, int]]:
    """(cumulative seconds, calls) of each iceberg-doris phase found in a profile."""
    raw = stats.stats  # type: ignore[attr-defined]
    result = {}
    for func_name, label in PHASES.items():
        found = [(v[3], v[1]) for (path, _line, name), v in raw.items() if name == func_name and ("iceberg_doris" in path or "pyspark" in path)]
        if found:
            result[label] = (sum(t for t, _ in found), sum(c for _, c in found))
    return result


def phase_times(stats: pstats.Stats) -> dict[str, float]:
    """Cumulative seconds of each iceberg-doris phase found in a profile."""
    return {label: seconds for label, (seconds, _calls) in _phases(stats).items()}


def profile_text(stats: pstats.Stats, elapsed: float, jobs: "SparkJobs | None" = None, *, top: int = 15) -> str:
    """Phases of iceberg-doris (cumulative seconds), Spark jobs, and the top functions by cumulative time."""
    lines = [f"wall time {elapsed:.3f} s (under cProfile), {py4j_calls(stats)} py4j round trips", "",
             "phase (cumulative, may nest)             seconds  calls"]
    for label, (total, calls) in _phases(stats).items():
        lines.append(f"{label[:40]:<40} {total:7.3f} {calls:6d}")
    if jobs is not None:
        lines += ["", jobs.text()]
    buffer = io.StringIO()
    stats.stream = buffer  # type: ignore[attr-defined]
    stats.sort_stats("cumulative").print_stats(r"iceberg_doris|pyspark/sql/dataframe.py", top)
    listing = buffer.getvalue()
    start = listing.find("   ncalls")
    lines += ["", "top entries by cumulative time (iceberg_doris and DataFrame functions):", listing[start:].rstrip() if start >= 0 else listing]
    return "\n".join(lines)


def py4j_calls(stats: pstats.Stats) -> int:
    """Number of Python-to-JVM round trips in a profile."""
    raw = stats.stats  # type: ignore[attr-defined]
    return sum(v[1] for (path, _line, name), v in raw.items() if name == "send_command" and "py4j" in path and "clientserver" in path)


def jvm_gc_seconds(spark: "SparkSession") -> float:
    """Total time Spark's JVM has spent in garbage collection so far (all collectors)."""
    beans = spark.sparkContext._jvm.java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()
    # size()/get(i): iterating a Java list through py4j ends in an exception that PySpark converts slowly.
    return sum(max(0, int(beans.get(i).getCollectionTime())) for i in range(beans.size())) / 1000


def environment_summary(spark: "SparkSession") -> dict[str, str]:
    import platform

    import pyiceberg
    import pyspark

    jvm = spark.sparkContext._jvm
    try:
        iceberg_version = str(jvm.org.apache.iceberg.IcebergBuild.version())
    except Exception:  # noqa: BLE001 - informational only
        iceberg_version = "unknown"
    try:
        cpu = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    except (OSError, StopIteration):
        cpu = platform.processor() or "unknown"
    try:
        mem_kib = int(next(line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")))
        memory = f"{mem_kib / 1024 / 1024:.1f} GiB"
    except (OSError, StopIteration):
        memory = "unknown"
    import pyarrow

    return {
        "nproc": str(os.cpu_count()),
        "cpu": cpu,
        "memory": memory,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "spark": spark.version,
        "pyspark": pyspark.__version__,
        "iceberg": iceberg_version,
        "java": str(jvm.java.lang.System.getProperty("java.version")),
        "pyiceberg": pyiceberg.__version__,
        "pyarrow": pyarrow.__version__,
        "spark_master": spark.sparkContext.master,
        "shuffle_partitions": str(spark.conf.get("spark.sql.shuffle.partitions")),
        "driver_memory": str(spark.sparkContext.getConf().get("spark.driver.memory", "1g (Spark default)")),
    }


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"
