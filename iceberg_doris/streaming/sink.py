"""``doris.stream_to``: a Structured Streaming sink into a Doris table, exactly once across restarts.

A :class:`DorisStreamSink` is the function ``foreachBatch`` calls with each micro-batch and its id::

    query = (events.writeStream
             .foreachBatch(doris.stream_to("crm.users", merge_type="MERGE", delete_on="op = 'D'"))
             .option("checkpointLocation", "/checkpoints/users")
             .start())

Each batch is one ``doris.load`` of the batch's rows with the sink's options (bound and checked as
``doris.load``'s, when ``stream_to`` is called), committed with the batch's identity: the stream
(Spark's query id, stable across restarts from one checkpoint, or the ``name`` given) and the batch
id. A batch the table already has (Spark runs the last batch again after a restart when the
process died between the commit and the checkpoint) is skipped; see
:mod:`iceberg_doris.operations.stream_batch`.

Spark has no way for a ``foreachBatch`` function to add numbers to the query's progress (the sink's
``metrics`` stay empty: ``ForeachBatchSink`` does not implement ``ReportsSinkMetrics``), so each
batch logs one line on the ``iceberg_doris.progress`` logger (rows loaded, filtered, deleted),
keeps its result in :attr:`DorisStreamSink.last_batch`, and its snapshot's summary carries the
counts. ``writeStream.format("doris")`` (:mod:`.format_sink`) runs the same per-batch code as the
query's own sink, and reports the counts in the query's progress.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris.errors import LoadError, ProcedureArgumentError
from iceberg_doris.operations.progress import LOGGER_NAME
from iceberg_doris.operations.requests import LoadRequest, StreamBatch, StreamBatchResult
from iceberg_doris.operations.stream_batch import check_stream_name, load_stream_batch
from iceberg_doris.procedures.binding import bind
from iceberg_doris.procedures.load import LoadProcedure, load_request
from iceberg_doris.procedures.parameter_types import python_argument
from iceberg_doris.spark_session.procedure_calls import procedure_call

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

log = logging.getLogger(LOGGER_NAME)

# Local properties Spark sets on the thread that runs a streaming query's batches.
QUERY_ID_PROPERTY = "sql.streaming.queryId"  # the query's id: kept in its checkpoint, the same after a restart
RUN_ID_PROPERTY = "spark.jobGroup.id"  # the query's run id (a new one per start): Spark's job group for the run

# Which sink of a running query writes a (table, stream): two unnamed sinks writing one table in
# one query would share the query's id and skip each other's batches as replays.
_claims: dict[tuple[str, str, str], "weakref.ReferenceType[DorisStreamSink]"] = {}
_claims_lock = threading.Lock()


class DorisStreamSink:
    """The ``foreachBatch`` function of ``doris.stream_to``: loads each micro-batch into ``table``
    once. Build it with :func:`stream_to`."""

    def __init__(self, table: str, request: LoadRequest, name: str | None):
        self.table = table
        self.request = request
        self.name = name
        self.last_batch: StreamBatchResult | None = None  # the last batch's result (loaded or skipped)

    def __call__(self, batch: "DataFrame", batch_id: int) -> None:
        self.run(batch, batch_id)

    def run(self, batch: "DataFrame", batch_id: int, *, claim: bool = True) -> StreamBatchResult:
        """Loads micro-batch ``batch_id`` once (or skips it as a replay) and returns what it did.

        ``foreachBatch`` calls it through ``__call__``; the ``format("doris")`` sink calls it with
        ``claim=False``: Spark gives a query one sink, so there is no second one to refuse.
        """
        spark = batch.sparkSession
        context = spark.sparkContext
        query_id = context.getLocalProperty(QUERY_ID_PROPERTY)
        stream = self.name or query_id
        if stream is None:
            raise ProcedureArgumentError(
                f"stream_to({self.table!r}) was called outside a streaming query, so it has no query id to name its "
                "stream: pass it to writeStream.foreachBatch(...), or give it a name (stream_to(..., name='...'))"
            )
        if claim:
            self._claim(context.getLocalProperty(RUN_ID_PROPERTY), stream)
        started = time.monotonic()
        request = dataclasses.replace(
            self.request, source=batch, stream_batch=StreamBatch(stream, int(batch_id), query_id)
        )
        with procedure_call(spark, "doris.stream_to"):
            result = load_stream_batch(spark, self.table, request)
        self.last_batch = result
        _log_batch(self.table, result, time.monotonic() - started)
        return result

    def _claim(self, run_id: str | None, stream: str) -> None:
        """Refuses a second sink of the same running query writing the same table as the same stream."""
        if run_id is None:
            return
        key = (run_id, self.table.lower(), stream)
        with _claims_lock:
            holder = _claims.get(key)
            owner = holder() if holder is not None else None
            if owner is None:
                _claims[key] = weakref.ref(self)
                return
        if owner is not self:
            raise LoadError(
                f"Two stream_to sinks of one streaming query write {self.table} as the same stream, so each would "
                "skip the other's batches as replays: give each a name (stream_to(..., name='...'))"
            )


def stream_to(
    table: str,
    *,
    name: str | None = None,
    merge_type: str = "APPEND",
    delete_on: str | None = None,
    sequence_col: str | None = None,
    columns: str | None = None,
    where: str | None = None,
    partitions: Sequence[str] | str | None = None,
    temporary_partitions: Sequence[str] | str | None = None,
    partial_columns: bool = False,
    overwrite: bool = False,
    max_filter_ratio: float = 0.0,
    strict_mode: bool = False,
) -> DorisStreamSink:
    """A ``foreachBatch`` function that loads each micro-batch into ``table`` (``db.tbl``) exactly
    once, with ``doris.load``'s options.

    Each batch is one ``doris.load`` (one commit, any table model): the options mean what they
    mean there (``merge_type``/``delete_on``, ``sequence_col``, ``columns``, ``where``,
    ``partitions``, ``temporary_partitions``, ``partial_columns``, ``overwrite`` of the partitions
    the batch's rows land in, ``max_filter_ratio``, ``strict_mode``), and are checked now, as
    ``doris.load`` checks them. Filtered rows go to the load's error rows; a batch over
    ``max_filter_ratio`` fails the query with the load's message (nothing of it is committed).

    The commit records the batch: label ``stream:<stream>:<batch id>``, summary keys
    ``doris.stream`` / ``doris.stream-batch``, and the table property ``doris.stream.<stream>``
    (the last batch the stream committed), so a batch replayed after a restart is skipped, even
    after ``doris.cleanup`` expired its snapshot. The stream is Spark's query id (the same across
    restarts from one checkpoint), or ``name``: give one when a query writes one table through two
    sinks. A name belongs to one checkpoint: a query started on a new checkpoint needs a new name.

    Example:
        >>> query = (df.writeStream.foreachBatch(doris.stream_to("crm.users", merge_type="MERGE",
        ...                                                      delete_on="op = 'D'"))
        ...          .option("checkpointLocation", "/checkpoints/users").start())  # doctest: +SKIP
    """
    if name is not None:
        check_stream_name(name)
    options: dict[str, Any] = {
        "table": table, "merge_type": merge_type, "delete_on": delete_on, "sequence_col": sequence_col,
        "columns": columns, "where": where, "partitions": partitions, "temporary_partitions": temporary_partitions,
        "partial_columns": partial_columns, "overwrite": overwrite, "max_filter_ratio": max_filter_ratio,
        "strict_mode": strict_mode,
    }
    bound = bind(LoadProcedure, {key: python_argument(value) for key, value in options.items()})
    return DorisStreamSink(bound["table"], load_request(bound), name)


def _log_batch(table: str, result: StreamBatchResult, elapsed: float) -> None:
    if not log.isEnabledFor(logging.INFO):
        return
    batch = result.batch
    fields: dict[str, object] = {
        "doris_operation": "stream_to", "doris_table": table, "doris_phase": "batch",
        "doris_stream": batch.stream, "doris_batch_id": batch.batch_id, "doris_elapsed_s": elapsed,
    }
    if result.load is None:
        log.info("stream_to %s: batch %d of stream %s skipped: committed before", table, batch.batch_id, batch.stream,
                 extra=fields | {"doris_rows": {}})
        return
    load = result.load
    rows = {"loaded_rows": load.loaded_rows, "filtered_rows": load.filtered_rows,
            "unselected_rows": load.unselected_rows, "deleted_rows": load.deleted_rows}
    counted = ", ".join(f"{key}={value}" for key, value in rows.items())
    log.info("stream_to %s: batch %d of stream %s loaded in %.2f s (%s, snapshot %s)", table, batch.batch_id,
             batch.stream, elapsed, counted, load.snapshot_id, extra=fields | {"doris_rows": rows})
