"""Writing and committing a unique- or aggregate-key load: new rows, tombstones and delete bitmaps
in one RowDelta, validated against the snapshot the keys were looked up in.

Delete bitmaps are built with pyroaring and written as deletion vectors (format v3, one Puffin blob
per data file, merged with that file's earlier deletes) or position-delete files (format v2); never
equality deletes, and no existing data file is rewritten. If another commit since the lookup added
rows or deletes in the partitions this load touches, Iceberg's row-delta validation refuses the
commit and the whole lookup runs again on the new snapshot (a few times, then CommitConflictError).
"""

from __future__ import annotations

import logging
import random
import time
from collections import ChainMap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from py4j.protocol import Py4JJavaError
from pyroaring import BitMap64

from iceberg_doris.engine.commit import commit_atomically
from iceberg_doris.ddl import KeysModel
from iceberg_doris.engine import key_index
from iceberg_doris.engine.deletion_vectors import format_version, live_files, write_deletion_vectors
from iceberg_doris.engine.file_sets import ref_head
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, java_class, java_message
from iceberg_doris.engine.iceberg_tables import iceberg_expression
from iceberg_doris.engine.position_deletes import write_position_deletes
from iceberg_doris.engine.staged_writes import stage_data_files
from iceberg_doris.errors import CommitConflictError
from iceberg_doris.faults import crash_point
from iceberg_doris.procedures import keyed_load_plan as plan
from iceberg_doris.procedures.table_access import DorisTable
from iceberg_doris.table_model.partition_predicates import TRUE, Predicate, both, to_sql

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

log = logging.getLogger(__name__)
ATTEMPTS = 8
VALIDATION = "org.apache.iceberg.exceptions.ValidationException"


@dataclass
class KeyedOutcome:
    snapshot_id: int | None
    deleted_rows: int


def apply_keyed_load(
    handle: DorisTable,
    accepted: "DataFrame",
    shape: plan.KeyedLoadShape,
    *,
    touched: Predicate,
    branch: str | None,
    summary: dict[str, str],
    stage_extra: Callable[[DorisTable, JavaObject], None],
) -> KeyedOutcome:
    """Runs lookup, write and commit, again from the lookup when a concurrent commit conflicts.

    ``stage_extra(fresh_handle, transaction)`` stages the load's other changes (new partitions)."""
    batch, indexed, cached = resolved_batch(handle, accepted, shape, branch)
    try:
        for attempt in range(1, ATTEMPTS + 1):
            try:
                return _attempt(
                    handle, batch, indexed, shape, touched=touched, branch=branch, summary=summary, stage_extra=stage_extra
                )
            except Py4JJavaError as error:
                if java_class(error) != VALIDATION or attempt == ATTEMPTS:
                    if java_class(error) == VALIDATION:
                        raise CommitConflictError(
                            f"Cannot load into {handle.name.qualified}: concurrent commits kept changing the rows "
                            f"this load replaces ({java_message(error)}); nothing was committed. Run it again."
                        ) from None
                    raise
                log.info("keyed load into %s conflicted (%s); looking up again", handle.name.qualified, java_message(error))
                # Writers racing on the same keys would collide again in lockstep; spread them out.
                time.sleep(random.uniform(0.05, 0.3) * attempt)
        raise AssertionError("unreachable")
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
    # means _attempt scans (now filled) or looks up nothing (now emptied).
    iceberg, table = handle.iceberg, handle.table
    indexable = ref_head(table, branch) is not None and index_possible(iceberg, table, shape)
    if indexable:
        keys = collect_index_keys(iceberg, accepted, shape)
        if not keys.java.has_duplicates:
            return accepted, keys, False
    batch = plan.resolve_batch(accepted, shape).cache()
    return batch, (collect_index_keys(iceberg, batch, shape) if indexable else None), True


