"""Publishing a load: one commit, holding the table's commit lock, that adds the staged rows (or,
for unique and aggregate keys, the merge-on-write RowDeltas), any new auto partitions and the
load's label, on main or on every temp partition's branch at once, or nothing.

Inside the commit the label is checked again, the partitions the rows were routed to and the
table's sequence column must be unchanged (a concurrent drop or re-range, or ENABLE FEATURE
"SEQUENCE_LOAD", refuses the load); new auto partitions merge with any another writer added
meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.engine.commit import Committed, commit_atomically
from iceberg_doris.engine.faults import crash_point
from iceberg_doris.engine.file_sets import FileSet, all_files, files_matching, stage_append, stage_replacement
from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.engine.iceberg_tables import current_snapshot_id, stage_model, stage_properties
from iceberg_doris.engine.interleaving import LOOKED_UP, reached
from iceberg_doris.engine.staged_writes import stage_data_files
from iceberg_doris.errors import CommitConflictError
from iceberg_doris.loading import TargetColumn
from iceberg_doris.merge_on_write.commit import KeyedLoad, RefRows
from iceberg_doris.merge_on_write.fresh_keys import BatchFacts
from iceberg_doris.merge_on_write.lookup import touched_predicate
from iceberg_doris.merge_on_write.plan import KeyedLoadShape, overwrite_rows
from iceberg_doris.operations import progress
from iceberg_doris.operations import unpartitioned_temp
from iceberg_doris.operations.load.checks import check_batch_new, check_label_unused
from iceberg_doris.operations.load.routing import PARTITION_COLUMN, RoutedRows, merge_partitions
from iceberg_doris.operations.requests import LoadRequest, OverwriteMode
from iceberg_doris.operations.tables import DorisTable, reopen
from iceberg_doris.operations.recycle_bin import recycle_summary
from iceberg_doris.operations.temp_partitions import branch_name
from iceberg_doris.partitioning import Partition, PartitionSet
from iceberg_doris.table_model import snapshot_summary
from iceberg_doris.table_model.partition_predicates import partition_predicate, union
from iceberg_doris.table_model.stream_marks import mark_key

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


class TableChangedSinceRead(Exception):
    """A read-modify-write load found main changed (by a writer outside iceberg-doris) since its
    source read it: it commits nothing, and runs again."""


@dataclass(frozen=True)
class LoadCommit:
    """What a load publishes, besides its rows."""

    label: str
    request: LoadRequest
    routed: RoutedRows
    touched: list[str]  # partitions (temp partitions for a temp load) that receive rows
    counts: tuple[int, int, int]  # loaded, filtered, unselected
    keys_checked: int | None = None  # the snapshot up to which other writers' commits were checked (keyed loads)
    # A read-modify-write (read_checked): the snapshot of main its source read, where main must
    # still be when it commits (None: main had no snapshot).
    read_at: int | None = None
    read_checked: bool = False

    def summary(self) -> dict[str, str]:
        loaded, filtered, unselected = self.counts
        summary = {
            snapshot_summary.LABEL: self.label,
            snapshot_summary.OPERATION: self.request.operation,
            snapshot_summary.LOADED_ROWS: str(loaded),
            snapshot_summary.FILTERED_ROWS: str(filtered),
            snapshot_summary.UNSELECTED_ROWS: str(unselected),
        }
        batch = self.request.stream_batch
        if batch is not None:
            summary |= {snapshot_summary.STREAM: batch.stream, snapshot_summary.STREAM_BATCH: str(batch.batch_id)}

        if self.keys_checked is not None:
            summary[snapshot_summary.KEYS_CHECKED] = str(self.keys_checked)
        return summary | dict(self.request.origin.summary)


def stage_load_metadata(handle: DorisTable, table: JavaObject, transaction: JavaObject, commit: LoadCommit) -> DorisTable:
    """Checks the label (and a stream's batch) on the table the commit builds on and stages the
    load's new partitions (and the stream's new mark); returns the table reopened as committed to."""
    if commit.read_checked and current_snapshot_id(table) != commit.read_at:
        raise TableChangedSinceRead(handle.name.qualified)
    fresh = reopen(handle, table)
    if fresh.model.sequence_column != handle.model.sequence_column:
        # ENABLE FEATURE "SEQUENCE_LOAD" committed meanwhile: this load's versions were decided
        # without the sequence column, which from now on decides them.
        raise CommitConflictError(
            f"Cannot load into {handle.name.qualified}: its sequence column changed while the load ran; nothing was "
            "committed. Run the load again."
        )
    if commit.request.stream_batch is not None:
        # In the same commit as the rows: a replay of this batch finds the mark whatever happens after.
        mark = check_batch_new(fresh, commit.request.stream_batch)
        stage_properties(transaction, {mark_key(commit.request.stream_batch.stream): mark.text()})
    check_label_unused(handle, table, commit.label)
    if commit.routed.partitions is None and commit.routed.temporary:
        unpartitioned_temp.check_still_there(fresh, list(commit.request.temporary_partitions or ()))
    if commit.routed.partitions is not None:
        merged = merge_partitions(fresh, commit.routed)
        if merged is not fresh.model.partitions:
            stage_model(transaction, fresh.properties, fresh.model.with_partitions(merged))
            return DorisTable(fresh.iceberg, fresh.name, fresh.table, fresh.model.with_partitions(merged))
    return fresh


def publish_rows(
    handle: DorisTable, accepted: "DataFrame | None", targets: list[TargetColumn], commit: LoadCommit,
    *, staged: list[JavaObject] | None = None,
) -> Committed[None]:
    """Duplicate-key loads and overwrites: stages the accepted rows as data files (one set per temp
    partition), then commits them in one append, overwrite or RowDelta per ref. ``staged``: the
    rows' files for main, already staged (``accepted`` is then not read)."""
    from pyspark.sql import functions as F

    request, routed = commit.request, commit.routed
    # Built only when rows are written here: each Column costs py4j round trips.
    columns = [F.col(quote_identifier(t.name)) for t in targets] if staged is None else []
    files: dict[str | None, list[JavaObject]] = {}
    writing = None if staged is not None else progress.start(request.operation, handle.name.qualified, "write")
    if staged is not None:
        files[None] = staged
    elif routed.temporary:
        for name in commit.touched:
            rows = accepted.filter(F.col(PARTITION_COLUMN) == name).select(*columns)
            files[name] = stage_data_files(handle.iceberg, handle.name, rows, table=handle.table)
    elif commit.counts[0]:
        assert accepted is not None
        files[None] = stage_data_files(handle.iceberg, handle.name, accepted.select(*columns), table=handle.table)
    if writing is not None:
        writing.done(rows=commit.counts[0], files=sum(len(f) for f in files.values()))
    if staged is None:
        crash_point(request.operation, "files-staged")

    def build(table: JavaObject, transaction: JavaObject) -> None:
        fresh = stage_load_metadata(handle, table, transaction, commit)
        if routed.temporary:
            for name in request.temporary_partitions or () if request.overwrite else commit.touched:
                added = FileSet(files.get(name, []))
                removed = all_files(table, ref=branch_name(name)) if request.overwrite else FileSet()
                stage_replacement(transaction, removed, added, branch=branch_name(name), summary=commit.summary())
            return
        added = FileSet(files.get(None, []))
        if request.overwrite is None:
            stage_append(transaction, added.data_files, summary=commit.summary())
            return
        before = reopen(handle, table).model.partitions  # as the overwrite found them: new auto partitions held nothing
        removed = overwritten_files(fresh, fresh.model.partitions, request, commit.touched)
        summary = commit.summary() | {snapshot_summary.OVERWRITTEN_PARTITIONS: overwritten_text(request, commit.touched)}
        if before is not None:  # the replaced partitions' old contents go into the recycle bin
            summary |= recycle_summary(before, overwritten_partitions(before, request, commit.touched))
        if not removed.data_files and not added.data_files:
            kept = (snapshot_summary.LABEL, snapshot_summary.OPERATION, snapshot_summary.STREAM, snapshot_summary.STREAM_BATCH)
            stage_append(transaction, [], summary={k: summary[k] for k in kept if k in summary})
        else:
            stage_replacement(transaction, removed, added, summary=summary)

    with progress.phase(request.operation, handle.name.qualified, "commit") as committing:
        committing.count(rows=commit.counts[0])
        # On the table the load opened: the transaction refreshes it from the catalog (one read),
        # where loading it again would be a second catalog read and metadata parse per load.
        return commit_atomically(
            handle.iceberg, handle.name, build, operation=f"{request.operation} into", label=commit.label,
            table=handle.table,
        )


