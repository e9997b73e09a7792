"""Looking up a merge-on-write load's keys among the table's live rows, at one snapshot.

Two ways find the rows a batch replaces: the primary-key index (keys of any indexable type, one
column or several, unique or aggregate, full-row or partial-column, with or without a sequence
column, v3 deletion vectors or v2 position deletes: per-file sorted keys probed on the executors,
see :mod:`iceberg_doris.engine.key_index`) and the scan (the fallback when the index cannot decide:
a key column declared NULL or a NULL key in a file, equality deletes, a key type it does not
encode, a failed probe or read; the candidate files' key columns joined with the batch, NULL equal
to NULL where a key is nullable (:mod:`iceberg_doris.engine.key_joins`), pruned by the batch's keys). The snapshot summary's
``doris.key-index`` says which, and why the scan.

What the index's hits feed depends on the load:

* unique keys, full rows, no sequence column: the hits are the positions to delete, nothing more;
* a sequence column whose decision needs only the sequence: the probe knows each key's live rows
  and largest stored sequence value, and decides the winners itself by :func:`plan.decide`'s rule
  (``Lookup.decideBySequence`` in ``io.icebergdoris.keyindex``): the winners' live rows are the positions to delete, and
  the batch is filtered by its losing keys (:func:`plan.without_live_rows`) only when some lose;
* loads that merge with the stored rows (aggregate keys, partial-column updates, and sequence
  tables whose tombstones copy a NOT NULL column or whose sequence column is not supplied): the
  columns they need (:func:`plan.live_columns_needed`) of exactly the hit rows are read by
  position from the hit data files on the executors (``KeyIndexRows``: by Iceberg field id, row
  groups without a hit skipped), in the shape :func:`plan.live_rows` gives, and
  :func:`plan.decide` runs on them unchanged. The merge rules stay in :mod:`plan`; only how the
  live rows are found differs. Measured (``benchmarks/key_index_row_reads.py``, 1M and 2M rows,
  1% batch) this was 1.06x-1.42x faster than the scan with warm entries and about even (0.89x-1.17x)
  with entries read from their files, so it is the default for every shape: a hit file's row
  groups are still decoded whole, what it saves is the scan's join.

Either way the result is a :class:`Lookup`: the new rows staged as data files, and per data file
the positions to delete. Nothing here commits; :mod:`iceberg_doris.merge_on_write.commit` does.
"""

from __future__ import annotations

import logging
from collections import ChainMap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from pyroaring import BitMap64

from iceberg_doris.ddl import KeysModel
from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.engine import key_index
from iceberg_doris.engine.deletion_vectors import live_files
from iceberg_doris.engine.faults import crash_point
from iceberg_doris.engine.file_sets import ref_snapshot_id
from iceberg_doris.engine.file_sets import file_location, record_count
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.iceberg_tables import iceberg_expression, read_at_snapshot
from iceberg_doris.engine.live_files import file_order_column, has_equality_deletes, plan_of
from iceberg_doris.engine.row_deletes import write_row_deletes
from iceberg_doris.engine.staged_writes import stage_data_files
from iceberg_doris.engine.table_names import TableName
from iceberg_doris.merge_on_write import plan
from iceberg_doris.table_model import snapshot_summary
from iceberg_doris.table_model.partition_predicates import TRUE, Predicate, both, to_sql

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

log = logging.getLogger(__name__)


class KeyedTable(Protocol):
    """The table a keyed load writes to, as the load opened it."""

    @property
    def iceberg(self) -> IcebergJava: ...

    @property
    def name(self) -> TableName: ...

    @property
    def table(self) -> JavaObject: ...


class WrittenMeanwhile(Protocol):
    """A batch's new rows being written while the keys are looked up, as if every version won."""

    def files(self) -> list[JavaObject]:
        """The staged files (waits for the write)."""
        ...

    def discard(self) -> None:
        """Waits for the write (and anything it started on its files) and deletes its files."""
        ...


