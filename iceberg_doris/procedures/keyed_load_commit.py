"""Writing and committing a unique- or aggregate-key load: new rows, tombstones and delete bitmaps
in one RowDelta, validated against the snapshot the keys were looked up in.

Delete bitmaps are built with pyroaring and written as deletion vectors (format v3, one Puffin blob
per data file, merged with that file's earlier deletes) or position-delete files (format v2); never
equality deletes, and no existing data file is rewritten.

Concurrency, as Doris publishes concurrent loads on one table one at a time: the load looks its
keys up and writes its new rows without any lock, then takes the table's commit lock. Holding it,
the load writes its delete bitmaps and commits, validated against its lookup snapshot with the
keys and partitions it touches: if no commit since then added rows or deletes there, the lookup
still holds. Otherwise it looks the keys up again on the table as it is now (still holding the
lock, so nothing else can change it) and commits that; when the new rows depend on the stored
ones (aggregate, partial-update and sequence-column loads) it writes them again too, as Doris
rewrites a partial update at publish. Among iceberg-doris writers a load so commits with at most
two lookups; writers outside the lock (plain Spark SQL) are left to the retry policy of
:func:`iceberg_doris.engine.commit.commit_atomically`.
"""

from __future__ import annotations

import functools
import logging
from collections import ChainMap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from py4j.protocol import Py4JJavaError
from pyroaring import BitMap64

from iceberg_doris.engine.commit import commit_atomically
from iceberg_doris.ddl import KeysModel
from iceberg_doris.engine import interleaving, key_index
from iceberg_doris.engine.deletion_vectors import format_version, live_files, write_deletion_vectors
from iceberg_doris.engine.file_sets import committed_head, ref_head
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, java_message
from iceberg_doris.engine.iceberg_tables import iceberg_expression
from iceberg_doris.engine.position_deletes import write_position_deletes
from iceberg_doris.engine.staged_writes import stage_data_files
from iceberg_doris.faults import crash_point
from iceberg_doris.procedures import keyed_load_plan as plan
from iceberg_doris.procedures.table_access import DorisTable
from iceberg_doris.table_model.partition_predicates import TRUE, Predicate, both, to_sql

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

log = logging.getLogger(__name__)
# Snapshot summary: how many times the load looked its keys up (2: the table changed under it).
LOOKUPS_KEY = "doris.lookups"


@dataclass
class KeyedOutcome:
    snapshot_id: int | None
    deleted_rows: int


@dataclass
class _Lookup:
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
            if format_version(table) >= 3:
                self._delete_files = write_deletion_vectors(iceberg, table, self.marks, data_files=self.data_files, existing=self.existing)
            else:
                added = write_position_deletes(iceberg, table, self.marks, data_files=self.data_files) if self.marks else []
                self._delete_files = (added, [])
            crash_point("load", "deletes-written")
        return self._delete_files