def publish_keyed_overwrite(
    handle: DorisTable, accepted: "DataFrame", shape: KeyedLoadShape, targets: list[TargetColumn], commit: LoadCommit
) -> Committed[None]:
    """Overwrites of unique/aggregate tables: the rows resolved per key as a load would (the
    replaced rows are gone, so there is nothing to look up), committed like any overwrite."""
    carried = (PARTITION_COLUMN,) if PARTITION_COLUMN in accepted.columns else ()
    return publish_rows(handle, overwrite_rows(accepted, shape, carried), targets, commit)


def publish_keyed(
    load: KeyedLoad, accepted: "DataFrame", commit: LoadCommit,
    *, facts: BatchFacts | None = None, staged: list[JavaObject] | None = None,
) -> tuple[Committed[None], int]:
    """Unique/aggregate loads: merge-on-write into main, or into every touched temp partition, in
    one commit (a RowDelta per ref), driving ``load``'s steps (and closing it). Returns the commit
    and the rows deleted. ``facts``: the batch's keys as the counting pass found them (lets a
    batch of only new keys skip its lookup); ``staged``: a load into main that wrote its rows
    already (every key new, see fresh_bulk). A load into main may be writing its new rows since
    it counted them (:meth:`KeyedLoad.write_new_rows_early`)."""
    from pyspark.sql import functions as F

    assert commit.request.overwrite is None, "overwrites of keyed tables go through publish_keyed_overwrite"
    handle = load.handle
    routed = commit.routed
    if routed.temporary:
        refs = [
            RefRows(
                accepted.filter(F.col(PARTITION_COLUMN) == name), touched_predicate(routed.partitions, [name], True),
                branch_name(name),
            )
            for name in commit.touched
        ]
    else:
        refs = [RefRows(accepted, touched_predicate(routed.partitions, commit.touched, False))]
    try:
        load.begin(refs, summary=commit.summary(), facts=facts, staged=staged)
        # Looked up without the lock, on a table loaded for it; the commit's first attempt builds on
        # that same load (a second lookup happens only if the table changed meanwhile).
        operation, table_name = commit.request.operation, handle.name.qualified
        table = handle.iceberg.load_table(handle.name)
        with progress.phase(operation, table_name, "lookup") as looking_up:  # the new rows are written with it
            looking_up.count(rows=commit.counts[0])
            load.look_up(table)
        load.start_indexing(table)  # on a JVM thread: the commit runs meanwhile
        reached(LOOKED_UP, handle.name)

        def build(table: JavaObject, transaction: JavaObject) -> None:
            stage_load_metadata(handle, table, transaction, commit)
            load.stage(transaction, table)

        with progress.phase(operation, table_name, "commit") as committing:  # the delete bitmaps are written in it
            committed = commit_atomically(
                handle.iceberg, handle.name, build, operation="load into", on_conflict=load.look_up_again,
                label=commit.label, table=table,
            )
            deleted = load.deleted_rows
            committing.count(rows=commit.counts[0], deleted_rows=deleted, lookups=load.lookups)
        with progress.phase(operation, table_name, "index") as indexing:  # the key-index entries of the new files
            indexing.count(files=load.finish_indexing(table))
        return committed, deleted
    finally:
        load.close()


