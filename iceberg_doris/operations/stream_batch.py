"""``stream_batch``: one micro-batch of a stream loaded into a table once (``doris.stream_to``).

A Doris stream (a Structured Streaming query writing through ``foreachBatch``) is a sequence of
loads. Each micro-batch is a :func:`~iceberg_doris.operations.load` of the batch's rows whose one
commit also records which batch it is: the label ``stream:<stream>:<batch id>``, the snapshot
summary's ``doris.stream`` and ``doris.stream-batch``, and the stream's mark on the table (the
table property ``doris.stream.<stream>``, see :mod:`iceberg_doris.table_model.stream_marks`). A batch
the mark already covers is a replay (Spark runs the last batch again when the query restarts from a
checkpoint written before that batch finished) and is skipped: checked before its rows are read and
again inside the commit. The mark is a table property, so it survives ``doris.cleanup`` expiring
the batch's snapshot (and its label).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from iceberg_doris.engine.faults import crash_point
from iceberg_doris.errors import BatchAlreadyCommittedError, ProcedureArgumentError
from iceberg_doris.names.rules import LABEL_MAX_LENGTH, check_label, shown
from iceberg_doris.operations.load import load
from iceberg_doris.operations.requests import LoadRequest, StreamBatch, StreamBatchResult

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

LABEL_PREFIX = "stream:"
# Room in a label (128 characters) for the prefix, a separator and the largest batch id.
STREAM_NAME_MAX_LENGTH = LABEL_MAX_LENGTH - len(LABEL_PREFIX) - 1 - len(str(2**63 - 1))


def load_stream_batch(spark: "SparkSession", table: str, request: LoadRequest) -> StreamBatchResult:
    """Loads ``request`` (whose ``stream_batch`` says which batch of which stream it is) into
    ``table`` as one commit that records the batch, or skips it if the table has it already.

    Example:
        >>> load_stream_batch(spark, "crm.users", LoadRequest(source=batch_df, stream_batch=StreamBatch("users", 7)))  # doctest: +SKIP
    """
    batch = request.stream_batch
    if batch is None:
        raise ValueError("load_stream_batch needs a request with stream_batch")
    check_stream_name(batch.stream)
    if batch.batch_id < 0:
        raise ProcedureArgumentError(f"A stream's batch id is 0 or more, got {batch.batch_id}")
    try:
        result = load(spark, table, dataclasses.replace(request, label=batch_label(batch)))
    except BatchAlreadyCommittedError:
        return StreamBatchResult(batch, None)
    # The fault suite's "died after the commit, before Spark's checkpoint" (inert outside tests).
    crash_point("stream", f"batch-committed.{table}.{batch.batch_id}")
    return StreamBatchResult(batch, result)


def batch_label(batch: StreamBatch) -> str:
    """The label of a stream's batch: ``stream:<stream>:<batch id>``."""
    return f"{LABEL_PREFIX}{batch.stream}:{batch.batch_id}"


def check_stream_name(name: str) -> str:
    """A stream name is a label (letters, digits, ``-``, ``_``, ``:``) short enough to leave room for
    the batch id in its batches' labels; Spark's query ids (UUIDs) qualify."""
    if isinstance(name, str) and len(name) > STREAM_NAME_MAX_LENGTH:
        raise ProcedureArgumentError(
            f"A stream name has at most {STREAM_NAME_MAX_LENGTH} characters (it is part of each batch's label), "
            f"got {len(name)}"
        )
    try:
        return check_label(name)
    except ProcedureArgumentError:
        raise ProcedureArgumentError(
            f"Invalid stream name {shown(name)}: use 1 to {STREAM_NAME_MAX_LENGTH} letters, digits, '-', '_' or ':', "
            "e.g. 'orders_cdc'"
        ) from None
