"""Committing a unique- or aggregate-key load: new rows, tombstones and delete bitmaps in one
RowDelta per ref, validated against the snapshot the keys were looked up in.

Delete bitmaps are built with pyroaring and written as deletion vectors (format v3, one Puffin blob
per data file, merged with that file's earlier deletes) or position-delete files (format v2); never
equality deletes, and no existing data file is rewritten.

Concurrency, as Doris publishes concurrent loads on one table one at a time: the load looks its
keys up and writes its new rows without any lock (:meth:`KeyedLoad.look_up`), then takes the
table's commit lock. Holding it, it writes its delete bitmaps and stages the RowDelta
(:meth:`KeyedLoad.stage`), validated against its lookup snapshot with the keys and partitions it
touches: if no commit since then added rows or deletes there, the lookup still holds. Otherwise the
load looks its keys up again (:meth:`KeyedLoad.look_up_again`) on the table as it is now (still
holding the lock, so nothing else can change it) and commits that; when the new rows depend on the stored ones
(aggregate, partial-update and sequence-column loads) they are written again too, as Doris
rewrites a partial update at publish. Among iceberg-doris writers a load so commits with at most
two lookups; writers outside the lock (plain Spark SQL) are left to the retry policy of
:func:`iceberg_doris.engine.commit.commit_atomically`, which the load owns.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from iceberg_doris.ddl import KeysModel
from iceberg_doris.engine import key_index
from iceberg_doris.engine.computed_once import ComputedOnce, computed_once
from iceberg_doris.engine.file_sets import file_location, ref_head, ref_snapshot_id
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.row_deltas import stage_keyed_row_delta
from iceberg_doris.engine.spark_threads import Background
from iceberg_doris.engine.staged_writes import discard_staged_files, read_staged_files, stage_data_files
from iceberg_doris.merge_on_write import plan
from iceberg_doris.merge_on_write.fresh_keys import BatchFacts, holds_none_of, may_skip_lookup, without_lookup
from iceberg_doris.merge_on_write.lookup import (
    IndexedKeys,
    KeyedTable,
    Lookup,
    LookupContext,
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


@dataclass(frozen=True)
class RefRows:
    """A keyed load's accepted rows for one ref: main (``branch`` None) or one temp partition's
    branch, with the partitions they touch there."""

    accepted: "DataFrame"
    touched: Predicate
    branch: str | None = None


class KeyedLoad:
    """One unique- or aggregate-key load, from its new rows' early write to its commit, as named
    steps over its own state:

    1. :meth:`write_new_rows_early` (optional, while the load counts its rows) starts writing the
       rows of a load into main whose rows take no stored value; :meth:`discard_early_rows` drops
       them when the load stops before its lookup;
    2. :meth:`begin` takes the counted rows, one :class:`RefRows` per ref, and resolves each ref's
       batch to one version per key (a :class:`KeyedWrite` per ref);
    3. :meth:`look_up` looks the keys up without the lock; :meth:`start_indexing` starts the new
       files' key-index entries;
    4. holding the lock, :meth:`stage` stages each ref's RowDelta on the commit's transaction, and
       :meth:`look_up_again` looks the keys up in the table as it is now when a commit since the
       lookup conflicts;
    5. :meth:`finish_indexing` after the commit, and :meth:`close` in any case (no thread outlives
       the load; an early write never looked up is discarded).
    """

    def __init__(self, handle: KeyedTable, shape: plan.KeyedLoadShape, *, into_main: bool):
        """``into_main``: the load writes to main, not to temp partitions' branches."""
        self.handle = handle
        self.shape = shape
        self._into_main = into_main
        # The new rows being written since the rows were counted: the load's until begin() hands
        # them to the write of main (which then waits for them, or discards them).
        self._early: NewRowsMeanwhile | None = None
        self._writes: list[KeyedWrite] = []

    def write_new_rows_early(self, accepted: "DataFrame") -> None:
        """Starts writing the accepted rows' new rows on a thread, while the load goes on (its
        counting pass stores the cached rows the write reads, see :func:`stage_data_files`), when
        the load goes to main and its rows take no stored value; else does nothing."""
        assert self._early is None and not self._writes, "the early write starts once, before begin()"
        if self._into_main and writes_new_rows_meanwhile(self.shape):
            self._early = NewRowsMeanwhile(self.handle, accepted, self.shape, cached_meanwhile=True)

    def discard_early_rows(self) -> None:
        """The load stops before its lookup: the early write's files will not be published."""
        if self._early is not None:
            self._early.discard()
            self._early = None

    def begin(
        self, refs: list[RefRows], *, summary: Mapping[str, str], facts: BatchFacts | None = None,
        staged: list[JavaObject] | None = None,
    ) -> None:
        """Takes the load's accepted rows, per ref: each ref's batch is resolved to one version per
        key and known to need a lookup or not. ``facts``: the batch's keys as the counting pass
        found them; ``staged``: a load into main that wrote its rows already (every key new, see
        ``operations/load/fresh_bulk.py``). Otherwise the refs' rows are the counting pass's,
        computed once (``operations/load/counting.py``): every lookup reads them from there."""
        assert not self._writes, "begin() once"
        on_main = len(refs) == 1 and refs[0].branch is None
        assert self._early is None or on_main, "only a load into main writes its rows while counting"
        if on_main and self._early is None and staged is None and writes_new_rows_meanwhile(self.shape):
            # Not started while counting (the rows could still be rerouted to new auto partitions):
            # started now, so the write overlaps the batch's resolution and lookup.
            self._early = NewRowsMeanwhile(self.handle, refs[0].accepted, self.shape)
        early, self._early = self._early, None  # from here the write of main's (the only ref when set)
        for ref in refs:
            self._writes.append(
                KeyedWrite(self.handle, self.shape, ref, summary=summary, facts=facts,
                           staged=staged if ref.branch is None else None, early=early)
            )

    @property
    def deleted_rows(self) -> int:
        return sum(write.deleted_rows for write in self._writes)

    @property
    def lookups(self) -> int:
        """The most lookups any ref's write took (1, or 2 after a conflict)."""
        return max((write.lookups for write in self._writes), default=0)

    def look_up(self, table: JavaObject) -> None:
        """The first lookup, without the lock, in ``table`` as loaded for it."""
        for write in self._writes:
            write.look_up(table)

    def look_up_again(self, table: JavaObject) -> None:
        """Holding the lock, after a conflicting commit: the keys looked up in ``table`` as it is now."""
        for write in self._writes:
            write.look_up_again(table)

    def start_indexing(self, table: JavaObject) -> None:
        for write in self._writes:
            write.start_indexing(table)  # on a JVM thread: the commit runs meanwhile

    def stage(self, transaction: JavaObject, table: JavaObject) -> None:
        """Stages every ref's RowDelta on the commit's transaction (the delete bitmaps are written here)."""
        for write in self._writes:
            write.stage(transaction, table)

    def finish_indexing(self, table: JavaObject) -> int:
        """After the commit: the new files' key-index entries. Returns how many files were indexed."""
        return sum(write.finish_indexing(table) for write in self._writes)

    def close(self) -> None:
        """Ends the load whatever happened (call it again: nothing more is done)."""
        self.discard_early_rows()  # never handed to a write: none of its files is published
        writes, self._writes = self._writes, []
        for write in writes:
            write.close()


