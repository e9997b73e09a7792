"""Applies :mod:`iceberg_doris.spark_session.shuffle_sizing` to a running session.

Called when the procedures are installed on a session (``session()``, ``install(spark)``) and
before each ``doris.*`` procedure runs, so executors that register after the session started
count (a cluster master starts executors while the application runs; Spark waits for them at
start only on YARN and Kubernetes, ``spark.scheduler.minRegisteredResourcesRatio``).
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

from iceberg_doris.spark_session.shuffle_sizing import CHOSEN_MARKER, SHUFFLE_PARTITIONS, decide_shuffle_partitions

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)

# The settings the rule reads. Each is read by name: SparkConf.getAll() would carry
# spark.authenticate.secret through py4j, which logs its answers at DEBUG level.
PLANNING_KEYS = (
    "spark.executor.cores",
    "spark.executor.instances",
    "spark.dynamicAllocation.enabled",
    "spark.dynamicAllocation.maxExecutors",
    "spark.cores.max",
)


def size_shuffle_partitions(spark: "SparkSession") -> int | None:
    """Sets ``spark.sql.shuffle.partitions`` by the rule unless someone else set it; returns the
    value it set, or None when it left the setting alone."""
    sql_conf = spark._jsparkSession.sessionState().conf()
    current = spark.conf.get(SHUFFLE_PARTITIONS) if sql_conf.contains(SHUFFLE_PARTITIONS) else None
    chosen = spark.conf.get(CHOSEN_MARKER, None)
    if current is not None and current != chosen:
        return None  # the user's value: no need to look at the cluster
    context = spark.sparkContext
    if current is not None and current == chosen and context.master.startswith("local["):
        return None  # sized at install: a local master's cores never change (spares each call the reads below)
    spark_conf = context._jsc.sc().conf()
    planning = {key: spark_conf.get(key, None) for key in PLANNING_KEYS}
    value = decide_shuffle_partitions(
        master=context.master,
        conf={key: v for key, v in planning.items() if v is not None},
        current=current,
        chosen=chosen,
        registered_cores=context.defaultParallelism,
        cpu_count=os.cpu_count() or 1,
    )
    if value is None:
        return None
    spark.conf.set(SHUFFLE_PARTITIONS, str(value))
    spark.conf.set(CHOSEN_MARKER, str(value))
    log.info("%s = %d for master %s (2 per core; set it yourself to choose)", SHUFFLE_PARTITIONS, value, context.master)
    return value
