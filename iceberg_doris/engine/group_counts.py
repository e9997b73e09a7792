"""Counting a frame's rows per group of a few columns in one Spark job
(``io.icebergdoris.spark.GroupCounts`` in Spark's JVM).

A load counts its rows by status and partition before it commits. Spark's ``groupBy().agg()`` of
the cached rows runs three jobs under adaptive execution; on a small batch each job is mostly
scheduling, so the helper folds each task's rows into their few groups and merges them on the
driver instead: one job, no shuffle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.engine.key_index import BatchKeys, session_request

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

KEY_COLUMN_PREFIX = "__doris_index_key"


def count_groups(
    frame: "DataFrame", groups: list[str], range_column: str | None = None, flag_column: str | None = None
) -> list[dict[str, Any]]:
    """One dict per distinct combination of the ``groups`` columns' values: those values, ``count``
    (its rows) and, with ``range_column``, ``low`` / ``high`` (that column's smallest and largest
    non-NULL value, None when all are NULL) and ``flag`` (``flag_column`` is true in some row).
    Only the named columns are read from ``frame``."""
    narrow = _narrow(frame, groups + [c for c in (range_column, flag_column) if c])
    result = frame.sparkSession.sparkContext._jvm.io.icebergdoris.spark.GroupCounts.count(
        narrow._jdf, "\n".join(groups), range_column or "", flag_column or ""
    )
    return _dicts(frame, result)


def count_groups_collecting_keys(
    table: JavaObject, frame: "DataFrame", groups: list[str], range_column: str, flag_column: str,
    *, kept: tuple[str, str], key_columns: list["Column"], key_names: list[str], sequence_column: str | None,
) -> tuple[list[dict[str, Any]], BatchKeys | None]:
    """:func:`count_groups`, and from the same pass the key-index :class:`BatchKeys`
    of the rows whose column ``kept[0]`` holds ``kept[1]``: ``key_columns`` are the expressions a
    separate collection would select (the table's key columns ``key_names``, the delete flag and,
    with ``sequence_column``, the sequence value). The keys are None when their types need a job
    of their own (then nothing was counted either: call :func:`count_groups`)."""
    aliases = [f"{KEY_COLUMN_PREFIX}{i}" for i in range(len(key_columns))]
    narrow = _narrow(frame, groups + [range_column, flag_column, kept[0]], [c.alias(a) for c, a in zip(key_columns, aliases)])
    counted = frame.sparkSession.sparkContext._jvm.io.icebergdoris.spark.GroupCounts.countAndCollectKeys(
        narrow._jdf, "\n".join(groups), range_column, flag_column, kept[0], kept[1], "\n".join(aliases),
        table, session_request(frame.sparkSession, key_names, sequence_column),
    )
    if counted is None:
        return [], None
    return _dicts(frame, counted.groups()), BatchKeys(counted.keys(), frame.sparkSession)


def _narrow(frame: "DataFrame", names: list[str], extra: list["Column"] | None = None) -> "DataFrame":
    """Only the named columns (each once) and ``extra``: a cached frame's scan then reads only those."""
    from pyspark.sql import functions as F

    from iceberg_doris.ddl.sql_text import quote_identifier

    return frame.select(*[F.col(quote_identifier(c)) for c in dict.fromkeys(names)], *(extra or []))


def _dicts(frame: "DataFrame", groups: JavaObject) -> list[dict[str, Any]]:
    """The JVM's group rows (a local relation: collecting runs no job) as dicts."""
    from pyspark.sql import DataFrame

    return [row.asDict() for row in DataFrame(groups, frame.sparkSession).collect()]