def _attempt(
    handle: DorisTable,
    batch: "DataFrame",
    indexed: "IndexedKeys | None",
    shape: plan.KeyedLoadShape,
    *,
    touched: Predicate,
    branch: str | None,
    summary: dict[str, str],
    stage_extra: Callable[[DorisTable, JavaObject], None],
) -> KeyedOutcome:
    iceberg = handle.iceberg
    table = iceberg.load_table(handle.name)
    snapshot = ref_head(table, branch)
    snapshot_id = int(snapshot.snapshotId()) if snapshot is not None else None
    if snapshot_id is None:
        indexed = None  # nothing to look up (the ref was emptied since the keys were collected)
    keys = indexed.keys if indexed is not None else batch_keys(batch, shape)  # Spark jobs
    candidates = both(touched, keys.predicate)
    row_filter = iceberg_expression(iceberg, candidates)  # also what concurrent commits are checked against
    plan_filter = iceberg_expression(iceberg, both(touched, indexed.key_range)) if indexed is not None else row_filter
    data_files, existing = live_files(table, snapshot_id=snapshot_id, row_filter=plan_filter) if snapshot_id else ({}, {})
    lookup = None
    if indexed is not None:
        lookup = lookup_with_index(iceberg, table, data_files, indexed, shape)
    if lookup is not None:
        marks = lookup.marks
        summary = summary | {"doris.key-index": lookup.describe()}
        upserts = stage_data_files(iceberg, handle.name, plan.new_rows(plan.without_live_rows(batch), shape))
        tombstone_files: list[JavaObject] = []
    else:
        marks, upserts, tombstone_files = _scan_lookup(handle, batch, shape, snapshot_id, candidates, data_files, keys.broadcast)
    crash_point("load", "keys-looked-up")
    deletes: dict[str, BitMap64] = dict(marks.by_file)
    deleted_rows = marks.deleted_rows
    tombstones_by_location = {str(f.location()): f for f in tombstone_files}
    for location, data_file in tombstones_by_location.items():
        deletes[location] = BitMap64(range(int(data_file.recordCount())))
    data_files = ChainMap(tombstones_by_location, data_files)
    table = iceberg.load_table(handle.name)
    if format_version(table) >= 3:
        added_deletes, removed_deletes = write_deletion_vectors(iceberg, table, deletes, data_files=data_files, existing=existing)
    else:
        added_deletes = write_position_deletes(iceberg, table, deletes, data_files=data_files) if deletes else []
        removed_deletes = []
    crash_point("load", "deletes-written")

    def build(fresh_table: JavaObject, transaction: JavaObject) -> None:
        from iceberg_doris.procedures.table_access import reopen

        stage_extra(reopen(handle, fresh_table), transaction)
        delta = transaction.newRowDelta()
        if branch is not None:
            delta.toBranch(branch)
        if snapshot_id is not None:
            delta.validateFromSnapshot(snapshot_id)
        delta.conflictDetectionFilter(row_filter)
        delta.validateNoConflictingDataFiles().validateNoConflictingDeleteFiles().validateDeletedFiles()
        for data_file in upserts + tombstone_files:
            delta.addRows(data_file)
        for delete_file in added_deletes:
            delta.addDeletes(delete_file)
        for delete_file in removed_deletes:
            delta.removeDeletes(delete_file)
        for key, value in (summary | {"doris.deleted-rows": str(deleted_rows)}).items():
            delta.set(key, value)
        delta.commit()

    commit_atomically(iceberg, handle.name, build, operation="load into")
    head = ref_head(iceberg.load_table(handle.name), branch)
    return KeyedOutcome(int(head.snapshotId()) if head is not None else None, deleted_rows)


def _scan_lookup(
    handle: DorisTable,
    batch: "DataFrame",
    shape: plan.KeyedLoadShape,
    snapshot_id: int | None,
    candidates: Predicate,
    data_files: Mapping[str, JavaObject],
    broadcast_keys: bool,
) -> tuple[plan.ReplacedPositions, list[JavaObject], list[JavaObject]]:
    """The lookup by scanning the candidate rows' keys and joining them with the batch (every
    key model and type); returns the replaced positions and the staged new rows and tombstones."""
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
        upserts = stage_data_files(iceberg, handle.name, plan.new_rows(decided, shape))
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
