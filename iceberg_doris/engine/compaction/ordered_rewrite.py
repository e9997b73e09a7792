"""A compaction rewrite that keeps row order, and its mapping: per old file, one segment.

Doris's compaction merges rowsets in order and keeps, per old row, where it went. Here each new
data file is the live rows of one or more old Parquet files of one partition, copied in order on
the executors (``OrderedRewrite.java``), so a row's new place needs no join with the data:

    new position = segment offset + old position - (rows deleted before it when the rewrite read the file)

The mapping is one row per old file (:class:`Segment`: old file, new file, offset, rows, the
positions deleted at the compaction's start), a few bytes per deleted row in a roaring bitmap
instead of four columns per live row. It is one Parquet file, ``segments.parquet``, in the
compaction's mapping folder (see :mod:`.rowid_map` for the folder's lifetime), written and read
through the table's ``FileIO``.

The file is bound to the data files it describes and checked before use (object stores keep no
``.crc`` beside it): each row also holds its new file's size and record count, the footer a SHA-256
of every row (``doris.rowid-map.sha256``). A reader given the compaction's added and removed data
files (:func:`read_segment_map`) refuses a map whose checksum differs, that names a new file the
compaction did not add (or of another size or row count), an old file of another row count, or
whose segments do not tile each new file's rows exactly; a refused map converts nothing, and the
load looks its keys up again, with a warning. Maps written before the binding have no checksum:
they are refused the same way.

The order-keeping rewrite applies to Parquet data files whose deletes are all position deletes or
deletion vectors (equality deletes are applied by a scan); everything else takes the pairing
rewrite of :mod:`.rowid_map`.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pyroaring import BitMap64

from iceberg_doris.engine.compaction.carry_over import POSITION_DELETES, positions
from iceberg_doris.engine.compaction.rowid_map import RowidMap, mapping_incomplete
from iceberg_doris.engine.file_bytes import read_file_range, write_file
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, file_format, java_items
from iceberg_doris.errors import CommitConflictError

log = logging.getLogger(__name__)

SEGMENTS_FILE = "segments.parquet"
CHECKSUM_KEY = b"doris.rowid-map.sha256"


@dataclass(frozen=True)
class Segment:
    """Where one old file's live rows went: rows ``offset`` .. of ``new_file``, in order."""

    old_file: str
    new_file: str | None  # None: no row of it was live
    offset: int
    rows: int  # the old file's rows, deleted ones included
    deleted: BitMap64  # its positions deleted when the compaction read it

    def moved(self, old_positions: BitMap64) -> BitMap64 | None:
        """The new positions of ``old_positions``; None if one was not a live row the rewrite copied."""
        if not old_positions:
            return BitMap64()
        if self.new_file is None or old_positions.max() >= self.rows or not old_positions.isdisjoint(self.deleted):
            return None
        deleted, offset = self.deleted, self.offset
        if not deleted:
            return BitMap64(p + offset for p in old_positions)
        # rank(p) counts deleted positions <= p; p itself is live, so that is those before it.
        return BitMap64(p + offset - deleted.rank(p) for p in old_positions)


@dataclass
class SegmentMap:
    """The mapping of an order-keeping rewrite, stored in ``location`` (the mapping folder)."""

    location: str
    rows: int  # live rows mapped: every row of the new files
    _segments: dict[str, Segment] | None = field(default=None, repr=False)

    def convert(self, spark: object, deleted: Mapping[str, BitMap64]) -> dict[str, BitMap64]:
        """As :meth:`RowidMap.convert <.rowid_map.RowidMap.convert>`: :class:`CommitConflictError`
        when a position is not one the rewrite copied."""
        converted = self.find(spark, deleted)
        if converted is None:
            raise mapping_incomplete(self.location)
        return converted

    def find(self, spark: object, old_positions: Mapping[str, BitMap64]) -> dict[str, BitMap64] | None:
        """The new (file -> positions) of the old (file -> positions); None when a position is not
        a row the rewrite copied (or the mapping cannot be read)."""
        segments = self._segments
        if segments is None:
            return None
        converted: dict[str, BitMap64] = {}
        for location, chosen in old_positions.items():
            segment = segments.get(location)
            moved = segment.moved(chosen) if segment is not None else None
            if moved is None:
                return None
            if moved:
                assert segment is not None and segment.new_file is not None
                converted.setdefault(segment.new_file, BitMap64()).update(moved)
        return converted

    def discard(self, spark: object) -> None:
        """Removes the mapping's folder (best effort, as :meth:`RowidMap.discard`)."""
        RowidMap(self.location, self.rows).discard(spark)  # type: ignore[arg-type]