def apply_keyed_load(
    handle: DorisTable,
    accepted: "DataFrame",
    shape: plan.KeyedLoadShape,
    *,
    touched: Predicate,
    branch: str | None,
    summary: dict[str, str],
    stage_extra: Callable[[DorisTable, JavaObject], None],
    label: str | None = None,
) -> KeyedOutcome:
    """Looks the keys up and writes the new rows (no lock), then commits under the table's
    commit lock, looking up again there if the table changed meanwhile (module docstring).

    ``stage_extra(fresh_handle, transaction)`` stages the load's other changes (new partitions)."""
    batch, indexed, cached = resolved_batch(handle, accepted, shape, branch)
    try:
        iceberg = handle.iceberg
        # Full-row upserts of unique keys without a sequence column write the batch as it is,
        # whatever the table holds: a second lookup only changes the delete bitmaps.
        rows_need_lookup = shape.model.keys_model is KeysModel.AGGREGATE or shape.partial or shape.sequence_column is not None
        lookups = 1
        scan_keys = functools.cache(lambda: batch_keys(batch, shape))  # Spark jobs: once per load
        current = _look_up(handle, iceberg.load_table(handle.name), batch, indexed, scan_keys, shape, touched, branch, summary, lookups)
        interleaving.reached(interleaving.LOOKED_UP, handle.name)

        def look_up_again(table: JavaObject) -> None:
            nonlocal current, lookups
            lookups += 1
            reused = None if rows_need_lookup else current.upserts
            current = _look_up(handle, table, batch, indexed, scan_keys, shape, touched, branch, summary, lookups, upserts=reused)

        def build(table: JavaObject, transaction: JavaObject) -> int | None:
            from iceberg_doris.procedures.table_access import reopen

            stage_extra(reopen(handle, table), transaction)
            added_deletes, removed_deletes = current.delete_files(iceberg, table)
            delta = transaction.newRowDelta()
            if branch is not None:
                delta.toBranch(branch)
            if current.snapshot_id is not None:
                delta.validateFromSnapshot(current.snapshot_id)
            delta.conflictDetectionFilter(current.row_filter)
            delta.validateNoConflictingDataFiles().validateNoConflictingDeleteFiles().validateDeletedFiles()
            if current.replaced_files:
                # The data files the bitmaps point into must still be live (not compacted away).
                delta.validateDataFilesExist(iceberg.java_set(current.replaced_files))
            for data_file in current.upserts + current.tombstones:
                delta.addRows(data_file)
            for delete_file in added_deletes:
                delta.addDeletes(delete_file)
            for delete_file in removed_deletes:
                delta.removeDeletes(delete_file)
            for key, value in current.summary.items():
                delta.set(key, value)
            delta.commit()
            return committed_head(transaction, branch)

        snapshot_id = commit_atomically(
            iceberg, handle.name, build, operation="load into", on_conflict=look_up_again, label=label
        )
        return KeyedOutcome(snapshot_id, current.deleted_rows)
    finally:
        if cached:
            batch.unpersist()


def resolved_batch(
    handle: DorisTable, accepted: "DataFrame", shape: plan.KeyedLoadShape, branch: str | None
) -> tuple["DataFrame", "IndexedKeys | None", bool]:
    """The batch with one version per key, the keys collected for the key index (None when it
    does not apply), and whether the batch was cached here (the caller unpersists it).

    With the index, the keys are collected straight from the accepted rows: a batch without a
    repeated key (the usual case) is already resolved, and needs neither the window that picks a
    key's last version nor a cache of its own."""
    # The table as the load opened it: whether to try the index. A ref that changes meanwhile only
    # means _look_up scans (now filled) or looks up nothing (now emptied).
    iceberg, table = handle.iceberg, handle.table
    indexable = ref_head(table, branch) is not None and index_possible(iceberg, table, shape)
    if indexable:
        keys = collect_index_keys(iceberg, accepted, shape)
        if not keys.java.has_duplicates:
            return accepted, keys, False
    batch = plan.resolve_batch(accepted, shape).cache()
    return batch, (collect_index_keys(iceberg, batch, shape) if indexable else None), True


