"""Committing a unique- or aggregate-key load: new rows, tombstones and delete bitmaps in one
RowDelta per ref, validated against the snapshot the keys were looked up in.

Delete bitmaps are built with pyroaring and written as deletion vectors (format v3, one Puffin blob
per data file, merged with that file's earlier deletes) or position-delete files (format v2); never
equality deletes, and no existing data file is rewritten.

Concurrency, as Doris publishes concurrent loads on one table one at a time: the load looks its
keys up and writes its new rows without any lock (:meth:`KeyedWrite.look_up`), then takes the
table's commit lock. Holding it, it writes its delete bitmaps and stages the RowDelta
(:meth:`KeyedWrite.stage`), validated against its lookup snapshot with the keys and partitions it
touches: if no commit since then added rows or deletes there, the lookup still holds. Otherwise the
load calls :meth:`KeyedWrite.look_up` again on the table as it is now (still holding the lock, so
nothing else can change it) and commits that; when the new rows depend on the stored ones
(aggregate, partial-update and sequence-column loads) they are written again too, as Doris
rewrites a partial update at publish. Among iceberg-doris writers a load so commits with at most
two lookups; writers outside the lock (plain Spark SQL) are left to the retry policy of
:func:`iceberg_doris.engine.commit.commit_atomically`, which the load owns.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING

from iceberg_doris.ddl import KeysModel
from iceberg_doris.engine import key_index
from iceberg_doris.engine.file_sets import file_location, ref_head, ref_snapshot_id
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.row_deltas import stage_keyed_row_delta
from iceberg_doris.engine.spark_threads import Background
from iceberg_doris.engine.staged_writes import discard_staged_files, stage_data_files
from iceberg_doris.merge_on_write import plan
from iceberg_doris.merge_on_write.fresh_keys import BatchFacts, holds_none_of, may_skip_lookup, without_lookup
from iceberg_doris.merge_on_write.lookup import (
    IndexedKeys,
    KeyedTable,
    Lookup,
    batch_keys,
    collect_index_keys,
    index_possible,
    indexed_keys,
    look_up,
    merges_stored_rows,
)
from iceberg_doris.merge_on_write.past_compactions import past_compactions
from iceberg_doris.table_model.partition_predicates import Predicate

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


class KeyedWrite:
    """A merge-on-write load's rows for one ref (main, or one temp partition's branch): looked up
    with :meth:`look_up`, staged on a transaction with :meth:`stage`. Call :meth:`close` at the end."""

    def __init__(
        self,
        handle: KeyedTable,
        accepted: "DataFrame",
        shape: plan.KeyedLoadShape,
        *,
        touched: Predicate,
        branch: str | None,
        summary: Mapping[str, str],
        facts: BatchFacts | None = None,
        rows_kept: bool = False,
        staged: list[JavaObject] | None = None,
        early_rows: "NewRowsMeanwhile | None" = None,
    ):
        self.handle = handle
        self.shape = shape
        self.touched = touched
        self.branch = branch
        self.summary = dict(summary)
        self.lookups = 0
        self._current: Lookup | None = None
        self._indexing: key_index.PendingEntries | None = None
        self._early_indexing: key_index.PendingEntries | None = None  # the early write's files'
        # A load that wrote its rows before it looked anything up (every key new, see
        # operations/load/fresh_bulk.py): its files, already indexed, serve the first lookup.
        self._staged = staged
        self._already_indexed = frozenset(file_location(f) for f in staged) if staged else frozenset()
        # Full-row upserts of unique keys without a sequence column write the batch as it is,
        # whatever the table holds: a second lookup only changes the delete bitmaps.
        self._rows_need_lookup = (
            shape.model.keys_model is KeysModel.AGGREGATE or shape.partial or shape.sequence_column is not None
        )
        # Loads whose rows take no stored value write them while the keys are looked up: the
        # write's driver side and job overlap the lookup's (at 1M rows a 1% upsert's write was a
        # fifth of the load). Started before the batch is known to hold one row per key (rewritten
        # if a key repeats) and, with a sequence column, before any version is known to lose to a
        # stored one (rewritten if one does, see lookup.look_up). ``early_rows``: that write,
        # started by the load while it counted the rows.
        self._early_rows: NewRowsMeanwhile | None = early_rows
        if early_rows is None and staged is None and rows_kept and branch is None and writes_new_rows_meanwhile(shape):
            self._early_rows = NewRowsMeanwhile(handle, accepted, shape)
        try:
            self._open(accepted, facts, rows_kept)
            if self._early_rows is not None and self._batch is not accepted:
                # A key repeats: the files written hold every version, not the batch's one per key.
                self._early_rows.discard()
                self._early_rows = NewRowsMeanwhile(handle, self._batch, shape)
        except BaseException:
            if self._early_rows is not None:
                self._early_rows.wait()
            raise
        self._scan_keys = functools.cache(lambda: batch_keys(self._batch, shape))  # Spark jobs: once per load

    def _open(self, accepted: "DataFrame", facts: BatchFacts | None, rows_kept: bool) -> None:
        """Decides whether the batch needs a lookup, and resolves it to one version per key."""
        handle, shape, branch = self.handle, self.shape, self.branch
        # Only new keys (as the table was opened): no lookup, so nothing to resolve or collect.
        self._facts = facts if may_skip_lookup(shape, facts) else None
        self._kept: "DataFrame | None" = None
        # The snapshot of the ref found holding none of the batch's keys (its first lookup need
        # not plan the same files again).
        self._holds_none_at: int | None = None
        if self._facts is not None and holds_none_of(handle, handle.table, branch, self.touched, shape, self._facts):
            self._holds_none_at = ref_snapshot_id(handle.table, branch)
            if self._facts.repeated_keys is None:
                # Not counted: the keys collected for the index tell (and resolve the batch if one repeats).
                self._batch, self._indexed, self._cached = resolved_batch(handle, accepted, shape, branch, facts)
            else:
                self._batch, self._indexed, self._cached = accepted, None, False
        else:
            self._facts = None  # a live file may hold a key: look the keys up
            if rows_kept:
                # The caller persisted the rows already (``rows_kept``): the lookup reads them from there.
                self._batch, self._indexed, self._cached = resolved_batch(handle, accepted, shape, branch, facts)
            else:
                from pyspark import StorageLevel

                # A lookup reads the batch several times: keep a copy (the load's counting pass keeps none).
                self._kept = accepted.persist(StorageLevel.MEMORY_AND_DISK)
                self._batch, self._indexed, self._cached = resolved_batch(handle, self._kept, shape, branch, facts)

    @property
    def deleted_rows(self) -> int:
        return self._current.deleted_rows if self._current is not None else 0

    def look_up(self, table: JavaObject) -> None:
        """Looks the keys up in ``table``'s head of this write's ref and stages the new rows
        (again only when they depend on the stored rows); nothing is committed."""
        self.lookups += 1
        reused: list[JavaObject] | NewRowsMeanwhile | None = None
        if self._current is not None and not self._rows_need_lookup:
            reused = self._current.upserts
        elif self._current is None and self._staged is not None:
            reused = self._staged
        elif self._current is None and self._early_rows is not None:
            reused = self._early_rows  # waited for only where the lookup needs them
        if self._facts is not None:
            fresh = without_lookup(
                self.handle, table, self._batch, self.shape, self.touched, self.branch, self.summary, self.lookups,
                self._facts, upserts=reused, known_new=ref_snapshot_id(table, self.branch) == self._holds_none_at,
            )
            if fresh is not None:
                self._current = fresh
                return
            self._facts = None  # the table holds some of the keys now: look them up from here on
        if reused is self._staged and self._rows_need_lookup:
            reused = None  # written as all-new rows: merged with stored rows, they are written again
        self._current = look_up(
            self.handle, table, self._batch, self._indexed, self._scan_keys, self.shape, self.touched, self.branch,
            self.summary, self.lookups, upserts=reused,
        )

    def stage(self, transaction: JavaObject, table: JavaObject) -> None:
        """Writes the delete bitmaps (once per lookup) and stages this write's RowDelta."""
        current = self._current
        assert current is not None, "look_up first"
        # Compactions committed since the lookup moved its rows: convert its deletes, no second lookup.
        moved = past_compactions(self.handle, table, self.branch, current)
        if moved is not None:
            self._current = current = moved
        added_deletes, removed_deletes = current.delete_files(self.handle.iceberg, table)
        stage_keyed_row_delta(
            self.handle.iceberg,
            transaction,
            branch=self.branch,
            looked_up_in=current.snapshot_id,
            conflict_filter=current.row_filter,
            rows_must_exist=current.replaced_files,
            added_rows=current.upserts + current.tombstones,
            added_deletes=added_deletes,
            removed_deletes=removed_deletes,
            summary=current.summary,
        )

    def start_indexing(self, table: JavaObject) -> None:
        """Once looked up (the new files are written): starts building the key-index entries of
        the files this write adds (see :func:`key_index.start_indexing`), when later loads look
        keys up through the index, so the commit runs while they are built. The files written
        meanwhile were being indexed since they were written: :meth:`finish_indexing` builds only
        the entries of the others."""
        early = self._early_rows.take_indexing() if self._early_rows is not None else None
        files = self._files_to_index(table)
        if early is not None:
            self._early_indexing = early
            files = [f for f in files if file_location(f) not in early.locations]
        if files:
            self._indexing = key_index.start_indexing(
                self.handle.iceberg, table, files, list(self.shape.keys), self.shape.sequence_column
            )

    def finish_indexing(self, table: JavaObject) -> int:
        """After the commit: waits for the entries; the files of a second lookup (the table
        changed before the commit) are indexed now. Returns how many files were indexed."""
        files = self._files_to_index(table)
        started: frozenset[str] = frozenset()
        for pending in self._take_pending():
            pending.finish()
            started |= pending.locations
        missing = [f for f in files if file_location(f) not in started]
        if missing:
            key_index.index_new_files(self.handle.iceberg, table, missing, list(self.shape.keys), self.shape.sequence_column)
        return len(files)

    def _take_pending(self) -> list[key_index.PendingEntries]:
        pending = [p for p in (self._early_indexing, self._indexing) if p is not None]
        self._early_indexing = self._indexing = None
        return pending

    def _files_to_index(self, table: JavaObject) -> list[JavaObject]:
        current = self._current
        iceberg = self.handle.iceberg
        if current is None or not indexed_on_load(iceberg, table, self.shape):
            return []
        return [f for f in current.upserts + current.tombstones if file_location(f) not in self._already_indexed]

    def close(self) -> None:
        if self._early_rows is not None:  # no thread outlives the load (its files, if unpublished, are orphans)
            self._early_rows.wait()
            self._early_rows = None
        for pending in self._take_pending():  # the load failed: no thread outlives it
            pending.finish()
        if self._cached:
            self._batch.unpersist()
            self._cached = False
        if self._kept is not None:
            self._kept.unpersist()
            self._kept = None