def overwritten_partitions(partitions: PartitionSet, request: LoadRequest, touched: list[str]) -> list[Partition]:
    """The formal partitions an overwrite replaces."""
    if request.overwrite is OverwriteMode.ALL:
        return list(partitions.formal)
    # Each name resolved as get() does (the exact spelling first): auto LIST partitions may differ only by case.
    names = request.partitions if request.overwrite is OverwriteMode.NAMED else touched
    chosen = {found.name for n in names or [] if (found := partitions.get(n)) is not None}
    return [p for p in partitions.formal if p.name in chosen]


def overwritten_files(fresh: DorisTable, partitions: PartitionSet | None, request: LoadRequest, touched: list[str]) -> FileSet:
    """What an overwrite replaces, as main holds it at commit time."""
    if partitions is None or request.overwrite is OverwriteMode.ALL:
        return all_files(fresh.table)
    names = request.partitions if request.overwrite is OverwriteMode.NAMED else touched
    chosen = [partitions.get(n) for n in names or []]
    if not chosen:
        return FileSet()
    return files_matching(fresh.iceberg, fresh.table, union([partition_predicate(partitions, p) for p in chosen if p is not None]))


def overwritten_text(request: LoadRequest, touched: list[str]) -> str:
    if request.overwrite is OverwriteMode.ALL:
        return snapshot_summary.ALL_PARTITIONS
    return ",".join((request.partitions or []) if request.overwrite is OverwriteMode.NAMED else touched)
