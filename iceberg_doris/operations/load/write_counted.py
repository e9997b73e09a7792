"""Counting a load's rows from the write itself: the one-pass path of duplicate-key loads.

A load whose rows go straight into data files (duplicate keys, into main, no auto partitions)
needs no pass of its own to count them: the rows are staged as data files first and then

- the loaded rows are the staged files' record counts (exact: what was written);
- whether any row was filtered or unselected, and which partitions received rows, come from a
  Spark ``Observation`` on the rows as the write reads them (no extra job). Spark may evaluate an
  observed plan more than once (a range-distributed write samples its input first), which is why
  the observation only answers "were there any" and "which": an exact count of the other rows is
  taken only when there are any, in the same job that finds them (and the error rows are written
  only then).

``max_filter_ratio`` is enforced after staging and before the commit, so a refused load commits
nothing; its staged files are orphans that ``doris.cleanup`` removes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.engine.faults import crash_point
from iceberg_doris.engine.file_sets import record_count
from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.engine.spark_runtime import select_sql
from iceberg_doris.engine.staged_writes import stage_data_files
from iceberg_doris.loading import STATUS_COLUMN, STATUS_OK, TargetColumn
from iceberg_doris.merge_on_write.fresh_keys import BatchFacts, all_new
from iceberg_doris.merge_on_write.plan import DELETE, KeyedLoadShape, new_rows
from iceberg_doris.operations.load.counting import RowCounts, check_filter_ratio, error_location, write_rejected
from iceberg_doris.operations.load.routing import PARTITION_COLUMN, RoutedRows
from iceberg_doris.operations.requests import LoadRequest
from iceberg_doris.operations.tables import DorisTable

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@dataclass
class StagedCounted:
    """The staged files of a load and its counts, taken from that write."""

    counts: RowCounts
    files: list[JavaObject]
    error_rows_path: str | None


def counted_by_write(routed: RoutedRows, request: LoadRequest) -> bool:
    """Whether a duplicate-key load can count its rows from its write: rows into main (not temp
    partitions) whose partitions are all known before the write (no auto partitions to plan)."""
    return not routed.auto_keys and not routed.temporary and not request.temporary_partitions


def with_partition_column(routed: RoutedRows) -> "DataFrame":
    """The routed rows with their partition's name (NULL on an unpartitioned table)."""
    from pyspark.sql import functions as F

    if routed.partitions is not None:
        return routed.frame  # routing named them (replacing the column with itself cost round trips)
    return routed.frame.withColumn(PARTITION_COLUMN, F.lit(None).cast("string"))


def stage_and_count(
    handle: DorisTable, routed: RoutedRows, request: LoadRequest, label: str, targets: list[TargetColumn],
    keyed: KeyedLoadShape | None = None,
) -> StagedCounted:
    """Stages the accepted rows as data files and counts the load from that write (see the module).

    ``keyed``: a unique/aggregate load whose every key is new (see ``fresh_bulk``): the rows are
    written as such a load writes new keys (delete rows left out), and the counts carry the
    batch's :class:`BatchFacts` as observed in the same pass (distinct keys not counted)."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    # The observed metrics and the projection are SQL text: each Column built in Python costs
    # py4j round trips (about ten for F.col), a fixed cost every load paid per column.
    ok_sql = f"{quote_identifier(STATUS_COLUMN)} = '{STATUS_OK}'"
    partition_sql = quote_identifier(PARTITION_COLUMN)
    frame = with_partition_column(routed)
    observation = Observation()
    metrics = {
        "others": f"max(CASE WHEN {ok_sql} THEN 0 ELSE 1 END)",
        # As JSON text: an observed array reaches Python as a Java object.
        "touched": f"to_json(collect_set(CASE WHEN {ok_sql} THEN {partition_sql} END))",
    }
    if keyed is not None:
        first = quote_identifier(keyed.keys[0])
        metrics |= {
            "deletes": f"max(CASE WHEN {ok_sql} AND {quote_identifier(DELETE)} THEN 1 ELSE 0 END)",
            # As text: an observed date or timestamp reaches Python as a Java object.
            "low": f"CAST(min(CASE WHEN {ok_sql} THEN {first} END) AS STRING)",
            "high": f"CAST(max(CASE WHEN {ok_sql} THEN {first} END) AS STRING)",
        }
    watched = frame.observe(observation, *[F.expr(text).alias(name) for name, text in metrics.items()])
    accepted = watched.filter(ok_sql)
    if keyed is not None:
        rows = new_rows(all_new(accepted, keyed), keyed)
    else:
        rows = select_sql(accepted, [quote_identifier(t.name) for t in targets])
    files = stage_data_files(handle.iceberg, handle.name, rows, table=handle.table)
    seen = observation.get or {}
    loaded = sum(map(record_count, files))
    error_path = None
    observed = seen.get("others") is not None and seen.get("touched") is not None
    if not observed:
        # Spark optimised the observed plan away (every row was rejected while planning, e.g. a
        # constant query): count the routed rows in one job instead.
        grouped = frame.groupBy(STATUS_COLUMN, PARTITION_COLUMN).count().collect()
        by_status: dict[str, int] = {}
        for row in grouped:
            by_status[row[STATUS_COLUMN]] = by_status.get(row[STATUS_COLUMN], 0) + int(row["count"])
        touched = sorted({str(r[PARTITION_COLUMN]) for r in grouped if r[STATUS_COLUMN] == STATUS_OK and r[PARTITION_COLUMN] is not None})
    else:
        by_status = {}
        if seen["others"]:
            # Some rows were not loaded: count them exactly.
            others = frame.filter(f"NOT ({ok_sql})").groupBy(STATUS_COLUMN).count().collect()
            by_status = {row[STATUS_COLUMN]: int(row["count"]) for row in others}
        touched = sorted(str(name) for name in json.loads(seen["touched"]) if name is not None)
    filtered, unselected = by_status.get("error", 0), by_status.get("unselected", 0)
    if filtered:
        error_path = write_rejected(frame, error_location(handle, label))  # only when there are error rows
    crash_point(request.operation, "files-staged")  # the files and the error rows are written by now
    facts = None
    if keyed is not None and observed:
        spark_type = keyed.model.column(keyed.keys[0]).spark_type
        low, high = (observed_key_value(spark_type, seen[bound]) for bound in ("low", "high"))
        if loaded == 0 or (low is not None and high is not None):
            facts = BatchFacts(rows=loaded, distinct_keys=None, low=low, high=high, deletes=bool(seen["deletes"]))
    counts = RowCounts(routed, loaded, filtered, unselected, touched, keys=facts)
    check_filter_ratio(handle, request, counts, error_path)
    crash_point(request.operation, "rows-counted")
    return StagedCounted(counts, files, error_path)


def observed_key_value(spark_type: str, text: str | None) -> Any:
    """A first-key value observed as text (Spark's cast to string) as the key-range filter takes
    it; None for no value, or for a TIMESTAMP, whose text is in the session's time zone (the load
    then counts its keys the usual way)."""
    import datetime as dt
    from decimal import Decimal

    if text is None:
        return None
    name = spark_type.strip().lower()
    if name in ("tinyint", "smallint", "int", "bigint"):
        return int(text)
    if name.startswith("decimal"):
        return Decimal(text)
    if name == "date":
        return dt.date.fromisoformat(text)
    if name == "timestamp_ntz":
        return dt.datetime.fromisoformat(text)
    if name == "boolean":
        return text == "true"
    if name == "timestamp":
        return None
    return text
