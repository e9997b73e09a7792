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
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, java_items
from iceberg_doris.errors import CommitConflictError

log = logging.getLogger(__name__)

SEGMENTS_FILE = "segments.parquet"


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
        if str(data_file.format().name()) != "PARQUET":
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
    write_file(iceberg, table, f"{location}/{SEGMENTS_FILE}", _segments_parquet(list(segments.values())))
    return OrderedRewrite(added, mapping)


def is_segment_map(iceberg: IcebergJava, table: JavaObject, location: str) -> bool:
    """Whether the mapping folder ``location`` holds an order-keeping rewrite's segments."""
    return bool(iceberg.helpers.FileBytes.exists(table, f"{location}/{SEGMENTS_FILE}"))


def read_segment_map(iceberg: IcebergJava, table: JavaObject, location: str) -> SegmentMap | None:
    """The stored segments of the mapping folder ``location``; None when they cannot be read."""
    import pyarrow.parquet as pq

    try:
        data = read_file_range(iceberg, table, f"{location}/{SEGMENTS_FILE}")
        frame = pq.read_table(io.BytesIO(data))
    except Exception as error:  # noqa: BLE001 - a missing or damaged mapping means "look the keys up again"
        log.info("compaction mapping %s cannot be read: %s", location, error)
        return None
    segments = {}
    for row in frame.to_pylist():
        segments[row["old_file"]] = Segment(
            row["old_file"], row["new_file"], int(row["offset"]), int(row["rows"]), BitMap64.deserialize(row["deleted"])
        )
    live = sum(s.rows - len(s.deleted) for s in segments.values())
    return SegmentMap(location, live, segments)


def _segments_parquet(segments: list[Segment]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({
        "old_file": pa.array([s.old_file for s in segments], pa.string()),
        "new_file": pa.array([s.new_file for s in segments], pa.string()),
        "offset": pa.array([s.offset for s in segments], pa.int64()),
        "rows": pa.array([s.rows for s in segments], pa.int64()),
        "deleted": pa.array([s.deleted.serialize() for s in segments], pa.binary()),
    })
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()
