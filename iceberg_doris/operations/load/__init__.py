"""``load``: Doris stream/broker load and INSERT into an Iceberg table, as one commit.

Read top-down, a load is:

1. :mod:`.checks`: Doris's rules for the options (before anything is read);
2. read, map and convert the rows (:mod:`iceberg_doris.loading`: ``columns``, ``where``,
   ``strict_mode``, type limits);
3. :mod:`.routing`: each row to its partition (auto partitions planned on the way);
4. :mod:`.counting`: one pass counts the rows, writes the rejected ones, enforces
   ``max_filter_ratio``; duplicate-key loads into main count from their write instead
   (:mod:`.write_counted`: the rows are read once);
5. :mod:`.publish`: one commit: the staged rows (duplicate keys, overwrites), or the
   merge-on-write RowDeltas of :mod:`iceberg_doris.merge_on_write` (unique and aggregate keys),
   with the new partitions and the label, on main or on every temp partition's branch at once.
"""

from __future__ import annotations

import dataclasses

import logging
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from iceberg_doris.ddl import KeysModel
from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.engine.auto_increment import with_generated_values
from iceberg_doris.engine.faults import crash_point
from iceberg_doris.engine.iceberg_tables import current_snapshot_id
from iceberg_doris.engine.source_plans import reads_table
from iceberg_doris.engine.table_lock import commit_lock
from iceberg_doris.engine.wide_plans import wide_plan_settings
from iceberg_doris.errors import CommitConflictError
from iceberg_doris.loading import check_no_column_lost, check_partial_names, loaded_columns, parse_column_mapping, prepare_rows, read_source
from iceberg_doris.loading.flexible_json import NAMED_COLUMN, read_flexible_json
from iceberg_doris.merge_on_write.commit import KeyedLoad
from iceberg_doris.merge_on_write.plan import DELETE, NAMED, ORDER, RESET, SEQUENCE, KeyedLoadShape
from iceberg_doris.names.rules import check_label
from iceberg_doris.operations import progress, temp_partitions
from iceberg_doris.operations.generated_columns import check_insert_names, partial_supplied
from iceberg_doris.operations.load.checks import (
    check_batch_new,
    check_keys_supplied,
    check_label_unused,
    check_load_request,
    check_sequence_named,
    check_sequence_source,
    check_sequence_supplied,
    target_column,
)
from iceberg_doris.operations.load import fresh_bulk
from iceberg_doris.operations.load.flexible import check_flexible, check_update_mode
from iceberg_doris.operations.load.counting import RowCounts, count_and_check
from iceberg_doris.operations.load.hidden_columns import DELETE_SIGN_COLUMN, delete_sign_source, with_hidden_sequence
from iceberg_doris.operations.load.negative import negated
from iceberg_doris.operations.load.publish import (
    LoadCommit,
    TableChangedSinceRead,
    publish_keyed,
    publish_keyed_overwrite,
    publish_rows,
)
from iceberg_doris.operations.load.routing import route_rows
from iceberg_doris.operations.load.strict_partial import filter_new_keys
from iceberg_doris.operations.load.write_counted import counted_by_write, stage_and_count
from iceberg_doris.operations.repair_keys import KeyRepair, repair_foreign_writes
from iceberg_doris.operations.requests import LoadRequest, LoadResult, MergeType, UniqueKeyUpdateMode
from iceberg_doris.operations.tables import DorisTable, open_table, reopen
from iceberg_doris.operations.temp_partitions import branch_name
from iceberg_doris.table_model import DorisTableModel
from iceberg_doris.table_model.model import HIDDEN_SEQUENCE_COLUMN

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["load", "load_into"]

log = logging.getLogger(__name__)


def load(spark: "SparkSession", table: str, request: LoadRequest) -> LoadResult:
    """Loads rows into ``table`` (``db.tbl``) as one commit, or commits nothing and raises.

    Example:
        >>> operations.load(spark, "sales.orders", LoadRequest(query="SELECT ...", label="orders_2024_05"))  # doctest: +SKIP
    """
    return load_into(spark, open_table(spark, table), request)


def load_into(
    spark: "SparkSession", handle: DorisTable, request: LoadRequest,
    *, reread: "Callable[[DorisTable], LoadRequest] | None" = None,
) -> LoadResult:
    """:func:`load` on a table already opened (INSERT OVERWRITE opens it to check its request).

    A keyed load whose source reads the table itself (``UPDATE``, ``DELETE`` on values, ``INSERT
    INTO t SELECT ... FROM t``, a query or view over it) is a read-modify-write, serialised as
    Doris serialises them with its table lock: it holds the table's commit lock from its read to
    its commit, so no iceberg-doris writer commits in between, and commits only if the table is
    still as it read it; a writer outside iceberg-doris that changed it meanwhile makes it run
    again (up to :data:`READ_MODIFY_WRITE_ATTEMPTS` times), then fail naming the conflict.

    ``reread``: how the request reads the table as it is (a source pinned to a snapshot, as
    ``doris.delete``'s), called holding the lock before each attempt."""
    with wide_plan_settings(spark, len(handle.model.columns)):
        return _load_into(spark, handle, request, reread)