@dataclass(frozen=True)
class FreshKeys:
    """A batch found holding only keys no live file of its ref can hold, as the load opened the
    table: its lookups may be skipped (:func:`without_lookup`) while that stays true."""

    facts: BatchFacts
    holds_none_at: int | None  # the ref's snapshot found so (its first lookup need not plan it again)


@dataclass
class ResolvedBatch:
    """A ref's batch with one version per key, the keys collected for the key index (None when
    it does not apply), and the cached frames to release with it."""

    rows: "DataFrame"
    indexed: IndexedKeys | None
    owned: list["DataFrame | ComputedOnce"] = field(default_factory=list)

    def release(self) -> None:
        owned, self.owned = self.owned, []
        for kept in owned:
            if isinstance(kept, ComputedOnce):
                kept.release()
            else:
                kept.unpersist()


class KeyedWrite:
    """A merge-on-write load's rows for one ref (main, or one temp partition's branch): looked up
    with :meth:`look_up` (again with :meth:`look_up_again`), staged on a transaction with
    :meth:`stage`. Call :meth:`close` at the end. :class:`KeyedLoad` drives one per ref."""

    def __init__(
        self,
        handle: KeyedTable,
        shape: plan.KeyedLoadShape,
        ref: RefRows,
        *,
        summary: Mapping[str, str],
        facts: BatchFacts | None = None,
        staged: list[JavaObject] | None = None,
        early: "NewRowsMeanwhile | None" = None,
    ):
        """``staged``: the files of a load that wrote its rows before it looked anything up (every
        key new), already indexed: they serve the first lookup. ``early``: the batch's new rows
        being written meanwhile (see :meth:`KeyedLoad.write_new_rows_early`), now this write's to
        wait for: started before the batch is known to hold one row per key (rewritten here if a
        key repeats) and, with a sequence column, before any version is known to lose to a stored
        one (rewritten if one does, see lookup.look_up)."""
        self.handle = handle
        self.shape = shape
        self.branch = ref.branch
        self.lookups = 0
        self._current: Lookup | None = None
        self._pending: list[key_index.PendingEntries] = []  # key-index entries being built
        self._staged = staged
        self._already_indexed = frozenset(file_location(f) for f in staged) if staged else frozenset()
        self._early = early
        self._facts = facts
        self._from_staged = False  # the batch is read back from the staged files
        try:
            self._fresh, self._batch = self._resolve(ref, facts)
            if self._early is not None and self._batch.rows is not ref.accepted:
                # A key repeats: the files written hold every version, not the batch's one per key.
                self._early.discard()
                self._early = NewRowsMeanwhile(handle, self._batch.rows, shape)
        except BaseException:
            if self._early is not None:
                self._early.wait()
            raise
        # What every lookup of this write works with (the table and the lookup's number vary).
        self._context = LookupContext(
            handle, handle.table, self._batch.rows, shape, ref.touched, ref.branch, dict(summary), 0
        )
        self._scan_keys = functools.cache(lambda: batch_keys(self._batch.rows, shape))  # Spark jobs: once per load

    @property
    def _rows_need_lookup(self) -> bool:
        """Whether the new rows depend on the stored ones (aggregate, partial-update and sequence
        loads): written again by a second lookup. Full-row upserts of unique keys without a
        sequence column write the batch as it is: a second lookup only changes the bitmaps."""
        shape = self.shape
        return shape.model.keys_model is KeysModel.AGGREGATE or shape.partial or shape.sequence_column is not None

    def _resolve(self, ref: RefRows, facts: BatchFacts | None) -> tuple[FreshKeys | None, ResolvedBatch]:
        """Decides whether the batch needs a lookup, and resolves it to one version per key."""
        handle, shape, branch, accepted = self.handle, self.shape, ref.branch, ref.accepted
        # Only new keys (as the table was opened): no lookup, so nothing to resolve or collect.
        if may_skip_lookup(shape, facts) and holds_none_of(handle, handle.table, branch, ref.touched, shape, facts):
            fresh = FreshKeys(facts, ref_snapshot_id(handle.table, branch))
            if facts.repeated_keys is None:
                # Not counted: the keys collected for the index tell (and resolve the batch if one repeats).
                return fresh, resolved_batch(handle, accepted, shape, branch, facts)
            return fresh, ResolvedBatch(accepted, None)
        # A live file may hold a key: look the keys up.
        if self._staged is not None:
            return None, self._resolved_from_staged()
        # The counting pass computed the rows once: the lookup reads them from there.
        return None, resolved_batch(handle, accepted, shape, branch, facts)

    def _use_staged_rows(self) -> bool:
        """A load that wrote its rows before any lookup, about to read its batch: from here on the
        batch is the rows written (the source may have changed since). Returns whether it switched."""
        if self._staged is None or self._from_staged:
            return False
        self._batch.release()
        self._batch = self._resolved_from_staged()
        self._context = replace(self._context, batch=self._batch.rows)
        self._scan_keys = functools.cache(lambda: batch_keys(self._batch.rows, self.shape))
        return True

    def _resolved_from_staged(self) -> ResolvedBatch:
        """The batch of a load that wrote its rows before any lookup (every key new when it
        started), read back from the files it wrote: when the table gains some of its keys
        meanwhile, the lookup works from the rows written, never from a new read of the source."""
        handle, shape = self.handle, self.shape
        assert self._staged is not None
        self._from_staged = True
        columns = [(c.name, c.spark_type) for c in shape.model.columns]
        written = plan.written_batch(read_staged_files(handle.iceberg.spark, self._staged, columns), shape)
        kept = computed_once(written)
        resolved = resolved_batch(handle, kept.frame, shape, self.branch, self._facts)
        resolved.owned.append(kept)
        return resolved

    @property
    def deleted_rows(self) -> int:
        return self._current.deleted_rows if self._current is not None else 0

    def look_up(self, table: JavaObject) -> None:
        """The first lookup: the keys looked up in ``table``'s head of this write's ref, the new
        rows staged (the files written already or meanwhile, if any); nothing is committed."""
        assert self._current is None, "look_up once, then look_up_again"
        self._current = self._look_up(table, self._staged if self._staged is not None else self._early)

    def look_up_again(self, table: JavaObject) -> None:
        """A later lookup (the table changed since the last one): the new rows are staged again
        only when they depend on the stored rows."""
        current = self._current
        assert current is not None, "look_up first"
        self._current = self._look_up(table, None if self._rows_need_lookup else current.upserts)

    def _look_up(self, table: JavaObject, reused: "list[JavaObject] | NewRowsMeanwhile | None") -> Lookup:
        self.lookups += 1
        if reused is None:
            self._use_staged_rows()  # the rows are written again: from the files written, if any
        context = replace(self._context, table=table, lookups=self.lookups)
        if self._fresh is not None:
            known_new = ref_snapshot_id(table, self.branch) == self._fresh.holds_none_at
            found = without_lookup(context, self._fresh.facts, upserts=reused, known_new=known_new)
            if found is not None:
                return found
            self._fresh = None  # the table holds some of the keys now: look them up from here on
            if self._use_staged_rows():
                context = replace(self._context, table=table, lookups=self.lookups)
        if reused is self._staged and self._rows_need_lookup:
            reused = None  # written as all-new rows: merged with stored rows, they are written again
        return look_up(context, self._batch.indexed, self._scan_keys, upserts=reused)

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
        early = self._early.take_indexing() if self._early is not None else None
        files = self._files_to_index(table)
        if early is not None:
            self._pending.append(early)
            files = [f for f in files if file_location(f) not in early.locations]
        if files:
            self._pending.append(
                key_index.start_indexing(self.handle.iceberg, table, files, list(self.shape.keys), self.shape.sequence_column)
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
        pending, self._pending = self._pending, []
        return pending

    def _files_to_index(self, table: JavaObject) -> list[JavaObject]:
        current = self._current
        iceberg = self.handle.iceberg
        if current is None or not indexed_on_load(iceberg, table, self.shape):
            return []
        return [f for f in current.upserts + current.tombstones if file_location(f) not in self._already_indexed]

    def close(self) -> None:
        if self._early is not None:  # no thread outlives the load (its files, if unpublished, are orphans)
            self._early.wait()
            self._early = None
        for pending in self._take_pending():  # the load failed: no thread outlives it
            pending.finish()
        self._batch.release()


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
) -> ResolvedBatch:
    """The batch with one version per key, the keys collected for the key index (None when it
    does not apply), and the batch's cache if it was cached here (released with it).

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
            return ResolvedBatch(accepted, keys)
    if facts is not None and facts.repeated_keys is False:
        # The counting pass found no repeated key: every row is its key's only version already.
        return ResolvedBatch(accepted, collect_index_keys(iceberg, table, accepted, shape) if indexable else None)
    batch = plan.resolve_batch(accepted, shape).cache()
    return ResolvedBatch(batch, collect_index_keys(iceberg, table, batch, shape) if indexable else None, [batch])
