"""How many shuffle partitions a session gets: two per core of the cluster in use.

Spark's default ``spark.sql.shuffle.partitions`` (200) suits a large cluster. On a laptop or a
small cluster a keyed load plans hundreds of near-empty tasks per shuffle (the issue measured a
100k-row UNIQUE load at 127 s on a standalone cluster, 19 s with 4 partitions). Adaptive query
execution, on by default, coalesces most of them (see docs/sessions-and-catalogs.md); without it
200 partitions also meant 200 tasks per shuffle and about 200 data files per load.

The rule, as pure functions (no Spark here; :mod:`iceberg_doris.spark_session.sizing` applies it):

- a value anyone set (builder, ``spark-defaults.conf``, ``--conf``, ``session(conf=...)``,
  ``SET``) is never touched;
- otherwise the value is ``2 x cores`` (at least 2), cores being the most the session can use:
  ``local[N]`` -> N threads; ``local-cluster[N,C,M]`` -> N x C; a cluster master -> the cores its
  settings plan (``spark.dynamicAllocation.maxExecutors`` or ``spark.executor.instances``, times
  ``spark.executor.cores``; or ``spark.cores.max``) or, if more or none are planned, the cores of
  the executors registered so far (``defaultParallelism``);
- the value is re-checked before each ``doris.*`` procedure and raised (never lowered) while it is
  still the one we set, so executors that register after the session started count.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

SHUFFLE_PARTITIONS = "spark.sql.shuffle.partitions"
# The value we set last, kept in the session's conf: a different current value is the user's.
CHOSEN_MARKER = "spark.icebergdoris.shuffle.partitions.chosen"
PARTITIONS_PER_CORE = 2
MIN_PARTITIONS = 2

_LOCAL = re.compile(r"local(?:\[(\*|\d+)(?:,\s*\d+)?\])?")
_LOCAL_CLUSTER = re.compile(r"local-cluster\[\s*(\d+)\s*,\s*(\d+)\s*,\s*\d+\s*\]")
# Spark's "unlimited" maxExecutors is Int.MaxValue; no real cluster plans more than this.
_PLAUSIBLE_EXECUTORS = 100_000


def is_local_cluster(master: str) -> bool:
    """``local-cluster[N,C,M]``: Spark's standalone cluster of N worker JVMs on this machine."""
    return master.strip().startswith("local-cluster")


def is_in_process(master: str) -> bool:
    """``local``, ``local[N]``, ``local[*]``, ``local[N,F]``: the driver JVM runs every task."""
    return _LOCAL.fullmatch(master.strip()) is not None


def master_cores(master: str, cpu_count: int) -> int | None:
    """The cores a local master's name fixes (``local[*]`` is this machine's), else None."""
    text = master.strip()
    local = _LOCAL.fullmatch(text)
    if local is not None:
        threads = local.group(1)
        if threads is None:
            return 1
        return max(1, cpu_count) if threads == "*" else max(1, int(threads))
    cluster = _LOCAL_CLUSTER.fullmatch(text)
    if cluster is not None:
        return max(1, int(cluster.group(1)) * int(cluster.group(2)))
    return None


def planned_cluster_cores(conf: Mapping[str, str]) -> int | None:
    """The cores a cluster session's settings plan for, or None when they do not say."""
    executor_cores = _positive(conf.get("spark.executor.cores"))
    if _true(conf.get("spark.dynamicAllocation.enabled")):
        executors = _positive(conf.get("spark.dynamicAllocation.maxExecutors"))
        if executors is not None and executors >= _PLAUSIBLE_EXECUTORS:
            executors = None
    else:
        executors = _positive(conf.get("spark.executor.instances"))
    if executors is not None and executor_cores is not None:
        return executors * executor_cores
    # Standalone's cap on an application's cores (Mesos used it too).
    return _positive(conf.get("spark.cores.max"))


def target_partitions(master: str, conf: Mapping[str, str], registered_cores: int, cpu_count: int) -> int:
    """``2 x cores`` for the session, at least 2 (see the module docstring for which cores)."""
    fixed = master_cores(master, cpu_count)
    if fixed is not None:
        cores = fixed
    else:
        cores = max(planned_cluster_cores(conf) or 0, registered_cores)
    return max(MIN_PARTITIONS, PARTITIONS_PER_CORE * max(1, cores))


def fixed_partitions(master: str, cpu_count: int) -> int | None:
    """The value for a master whose name fixes its cores (``local[...]``, ``local-cluster[...]``),
    else None: what ``iceberg-doris --print-spark-conf`` writes for JVM-only clients, which never
    run the runtime rule."""
    cores = master_cores(master, cpu_count)
    return None if cores is None else max(MIN_PARTITIONS, PARTITIONS_PER_CORE * cores)


def decide_shuffle_partitions(
    *,
    master: str,
    conf: Mapping[str, str],
    current: str | None,
    chosen: str | None,
    registered_cores: int,
    cpu_count: int,
) -> int | None:
    """The value to set ``spark.sql.shuffle.partitions`` to now, or None to leave it.

    Args:
        master: the session's master URL.
        conf: the session's Spark settings (for executor counts and cores).
        current: the setting's value if it is set in the session (None: Spark's default applies).
        chosen: the value we set last (:data:`CHOSEN_MARKER`), None if never.
        registered_cores: cores of the executors registered so far (``defaultParallelism``).
        cpu_count: this machine's cores (for ``local[*]``).
    """
    if current is not None and current.strip() != (chosen or "").strip():
        return None  # set by the user, or by us and then changed by the user
    target = target_partitions(master, conf, registered_cores, cpu_count)
    previous = _positive(chosen) if current is not None else None
    if previous is not None and previous >= target:
        return None  # never lower it: executors that left may come back
    return target


def _positive(value: str | None) -> int | None:
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


def _true(value: str | None) -> bool:
    return str(value).strip().lower() == "true"