@dataclass
class Lookup:
    """What one lookup decided, at one snapshot: the files to add and the rows to delete."""

    snapshot_id: int | None  # the snapshot looked up in; the commit validates from it
    row_filter: JavaObject  # the rows concurrent commits are checked against
    marks: dict[str, BitMap64]  # data file location -> positions to delete
    deleted_rows: int
    upserts: list[JavaObject]
    tombstones: list[JavaObject]
    data_files: Mapping[str, JavaObject]
    existing: Mapping[str, Any]  # the delete files each data file has at snapshot_id
    summary: dict[str, str]
    replaced_files: list[str]  # data files the bitmaps delete rows of (not the tombstones)
    _delete_files: tuple[list[JavaObject], list[JavaObject]] | None = field(default=None, repr=False)

    def delete_files(self, iceberg: IcebergJava, table: JavaObject) -> tuple[list[JavaObject], list[JavaObject]]:
        """(delete files to add, to remove), written on first use: only once the load holds the
        lock, and once for all attempts that commit this lookup."""
        if self._delete_files is None:
            self._delete_files = write_row_deletes(iceberg, table, self.marks, data_files=self.data_files, existing=self.existing)
            crash_point("load", "deletes-written")
        return self._delete_files


@dataclass(frozen=True)
class LookupContext:
    """What one lookup of a keyed write's keys works with: the table as the load opened it, the
    table as this lookup reads it, the batch (one version per key), the load's shape, the touched
    partitions, the ref, the commit's summary so far and which lookup of the write this is."""

    handle: KeyedTable
    table: JavaObject  # the table as this lookup reads it (the head of ``branch`` is looked up)
    batch: "DataFrame"
    shape: plan.KeyedLoadShape
    touched: Predicate
    branch: str | None
    summary: Mapping[str, str]
    lookups: int  # 1 for the first lookup, 2 after a conflict

    @property
    def iceberg(self) -> IcebergJava:
        return self.handle.iceberg


def look_up(
    context: LookupContext,
    indexed: "IndexedKeys | None",
    scan_keys: Callable[[], "BatchKeys"],
    *,
    upserts: list[JavaObject] | WrittenMeanwhile | None = None,
) -> Lookup:
    """Looks the batch's keys up in the context table's head of its ref and stages the rows to add
    (``upserts`` given: those, already written, or the batch's rows being written meanwhile as if
    every version won, discarded here if some lose); nothing is committed."""
    handle, table, batch, shape = context.handle, context.table, context.batch, context.shape
    touched, branch, lookups = context.touched, context.branch, context.lookups
    summary = dict(context.summary)
    iceberg = handle.iceberg
    snapshot_id = ref_snapshot_id(table, branch)
    if snapshot_id is None:
        indexed = None  # nothing to look up (the ref was emptied since the keys were collected)
    keys = indexed.keys if indexed is not None else scan_keys()
    candidates = both(touched, keys.predicate)
    row_filter = iceberg_expression(iceberg, candidates)  # also what concurrent commits are checked against
    plan_filter = iceberg_expression(iceberg, both(touched, indexed.key_range)) if indexed is not None else row_filter
    data_files, existing = live_files(table, snapshot_id=snapshot_id, row_filter=plan_filter) if snapshot_id else ({}, {})
    lookup = None
    fallback = None
    if indexed is not None:
        found = lookup_with_index(iceberg, table, data_files, indexed, shape)
        lookup, fallback = (found, None) if isinstance(found, IndexedLookup) else (None, found)
    elif snapshot_id is not None and key_index.enabled(iceberg.spark):
        fallback = index_not_applicable(table, shape)
    summary = summary | {snapshot_summary.LOOKUPS: str(lookups)}
    if fallback is not None:
        summary |= {snapshot_summary.KEY_INDEX: f"scan: {fallback}"}
    tombstone_files: list[JavaObject] = []
    every_version_wins = lookup is not None and lookup.decided and lookup.losing_keys is None
    if upserts is not None and not isinstance(upserts, list) and shape.sequence_column is not None and not every_version_wins:
        # Written meanwhile as if every version won; here some may lose to a stored one.
        upserts.discard()
        upserts = None
    if lookup is not None and lookup.decided:
        marks = lookup.marks
        summary |= {snapshot_summary.KEY_INDEX: lookup.describe()}
        decided = plan.without_live_rows(batch, losing_keys=lookup.losing_keys, keys=shape.keys, null_safe=shape.null_safe)
        if upserts is None:
            upserts = stage_data_files(iceberg, handle.name, plan.new_rows(decided, shape), table=table)
        if marks.any_delete_wins:
            tombstone_files = stage_data_files(iceberg, handle.name, plan.tombstones(decided, shape), table=table)
    elif lookup is not None:
        summary |= {snapshot_summary.KEY_INDEX: lookup.describe()}
        live, stored = lookup.decide_rows
        try:
            marks, staged, tombstone_files = _decide_and_stage(
                context, live, stored, stage_upserts=upserts is None,
                marks=lookup.marks if lookup.marks_known else None,
                live_unique=lookup.live_unique, broadcast_live=lookup.broadcast_live, data_files=data_files,
                file_order_of=lookup.hits.upserts.keys() | lookup.hits.deletes.keys(),
            )
        finally:
            lookup.release()
        upserts = staged if upserts is None else upserts
    else:
        marks, staged, tombstone_files = _scan_lookup(
            context, snapshot_id, candidates, data_files, keys.broadcast, stage_upserts=upserts is None
        )
        upserts = staged if upserts is None else upserts
    if upserts is not None and not isinstance(upserts, list):
        upserts = upserts.files()
    crash_point("load", "keys-looked-up")
    deletes: dict[str, BitMap64] = dict(marks.by_file)
    tombstones_by_location = {file_location(f): f for f in tombstone_files}
    for location, data_file in tombstones_by_location.items():
        deletes[location] = BitMap64(range(record_count(data_file)))
    summary |= {snapshot_summary.DELETED_ROWS: str(marks.deleted_rows)}
    return Lookup(
        snapshot_id, row_filter, deletes, marks.deleted_rows, upserts, tombstone_files,
        ChainMap(tombstones_by_location, data_files), existing, summary, list(marks.by_file),
    )


