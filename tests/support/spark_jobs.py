"""What Spark did while a test's action ran, read from its status store."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any


def shuffled_rows(spark: Any, action: Callable[[], object]) -> int:
    """Rows Spark wrote to shuffle files while running ``action`` (its jobs, by job group)."""
    context = spark.sparkContext
    group = f"shuffled-{random.randrange(1 << 30)}"
    context.setJobGroup(group, group)
    try:
        action()
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
    store = context._jsc.sc().statusStore()
    total = 0
    for job in context.statusTracker().getJobIdsForGroup(group):
        stages = store.job(job).stageIds()
        for i in range(stages.size()):
            attempts = store.stageData(stages.apply(i), False, None, False, None)
            total += sum(attempts.apply(k).shuffleWriteRecords() for k in range(attempts.size()))
    return total
