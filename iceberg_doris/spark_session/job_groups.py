"""Each ``doris.*`` operation as one Spark job group, so the Spark UI and history server name it.

Without it Spark shows a load's jobs as "save at NativeMethodAccessorImpl.java:0" or "collect at
KeyIndex.java:1028". Inside :func:`job_group` every job Spark runs on this thread belongs to the
group ``doris.<procedure>-<8 hex digits>`` (one per call, so ``sparkContext.cancelJobGroup`` stops
that call alone) and carries the description ``doris.load db.t label=...``. The caller's own job
group and description (thread-local properties of the SparkContext) are put back afterwards.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Spark's own local-property keys (SparkContext.SPARK_JOB_GROUP_ID and friends).
GROUP_ID = "spark.jobGroup.id"
DESCRIPTION = "spark.job.description"
INTERRUPT_ON_CANCEL = "spark.job.interruptOnCancel"
# The arguments a description names, in this order, when the call has them.
DESCRIBED_ARGUMENTS = ("table", "label")


def describe_call(what: str, arguments: Mapping[str, Any] | None) -> str:
    """``doris.load db.t label=orders_1``: the procedure, its table and its label when given."""
    words = [what]
    for name in DESCRIBED_ARGUMENTS:
        value = (arguments or {}).get(name)
        if isinstance(value, str) and value:
            words.append(value if name == "table" else f"{name}={value}")
    return " ".join(words)


@contextmanager
def job_group(spark: "SparkSession", what: str, description: str) -> Iterator[str]:
    """Runs the block in a job group of its own named after ``what`` (``doris.load``); yields its id."""
    context = spark.sparkContext
    keys = (GROUP_ID, DESCRIPTION, INTERRUPT_ON_CANCEL)
    previous = {key: context.getLocalProperty(key) for key in keys}
    group = f"{what}-{uuid.uuid4().hex[:8]}"
    context.setLocalProperty(GROUP_ID, group)
    context.setLocalProperty(DESCRIPTION, description)
    context.setLocalProperty(INTERRUPT_ON_CANCEL, "false")
    try:
        yield group
    finally:
        for key, value in previous.items():
            context.setLocalProperty(key, value)  # None removes the property
