"""``delete``: Doris ``DELETE FROM t [PARTITION ...] WHERE ...``, as one commit.

Which rows go is decided on the table's main at the time of the commit, on any table model:

- **unique keys**: the keys of the live rows matching ``where`` are deleted as a ``merge_type =>
  'DELETE'`` load of those rows would (Doris runs a DELETE on a merge-on-write table as a load
  with the delete sign): the rows' positions go into delete bitmaps and, on a table with a
  sequence column, each deleted row leaves a tombstone carrying its sequence value, so a late
  row with a smaller sequence value cannot bring the key back (an equal or larger one can: it is
  newer). Plain Spark ``DELETE FROM`` cannot do that.
- **duplicate and aggregate keys**: the matching rows' positions go into delete bitmaps. As in
  Doris, an aggregate table's condition may name key columns only (a value is an aggregate of
  rows: deleting by it would delete rows whose other contributions did not match).

No data file is rewritten: the rows are marked in deletion vectors (format v3) or position-delete
files (format v2), so time travel to the snapshot before still reads them.
"""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING

from pyroaring import BitMap64

from iceberg_doris.ddl import KeysModel
from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.engine.commit import commit_atomically
from iceberg_doris.engine.deletion_vectors import live_files
from iceberg_doris.engine.faults import crash_point
from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.engine.iceberg_tables import current_snapshot_id, iceberg_expression, read_at_snapshot
from iceberg_doris.engine.row_deletes import write_row_deletes
from iceberg_doris.engine.row_deltas import stage_keyed_row_delta
from iceberg_doris.errors import PartitionError, ProcedureArgumentError
from iceberg_doris.names.rules import check_label
from iceberg_doris.operations import progress
from iceberg_doris.operations.load import load_into
from iceberg_doris.operations.load.checks import check_label_unused
from iceberg_doris.operations.requests import DeleteRequest, DeleteResult, LoadOrigin, LoadRequest, MergeType
from iceberg_doris.operations.tables import DorisTable, open_table
from iceberg_doris.table_model import snapshot_summary
from iceberg_doris.table_model.partition_predicates import TRUE, Predicate, partition_predicate, to_sql, union

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

OPERATION = "delete"


def delete(spark: "SparkSession", table: str, request: DeleteRequest) -> DeleteResult:
    """Deletes the rows of ``table`` (``db.tbl``) matching ``request.where`` (within
    ``request.partitions`` if given) in one commit, or commits nothing and raises.

    Example:
        >>> operations.delete(spark, "crm.users", DeleteRequest(where="last_seen < '2020-01-01'"))  # doctest: +SKIP
    """
    started = time.monotonic()
    handle = open_table(spark, table)
    label = check_label(request.label) if request.label is not None else f"{OPERATION}_{uuid.uuid4().hex}"
    check_label_unused(handle, handle.table, label)
    where = _checked_condition(spark, handle, request.where)
    scope = _partition_scope(handle, request.partitions)
    if handle.model.keys_model is KeysModel.UNIQUE:
        return _delete_keys(spark, handle, where, scope, request, label, started)
    return _delete_positions(spark, handle, where, scope, label, started)


def _delete_keys(
    spark: "SparkSession", handle: DorisTable, where: str, scope: Predicate, request: DeleteRequest, label: str, started: float
) -> DeleteResult:
    """Unique keys: a DELETE load of the matching live rows (whole rows, so each tombstone carries
    the deleted row's sequence value and NOT NULL values)."""

    def delete_load(table: DorisTable) -> LoadRequest:
        snapshot_id = current_snapshot_id(table.table)
        if snapshot_id is None:
            source = spark.table(table.name.sql).limit(0)
        else:
            source = _rows(spark, table, snapshot_id, scope, where)
        return LoadRequest(
            source=source, partitions=request.partitions, label=label, merge_type=MergeType.DELETE,
            origin=LoadOrigin(operation=OPERATION),
        )

    # The rows matching ``where`` are read from the table as it is once the delete holds its lock
    # (a read-modify-write, see load_into), and read again if it must run again.
    loaded = load_into(spark, handle, delete_load(handle), reread=delete_load)
    return DeleteResult(
        label=label, snapshot_id=loaded.snapshot_id, deleted_rows=loaded.deleted_rows,
        elapsed_ms=int((time.monotonic() - started) * 1000),
    )


