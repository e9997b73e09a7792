"""Structured Streaming into Doris tables: ``doris.stream_to(table, ...)``, a ``foreachBatch``
function that loads each micro-batch exactly once (see :mod:`.sink`), and the same load as the
``writeStream.format("doris")`` sink, whose counts show in the query's progress (:mod:`.format_sink`)."""

from iceberg_doris.streaming.sink import DorisStreamSink, stream_to

__all__ = ["DorisStreamSink", "stream_to"]