def _load_into(
    spark: "SparkSession", handle: DorisTable, request: LoadRequest, reread: "Callable[[DorisTable], LoadRequest] | None",
) -> LoadResult:
    source = keyed_source(spark, handle, request)
    if source is None or not reads_table(source, handle.iceberg.catalog_name, handle.name):
        return load_once(spark, handle, request, source=source)
    operation = f"{request.operation} into"
    with commit_lock(handle.iceberg, handle.name, operation=operation):
        for attempt in range(1, READ_MODIFY_WRITE_ATTEMPTS + 1):
            if attempt > 1 or reread is not None:
                handle = reopen(handle, handle.iceberg.load_table(handle.name))
            if reread is not None:
                request = reread(handle)
            try:
                return load_once(spark, handle, request, serialised=True)
            except TableChangedSinceRead:
                log.info("%s %s: the table changed since the load read it (attempt %d); running it again",
                         operation, handle.name.qualified, attempt)
    raise CommitConflictError(
        f"Cannot {operation} {handle.name.qualified}: the load reads the table it writes, and writers outside "
        f"iceberg-doris changed the table {READ_MODIFY_WRITE_ATTEMPTS} times while it ran; nothing was committed. "
        "Run it again."
    )


READ_MODIFY_WRITE_ATTEMPTS = 3


def keyed_source(spark: "SparkSession", handle: DorisTable, request: LoadRequest) -> "DataFrame | None":
    """The source of a keyed, appending load into main from a table, view, query or DataFrame,
    which may read the table it loads into; None for any other load (or a source that does not
    read: the load reports it in its own order)."""
    if handle.model.keys_model is KeysModel.DUPLICATE or request.temporary_partitions or request.path:
        return None
    if request.overwrite is not None:
        return None
    try:
        return read_source(spark, source=request.source, query=request.query)
    except Exception:  # noqa: BLE001 - the load itself reports a source it cannot read, in order
        return None


def partial_update(handle: DorisTable, request: LoadRequest) -> bool:
    """Whether the load updates only the columns it names: asked for (``partial_columns``) or made
    so by the INSERT statement's session, on merge-on-write UNIQUE KEY tables and on AGGREGATE KEY
    tables (Doris's enable_agg_key_partial_update: the columns left out are NULL, which
    REPLACE_IF_NOT_NULL, SUM, MAX and MIN keep the stored value for). Elsewhere Doris's partial
    update has no effect: the load writes whole rows, the columns it leaves out taking their
    defaults or NULL."""
    model = handle.model
    asked = request.partial_columns or model.keys_model.value in request.origin.partial_update_models
    if request.unique_key_update_mode is not None:
        # The header decides, as in Doris: partial_columns counts only without it.
        asked = request.unique_key_update_mode is not UniqueKeyUpdateMode.UPSERT
    if model.keys_model is KeysModel.AGGREGATE:
        return asked
    return asked and model.merge_on_write


