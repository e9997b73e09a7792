"""The live stored rows of given keys, whole, found through the key index (not a scan).

What a ``MERGE INTO`` whose ``ON`` equates the unique key joins its source to: the rows the index
finds for the source's keys, read by position from the hit data files (every column, the hidden
sequence column included), exactly as the keyed loads that merge with stored rows read theirs
(:func:`iceberg_doris.merge_on_write.lookup.lookup_with_index`). When the index cannot decide
(off, a key or sequence type it does not encode, equality deletes, a file with a NULL key, a
failed probe or read) the answer is why, and the caller joins the whole table instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.engine import key_index
from iceberg_doris.engine.deletion_vectors import live_files
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.iceberg_tables import current_snapshot_id, iceberg_expression
from iceberg_doris.engine.live_files import has_equality_deletes, plan_of
from iceberg_doris.merge_on_write import plan
from iceberg_doris.merge_on_write.lookup import collect_index_keys, index_not_applicable
from iceberg_doris.table_model import DorisTableModel

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@dataclass
class StoredRowsOfKeys:
    """The live rows of the asked keys (the table's columns, in its order), kept on the executors
    until :meth:`release`."""

    frame: "DataFrame"
    summary: str  # how they were found, for the snapshot summary
    read: key_index.StoredRows | None  # None when no key was asked

    def release(self) -> None:
        if self.read is not None:
            self.read.release()


def stored_rows_of_keys(
    iceberg: IcebergJava, table: JavaObject, model: DorisTableModel, columns: list[str], keys: "DataFrame",
) -> StoredRowsOfKeys | str:
    """The live rows, at ``table``'s current snapshot, whose key is one of ``keys`` (key columns
    named as the table's; repeats and NULL keys allowed: a NULL key matches no row), with
    ``columns`` (the table's, in its order); or why the key index cannot tell."""
    from pyspark.sql import functions as F

    spark = iceberg.spark
    shape = plan.KeyedLoadShape(model, tuple(c.name for c in model.loadable_columns), partial=False)
    if not key_index.enabled(spark):
        return f"the key index is off ({key_index.ENABLED_CONF})"
    why = index_not_applicable(table, shape)
    if why is not None:
        return why
    snapshot_id = current_snapshot_id(table)
    if snapshot_id is None:
        return "the table holds no rows"
    key_columns = [F.col(quote_identifier(k)) for k in shape.keys]
    batch = keys.select(*key_columns).where(" AND ".join(f"{quote_identifier(k)} IS NOT NULL" for k in shape.keys))
    indexed = collect_index_keys(iceberg, table, _probe_rows(batch, shape), shape)
    if indexed.java.has_duplicates:  # a probe takes each key once; most sources hold each once
        indexed = collect_index_keys(iceberg, table, _probe_rows(batch.distinct(), shape), shape)
    data_files, _ = live_files(table, snapshot_id=snapshot_id, row_filter=iceberg_expression(iceberg, indexed.key_range))
    planned = plan_of(data_files)
    if planned is None or has_equality_deletes(data_files):
        return "equality deletes"
    hits = key_index.probe_or_none(
        iceberg, table, planned, list(shape.keys), shape.sequence_column, indexed.java, for_reading=True,
    )
    if hits is None:
        return "the probe failed"
    if hits.unindexable:
        return f"{len(hits.unindexable)} file(s) hold NULL keys"
    ordered = list(shape.keys) + [c for c in columns if c not in shape.keys]  # the read takes key columns first
    read = hits.read_live_rows_or_none(spark, table, ordered)
    if read is None:
        return "reading the stored rows by position failed"
    frame = read.frame.select(*[F.col(quote_identifier(c)) for c in columns])
    if read.broadcastable():
        frame = F.broadcast(frame)  # rows read by position carry no size estimate for Spark to go by
    return StoredRowsOfKeys(frame, f"{hits.describe()}, {read.count} rows read by position", read)


def _probe_rows(keys: "DataFrame", shape: plan.KeyedLoadShape) -> "DataFrame":
    """The keys as the key index collects a batch's (:func:`collect_index_keys`): no delete flag
    and, on a sequence table, no sequence value."""
    from pyspark.sql import functions as F

    rows = keys.withColumn(plan.DELETE, F.lit(False))
    if shape.sequence_column:
        rows = rows.withColumn(plan.SEQUENCE, F.lit(None).cast(shape.model.column(shape.sequence_column).spark_type))
    return rows