def _scan_lookup(
    context: LookupContext,
    snapshot_id: int | None,
    candidates: Predicate,
    data_files: Mapping[str, JavaObject],
    broadcast_keys: bool,
    *,
    stage_upserts: bool = True,
) -> tuple[plan.ReplacedPositions, list[JavaObject], list[JavaObject]]:
    """The lookup by scanning the candidate rows' keys and joining them with the batch (every
    key model and type); returns the replaced positions and the staged new rows (none unless
    ``stage_upserts``) and tombstones."""
    handle, table, batch, shape = context.handle, context.table, context.batch, context.shape
    spark = context.iceberg.spark
    if snapshot_id is None:
        live = spark.createDataFrame([], _live_schema(spark, handle, shape))
        stored = None
    else:
        table_frame = read_at_snapshot(spark, handle.name, table, snapshot_id)
        table_frame = table_frame.filter(to_sql(candidates))
        live = plan.live_rows(table_frame, batch, shape, broadcast_keys=broadcast_keys)
        stored = None
        if shape.sequence_column and data_files:
            physical = _stored_versions(spark, handle, table, snapshot_id, candidates, shape)
            stored = plan.stored_sequence(physical, batch, shape, broadcast_keys=broadcast_keys)
    return _decide_and_stage(context, live, stored, stage_upserts=stage_upserts, data_files=data_files)


def _stored_versions(
    spark: Any, handle: KeyedTable, table: JavaObject, snapshot_id: int, candidates: Predicate,
    shape: plan.KeyedLoadShape,
) -> "DataFrame":
    """Per key of the candidate rows, the largest stored sequence value among its live and its
    deleted versions (tombstones included), under the table's current column names. Read through
    Iceberg, not as bare Parquet: Iceberg matches each file's columns by field id (files written
    before a plain Spark ``RENAME COLUMN`` hold the old names), and with its ``_deleted`` metadata
    column in the scan it keeps the rows deletes mark instead of dropping them. Grouping by that
    column keeps it in the scan (Spark prunes a column nothing uses, and simplifies away any filter
    on it that keeps every row)."""
    from pyspark.sql import functions as F

    column = shape.sequence_column
    assert column is not None
    frame = read_at_snapshot(spark, handle.name, table, snapshot_id).filter(to_sql(candidates))
    keys = [F.col(quote_identifier(k)) for k in shape.keys]
    return frame.groupBy(*keys, F.col("_deleted")).agg(F.max(F.col(quote_identifier(column))).alias(column))


