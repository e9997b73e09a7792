"""Counting a load's rows (loaded, filtered, unselected, per partition) in one pass, enforcing
``max_filter_ratio`` and writing the rejected rows with their reasons to ``error_rows_path``."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.engine.computed_once import ComputedOnce, computed_once
from iceberg_doris.engine.group_counts import count_groups, count_groups_collecting_keys
from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.engine.key_index import BatchKeys
from iceberg_doris.engine.iceberg_tables import table_location
from iceberg_doris.engine.safe_paths import child_location
from iceberg_doris.errors import LoadError
from iceberg_doris.engine.iceberg_tables import current_snapshot_id
from iceberg_doris.loading import STATUS_COLUMN, first_error_reason, write_error_rows
from iceberg_doris.merge_on_write.fresh_keys import BatchFacts
from iceberg_doris.merge_on_write.lookup import index_key_columns, index_possible
from iceberg_doris.merge_on_write.plan import DELETE, KeyedLoadShape
from iceberg_doris.operations.load.routing import (
    AUTO_KEY_COLUMN,
    PARTITION_COLUMN,
    RoutedRows,
    reroute,
    with_auto_partitions,
)
from iceberg_doris.operations.requests import LoadRequest
from iceberg_doris.operations.tables import DorisTable
from iceberg_doris.table_model import DorisTableModel

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

    from iceberg_doris.merge_on_write.commit import KeyedLoad

ERROR_ROWS_DIR = "_doris_load_errors"


@dataclass
class RowCounts:
    """What one pass over the routed rows found."""

    routed: RoutedRows  # with the auto partitions the rows need, if any
    loaded: int
    filtered: int
    unselected: int
    touched: list[str]  # partitions that receive rows
    placed: bool = True  # False: some rows fit no partition even with the new auto partitions
    keys: BatchFacts | None = None  # keyed loads: the accepted rows' keys, from the same pass


@dataclass
class CountedRows:
    """The routed rows, computed once (call :meth:`release` when done), with their counts."""

    rows: ComputedOnce
    counts: RowCounts
    error_rows_path: str | None

    @property
    def frame(self) -> "DataFrame":
        return self.rows.frame

    def accepted(self) -> "DataFrame":
        return accepted_rows(self.frame)

    def release(self) -> None:
        self.rows.release()


def accepted_rows(frame: "DataFrame") -> "DataFrame":
    """The rows of ``frame`` (counted rows with their status) that the load accepted."""
    from pyspark.sql import functions as F

    return frame.filter(F.col(STATUS_COLUMN) == "ok")


def count_and_check(
    handle: DorisTable, routed: RoutedRows, request: LoadRequest, label: str, keyed: KeyedLoadShape | None = None,
    *, early_write: "KeyedLoad | None" = None,
) -> CountedRows:
    """Counts the routed rows (planning auto partitions from the same pass; for a ``keyed`` load
    also its keys' :class:`BatchFacts`), writes the rejected ones to the error-rows folder and
    refuses the load when too many were filtered.

    ``early_write``: the keyed load, told to write its new rows early
    (:meth:`KeyedLoad.write_new_rows_early`) once the rows are persisted and before they are
    counted, when no auto partition can reroute them: the write's planning and job overlap the
    counting's (the write's task reads the cached rows as the counting job stores them). The load
    discards them if it stops here."""
    from pyspark.sql import functions as F

    partition = F.col(PARTITION_COLUMN) if PARTITION_COLUMN in routed.frame.columns else F.lit(None).cast("string")
    # Every later step (the write, the lookups, a second lookup under the commit lock) reads the
    # rows this pass counts, never the source again: the counts are the rows committed, and a key
    # is written only as it was looked up, however the source changes meanwhile.
    rows = computed_once(routed.frame.withColumn(PARTITION_COLUMN, partition))
    frame = rows.frame
    main_has_rows = current_snapshot_id(handle.table) is not None
    if early_write is not None and not routed.auto_keys:
        early_write.write_new_rows_early(accepted_rows(frame))
    try:
        # A load the key index decides learns whether a key repeats from the keys it collects:
        # counting distinct keys here would cost a shuffle of every key.
        distinct = keyed is not None and (routed.temporary or not main_has_rows
                                          or not index_possible(handle.iceberg, handle.table, keyed))
        # Otherwise the index's lookup collects the accepted rows' keys: from this same pass
        # (an overwrite looks nothing up).
        index_table = handle.table if keyed is not None and not distinct and request.overwrite is None else None
        counted = count_rows(frame, routed, handle.model, keyed, distinct=distinct, index_table=index_table)
        if not counted.placed:
            # Rare: route once more over the new partitions (the rows as counted, not the source
            # again); rows that still fit none are rejected.
            rerouted = reroute(dataclasses.replace(counted.routed, frame=frame))
            first, rows = rows, computed_once(rerouted.frame)
            frame = rows.frame
            try:
                counted = count_rows(frame, rerouted, handle.model, keyed, distinct=distinct, index_table=index_table)
            finally:
                first.release()  # the rerouted rows are computed from these: dropped once they are
        error_path = write_rejected(frame, error_location(handle, label)) if counted.filtered else None
        check_filter_ratio(handle, request, counted, error_path)
    except BaseException:
        if early_write is not None:
            early_write.discard_early_rows()
        rows.release()
        raise
    return CountedRows(rows, counted, error_path)


def write_rejected(frame: "DataFrame", location: str) -> str:
    """Writes the error rows of ``frame`` (the routed rows) to ``location``; returns it."""
    from pyspark.sql import functions as F

    rejected = frame.filter(F.col(STATUS_COLUMN) == "error")
    return write_error_rows(rejected.drop(*[c for c in (PARTITION_COLUMN, AUTO_KEY_COLUMN) if c in frame.columns]), location)


def check_filter_ratio(handle: DorisTable, request: LoadRequest, counts: RowCounts, error_path: str | None) -> None:
    """Refuses the load when more than ``max_filter_ratio`` of its rows were filtered."""
    loaded, filtered = counts.loaded, counts.filtered
    total = loaded + filtered
    if filtered and filtered / total > request.max_filter_ratio:
        # The origin's message may name the counts and the ratio (Doris's INSERT message does).
        message = request.origin.filtered_message
        reason = message.format(filtered=filtered, total=total, ratio=request.max_filter_ratio) if message else (
            f"too many filtered rows: {filtered} of {total} rows were filtered, more than max_filter_ratio "
            f"{request.max_filter_ratio}"
        )
        first = first_error_reason(handle.iceberg.spark, error_path) if error_path else None
        why = f" (first rejected row: {first})" if first else ""
        raise LoadError(
            f"{reason}{why}; nothing was committed to {handle.name.qualified}. The rejected rows and their reasons "
            f"are in {error_path}"
        )


def count_rows(
    frame: "DataFrame", routed: RoutedRows, model: DorisTableModel, keyed: KeyedLoadShape | None = None, *,
    distinct: bool = True, index_table: "JavaObject | None" = None,
) -> RowCounts:
    """Counts ``frame`` (the routed rows, persisted) by status and partition in one Spark job,
    planning auto partitions from the same pass (and, ``keyed``, finding the keys' facts; their
    distinct keys only with ``distinct``; with ``index_table``, a load the key index decides,
    collecting the accepted rows' keys for it in the same job)."""
    from pyspark.sql import functions as F

    grouping = [STATUS_COLUMN, PARTITION_COLUMN] + ([AUTO_KEY_COLUMN] if routed.auto_keys else [])
    collected = None
    if keyed is not None and distinct:
        # Counting distinct keys needs a shuffle of every key: Spark's aggregate.
        aggregates = [F.count(F.lit(1)).alias("count")] + key_aggregates(keyed)
        grouped = [row.asDict() for row in frame.groupBy(*grouping).agg(*aggregates).collect()]
    else:
        grouped, collected = counted_groups(frame, grouping, keyed, index_table)
    counts: dict[str, int] = {}
    for row in grouped:
        counts[row[STATUS_COLUMN]] = counts.get(row[STATUS_COLUMN], 0) + row["count"]
    ok = [row for row in grouped if row[STATUS_COLUMN] == "ok"]
    touched = {row[PARTITION_COLUMN] for row in ok if row[PARTITION_COLUMN] is not None}
    if routed.auto_keys:
        keys = [tuple(row[AUTO_KEY_COLUMN]) for row in ok if row[AUTO_KEY_COLUMN] is not None]
        routed, placed = with_auto_partitions(routed, model, keys)
        if not placed:
            return RowCounts(routed, 0, 0, 0, [], placed=False)
        # Each key was outside every existing partition, so each has a new partition of its own.
        touched |= {p.name for p in routed.created}
    facts = batch_facts(ok, collected) if keyed is not None else None
    return RowCounts(routed, counts.get("ok", 0), counts.get("error", 0), counts.get("unselected", 0), sorted(touched), keys=facts)


def counted_groups(
    frame: "DataFrame", grouping: list[str], keyed: KeyedLoadShape | None, index_table: "JavaObject | None" = None
) -> tuple[list[dict[str, Any]], BatchKeys | None]:
    """The groups :func:`count_rows` reads, counted in one Spark job (no distinct keys), and with
    ``index_table`` the accepted rows' keys collected for the key index in that job (None when
    their types need a job of their own)."""
    if keyed is None:
        return count_groups(frame, grouping), None
    collected = None
    if index_table is not None:
        groups, collected = count_groups_collecting_keys(
            index_table, frame, grouping, keyed.keys[0], DELETE, kept=(STATUS_COLUMN, "ok"),
            key_columns=index_key_columns(keyed), key_names=list(keyed.keys), sequence_column=keyed.sequence_column,
        )
    if collected is None:
        groups = count_groups(frame, grouping, keyed.keys[0], DELETE)
    rows = [
        {**{c: g[c] for c in grouping}, "count": g["count"], "__distinct": None, "__low": g["low"],
         "__high": g["high"], "__deletes": g["flag"]}
        for g in groups
    ]
    return rows, collected


def key_aggregates(keyed: KeyedLoadShape) -> list["Column"]:
    """Per group: distinct keys, the first key column's range, whether a row deletes."""
    from pyspark.sql import functions as F

    keys = [F.col(quote_identifier(k)) for k in keyed.keys]
    return [
        F.countDistinct(F.struct(*keys)).alias("__distinct"),
        F.min(keys[0]).alias("__low"),
        F.max(keys[0]).alias("__high"),
        F.max(F.col(DELETE).cast("int")).alias("__deletes"),
    ]


def batch_facts(ok: list[Any], collected: BatchKeys | None = None) -> BatchFacts:
    """The facts of the accepted rows, from their groups (a key lies in one partition: Doris
    makes partition columns key columns), with their keys if the pass ``collected`` them."""
    lows = [row["__low"] for row in ok if row["__low"] is not None]
    highs = [row["__high"] for row in ok if row["__high"] is not None]
    return BatchFacts(
        rows=sum(row["count"] for row in ok),
        distinct_keys=None if any(row["__distinct"] is None for row in ok) else sum(row["__distinct"] for row in ok),
        low=min(lows) if lows else None,
        high=max(highs) if highs else None,
        deletes=any(row["__deletes"] for row in ok),
        collected=collected,
    )


def error_location(handle: DorisTable, label: str) -> str:
    """``<warehouse>/_doris_load_errors/<db>/<table>/<label>``: outside every table's folder, so
    Iceberg's orphan-file cleanup never removes it. Each name is exactly one folder level
    (:func:`child_location` encodes whatever it holds), so the location is always a folder of
    ``<warehouse>/_doris_load_errors/<db>/<table>/`` and writing it (which replaces it) cannot touch
    anything else."""
    spark = handle.iceberg.spark
    warehouse = spark.conf.get(f"spark.sql.catalog.{handle.iceberg.catalog_name}.warehouse", None)
    base = warehouse.rstrip("/") if warehouse else table_location(handle.table).rsplit("/", 2)[0]
    return child_location(base, ERROR_ROWS_DIR, handle.name.namespace, handle.name.name, label)
