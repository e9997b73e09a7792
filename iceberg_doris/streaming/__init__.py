"""Structured Streaming into Doris tables: ``doris.stream_to(table, ...)``, a ``foreachBatch``
function that loads each micro-batch exactly once (see :mod:`.sink`)."""

from iceberg_doris.streaming.sink import DorisStreamSink, stream_to

__all__ = ["DorisStreamSink", "stream_to"]