def _decide_and_stage(
    context: LookupContext,
    live: "DataFrame",
    stored: "DataFrame | None",
    *,
    stage_upserts: bool,
    marks: plan.ReplacedPositions | None = None,
    live_unique: bool = False,
    broadcast_live: bool = False,
    data_files: Mapping[str, JavaObject] | None = None,
    file_order_of: Iterable[str] = (),
) -> tuple[plan.ReplacedPositions, list[JavaObject], list[JavaObject]]:
    """Which versions win (:func:`plan.decide`) given the batch keys' live rows and stored sequence
    values, found by the scan or by the index; stages the new rows and tombstones. ``marks``:
    the replaced positions when already known (every version wins), else gathered from the decision.
    ``live_unique`` / ``broadcast_live``: what the index knows of the live rows (:func:`plan.decide`);
    ``data_files``: the planned live files, whose commit order orders a key's several live rows
    (``file_order_of``: the files the live rows come from, if known)."""
    handle, table, batch, shape = context.handle, context.table, context.batch, context.shape
    iceberg = handle.iceberg
    # Only the stored values a load takes from one live row need the rows ordered.
    file_order = None if live_unique or not plan.live_columns_needed(shape) else _file_order(data_files, file_order_of)
    decided = plan.decide(
        batch, live, stored, shape, live_unique=live_unique, broadcast_live=broadcast_live, file_order=file_order
    )
    # Read more than once (checks, marks, rows, tombstones) unless only the new rows are written.
    reused = marks is None or bool(shape.sequence_column) or partial_check_needed(shape)
    decided = decided.cache() if reused else decided
    try:
        if partial_check_needed(shape):
            check_partial_new_keys(handle, decided, shape)
        marks = marks if marks is not None else plan.replaced_positions(decided)
        # One row per batch row at most: the batch's size bounds the join's estimate.
        upserts = (
            stage_data_files(iceberg, handle.name, plan.new_rows(decided, shape), table=table, rows_at_most_of=batch)
            if stage_upserts
            else []
        )
        tombstone_files = []
        if shape.sequence_column and marks.any_delete_wins:
            tombstone_files = stage_data_files(
                iceberg, handle.name, plan.tombstones(decided, shape), table=table, rows_at_most_of=batch
            )
    finally:
        decided.unpersist()
    return marks, upserts, tombstone_files


def _file_order(data_files: Mapping[str, JavaObject] | None, locations: Iterable[str] = ()) -> "Column | None":
    """The data sequence number of the live row's file (:func:`plan.one_per_key`), of
    ``locations`` (default: every planned file), or None when no file was planned."""
    return file_order_column(data_files, plan.FILE, locations)


@dataclass(frozen=True)
class IndexedKeys:
    keys: "BatchKeys"  # the file-pruning predicate, as batch_keys computes it
    java: key_index.BatchKeys
    # The keys' range: what plans the candidate files. The index checks each file's own key range
    # anyway, and Iceberg's planning costs grow with every literal of an IN list.
    key_range: Predicate


@dataclass(frozen=True)
class IndexedLookup:
    marks: plan.ReplacedPositions
    hits: key_index.IndexHits
    # Loads plan.decide decides (sequence tables, aggregate keys, partial updates): (live rows,
    # stored sequence values or None) for it; None when the hits are the replaced positions.
    decide_rows: "tuple[DataFrame, DataFrame | None] | None" = None
    stored_rows: key_index.StoredRows | None = None  # the live rows read by position, kept until released
    marks_known: bool = False  # decide_rows given, yet marks are already what the decision replaces
    live_unique: bool = False  # decide_rows' live rows hold at most one row per key
    broadcast_live: bool = False  # and are few enough to broadcast
    # Decided by the index, no decide_rows: every version wins but those of losing_keys (sequence tables).
    decided: bool = False
    losing_keys: "DataFrame | None" = None

    def release(self) -> None:
        if self.stored_rows is not None:
            self.stored_rows.release()

    def describe(self) -> str:
        """The snapshot summary's ``doris.key-index``: how the keys were found (and how many
        stored rows were read by position)."""
        text = self.hits.describe()
        return text + (f", {self.stored_rows.count} rows read by position" if self.stored_rows is not None else "")