def indexed_on_load(iceberg: IcebergJava, table: JavaObject, shape: plan.KeyedLoadShape) -> bool:
    """Whether a load builds the key-index entries of the files it writes (early or late alike)."""
    return key_index.build_on_load(iceberg.spark) and index_possible(iceberg, table, shape)


def writes_new_rows_meanwhile(shape: plan.KeyedLoadShape) -> bool:
    """Whether a load into main may write its batch's new rows while it goes on (counting,
    looking keys up): its rows take no stored value (full-row upserts of unique keys, with or
    without a sequence column)."""
    return not merges_stored_rows(shape)


class NewRowsMeanwhile:
    """A batch's new rows being written on a thread: the batch as it is, every version winning.
    Whoever starts it waits for it (:meth:`wait`) before the load ends, and discards its files
    (:meth:`discard`) when they will not be published."""

    def __init__(self, handle: KeyedTable, batch: "DataFrame", shape: plan.KeyedLoadShape, *, cached_meanwhile: bool = False):
        """``cached_meanwhile``: ``batch`` reads cached rows a job running meanwhile stores (see
        :func:`stage_data_files`)."""
        iceberg, name, self._table = handle.iceberg, handle.name, handle.table
        # The files' key-index entries, started as soon as the files are written: built after
        # the lookup instead, they were the last 0.4-0.65 s of a 10% upsert at 10M rows.
        self._indexing: key_index.PendingEntries | None = None

        def write() -> list[JavaObject]:
            files = stage_data_files(
                iceberg, name, plan.new_rows(plan.without_live_rows(batch), shape), table=self._table,
                cached_meanwhile=cached_meanwhile,
            )
            if indexed_on_load(iceberg, self._table, shape):
                self._indexing = key_index.start_indexing(iceberg, self._table, files, list(shape.keys), shape.sequence_column)
            return files

        self._written: Background[list[JavaObject]] = Background(
            iceberg.spark, write, name=f"iceberg-doris new rows of {name.qualified}"
        )

    def files(self) -> list[JavaObject]:
        """The staged files (waits for the write; raises its error)."""
        return self._written.result()

    def take_indexing(self) -> "key_index.PendingEntries | None":
        """The entries of :meth:`files` being built, handed to the caller to finish (None if none)."""
        self._written.wait()
        pending, self._indexing = self._indexing, None
        return pending

    def wait(self) -> None:
        """Waits for the write (and the entries it started) without raising its error (a caller
        that is failing already)."""
        self._written.wait()
        if self._indexing is not None:
            self._indexing.finish()
            self._indexing = None

    def discard(self) -> None:
        """Waits for the write and deletes its files (a write that failed staged none to delete;
        its error goes with it, the load having decided not to use it). Entries already stored
        for them are orphans for ``doris.cleanup``, never read: no data file has their name."""
        self.wait()
        if self._written.succeeded:
            discard_staged_files(self._table, self._written.result())


