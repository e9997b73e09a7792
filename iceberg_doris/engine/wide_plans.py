"""Optimizer settings for the plans of loads into wide tables.

A load's plan converts and checks every column of the table (a file's text into each type, the
reason a row is filtered), so a table of hundreds of columns makes a plan of hundreds of aliases
and a large filter condition. Spark's constraint propagation (``spark.sql.constraintPropagation.enabled``)
then rewrites every constraint through every alias of every projection: on a 1,000-column table
most of a 5-row file load (minutes, on 2 cores) went there. It only infers extra filters, and a
load's plan reads one source: the results are the same without it.

So while a load into a table of :data:`WIDE_TABLE_COLUMNS` or more columns runs, its session has
constraint propagation off; the session's own value (set, unset or off) is back when the last
such load of that session ends. Other queries of the session that run meanwhile are planned
without it too: the same rows, possibly less filter pushdown.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CONSTRAINT_PROPAGATION = "spark.sql.constraintPropagation.enabled"
WIDE_TABLE_COLUMNS = 100


@dataclass(eq=False)  # one per session: removed by identity
class _Held:
    session: Any  # the JVM's SparkSession (py4j handle)
    loads: int
    own_value: str | None  # the session's value before the first load changed it


_lock = threading.Lock()
_held: list[_Held] = []  # one per JVM session with a wide load running


@contextmanager
def wide_plan_settings(spark: "SparkSession", columns: int) -> Iterator[None]:
    """Runs the body with constraint propagation off when ``columns`` >= :data:`WIDE_TABLE_COLUMNS`."""
    if columns < WIDE_TABLE_COLUMNS:
        yield
        return
    # Python wrappers of one JVM session differ (each CALL gets its own): the JVM's object tells.
    session = spark._jsparkSession
    with _lock:
        held = next((h for h in _held if h.session.equals(session)), None)
        if held is None:
            held = _Held(session, 1, spark.conf.get(CONSTRAINT_PROPAGATION, None))
            _held.append(held)
            spark.conf.set(CONSTRAINT_PROPAGATION, "false")
        else:
            held.loads += 1
    try:
        yield
    finally:
        with _lock:
            held.loads -= 1
            if held.loads == 0:
                _held.remove(held)
                if held.own_value is None:
                    spark.conf.unset(CONSTRAINT_PROPAGATION)
                else:
                    spark.conf.set(CONSTRAINT_PROPAGATION, held.own_value)