def index_applies(iceberg_table: JavaObject, shape: plan.KeyedLoadShape) -> bool:
    """Whether the key index can decide this load: see :func:`index_not_applicable`."""
    return index_not_applicable(iceberg_table, shape) is None


def index_not_applicable(iceberg_table: JavaObject, shape: plan.KeyedLoadShape) -> str | None:
    """Why the key index cannot decide this load, or None if it can: a unique- or aggregate-key
    load, full-row or partial-column, with or without a sequence column (v3 deletion vectors or
    v2 position-delete files alike: a probe drops the positions either marks), whose key columns
    the index encodes and whose sequence column is of a type it keeps. What the probe itself
    cannot decide (NULL keys, equality deletes, a failure) is found at the probe."""
    model = shape.model
    if model.keys_model not in (KeysModel.UNIQUE, KeysModel.AGGREGATE):
        return f"{model.keys_model.name.lower()} key table"
    return keys_not_encodable(shape)


def keys_not_encodable(shape: plan.KeyedLoadShape) -> str | None:
    """Which key column (or the sequence column) the key index cannot keep in its entries, or
    None: its key columns are of types it encodes, its sequence column of a type it keeps."""
    model = shape.model
    if model.null_safe_keys:
        # The index's entries encode no NULL: a NULL key is looked up by the scan, null-safely.
        return "a key column is nullable"
    for key in shape.keys:
        if not key_index.indexable_type(model.column(key).spark_type):
            return f"key column {key} of type {model.column(key).spark_type}"
    if shape.sequence_column:
        spark_type = model.column(shape.sequence_column).spark_type
        if spark_type.lower() not in key_index.SEQUENCE_SPARK_TYPES:
            return f"sequence column of type {spark_type}"
    return None


def index_possible(iceberg: "IcebergJava", table: JavaObject, shape: plan.KeyedLoadShape) -> bool:
    """Whether this load looks its keys up through the key index (enabled, and it applies)."""
    return key_index.enabled(iceberg.spark) and index_applies(table, shape)


def collect_index_keys(iceberg: "IcebergJava", table: JavaObject, rows: "DataFrame", shape: plan.KeyedLoadShape) -> IndexedKeys:
    """The keys of ``rows`` (with their delete flags and sequence values) collected for the key
    index: one Spark job."""
    java = key_index.collect_batch_keys(iceberg, table, rows.select(*index_key_columns(shape)), list(shape.keys), shape.sequence_column)
    return indexed_keys(shape, java)


def index_key_columns(shape: plan.KeyedLoadShape) -> list["Column"]:
    """What the key index collects of a batch's rows: the key columns, the delete flag and, on a
    sequence table, the sequence value (as the sequence column's type)."""
    from pyspark.sql import functions as F

    columns = [F.col(quote_identifier(k)) for k in shape.keys] + [F.col(plan.DELETE)]
    sequence = shape.sequence_column
    if sequence:
        columns.append(F.col(plan.SEQUENCE).cast(shape.model.column(sequence).spark_type))
    return columns


def indexed_keys(shape: plan.KeyedLoadShape, java: key_index.BatchKeys) -> IndexedKeys:
    """The collected keys with the filters that plan the candidate files."""
    count = java.count
    bounds = [_first_key_value(shape, v) for v in java.first_column_range()] if count else []
    key_range = _first_key_filter(shape, None, bounds[0], bounds[1]) if bounds and None not in bounds else TRUE
    if count <= KEY_LIST_LIMIT:
        values = [_first_key_value(shape, v) for v in java.first_column_values()]
        predicate = _first_key_filter(shape, values) if None not in values else key_range
        return IndexedKeys(BatchKeys(predicate, True), java, key_range)
    return IndexedKeys(BatchKeys(key_range, count <= BROADCAST_KEY_LIMIT), java, key_range)