@dataclass(frozen=True)
class OrderedRewrite:
    """The new files of an order-keeping rewrite and their mapping (already stored)."""

    added: list[JavaObject]
    mapping: SegmentMap


def applies(data_files: Sequence[JavaObject], deletes: Mapping[str, list[JavaObject]]) -> bool:
    """Whether the order-keeping rewrite can copy these files: Parquet data files whose deletes
    are position deletes or deletion vectors only."""
    for data_file in data_files:
        if file_format(data_file) != "PARQUET":
            return False
        location = str(data_file.location())
        if any(int(d.content().id()) != POSITION_DELETES for d in deletes.get(location, [])):
            return False
    return True


def rewrite_in_order(
    iceberg: IcebergJava,
    table: JavaObject,
    data_files: Sequence[JavaObject],
    deletes: Mapping[str, list[JavaObject]],
    location: str,
) -> OrderedRewrite:
    """Copies the live rows of ``data_files`` (each with its delete files at the compaction's
    start, ``deletes``) into new, uncommitted data files, and stores their mapping in the folder
    ``location``. Fully deleted files need not be passed: they have no row to copy."""
    plan = iceberg.helpers.OrderedRewrite.Plan()
    java_list = iceberg.jvm.java.util.ArrayList
    for data_file in data_files:
        found = java_list()
        for delete_file in deletes.get(str(data_file.location()), []):
            found.add(delete_file)
        plan.add(data_file, found)
    written = java_items(iceberg.helpers.OrderedRewrite.run(iceberg.spark._jsparkSession, table, plan))
    by_location = {str(f.location()): f for f in data_files}
    segments: dict[str, Segment] = {}
    added: list[JavaObject] = []
    for group in written:
        new_file = group.file()
        new_location = str(new_file.location()) if new_file is not None else None
        offset = 0
        for index in range(int(group.sourceCount())):
            old = str(group.source(index))
            live = int(group.liveRows(index))
            rows = int(by_location[old].recordCount())
            deleted = positions(iceberg, table, deletes.get(old, []), old)
            if rows - len(deleted) != live:
                # The executor and the driver read the deletes differently: the mapping would be wrong.
                raise CommitConflictError(
                    f"Cannot compact: {old} has {rows} rows and {len(deleted)} deleted, but the rewrite copied {live}; "
                    "nothing was committed. Run it again."
                )
            segments[old] = Segment(old, new_location if live else None, offset, rows, deleted)
            offset += live
        if new_file is not None:
            added.append(new_file)
    mapping = SegmentMap(location, sum(int(f.recordCount()) for f in added), segments)
    facts = {str(f.location()): (int(f.fileSizeInBytes()), int(f.recordCount())) for f in added}
    write_file(iceberg, table, f"{location}/{SEGMENTS_FILE}", _segments_parquet(list(segments.values()), facts))
    return OrderedRewrite(added, mapping)


def is_segment_map(iceberg: IcebergJava, table: JavaObject, location: str) -> bool:
    """Whether the mapping folder ``location`` holds an order-keeping rewrite's segments."""
    return bool(iceberg.helpers.FileBytes.exists(table, f"{location}/{SEGMENTS_FILE}"))