def resolved_batch(
    handle: KeyedTable, accepted: "DataFrame", shape: plan.KeyedLoadShape, branch: str | None,
    facts: BatchFacts | None = None,
) -> tuple["DataFrame", IndexedKeys | None, bool]:
    """The batch with one version per key, the keys collected for the key index (None when it
    does not apply), and whether the batch was cached here (the caller unpersists it).

    With the index, the keys are collected straight from the accepted rows: a batch without a
    repeated key (the usual case) is already resolved, and needs neither the window that picks a
    key's last version nor a cache of its own."""
    # The table as the load opened it: whether to try the index. A ref that changes meanwhile only
    # means look_up scans (now filled) or looks up nothing (now emptied).
    iceberg, table = handle.iceberg, handle.table
    indexable = ref_head(table, branch) is not None and index_possible(iceberg, table, shape)
    if indexable:
        collected = facts.collected if facts is not None else None
        # The counting pass collected the accepted rows' keys in its own job, or they are collected now.
        keys = indexed_keys(shape, collected) if collected is not None else collect_index_keys(iceberg, table, accepted, shape)
        if not keys.java.has_duplicates:
            return accepted, keys, False
    if facts is not None and facts.repeated_keys is False:
        # The counting pass found no repeated key: every row is its key's only version already.
        return accepted, (collect_index_keys(iceberg, table, accepted, shape) if indexable else None), False
    batch = plan.resolve_batch(accepted, shape).cache()
    return batch, (collect_index_keys(iceberg, table, batch, shape) if indexable else None), True