def _first_key_value(shape: plan.KeyedLoadShape, value: Any) -> Any:
    """A first-key value from the JVM as the pruning filter takes it: dates and timestamps come
    as ISO text; None when it cannot be read back (then the filter is weaker, never wrong)."""
    import datetime as dt

    if not isinstance(value, str):
        return value
    spark_type = shape.model.column(shape.keys[0]).spark_type.lower()
    try:
        if spark_type == "date":
            return dt.date.fromisoformat(value)
        if spark_type in ("timestamp", "timestamp_ntz"):
            return dt.datetime.fromisoformat(value) if spark_type == "timestamp_ntz" else None
    except ValueError:
        return None
    return value


def lookup_with_index(
    iceberg: "IcebergJava",
    table: JavaObject,
    data_files: Mapping[str, JavaObject],
    indexed: IndexedKeys,
    shape: plan.KeyedLoadShape,
) -> "IndexedLookup | str":
    """The live positions the batch replaces, found by probing the key index of the candidate
    files; or why not (scan instead): a file has equality deletes or a NULL key, or the probe fails:
    the index is an accelerator, never needed for correctness. On a sequence table the result
    carries each key's live rows and largest stored sequence value, for :func:`plan.decide`."""
    planned = plan_of(data_files)
    if planned is None or has_equality_deletes(data_files):
        log.info("key index: the planned files have equality deletes; scanning the keys instead")
        return "equality deletes"
    merges = merges_stored_rows(shape)
    hits = key_index.probe_or_none(iceberg, table, planned, list(shape.keys), shape.sequence_column, indexed.java, for_reading=merges)
    if hits is None:
        return "the probe failed"
    if hits.unindexable:
        log.info("key index: %d file(s) hold NULL keys; scanning the keys instead", len(hits.unindexable))
        return f"{len(hits.unindexable)} file(s) hold NULL keys"
    spark = iceberg.spark
    undecided = plan.ReplacedPositions({}, 0, any_delete_wins=False)
    if shape.sequence_column and not merges:
        # The index holds every stored version's sequence value: it decides the winners itself.
        decision = hits.decide_by_sequence(spark)
        marks = plan.ReplacedPositions(decision.replaced, decision.deleted_rows, decision.any_delete_wins)
        return IndexedLookup(marks, hits, losing_keys=decision.losing_keys, decided=True)
    stored = hits.stored_sequences(spark, plan.MAX_SEQUENCE) if shape.sequence_column else None
    if merges:
        columns = list(shape.keys) + plan.live_columns_needed(shape)
        read = hits.read_live_rows_or_none(spark, table, columns)
        if read is None:
            return "reading the stored rows by position failed"
        live = read.frame.toDF(*shape.keys, *[plan.LIVE + c for c in columns[len(shape.keys):]], plan.FILE, plan.POSITION)
        # Without a sequence column every version of the batch wins: the hits are what it
        # replaces, known without a Spark job over the decision.
        marks = undecided if shape.sequence_column else _hit_positions(hits)
        return IndexedLookup(
            marks, hits, (live, stored), read, marks_known=not shape.sequence_column,
            live_unique=hits.one_live_row_per_key(), broadcast_live=read.broadcastable(),
        )
    return IndexedLookup(_hit_positions(hits), hits, decided=True)


def _hit_positions(hits: key_index.IndexHits) -> plan.ReplacedPositions:
    """The live rows of the batch's keys, all replaced (upserted or deleted)."""
    by_file = {location: hits.upserts[location] | hits.deletes[location] for location in hits.upserts}
    deleted_rows = sum(len(positions) for positions in hits.deletes.values())
    return plan.ReplacedPositions(by_file, deleted_rows, any_delete_wins=False)