def read_segment_map(
    iceberg: IcebergJava, table: JavaObject, location: str,
    added: Mapping[str, tuple[int, int]], removed: Mapping[str, int],
) -> SegmentMap | None:
    """The stored segments of the mapping folder ``location``, checked against the compaction's
    ``added`` data files (location -> (size in bytes, record count)) and ``removed`` ones (location
    -> record count); None, with a warning for a damaged map, when they cannot be read or used."""
    import pyarrow.parquet as pq

    try:
        data = read_file_range(iceberg, table, f"{location}/{SEGMENTS_FILE}")
        frame = pq.read_table(io.BytesIO(data))
    except Exception as error:  # noqa: BLE001 - a missing or damaged mapping means "look the keys up again"
        log.info("compaction mapping %s cannot be read: %s", location, error)
        return None
    problem = _refusal(frame, added, removed)
    if problem is not None:
        log.warning("compaction mapping %s is not used (%s): the load looks its keys up again", location, problem)
        return None
    segments = {}
    for row in frame.to_pylist():
        segments[row["old_file"]] = Segment(
            row["old_file"], row["new_file"], int(row["offset"]), int(row["rows"]), BitMap64.deserialize(row["deleted"])
        )
    live = sum(s.rows - len(s.deleted) for s in segments.values())
    return SegmentMap(location, live, segments)


def _refusal(frame: object, added: Mapping[str, tuple[int, int]], removed: Mapping[str, int]) -> str | None:
    """Why a stored segment map does not describe the compaction's files, or None."""
    metadata = frame.schema.metadata or {}  # type: ignore[attr-defined]
    rows = frame.to_pylist()  # type: ignore[attr-defined]
    if CHECKSUM_KEY not in metadata or "new_file_size" not in frame.column_names:  # type: ignore[attr-defined]
        return "no checksum: written before maps were bound to their files"
    if metadata[CHECKSUM_KEY].decode() != _checksum(rows):
        return "checksum mismatch"
    tiles: dict[str, list[tuple[int, int]]] = {}
    for row in rows:
        if removed.get(row["old_file"]) != row["rows"]:
            return f"{row['old_file']} is not a file of {row['rows']} rows the compaction replaced"
        new_file = row["new_file"]
        if new_file is None:
            continue
        if added.get(new_file) != (row["new_file_size"], row["new_file_rows"]):
            return f"{new_file} is not a file the compaction added with that size and row count"
        live = row["rows"] - len(BitMap64.deserialize(row["deleted"]))
        tiles.setdefault(new_file, []).append((int(row["offset"]), live))
    for new_file, parts in tiles.items():
        at = 0
        for offset, live in sorted(parts):
            if offset != at:
                return f"the segments of {new_file} do not cover its rows in order"
            at += live
        if at != added[new_file][1]:
            return f"the segments of {new_file} hold {at} rows, the file {added[new_file][1]}"
    return None


def _checksum(rows: list[dict]) -> str:
    """SHA-256 of a map's rows, in old-file order, every column."""
    import hashlib

    digest = hashlib.sha256()
    for row in sorted(rows, key=lambda r: r["old_file"]):
        fields = (row["old_file"], row["new_file"], row["offset"], row["rows"], bytes(row["deleted"]).hex(),
                  row["new_file_size"], row["new_file_rows"])
        digest.update(("\t".join("" if f is None else str(f) for f in fields) + "\n").encode())
    return digest.hexdigest()


def _segments_parquet(segments: list[Segment], new_files: Mapping[str, tuple[int, int]]) -> bytes:
    """The map's Parquet bytes; ``new_files``: each new file's (size in bytes, record count)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    facts = [new_files.get(s.new_file) if s.new_file is not None else None for s in segments]
    table = pa.table({
        "old_file": pa.array([s.old_file for s in segments], pa.string()),
        "new_file": pa.array([s.new_file for s in segments], pa.string()),
        "offset": pa.array([s.offset for s in segments], pa.int64()),
        "rows": pa.array([s.rows for s in segments], pa.int64()),
        "deleted": pa.array([s.deleted.serialize() for s in segments], pa.binary()),
        "new_file_size": pa.array([f[0] if f else None for f in facts], pa.int64()),
        "new_file_rows": pa.array([f[1] if f else None for f in facts], pa.int64()),
    })
    table = table.replace_schema_metadata({CHECKSUM_KEY: _checksum(table.to_pylist()).encode()})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()