def load_once(
    spark: "SparkSession", handle: DorisTable, request: LoadRequest,
    *, serialised: bool = False, source: "DataFrame | None" = None,
) -> LoadResult:
    """One attempt of :func:`load_into`. ``serialised``: the caller holds the table's commit lock
    from before the source is read; the commit fails with :class:`TableChangedSinceRead` unless
    main is still at the snapshot the load read. ``source``: the request's source, read already."""
    started = time.monotonic()
    check_update_mode(request)
    if request.flexible:
        check_flexible(handle, request)
    # Partition names as the table spells them: Doris looks them up case-insensitively.
    request = dataclasses.replace(
        request, partitions=handle.stored_partition_names(request.partitions),
        temporary_partitions=handle.stored_partition_names(request.temporary_partitions, temporary=True),
        partial_columns=partial_update(handle, request),
    )
    check_load_request(handle, request)
    label = check_label(request.label) if request.label is not None else f"{request.operation}_{uuid.uuid4().hex}"
    if request.stream_batch is not None:
        check_batch_new(handle, request.stream_batch)  # a replay is skipped before its rows are read
    check_label_unused(handle, handle.table, label)
    repair = check_keys_before(handle, request)
    if repair is not None and repair.snapshot_id is not None:
        handle = reopen(handle, handle.iceberg.load_table(handle.name))
    # Holding the lock, the source's scan of the table (planned when the rows are first computed)
    # reads this snapshot or a later one a writer outside the lock made; either way, main must
    # still be here when the load commits.
    read_at = current_snapshot_id(handle.table) if serialised else None
    operation, table_name = request.operation, handle.name.qualified
    reading = progress.start(operation, table_name, "read")
    model = handle.model
    if request.flexible:
        assert request.path is not None  # check_flexible
        names = [c.name for c in model.loadable_columns] + [DELETE_SIGN_COLUMN]
        if model.sequence_type and not model.sequence_col:
            names.append(HIDDEN_SEQUENCE_COLUMN)  # a row may carry its sequence value (with_hidden_sequence)
        frame = read_flexible_json(spark, request.path, names, model.key_columns)
    else:
        frame = source if source is not None else read_source(
            spark, source=request.source, query=request.query, path=list(request.path) if request.path else None,
            format=request.format, options=dict(request.format_options) if request.format_options else None,
        )
    mapping = parse_column_mapping(request.columns) if request.columns else None
    request = with_hidden_sequence(handle, request, frame, mapping)
    delete_sign = delete_sign_source(handle, frame, mapping)
    check_sequence_named(handle, request)
    targets = [target_column(c) for c in model.loadable_columns]
    if request.partial_columns and model.keys_model is KeysModel.AGGREGATE:
        # Doris fills the columns a partial update of an aggregate table leaves out with NULL, not
        # their defaults: the stored values stay through the aggregation.
        targets = [dataclasses.replace(t, default=None) for t in targets]
    if request.origin.insert_statement:
        check_insert_names(model, handle.name.name, list(frame.columns))
    if mapping is None and request.partial_columns:
        check_partial_names(frame, targets)
    if mapping is None and not request.partial_columns:
        used_by = [text for text in (request.where, request.delete_on, request.sequence_col, delete_sign) if text]
        check_no_column_lost(frame, targets, loaded_columns(frame, targets, None), used_by)
    keyed = None
    extra = None
    if model.keys_model is not KeysModel.DUPLICATE:
        given = loaded_columns(frame, targets, mapping)
        supplied = partial_supplied(model, given) if request.partial_columns else tuple(t.name for t in targets)
        if request.flexible:
            supplied = model.key_columns  # each row names its own columns (NAMED)
        generated = model.auto_increment_column
        if generated is not None and generated.is_key and generated.name not in supplied:
            supplied = (*supplied, generated.name)  # every row's key is generated: a new key
        keyed = KeyedLoadShape(
            model, tuple(supplied), request.partial_columns, request.strict_mode,
            insert_statement=request.origin.insert_statement, flexible=request.flexible,
        )
        check_keys_supplied(model, request, given)
        check_sequence_supplied(handle, request, given)
        check_sequence_source(request, frame, mapping, targets)
        extra = keyed_extras(model, request, delete_sign)
        if request.flexible:
            extra = {**extra, NAMED: quote_identifier(NAMED_COLUMN), RESET: "false"}
    prepared = prepare_rows(
        frame, targets, mapping=mapping, where=request.where, strict_mode=request.strict_mode,
        extra=extra, required_present=not request.partial_columns, named=NAMED_COLUMN if request.flexible else None,
    )
    generated_values = None
    if model.auto_increment_column is not None:
        generated_values = with_generated_values(
            handle.iceberg, handle.name, handle.table, prepared, model.auto_increment_column
        )
        prepared = generated_values.frame
    try:
        if request.merge_type is MergeType.NEGATIVE:
            prepared = negated(prepared, model)
        if keyed is not None and keyed.partial and request.strict_mode and model.keys_model is KeysModel.UNIQUE:
            # New keys are filtered rows, as in Doris; a temp partition holds keys of its own.
            branches = [temp_partitions.branch_name(p) for p in request.temporary_partitions or ()]
            prepared = filter_new_keys(handle, prepared, branches)
        routed = route_rows(prepared, handle, request)
        reading.done()
        deleted = 0
        fresh = None
        if fresh_bulk.applies(handle, routed, request, keyed):
            # Every key new unless the batch repeats one: written and counted in one pass, checked after.
            with progress.phase(operation, table_name, "write") as writing:  # read, checked and written in one pass
                fresh = fresh_bulk.stage_fresh(handle, routed, request, label, targets, keyed)
                if fresh is not None:
                    writing.count(**logged_counts(fresh.counts))
        if fresh is not None:
            counts, error_rows_path = fresh.counts, fresh.error_rows_path
            commit = load_commit(label, request, counts, repair, read_at=read_at, serialised=serialised)
            committed, deleted = publish_keyed(
                KeyedLoad(handle, keyed, into_main=True), fresh_bulk.accepted_rows(counts.routed), commit,
                facts=counts.keys, staged=fresh.files,
            )
        elif keyed is None and counted_by_write(routed, request):
            # One pass: the rows are staged as files and counted from that write.
            with progress.phase(operation, table_name, "write") as writing:  # read, checked and written in one pass
                written = stage_and_count(handle, routed, request, label, targets)
                writing.count(**logged_counts(written.counts))
            counts, error_rows_path = written.counts, written.error_rows_path
            commit = load_commit(label, request, counts)
            committed = publish_rows(handle, None, targets, commit, staged=written.files)
        else:
            # A keyed load (not an overwrite) is one KeyedLoad from here: it may write its new rows while they are counted.
            keyed_load = None
            if keyed is not None and request.overwrite is None:
                keyed_load = KeyedLoad(handle, keyed, into_main=not request.temporary_partitions)
            with progress.phase(operation, table_name, "check") as checking:
                counted = count_and_check(handle, routed, request, label, keyed, early_write=keyed_load)
                checking.count(**logged_counts(counted.counts))
            try:
                counts, error_rows_path = counted.counts, counted.error_rows_path
                crash_point(request.operation, "rows-counted")
                commit = load_commit(label, request, counts, repair, read_at=read_at, serialised=serialised)
                if keyed is not None and request.overwrite is not None:
                    committed = publish_keyed_overwrite(handle, counted.accepted(), keyed, targets, commit)
                elif keyed_load is not None:
                    committed, deleted = publish_keyed(
                        keyed_load, counted.accepted(), commit, facts=counts.keys
                    )
                else:
                    committed = publish_rows(handle, counted.accepted(), targets, commit)
            finally:
                if keyed_load is not None:
                    keyed_load.close()  # discards new rows written early if the load stopped before its lookup
                counted.release()
    finally:
        if generated_values is not None:
            generated_values.release()
    # The snapshot the load reports: main's, or (temp partitions) the last branch it loaded;
    # snapshot_ids has every branch's.
    moved = [branch_name(t) for t in counts.touched if branch_name(t) in committed.snapshot_ids]
    snapshot_id = committed.snapshot_id(moved[-1] if counts.routed.temporary and moved else None)
    return LoadResult(
        label=label, status="FINISHED", snapshot_id=snapshot_id, loaded_rows=counts.loaded,
        filtered_rows=counts.filtered, unselected_rows=counts.unselected, deleted_rows=deleted,
        elapsed_ms=int((time.monotonic() - started) * 1000), error_rows_path=error_rows_path,
        snapshot_ids=dict(committed.snapshot_ids), repaired_keys=repair.repaired_keys if repair is not None else 0,
    )


