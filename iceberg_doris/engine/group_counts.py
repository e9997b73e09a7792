"""Counting a frame's rows per group of a few columns in one Spark job
(``io.icebergdoris.spark.GroupCounts`` in Spark's JVM).

A load counts its rows by status and partition before it commits. Spark's ``groupBy().agg()`` of
the cached rows runs three jobs under adaptive execution; on a small batch each job is mostly
scheduling, so the helper folds each task's rows into their few groups and merges them on the
driver instead: one job, no shuffle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def count_groups(
    frame: "DataFrame", groups: list[str], range_column: str | None = None, flag_column: str | None = None
) -> list[dict[str, Any]]:
    """One dict per distinct combination of the ``groups`` columns' values: those values, ``count``
    (its rows) and, with ``range_column``, ``low`` / ``high`` (that column's smallest and largest
    non-NULL value, None when all are NULL) and ``flag`` (``flag_column`` is true in some row).
    Only the named columns are read from ``frame``."""
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F

    from iceberg_doris.engine.table_names import quote_identifier

    spark = frame.sparkSession
    read = list(dict.fromkeys(groups + [c for c in (range_column, flag_column) if c]))
    # Selecting the columns first lets a cached frame's scan read only those.
    narrow = frame.select(*[F.col(quote_identifier(c)) for c in read])
    result = spark.sparkContext._jvm.io.icebergdoris.spark.GroupCounts.count(
        narrow._jdf, "\n".join(groups), range_column or "", flag_column or ""
    )
    return [row.asDict() for row in DataFrame(result, spark).collect()]