def _look_up(
    handle: DorisTable,
    table: JavaObject,
    batch: "DataFrame",
    indexed: "IndexedKeys | None",
    scan_keys: Callable[[], "BatchKeys"],
    shape: plan.KeyedLoadShape,
    touched: Predicate,
    branch: str | None,
    summary: dict[str, str],
    lookups: int,
    *,
    upserts: list[JavaObject] | None = None,
) -> _Lookup:
    """Looks the batch's keys up in ``table``'s head of ``branch`` and stages the rows to add
    (``upserts`` given: those, already written); nothing is committed."""
    iceberg = handle.iceberg
    snapshot = ref_head(table, branch)
    snapshot_id = int(snapshot.snapshotId()) if snapshot is not None else None
    if snapshot_id is None:
        indexed = None  # nothing to look up (the ref was emptied since the keys were collected)
    keys = indexed.keys if indexed is not None else scan_keys()
    candidates = both(touched, keys.predicate)
    row_filter = iceberg_expression(iceberg, candidates)  # also what concurrent commits are checked against
    plan_filter = iceberg_expression(iceberg, both(touched, indexed.key_range)) if indexed is not None else row_filter
    data_files, existing = live_files(table, snapshot_id=snapshot_id, row_filter=plan_filter) if snapshot_id else ({}, {})
    lookup = None
    if indexed is not None:
        lookup = lookup_with_index(iceberg, table, data_files, indexed, shape)
    summary = summary | {LOOKUPS_KEY: str(lookups)}
    if lookup is not None:
        marks = lookup.marks
        summary |= {"doris.key-index": lookup.describe()}
        if upserts is None:
            upserts = stage_data_files(iceberg, handle.name, plan.new_rows(plan.without_live_rows(batch), shape))
        tombstone_files: list[JavaObject] = []
    else:
        marks, staged, tombstone_files = _scan_lookup(
            handle, batch, shape, snapshot_id, candidates, data_files, keys.broadcast, stage_upserts=upserts is None
        )
        upserts = staged if upserts is None else upserts
    crash_point("load", "keys-looked-up")
    deletes: dict[str, BitMap64] = dict(marks.by_file)
    tombstones_by_location = {str(f.location()): f for f in tombstone_files}
    for location, data_file in tombstones_by_location.items():
        deletes[location] = BitMap64(range(int(data_file.recordCount())))
    summary |= {"doris.deleted-rows": str(marks.deleted_rows)}
    return _Lookup(
        snapshot_id, row_filter, deletes, marks.deleted_rows, upserts, tombstone_files,
        ChainMap(tombstones_by_location, data_files), existing, summary, list(marks.by_file),
    )