def check_keys_before(handle: DorisTable, request: LoadRequest) -> KeyRepair | None:
    """A keyed load into main first repairs the keys writers outside iceberg-doris stored twice
    (:mod:`iceberg_doris.operations.repair_keys`, a commit of its own when there is something to
    repair). A repair that loses a race with another writer is left to the next load."""
    if handle.model.keys_model is KeysModel.DUPLICATE or request.overwrite is not None or request.temporary_partitions:
        return None
    try:
        return repair_foreign_writes(handle)
    except CommitConflictError as error:
        log.warning("%s: the repair of repeated keys was not committed (%s); the next load tries again", handle.name.qualified, error)
        return None


def logged_counts(counts: RowCounts) -> dict[str, int]:
    """A load's row counts as its phase log lines show them."""
    return {"loaded_rows": counts.loaded, "filtered_rows": counts.filtered, "unselected_rows": counts.unselected}


def load_commit(
    label: str, request: LoadRequest, counts: RowCounts, repair: KeyRepair | None = None,
    *, read_at: int | None = None, serialised: bool = False,
) -> LoadCommit:
    return LoadCommit(
        label=label, request=request, routed=counts.routed, touched=counts.touched,
        counts=(counts.loaded, counts.filtered, counts.unselected),
        keys_checked=repair.checked_up_to if repair is not None else None,
        read_at=read_at, read_checked=serialised,
    )


def keyed_extras(model: DorisTableModel, request: LoadRequest, delete_sign: str | None = None) -> dict[str, str]:
    """The delete flag, sequence value and batch order each row of a keyed load carries
    (``delete_sign``: the load's ``__DORIS_DELETE_SIGN__`` column, 1 deleting the row's key)."""
    if request.merge_type is MergeType.DELETE:
        delete = "true"
    elif request.merge_type is MergeType.MERGE:
        delete = f"coalesce(({request.delete_on}), false)"
    else:
        delete = "false"
    if delete_sign is not None and request.merge_type is not MergeType.DELETE:
        delete = f"({delete} OR coalesce(CAST({quote_identifier(delete_sign)} AS INT) = 1, false))"
    if request.sequence_col:
        sequence = quote_identifier(request.sequence_col)
    elif model.sequence_col:
        sequence = quote_identifier(model.sequence_col)
    else:
        sequence = "CAST(NULL AS INT)"
    return {DELETE: delete, SEQUENCE: sequence, ORDER: "monotonically_increasing_id()"}