def merges_stored_rows(shape: plan.KeyedLoadShape) -> bool:
    """Whether the load's new rows or tombstones take values from the live rows (aggregate keys,
    partial-column updates, and on sequence tables a NOT NULL value column a tombstone copies or an
    unsupplied sequence column): then the index's hits are read by position, not only marked."""
    return shape.model.keys_model is KeysModel.AGGREGATE or shape.partial or bool(plan.live_columns_needed(shape))

KEY_LIST_LIMIT = 2000
# Up to this many keys the lookup ships the batch's keys to every task (a broadcast semi-join)
# instead of shuffling the table's rows, file paths included, to meet them (~30 bytes per key).
BROADCAST_KEY_LIMIT = 2_000_000


@dataclass(frozen=True)
class BatchKeys:
    predicate: Predicate  # prunes the table's files by key
    broadcast: bool  # few enough keys to broadcast


def batch_keys(batch: "DataFrame", shape: plan.KeyedLoadShape) -> BatchKeys:
    """A filter on the first key column that Iceberg prunes files with (min/max statistics of
    key-sorted files, Parquet bloom filters): the batch's keys when few, else their range; and
    whether the batch is small enough to broadcast its keys."""
    from pyspark.sql import functions as F

    name = shape.keys[0]
    # The batch holds one row per key and is cached: a few keys (the usual CDC batch) come back
    # whole without a shuffle; for many, a second job finds their range and count.
    head = [r[0] for r in batch.select(f"`{name}`").limit(KEY_LIST_LIMIT + 1).collect()]
    if len(head) <= KEY_LIST_LIMIT:
        return BatchKeys(_first_key_filter(shape, head), True)
    low, high, rows = batch.agg(F.min(f"`{name}`"), F.max(f"`{name}`"), F.count(F.lit(1))).collect()[0]
    return BatchKeys(_first_key_filter(shape, None, low, high), rows <= BROADCAST_KEY_LIMIT)


def _first_key_filter(shape: plan.KeyedLoadShape, keys: list[Any] | None, low: Any = None, high: Any = None) -> Predicate:
    """The pruning filter on the first key column: ``keys`` as an IN list when given (the batch
    holds at most KEY_LIST_LIMIT), else the range [low, high]; no filter for an empty batch or a
    key type Iceberg literals are not built for here."""
    from iceberg_doris.errors import PartitionError
    from iceberg_doris.partitioning import PartitionColumnType
    from iceberg_doris.table_model.partition_predicates import Compare, InValues, IsNull, union

    column = shape.model.column(shape.keys[0])
    try:
        kind = PartitionColumnType.from_sql(column.doris_type)
    except PartitionError:
        return TRUE
    if not column.nullable:
        if keys is not None:
            return InValues(column.name, tuple(sorted(set(keys))), kind) if keys else TRUE
        return both(Compare(column.name, ">=", low, kind), Compare(column.name, "<=", high, kind))
    # A nullable key (declared NULL): NULL is one key, which neither IN nor a range matches, and
    # the batch's MIN/MAX skip it; the filter also takes the rows whose first key is NULL.
    if keys is not None:
        if not keys:
            return TRUE
        values = tuple(sorted({k for k in keys if k is not None}))
        parts: list[Predicate] = [InValues(column.name, values, kind)] if values else []
        return union([*parts, IsNull(column.name)]) if None in keys else parts[0]
    if low is None or high is None:
        return IsNull(column.name)  # rows, but no first key other than NULL
    return union([both(Compare(column.name, ">=", low, kind), Compare(column.name, "<=", high, kind)), IsNull(column.name)])


