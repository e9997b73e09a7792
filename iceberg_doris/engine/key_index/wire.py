"""The typed boundary between Python and the key index in Spark's JVM
(``io.icebergdoris.keyindex.KeyIndex``, its only entry point).

Plain data crosses as JSON, one py4j transfer per request or answer, read into the dataclasses
here: a request is one :class:`IndexRequest` (not positional arguments), lists are JSON arrays
(not newline-joined text), a missing value is ``null`` (not ``""``), and each file's positions
are named by its location (base64 portable 64-bit Roaring bitmaps, what ``BitMap64.deserialize``
reads; py4j sends byte arrays as base64 too). The Java side parses requests strictly
(``IndexRequest.fromJson``) and writes answers with the field names read here.

The index's own objects (a batch's keys, a lookup, a sequence decision, rows read by position)
cross as py4j handles that :mod:`iceberg_doris.engine.key_index` passes back to ``KeyIndex``.
"""

from __future__ import annotations

import base64
import json
from dataclasses import asdict, dataclass
from decimal import Decimal
from typing import Any

from pyroaring import BitMap64


@dataclass(frozen=True)
class IndexRequest:
    """What a caller asks of the index (``IndexRequest.java``): the table's key columns in key
    order, its sequence column (None: none), the executors' cache budget in rows (None: each
    executor's own, a fifth of its heap), whether entries
    are stored as files, and whether a probe keeps each live hit's batch key (for reading the hits
    by position without their key columns)."""

    key_columns: tuple[str, ...]
    sequence_column: str | None = None
    max_rows: int | None = 0
    persist: bool = True
    keys_per_hit: bool = False

    def __post_init__(self) -> None:
        if not self.key_columns:
            raise ValueError("a key index request needs key columns")
        if self.sequence_column == "":
            raise ValueError("a key index request's sequence column is None or a name, not empty")
        if self.max_rows is not None and self.max_rows < 0:
            raise ValueError(f"a key index request's max_rows is negative: {self.max_rows}")

    def to_json(self) -> str:
        fields = asdict(self)
        fields["key_columns"] = list(self.key_columns)
        return json.dumps(fields)


def columns_json(columns: list[str] | tuple[str, ...]) -> str:
    """Column names as ``KeyIndex.readLiveRows`` takes them: a JSON array."""
    return json.dumps(list(columns))


def _key_values(values: list[Any]) -> list[Any]:
    """Key values as the JVM sends them, decimals as ``{"decimal": "1.50"}``."""
    return [Decimal(v["decimal"]) if isinstance(v, dict) else v for v in values]


@dataclass(frozen=True)
class BatchSummary:
    """A batch's collected keys, described (``KeyIndex.describeBatch``): their count, whether a key
    occurs twice, the first key column's [smallest, largest] ([] for no keys) and, for batches of
    at most the asked number of keys, its values in key order (None otherwise). Dates and
    timestamps come as ISO text."""

    count: int
    has_duplicates: bool
    first_column_range: list[Any]
    first_column_values: list[Any] | None

    @staticmethod
    def from_json(text: str) -> "BatchSummary":
        d = json.loads(text)
        values = d["first_column_values"]
        return BatchSummary(
            int(d["count"]), bool(d["has_duplicates"]), _key_values(d["first_column_range"]),
            None if values is None else _key_values(values),
        )


def _bitmap(text: str) -> BitMap64:
    return BitMap64.deserialize(base64.b64decode(text))


@dataclass(frozen=True)
class FilePositions:
    """One data file's live positions of the batch's keys: of keys the batch upserts, of keys it deletes."""

    location: str
    upserts: BitMap64
    deletes: BitMap64

    @staticmethod
    def from_dict(d: dict[str, Any]) -> "FilePositions":
        return FilePositions(str(d["location"]), _bitmap(d["upserts"]), _bitmap(d["deletes"]))


@dataclass(frozen=True)
class LookupAnswer:
    """What one lookup found (``Lookup.answer``)."""

    probed_files: int
    built_files: int  # entries built from their data file for this probe
    read_files: int  # entries read from their stored files (the rest came from executor caches)
    unindexable: tuple[str, ...]  # files the index cannot cover (a NULL key)
    problems: tuple[str, ...]  # stored entries rejected or not written, one text each
    one_live_row_per_key: bool  # no batch key has two live rows among the probed files
    hits: tuple[FilePositions, ...]  # per probed file holding some key of the batch, in probe order

    @staticmethod
    def from_json(text: str) -> "LookupAnswer":
        d = json.loads(text)
        return LookupAnswer(
            int(d["probed_files"]), int(d["built_files"]), int(d["read_files"]), tuple(d["unindexable"]), tuple(d["problems"]),
            bool(d["one_live_row_per_key"]), tuple(FilePositions.from_dict(f) for f in d["hits"]),
        )


@dataclass(frozen=True)
class SequenceAnswer:
    """Which stored rows a sequence table's winning versions replace (``SequenceDecision.answer``)."""

    replaced: tuple[FilePositions, ...]  # per file: positions of upserted, of deleted keys
    deleted_rows: int  # live rows winning deletes remove
    any_delete_wins: bool  # a tombstone is written

    @staticmethod
    def from_json(text: str) -> "SequenceAnswer":
        d = json.loads(text)
        return SequenceAnswer(tuple(FilePositions.from_dict(f) for f in d["replaced"]), int(d["deleted_rows"]), bool(d["any_delete_wins"]))


@dataclass(frozen=True)
class IndexingAnswer:
    """The entries of a load's new files, built (``KeyIndex.awaitIndexing``): those not stored, one text each."""

    problems: tuple[str, ...]

    @staticmethod
    def from_json(text: str) -> "IndexingAnswer":
        return IndexingAnswer(tuple(json.loads(text)["problems"]))


VERDICTS = frozenset({"distinct", "repeats", "unknown"})


@dataclass(frozen=True)
class RepeatsAnswer:
    """Whether a key occurs more than once among a load's new files (``KeyIndex.newFilesRepeatKeys``)."""

    verdict: str  # "distinct", "repeats" or "unknown"
    problems: tuple[str, ...]  # entries not stored, one text each

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"an unknown verdict on the new files' keys: {self.verdict!r}")

    @staticmethod
    def from_json(text: str) -> "RepeatsAnswer":
        d = json.loads(text)
        return RepeatsAnswer(str(d["verdict"]), tuple(d["problems"]))