def _scan_lookup(
    handle: DorisTable,
    batch: "DataFrame",
    shape: plan.KeyedLoadShape,
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
    iceberg = handle.iceberg
    spark = iceberg.spark
    if snapshot_id is None:
        live = spark.createDataFrame([], _live_schema(spark, handle, shape))
        stored = None
    else:
        table_frame = spark.read.option("snapshot-id", snapshot_id).table(handle.name.sql)
        table_frame = table_frame.filter(to_sql(candidates))
        live = plan.live_rows(table_frame, batch, shape, broadcast_keys=broadcast_keys)
        stored = None
        if shape.sequence_column and data_files:
            physical = spark.read.parquet(*data_files.keys())
            stored = plan.stored_sequence(physical, batch, shape, broadcast_keys=broadcast_keys)
    decided = plan.decide(batch, live, stored, shape).cache()
    try:
        if shape.partial:
            check_partial_new_keys(handle, decided, shape)
        marks = plan.replaced_positions(decided)
        upserts = stage_data_files(iceberg, handle.name, plan.new_rows(decided, shape)) if stage_upserts else []
        tombstone_files = []
        if shape.sequence_column and marks.any_delete_wins:
            tombstone_files = stage_data_files(iceberg, handle.name, plan.tombstones(decided, shape))
    finally:
        decided.unpersist()
    return marks, upserts, tombstone_files


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

    def describe(self) -> str:
        """The snapshot summary's ``doris.key-index``: how the keys were found."""
        return f"probed {self.hits.probed_files} files, built {self.hits.built_files}"


def index_applies(iceberg_table: JavaObject, shape: plan.KeyedLoadShape) -> bool:
    """Whether the key index can decide this load: a unique-key, full-row load without a sequence
    column (what wins then depends only on whether a key exists), on one integer key column, into
    a v3 table."""
    model = shape.model
    if model.keys_model is not KeysModel.UNIQUE or shape.sequence_column or shape.partial or len(shape.keys) != 1:
        return False
    if model.column(shape.keys[0]).spark_type.lower() not in key_index.INDEXABLE_SPARK_TYPES:
        return False
    return format_version(iceberg_table) >= 3


def index_possible(iceberg: "IcebergJava", table: JavaObject, shape: plan.KeyedLoadShape) -> bool:
    """Whether this load looks its keys up through the key index (enabled, and it applies)."""
    return key_index.enabled(iceberg.spark) and index_applies(table, shape)


def collect_index_keys(iceberg: "IcebergJava", rows: "DataFrame", shape: plan.KeyedLoadShape) -> IndexedKeys:
    """The keys of ``rows`` (with their delete flags) collected for the key index: one Spark job."""
    from pyspark.sql import functions as F

    name = shape.keys[0]
    java = key_index.collect_batch_keys(iceberg, rows.select(F.col(f"`{name}`").cast("long"), F.col(plan.DELETE)))
    count = java.count
    key_range = _first_key_filter(shape, None, java.low, java.high) if count else TRUE
    if count <= KEY_LIST_LIMIT:
        return IndexedKeys(BatchKeys(_first_key_filter(shape, java.values()), True), java, key_range)
    return IndexedKeys(BatchKeys(key_range, count <= BROADCAST_KEY_LIMIT), java, key_range)


def lookup_with_index(
    iceberg: "IcebergJava",
    table: JavaObject,
    data_files: Mapping[str, JavaObject],
    indexed: IndexedKeys,
    shape: plan.KeyedLoadShape,
) -> IndexedLookup | None:
    """The live positions the batch replaces, found by probing the key index of the candidate
    files; None (scan instead) if a file has equality deletes or a NULL key, or the probe fails:
    the index is an accelerator, never needed for correctness."""
    planned = getattr(data_files, "plan", None)
    if planned is None or planned.hasEqualityDeletes():
        return None
    try:
        hits = key_index.probe(iceberg, table, planned, shape.keys[0], indexed.java)
    except Py4JJavaError as error:
        log.warning("key index lookup failed (%s); scanning the keys instead", java_message(error))
        return None
    if hits.unindexable:
        log.info("key index: %d file(s) hold NULL keys; scanning the keys instead", len(hits.unindexable))
        return None
    by_file = {location: hits.upserts[location] | hits.deletes[location] for location in hits.upserts}
    deleted_rows = sum(len(positions) for positions in hits.deletes.values())
    return IndexedLookup(plan.ReplacedPositions(by_file, deleted_rows, any_delete_wins=False), hits)


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
    from iceberg_doris.table_model.partition_predicates import Compare, InValues

    column = shape.model.column(shape.keys[0])
    try:
        kind = PartitionColumnType.from_sql(column.doris_type)
    except PartitionError:
        return TRUE
    if keys is not None:
        return InValues(column.name, tuple(sorted(set(keys))), kind) if keys else TRUE
    return both(Compare(column.name, ">=", low, kind), Compare(column.name, "<=", high, kind))


def check_partial_new_keys(handle: DorisTable, decided: "DataFrame", shape: plan.KeyedLoadShape) -> None:
    """Doris's partial-update rules for keys the table does not hold yet."""
    from iceberg_doris.errors import LoadError

    unmentioned = [
        c.name for c in shape.model.loadable_columns
        if c.name not in shape.supplied and not c.nullable and c.default is None
    ]
    if not unmentioned and not shape.strict:
        return
    if plan.new_keys(decided).limit(1).count() == 0:
        return
    if shape.strict:
        raise LoadError(
            "Insert has filtered data in strict mode: a partial update in strict mode may only update keys "
            f"that {handle.name.qualified} already holds; nothing was committed"
        )
    raise LoadError(f"the unmentioned column `{unmentioned[0]}` should have default value or be nullable")


def touched_predicate(partitions: Any, names: list[str], temporary: bool) -> Predicate:
    """The rows of the partitions this load writes to (all rows for an unpartitioned table)."""
    from iceberg_doris.table_model.partition_predicates import partition_predicate, union

    if partitions is None:
        return TRUE
    chosen = [partitions.get(n, temporary) for n in names]
    return union([partition_predicate(partitions, p) for p in chosen if p is not None])


def _live_schema(spark: Any, handle: DorisTable, shape: plan.KeyedLoadShape) -> Any:
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    frame_schema = spark.table(handle.name.sql).schema
    fields = [frame_schema[k] for k in shape.keys]
    fields += [StructField(plan.LIVE + f.name, f.dataType, True) for f in frame_schema.fields]
    fields += [StructField(plan.FILE, StringType(), True), StructField(plan.POSITION, LongType(), True)]
    return StructType(fields)