def _delete_positions(
    spark: "SparkSession", handle: DorisTable, where: str, scope: Predicate, label: str, started: float
) -> DeleteResult:
    """Duplicate and aggregate keys: the matching rows' positions, found and committed on the
    table as each commit attempt reads it (a competing write is seen by the next attempt)."""
    from pyspark.sql import functions as F

    iceberg = handle.iceberg
    conflict_filter = iceberg_expression(iceberg, scope)

    def build(table: JavaObject, transaction: JavaObject) -> int:
        check_label_unused(handle, table, label)
        snapshot_id = current_snapshot_id(table)
        marks: dict[str, BitMap64] = {}
        looking_up = progress.start(OPERATION, handle.name.qualified, "lookup")
        if snapshot_id is not None:
            per_file = (
                _rows(spark, handle, snapshot_id, scope, where)
                .groupBy("_file").agg(F.collect_list("_pos").alias("positions")).collect()
            )
            marks = {row[0]: BitMap64(row[1]) for row in per_file}
        deleted = sum(len(positions) for positions in marks.values())
        looking_up.done(deleted_rows=deleted, files=len(marks))
        added: list[JavaObject] = []
        removed: list[JavaObject] = []
        if marks:
            writing = progress.start(OPERATION, handle.name.qualified, "write")
            data_files, existing = live_files(table, snapshot_id=snapshot_id, row_filter=conflict_filter)
            added, removed = write_row_deletes(iceberg, table, marks, data_files=data_files, existing=existing)
            crash_point(OPERATION, "deletes-written")
            writing.done(delete_files=len(added))
        stage_keyed_row_delta(
            iceberg, transaction, branch=None, looked_up_in=snapshot_id, conflict_filter=conflict_filter,
            rows_must_exist=list(marks), added_rows=[], added_deletes=added, removed_deletes=removed,
            summary={
                snapshot_summary.LABEL: label,
                snapshot_summary.OPERATION: OPERATION,
                snapshot_summary.DELETED_ROWS: str(deleted),
            },
        )
        return deleted

    with progress.phase(OPERATION, handle.name.qualified, "commit") as committing:
        committed = commit_atomically(
            iceberg, handle.name, build, operation="delete from", on_conflict=lambda _table: None, label=label, table=handle.table,
        )
        committing.count(deleted_rows=committed.result)
    return DeleteResult(
        label=label, snapshot_id=committed.snapshot_id(), deleted_rows=committed.result,
        elapsed_ms=int((time.monotonic() - started) * 1000),
    )


def _rows(spark: "SparkSession", handle: DorisTable, snapshot_id: int, scope: Predicate, where: str) -> "DataFrame":
    """The live rows of ``snapshot_id`` in ``scope`` matching ``where``, with their file and position."""
    from pyspark.sql import functions as F

    frame = read_at_snapshot(spark, handle.name, handle.table, snapshot_id)
    if scope is not TRUE:
        frame = frame.filter(to_sql(scope))
    # A NULL condition deletes nothing, as in SQL.
    return frame.filter(F.coalesce(F.expr(where), F.lit(False)))


def _checked_condition(spark: "SparkSession", handle: DorisTable, where: object) -> str:
    """``where`` as a boolean condition on the table's columns (Doris's rule for aggregate tables:
    key columns only), or a clear error before anything is read."""
    from pyspark.errors import AnalysisException, ParseException
    from pyspark.sql import functions as F

    qualified = handle.name.qualified
    if not isinstance(where, str) or not where.strip():
        raise ProcedureArgumentError(
            f"DELETE FROM {qualified} needs a where condition on its columns, e.g. where => \"k = 1\" "
            "(where => 'true' deletes every row)"
        )
    frame = spark.table(handle.name.sql)
    try:
        condition = F.expr(where)
        analysed = frame.select(condition.alias("matches")).schema["matches"].dataType.simpleString()
    except ParseException as error:
        raise ProcedureArgumentError(
            f"the where condition {where!r} of DELETE FROM {qualified} does not parse: {_first_line(error)}"
        ) from None
    except AnalysisException as error:
        raise ProcedureArgumentError(
            f"the where condition {where!r} of DELETE FROM {qualified} cannot be applied to its columns: "
            f"{_first_line(error)}; name columns of {qualified}"
        ) from None
    if analysed != "boolean":
        raise ProcedureArgumentError(
            f"the where condition {where!r} of DELETE FROM {qualified} is a {analysed}, not a condition: "
            "write a comparison, e.g. where => \"k = 1\""
        )
    model = handle.model
    if model.keys_model is KeysModel.AGGREGATE:
        keys_only = frame.select(*[F.col(quote_identifier(k)) for k in model.key_columns])
        try:
            keys_only.select(F.expr(where))
        except AnalysisException:
            raise ProcedureArgumentError(
                "delete predicate on value column only supports Unique table with merge-on-write enabled and "
                f"Duplicate table, but Table[{handle.name.name}] is an Aggregate table. Name only its key columns "
                f"({', '.join(model.key_columns)}) in the where condition"
            ) from None
    return where


def _partition_scope(handle: DorisTable, names: tuple[str, ...] | None) -> Predicate:
    """The rows of the named formal partitions (every row when none are named)."""
    if not names:
        return TRUE
    partitions = handle.model.partitions
    if partitions is None:
        raise PartitionError(
            f"{handle.name.qualified} is not partitioned: DELETE FROM ... PARTITION needs a partitioned table; "
            "leave partitions out"
        )
    chosen = []
    for name in names:
        partition = partitions.get(name)
        if partition is None:
            raise PartitionError(
                f"Partition[{name}] does not exist in {handle.name.qualified}: name one of its partitions "
                "(doris.show_partitions lists them)"
            )
        chosen.append(partition_predicate(partitions, partition))
    return union(chosen)


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
