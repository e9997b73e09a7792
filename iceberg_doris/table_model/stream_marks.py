"""A stream's mark on a table: the last micro-batch it committed there, as a table property.

A Doris label lives in its snapshot's summary, so it goes when ``doris.cleanup`` expires that
snapshot. A stream (``doris.stream_to``) needs a guard that never goes: each micro-batch's commit
also sets the table property ``doris.stream.<stream>`` to the batch's id (and the streaming query's
id), in the same Iceberg commit as its rows. A replayed batch (a restart from a checkpoint written
before the batch was committed) has an id no larger than the mark and is skipped. Each stream has
its own key, so several streams can write one table.

The value is JSON, ``{"batch":7,"query":"<Spark's query id>"}``; ``query`` is absent when the batch
did not come from a streaming query (a sink called by hand).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from iceberg_doris.errors import TableStateError
from iceberg_doris.table_model.table_properties import STREAM_PREFIX


@dataclass(frozen=True)
class StreamMark:
    """The last batch a stream committed to a table."""

    batch_id: int
    query_id: str | None = None

    def text(self) -> str:
        """The property's value."""
        value: dict[str, object] = {"batch": self.batch_id}
        if self.query_id is not None:
            value["query"] = self.query_id
        return json.dumps(value, separators=(",", ":"))


def mark_key(stream: str) -> str:
    """The table property holding ``stream``'s mark (stream names follow the label rule, so the
    key is plain text)."""
    return STREAM_PREFIX + stream


def read_mark(stream: str, text: str | None) -> StreamMark | None:
    """``stream``'s mark from its property's value (None: the stream never committed here)."""
    if text is None:
        return None
    try:
        value = json.loads(text)
        batch = value["batch"]
        query = value.get("query")
        if isinstance(batch, bool) or not isinstance(batch, int) or not (query is None or isinstance(query, str)):
            raise ValueError("wrong types")
    except (ValueError, TypeError, KeyError, AttributeError):
        raise TableStateError(
            f"The table property {mark_key(stream)} cannot be read (it was changed by hand?): it must be "
            '{"batch": <last committed batch id>, "query": "<query id>"}. Set it back, or remove it to let the '
            "stream start over (its next batches are then loaded whatever their ids)"
        ) from None
    return StreamMark(batch, query)