def check_partial_new_keys(handle: KeyedTable, decided: "DataFrame", shape: plan.KeyedLoadShape) -> None:
    """Doris's partial-update rules for keys the table does not hold yet."""
    from iceberg_doris.errors import LoadError

    if shape.flexible:
        _check_flexible_new_keys(decided, shape)
        return
    unmentioned = _required_unmentioned(shape)
    strict = _only_stored_keys(shape)
    if not unmentioned and not strict:
        return
    if plan.new_keys(decided).limit(1).count() == 0:
        return
    if strict:
        raise LoadError(
            "Insert has filtered data in strict mode: a partial update in strict mode may only update keys "
            f"that {handle.name.qualified} already holds; nothing was committed"
        )
    if shape.model.keys_model is KeysModel.AGGREGATE:
        # Doris writes NULL there (test_agg_partial_update_stream_load); an Iceberg required
        # column cannot hold it.
        raise LoadError(
            f"the unmentioned column `{unmentioned[0]}` is NOT NULL, and a partial update of an AGGREGATE KEY table "
            "writes NULL in the columns it does not name, which a new key cannot take (Doris stores the NULL; a "
            "required Iceberg column cannot hold it); supply the column, or load the new keys with every column"
        )
    raise LoadError(
        f"the unmentioned column `{unmentioned[0]}` should have default value or be nullable for newly inserted rows "
        "in non-strict mode partial update; supply the column, or give it a default value"
    )


def _check_flexible_new_keys(decided: "DataFrame", shape: plan.KeyedLoadShape) -> None:
    """A row of a flexible partial update that makes a new key (or builds one after its delete
    sign) must name each NOT NULL column that has no default: Doris's rule and message."""
    from iceberg_doris.ddl.sql_text import string_literal
    from iceberg_doris.errors import LoadError

    required = [
        c.name for c in shape.model.loadable_columns
        if not c.is_key and not c.nullable and not c.auto_increment and c.default is None
    ]
    if not required:
        return
    new_rows = decided.filter(f"{plan.WINS} AND NOT {plan.DELETE} AND ({plan.FILE} IS NULL OR {plan.RESET})")
    missing = " ".join(
        f"WHEN NOT array_contains({plan.NAMED}, {string_literal(name.lower())}) THEN {string_literal(name)}"
        for name in required
    )
    found = new_rows.selectExpr(f"CASE {missing} END AS missing").where("missing IS NOT NULL").limit(1).collect()
    if found:
        raise LoadError(
            f"the unmentioned column `{found[0][0]}` should have default value or be nullable for newly inserted rows "
            "in non-strict mode partial update; name the column in each JSON row of a new key, or give it a default value"
        )


def partial_check_needed(shape: plan.KeyedLoadShape) -> bool:
    """Whether :func:`check_partial_new_keys` looks at the decision (strict mode, or a column the
    load leaves out that new keys could not fill)."""
    return shape.partial and (_only_stored_keys(shape) or bool(_required_unmentioned(shape)))  # flexible: keys only supplied


def _only_stored_keys(shape: plan.KeyedLoadShape) -> bool:
    """A strict partial update of a UNIQUE KEY table may only update keys the table holds (Doris's
    merge-on-write rule; an aggregate table's partial update has no such rule)."""
    return shape.strict and shape.model.keys_model is KeysModel.UNIQUE


def _required_unmentioned(shape: plan.KeyedLoadShape) -> list[str]:
    """NOT NULL columns the load leaves out that a new key cannot fill: without a default, or on
    an AGGREGATE KEY table, whose partial updates fill them with NULL."""
    aggregate = shape.model.keys_model is KeysModel.AGGREGATE
    return [
        c.name for c in shape.model.loadable_columns
        if c.name not in shape.supplied and not c.nullable and not c.auto_increment and (c.default is None or aggregate)
    ]


def touched_predicate(partitions: Any, names: list[str], temporary: bool) -> Predicate:
    """The rows of the partitions this load writes to (all rows for an unpartitioned table)."""
    from iceberg_doris.table_model.partition_predicates import partition_predicate, union

    if partitions is None:
        return TRUE
    chosen = [partitions.get(n, temporary) for n in names]
    return union([partition_predicate(partitions, p) for p in chosen if p is not None])


def _live_schema(spark: Any, handle: KeyedTable, shape: plan.KeyedLoadShape) -> Any:
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    frame_schema = spark.table(handle.name.sql).schema
    fields = [frame_schema[k] for k in shape.keys]
    fields += [StructField(plan.LIVE + f.name, f.dataType, True) for f in frame_schema.fields]
    fields += [StructField(plan.FILE, StringType(), True), StructField(plan.POSITION, LongType(), True)]
    return StructType(fields)
