"""Doris's rules for a load's options, checked before the load reads its source, with Doris's
messages; and what each table column accepts."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris.ddl import KeysModel
from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.engine.iceberg_tables import snapshot_with_summary
from iceberg_doris.errors import BatchAlreadyCommittedError, LabelAlreadyUsedError, LoadError, ProcedureArgumentError
from iceberg_doris.loading import STRING_LIMIT_BYTES, TargetColumn
from iceberg_doris.names.rules import shown
from iceberg_doris.operations import unpartitioned_temp
from iceberg_doris.operations.load.negative import check_negative_allowed
from iceberg_doris.operations.requests import LoadRequest, MergeType, StreamBatch
from iceberg_doris.operations.tables import DorisTable
from iceberg_doris.table_model import ColumnModel, DorisTableModel, snapshot_summary
from iceberg_doris.table_model.stream_marks import StreamMark, mark_key, read_mark

_DATETIME = re.compile(r"DATETIME(?:V[12])?\s*(?:\(\s*(\d)\s*\))?")

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def check_load_request(handle: DorisTable, request: LoadRequest) -> None:
    """Doris's rules for load options, with Doris's messages."""
    model = handle.model
    merge_type = request.merge_type
    if merge_type is MergeType.NEGATIVE:
        check_negative_allowed(model)
    elif merge_type is not MergeType.APPEND and model.keys_model is not KeysModel.UNIQUE:
        raise LoadError("load by MERGE or DELETE is only supported in unique tables.")
    if request.delete_on and merge_type is not MergeType.MERGE:
        raise LoadError("not support DELETE ON clause when merge type is not MERGE.")
    if merge_type is MergeType.MERGE and not request.delete_on:
        raise LoadError("Excepted DELETE ON clause when merge type is MERGE.")
    if request.sequence_col and not (model.sequence_col or model.sequence_type):
        raise LoadError(f"There is no sequence column in the table {handle.name.name}")
    if request.partitions and request.temporary_partitions:
        raise ProcedureArgumentError("Give partitions or temporary_partitions, not both")
    if request.partitions and model.partitions is None:
        raise LoadError(f"Table {handle.name.qualified} is not partitioned: remove the partitions argument")
    sources = [s for s in (request.source, request.query, request.path) if s is not None]
    if len(sources) != 1:
        raise ProcedureArgumentError("Give exactly one of source, query or path")
    if request.overwrite is not None and request.partial_columns:
        raise LoadError(
            "partial_columns cannot be combined with overwrite: an overwrite replaces whole rows, so there are no "
            "stored rows to update; load full rows, or load the partial update without overwrite"
        )
    if request.overwrite is not None and merge_type is MergeType.NEGATIVE:
        raise LoadError(
            "merge_type NEGATIVE cannot be combined with overwrite: the overwrite replaces the partitions' rows, so "
            "there is no earlier load left to undo; load the rows to keep with merge_type APPEND"
        )
    if request.overwrite is not None and merge_type is not MergeType.APPEND:
        raise LoadError(
            f"merge_type {merge_type.value} cannot be combined with overwrite: the overwrite replaces the partitions' "
            "rows, so there is nothing left to delete; load the rows to keep with merge_type APPEND"
        )
    if request.temporary_partitions and model.partitions is None:
        unpartitioned_temp.check_load_target(handle, list(request.temporary_partitions))


def check_sequence_named(handle: DorisTable, request: LoadRequest) -> None:
    """A table with a hidden sequence column (``function_column.sequence_type``) needs each load to
    say where its sequence values come from: ``sequence_col``, or a ``__DORIS_SEQUENCE_COL__``
    column of the source or the columns mapping (Doris's rule and message)."""
    model = handle.model
    if model.sequence_type and not model.sequence_col and not request.sequence_col and not request.partial_columns:
        raise LoadError(
            f"Table {handle.name.name} has sequence column, need to specify the sequence column: give sequence_col "
            "=> '<source column>', or a __DORIS_SEQUENCE_COL__ column in the source or the columns mapping"
        )


def check_sequence_supplied(handle: DorisTable, request: LoadRequest, supplied: Sequence[str]) -> None:
    """A load into a sequence table must give each row a sequence value (Doris's rule): the source
    (or the columns mapping) has to supply the sequence column; ``supplied`` are the table columns
    the load supplies."""
    model = handle.model
    if not model.sequence_col or request.partial_columns or request.sequence_col:
        return
    column = model.column(model.sequence_col)
    default = (column.default or "").upper()
    if model.sequence_col.lower() not in {name.lower() for name in supplied} and not default.startswith("CURRENT_TIMESTAMP"):
        raise LoadError(
            f"Table {handle.name.name} has sequence column, need to specify the sequence column: the load must "
            f"supply column {model.sequence_col} (in the source or the columns mapping)"
        )


def check_keys_supplied(model: DorisTableModel, request: LoadRequest, supplied: Sequence[str]) -> None:
    """A partial update names every key column (Doris's rule and message)."""
    if not request.partial_columns:
        return
    given = {name.lower() for name in supplied}
    # An AUTO_INCREMENT key the load leaves out is generated: every row is a new key (Doris's
    # regression-test/suites/unique_with_mow_p0/partial_update/test_partial_update_auto_inc.groovy).
    generated = model.auto_increment_column
    if generated is not None and generated.is_key:
        given.add(generated.name.lower())
    missing = [key for key in model.key_columns if key.lower() not in given]
    if missing:
        raise LoadError(
            f"Partial update should include all key columns, missing: {missing[0]}; name every key column "
            f"({', '.join(model.key_columns)}) in the source or the columns mapping"
        )


def check_sequence_source(request: LoadRequest, frame: "DataFrame", mapping: Any, targets: list[TargetColumn]) -> None:
    """``sequence_col`` names a column of the load (a source column, a mapped or a table column)."""
    if not request.sequence_col:
        return
    known = list(frame.columns) + list(mapping.names() if mapping is not None else ()) + [t.name for t in targets]
    if request.sequence_col.lower() not in {name.lower() for name in known}:
        raise LoadError(
            f"sequence_col {shown(request.sequence_col)} is not a column of the load: name a column of the source "
            "or of the columns mapping"
        )


def check_label_unused(handle: DorisTable, table: JavaObject, label: str) -> None:
    """A label loads once per table (checked again inside the commit, on the table it commits to)."""
    snapshot_id = snapshot_with_summary(handle.iceberg, table, snapshot_summary.LABEL, label)
    if snapshot_id is not None:
        raise LabelAlreadyUsedError(
            f"Label [{label}] has already been used on {handle.name.qualified} (snapshot {snapshot_id}); "
            "a label loads once: choose a new one",
            label=label, snapshot_id=snapshot_id, table=handle.name.qualified,
        )


def check_batch_new(handle: DorisTable, batch: StreamBatch) -> StreamMark:
    """A stream's micro-batch loads once per table: refused (BatchAlreadyCommittedError) when the
    stream's mark on the table is this batch or a later one; checked before the load reads its
    rows and again inside the commit, on the table it commits to. Returns the mark to commit.

    A named stream belongs to one streaming query: a batch from another query (a new checkpoint
    reusing the name) would be skipped for the old query's batches, so it is refused."""
    mark = read_mark(batch.stream, handle.property(mark_key(batch.stream)))
    if mark is not None and batch.query_id and mark.query_id and mark.query_id != batch.query_id:
        raise LoadError(
            f"Stream {shown(batch.stream)} on {handle.name.qualified} belongs to streaming query {mark.query_id} (its "
            f"last committed batch is {mark.batch_id}); this is query {batch.query_id}, a different checkpoint. "
            "Give this stream another name (stream_to(..., name=...)), or restart the old query from its checkpoint"
        )
    if mark is not None and batch.batch_id <= mark.batch_id:
        raise BatchAlreadyCommittedError(
            f"Batch {batch.batch_id} of stream {shown(batch.stream)} was committed to {handle.name.qualified} before "
            f"(the stream's last committed batch is {mark.batch_id}): a replay, skipped"
        )
    return StreamMark(batch.batch_id, batch.query_id)


def target_column(column: ColumnModel) -> TargetColumn:
    """What a loaded value must satisfy for a column (Doris type limits included)."""
    doris = column.doris_type.upper()
    length = None
    if doris.startswith(("VARCHAR(", "CHAR(")):
        length = min(int(doris[doris.index("(") + 1 : doris.index(")")]), STRING_LIMIT_BYTES)
    elif doris == "STRING":
        length = STRING_LIMIT_BYTES
    bounds = {"TINYINT": (-128, 127), "SMALLINT": (-32768, 32767), "LARGEINT": (-(2**127), 2**127 - 1)}
    low, high = bounds.get(doris, (None, None))
    return TargetColumn(
        name=column.name,
        spark_type=column.spark_type,
        # An AUTO_INCREMENT column's NULLs (and its absence) are filled after the checks.
        nullable=column.nullable or column.auto_increment,
        doris_type=column.doris_type,
        max_length=length,
        min_value=low,
        max_value=high,
        default=column.default,
        datetime_scale=datetime_scale(doris),
        generated=column.generated,
    )


def datetime_scale(doris_type: str) -> int | None:
    """The declared fractional digits of a DATETIME[V2][(p)] column when fewer than Iceberg's six
    (``DATETIME`` is 0, as in Doris); None for other types and for DATETIME(6)."""
    found = _DATETIME.fullmatch(doris_type.strip().upper())
    if found is None:
        return None
    scale = int(found.group(1) or 0)
    return scale if scale < 6 else None
