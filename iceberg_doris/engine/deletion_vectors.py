"""Deletion vectors (Iceberg format v3): ``deletion-vector-v1`` blobs in Puffin files.

A deletion vector (DV) marks deleted row positions of ONE data file. Its blob is, per the Puffin
spec (``deletion-vector-v1``):

* the combined length of the magic bytes and the vector, 4 bytes big-endian;
* the magic bytes ``D1 D3 39 64``;
* the positions as a 64-bit Roaring bitmap in the "portable" format (little-endian): the number of
  32-bit bitmaps as 8 bytes, then per bitmap, keys ascending, the key (high 32 bits of the
  positions) as 4 bytes and a standard 32-bit Roaring bitmap of the low 32 bits;
* a CRC-32 of the magic bytes and the vector, 4 bytes big-endian.

pyroaring's ``BitMap64.serialize()`` is exactly that portable format, so a vector we encode is byte
for byte what Iceberg's Java writer produces for the same positions (the tests compare them), except
that Java also writes an empty bitmap for every unused key below the largest one (positions beyond
2^32 only); both layouts are valid and both readers accept both.

A Puffin file is ``PFA1``, the blobs, then the footer ``PFA1 <JSON> <JSON length, 4 bytes LE>
<4 flag bytes> PFA1``. The JSON lists each blob with ``snapshot-id``/``sequence-number`` -1 (they are
inherited from the commit) and the properties ``referenced-data-file`` and ``cardinality``. Table
metadata points at a DV by the Puffin file's location plus the blob's ``content_offset`` and
``content_size_in_bytes``; at most one DV may apply to a data file, so adding deletes to a file that
already has one writes the union as a new DV and removes the old one in the same commit.

The pure functions (``encode_deletion_vector``, ``decode_deletion_vector``, ``puffin_file_bytes``,
``read_puffin_footer``) need no JVM; the others read and write through the table's ``FileIO`` in
Spark's JVM, so they work on any storage Iceberg does.
"""

from __future__ import annotations

import json
import os
import struct
import tempfile
import uuid
import zlib
from abc import abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from py4j.java_collections import JavaList
from pyroaring import BitMap64

from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, java_items, split_locations
from iceberg_doris.errors import DorisError, TableStateError

DV_BLOB_TYPE = "deletion-vector-v1"
DV_MAGIC = bytes([0xD1, 0xD3, 0x39, 0x64])
PUFFIN_MAGIC = b"PFA1"
# The blob metadata "fields" of a DV: the row-position metadata column (_pos), as Iceberg writes it.
ROW_POSITION_FIELD_ID = 2147483645
# snapshot-id and sequence-number of every DV blob: "not known when the file is written" (inherited).
INHERITED = -1
REFERENCED_DATA_FILE = "referenced-data-file"
CARDINALITY = "cardinality"
CREATED_BY = "iceberg-doris"
# Iceberg's Java bitmap keeps keys 0 .. 2^31 - 2 and, in the last key, low halves up to 2^31; a
# larger position could be written but Java readers would refuse it.
MAX_POSITION = ((2**31 - 2) << 32) | 0x80000000

_LENGTH_BYTES = 4
_CRC_BYTES = 4
_MIN_BLOB_BYTES = _LENGTH_BYTES + len(DV_MAGIC) + 8 + _CRC_BYTES  # an empty vector
_FOOTER_TAIL_BYTES = 4 + 4 + len(PUFFIN_MAGIC)  # payload size, flags, magic


class DeletionVectorFormatError(DorisError, ValueError):
    """Bytes that are not a valid deletion vector or Puffin file; the message says what is wrong."""


class DeletionVectorBlob(NamedTuple):
    """One DV blob to put in a Puffin file (plain tuples of the same shape are accepted too)."""

    referenced_data_file: str
    snapshot_id: int  # snapshot-id and sequence-number in the footer; -1 (inherited) for DVs
    data: bytes  # the encoded blob, from encode_deletion_vector
    cardinality: int


# ---------------------------------------------------------------------------------------------
# Pure format code
# ---------------------------------------------------------------------------------------------


def to_bitmap(positions: BitMap64 | Iterable[int]) -> BitMap64:
    """A new BitMap64 of ``positions``, checked to be valid row positions."""
    bitmap = BitMap64(positions) if not isinstance(positions, BitMap64) else positions.copy()
    if len(bitmap) and bitmap.max() > MAX_POSITION:
        raise DeletionVectorFormatError(
            f"Row position {bitmap.max()} is beyond what a deletion vector can hold (at most {MAX_POSITION})"
        )
    return bitmap


def encode_deletion_vector(positions: BitMap64 | Iterable[int]) -> bytes:
    """The ``deletion-vector-v1`` blob for ``positions`` (row positions, 0-based, >= 0)."""
    bitmap = to_bitmap(positions)
    bitmap.run_optimize()  # Iceberg run-length encodes where smaller before serializing, too
    vector = DV_MAGIC + bitmap.serialize()
    if len(vector) > 2**31 - 1 - _LENGTH_BYTES - _CRC_BYTES:
        raise DeletionVectorFormatError(f"Deletion vector of {len(vector)} bytes is too large for a blob (2 GiB)")
    return struct.pack(">i", len(vector)) + vector + struct.pack(">I", zlib.crc32(vector))


def decode_deletion_vector(blob: bytes, *, expected_cardinality: int | None = None) -> BitMap64:
    """The positions of a ``deletion-vector-v1`` blob; checks length, magic, CRC and structure."""
    blob = bytes(blob)
    if len(blob) < _MIN_BLOB_BYTES:
        raise DeletionVectorFormatError(
            f"Deletion vector blob of {len(blob)} bytes is too short (at least {_MIN_BLOB_BYTES})"
        )
    (length,) = struct.unpack_from(">i", blob, 0)
    if length != len(blob) - _LENGTH_BYTES - _CRC_BYTES:
        raise DeletionVectorFormatError(
            f"Deletion vector length field is {length} but the blob holds "
            f"{len(blob) - _LENGTH_BYTES - _CRC_BYTES} bytes of magic and vector (blob of {len(blob)} bytes)"
        )
    vector = blob[_LENGTH_BYTES : _LENGTH_BYTES + length]
    if vector[:4] != DV_MAGIC:
        raise DeletionVectorFormatError(
            f"Deletion vector magic is {vector[:4].hex(' ')}, expected {DV_MAGIC.hex(' ')}: "
            "not a deletion-vector-v1 blob"
        )
    (stored_crc,) = struct.unpack_from(">I", blob, _LENGTH_BYTES + length)
    actual_crc = zlib.crc32(vector)
    if stored_crc != actual_crc:
        raise DeletionVectorFormatError(
            f"Deletion vector CRC-32 mismatch: stored {stored_crc:08x}, computed {actual_crc:08x} (corrupt blob)"
        )
    portable = vector[4:]
    expected = _check_portable_layout(portable)
    try:
        bitmap = BitMap64.deserialize(portable)
    except (ValueError, IndexError) as error:
        raise DeletionVectorFormatError(f"Deletion vector bitmap does not deserialize: {error}") from None
    if len(bitmap) != expected:
        raise DeletionVectorFormatError(
            f"Deletion vector bitmap holds {len(bitmap)} positions but its headers declare {expected}"
        )
    if expected_cardinality is not None and len(bitmap) != expected_cardinality:
        raise DeletionVectorFormatError(
            f"Deletion vector holds {len(bitmap)} positions but its metadata says {expected_cardinality}"
        )
    return bitmap


def _check_portable_layout(data: bytes) -> int:
    """Walks the portable 64-bit Roaring layout; returns its cardinality. The bytes must be used
    exactly, keys ascending and within Iceberg's range."""
    if len(data) < 8:
        raise DeletionVectorFormatError("Deletion vector bitmap is shorter than its 8-byte bitmap count")
    (count,) = struct.unpack_from("<q", data, 0)
    if count < 0 or count > 2**31 - 1:
        raise DeletionVectorFormatError(f"Deletion vector declares an invalid number of bitmaps: {count}")
    offset, last_key, cardinality = 8, -1, 0
    for _ in range(count):
        if offset + 4 > len(data):
            raise DeletionVectorFormatError("Deletion vector bitmap is truncated (missing a bitmap key)")
        (key,) = struct.unpack_from("<I", data, offset)
        if key > 2**31 - 2:
            raise DeletionVectorFormatError(f"Deletion vector bitmap key {key} is too large (positions must be >= 0)")
        if key <= last_key:
            raise DeletionVectorFormatError("Deletion vector bitmap keys are not in ascending order")
        last_key = key
        offset, found = _roaring32_size(data, offset + 4)
        cardinality += found
    if offset != len(data):
        raise DeletionVectorFormatError(
            f"Deletion vector has {len(data) - offset} stray bytes after its {count} bitmaps"
        )
    return cardinality


def _roaring32_size(data: bytes, offset: int) -> tuple[int, int]:
    """(end offset, cardinality) of the standard 32-bit Roaring bitmap starting at ``offset``."""

    def take(fmt: str) -> int:
        nonlocal offset
        size = struct.calcsize(fmt)
        if offset + size > len(data):
            raise DeletionVectorFormatError("Deletion vector bitmap is truncated")
        (value,) = struct.unpack_from(fmt, data, offset)
        offset += size
        return value

    cookie = take("<I")
    if cookie & 0xFFFF == 12347:  # SERIAL_COOKIE: has run containers
        containers = (cookie >> 16) + 1
        run_flags = data[offset : offset + (containers + 7) // 8]
        offset += (containers + 7) // 8
        has_offsets = containers >= 4
    elif cookie == 12346:  # SERIAL_COOKIE_NO_RUNCONTAINER
        containers = take("<I")
        run_flags = b""
        has_offsets = True
    else:
        raise DeletionVectorFormatError(f"Deletion vector holds an invalid 32-bit Roaring cookie {cookie:#x}")
    if containers > 65536:
        raise DeletionVectorFormatError(f"Deletion vector declares {containers} containers in one bitmap")
    cards = []
    for _ in range(containers):
        take("<H")  # the container key
        cards.append(take("<H") + 1)
    if has_offsets:
        offset += 4 * containers
    total = 0
    for index, card in enumerate(cards):
        if run_flags and run_flags[index // 8] >> (index % 8) & 1:
            runs = take("<H")  # (not in one "offset +=" expression: take() moves offset itself)
            offset += 4 * runs
        elif card <= 4096:
            offset += 2 * card
        else:
            offset += 8192
        total += card
    if offset > len(data):
        raise DeletionVectorFormatError("Deletion vector bitmap is truncated (container data missing)")
    return offset, total


def puffin_file_bytes(
    blobs: Sequence[DeletionVectorBlob | tuple[str, int, bytes, int]], *, created_by: str = CREATED_BY
) -> tuple[bytes, list[tuple[int, int]]]:
    """A Puffin file holding ``blobs`` (in order), and each blob's (offset, length) in it.

    Each blob is (referenced data file location, snapshot/sequence value, blob bytes, cardinality);
    the snapshot/sequence value must be -1, as the Puffin spec requires for DVs.
    """
    body = bytearray(PUFFIN_MAGIC)
    placed: list[tuple[int, int]] = []
    entries = []
    for referenced, snapshot_id, data, cardinality in blobs:
        if snapshot_id != INHERITED:
            raise ValueError(
                f"Deletion vector blobs carry snapshot-id/sequence-number {INHERITED} (inherited at commit), "
                f"not {snapshot_id}"
            )
        offset = len(body)
        body += data
        placed.append((offset, len(data)))
        entries.append(
            {
                "type": DV_BLOB_TYPE,
                "fields": [ROW_POSITION_FIELD_ID],
                "snapshot-id": INHERITED,
                "sequence-number": INHERITED,
                "offset": offset,
                "length": len(data),
                "properties": {REFERENCED_DATA_FILE: referenced, CARDINALITY: str(int(cardinality))},
            }
        )
    payload = json.dumps(
        {"blobs": entries, "properties": {"created-by": created_by}}, separators=(",", ":"), ensure_ascii=False
    ).encode("utf-8")
    body += PUFFIN_MAGIC + payload + struct.pack("<i", len(payload)) + bytes(4) + PUFFIN_MAGIC
    return bytes(body), placed


def read_puffin_footer(data: bytes) -> dict:
    """The footer JSON (FileMetadata) of a whole Puffin file."""
    if len(data) < len(PUFFIN_MAGIC) * 2 + _FOOTER_TAIL_BYTES or data[:4] != PUFFIN_MAGIC or data[-4:] != PUFFIN_MAGIC:
        raise DeletionVectorFormatError("Not a Puffin file: the PFA1 magic is missing at its start or end")
    (size,) = struct.unpack_from("<i", data, len(data) - _FOOTER_TAIL_BYTES)
    flags = data[-8:-4]
    if flags[0] & 1:
        raise DeletionVectorFormatError("Puffin footer is LZ4-compressed; only uncompressed footers are read here")
    start = len(data) - _FOOTER_TAIL_BYTES - size
    if size < 0 or start - 4 < 4 or data[start - 4 : start] != PUFFIN_MAGIC:
        raise DeletionVectorFormatError(f"Puffin footer payload size {size} does not fit the file")
    return json.loads(data[start : len(data) - _FOOTER_TAIL_BYTES].decode("utf-8"))


# ---------------------------------------------------------------------------------------------
# Through the table's FileIO (Spark's JVM)
# ---------------------------------------------------------------------------------------------


def read_file_range(
    iceberg: IcebergJava, table: JavaObject, location: str, offset: int = 0, length: int | None = None
) -> bytes:
    """Bytes of a file read through ``table.io()`` (to its end when ``length`` is None). They come
    through a local file: py4j moves bytes at ~0.1 s per MB."""
    with _local_file() as local:
        iceberg.helpers.FileBytes.copyToLocal(table, location, offset, -1 if length is None else length, local)
        data = Path(local).read_bytes()
    if length is not None and len(data) != length:
        raise DeletionVectorFormatError(f"{location} ends before byte {offset + length} (read {len(data)} of {length})")
    return data


def write_file(iceberg: IcebergJava, table: JavaObject, location: str, data: bytes) -> None:
    """Creates ``location`` through ``table.io()`` holding ``data`` (handed over in a local file).
    A failed write leaves no file behind (as far as the storage allows)."""
    with _local_file() as local:
        Path(local).write_bytes(data)
        iceberg.helpers.FileBytes.copyFromLocal(table, local, location)


@contextmanager
def _local_file() -> Iterator[str]:
    """A temporary file both the Python driver and its JVM (same host) can use; removed after."""
    handle, path = tempfile.mkstemp(prefix="iceberg-doris-", suffix=".bytes")
    os.close(handle)
    try:
        yield path
    finally:
        os.unlink(path)


def format_version(table: JavaObject) -> int:
    return int(table.operations().current().formatVersion())


def is_deletion_vector(delete_file: JavaObject) -> bool:
    return str(delete_file.format().name()) == "PUFFIN"


def read_deletion_vector(iceberg: IcebergJava, table: JavaObject, delete_file: JavaObject) -> BitMap64:
    """The positions of a DV (ours or any engine's), reading only its blob."""
    location = str(delete_file.location())
    if not is_deletion_vector(delete_file):
        raise DeletionVectorFormatError(f"{location} is a {delete_file.format()} delete file, not a deletion vector")
    offset, size = delete_file.contentOffset(), delete_file.contentSizeInBytes()
    if offset is None or size is None:
        raise DeletionVectorFormatError(f"Deletion vector in {location} has no content offset/size in table metadata")
    blob = read_file_range(iceberg, table, location, int(offset), int(size))
    try:
        return decode_deletion_vector(blob, expected_cardinality=int(delete_file.recordCount()))
    except DeletionVectorFormatError as error:
        raise DeletionVectorFormatError(f"{location} at offset {offset}: {error}") from None


class _PlannedByLocation(Mapping[str, Any]):
    """A read-only mapping over locations of a JVM-side plan; values are fetched on demand."""

    def __init__(self, plan: JavaObject, joined_locations: str):
        self._plan = plan
        self._locations = split_locations(joined_locations)
        self._known = set(self._locations)

    @property
    def plan(self) -> JavaObject:
        """The JVM-side plan (io.icebergdoris.iceberg.LiveFiles) these files come from."""
        return self._plan

    @abstractmethod
    def _fetch(self, location: str) -> Any:
        """The value for a known location, from the plan."""

    def __getitem__(self, location: str) -> Any:
        if location not in self._known:
            raise KeyError(location)
        return self._fetch(location)

    def __iter__(self) -> Iterator[str]:
        return iter(self._locations)

    def __len__(self) -> int:
        return len(self._locations)

    def __contains__(self, location: object) -> bool:
        return location in self._known


class PlannedDataFiles(_PlannedByLocation):
    """Data files of a JVM-side plan by location; a DataFile crosses py4j only when asked for."""

    def __init__(self, plan: JavaObject):
        super().__init__(plan, str(plan.locations()))
        self._fetched: dict[str, JavaObject] = {}

    def _fetch(self, location: str) -> JavaObject:
        if location not in self._fetched:
            self._fetched[location] = self._plan.dataFile(location)
        return self._fetched[location]


class PlannedPositionDeletes(_PlannedByLocation):
    """The position delete files / DV of each planned data file that has any."""

    def __init__(self, plan: JavaObject):
        super().__init__(plan, str(plan.locationsWithPositionDeletes()))

    def _fetch(self, location: str) -> list[JavaObject]:
        return java_items(self._plan.positionDeletes(location))


def plan_live_files(table: JavaObject, snapshot_id: int, row_filter: JavaObject | None = None) -> JavaObject:
    """The JVM-side plan (io.icebergdoris.iceberg.LiveFiles) of a snapshot's live files."""
    from pyspark import SparkContext

    return SparkContext._jvm.io.icebergdoris.iceberg.LiveFiles.plan(table, snapshot_id, row_filter)


def live_files(
    table: JavaObject, *, snapshot_id: int | None = None, row_filter: JavaObject | None = None
) -> tuple[Mapping[str, JavaObject], Mapping[str, list[JavaObject]]]:
    """The live data files of a snapshot (default: current; only those that may hold rows matching
    the Iceberg expression ``row_filter`` if given) by location, and the position delete files and
    DVs that apply to each: the ``data_files`` and ``existing`` arguments of the writers."""
    if snapshot_id is None:
        snapshot = table.currentSnapshot()
        if snapshot is None:
            return {}, {}
        snapshot_id = snapshot.snapshotId()
    plan = plan_live_files(table, int(snapshot_id), row_filter)
    return PlannedDataFiles(plan), PlannedPositionDeletes(plan)


def write_deletion_vectors(
    iceberg: IcebergJava,
    table: JavaObject,
    deletes: Mapping[str, BitMap64 | Iterable[int]],
    *,
    data_files: Mapping[str, JavaObject],
    existing: Mapping[str, JavaObject | Sequence[JavaObject]] | None = None,
) -> tuple[list[JavaObject], list[JavaObject]]:
    """Writes one Puffin file with a DV per data file in ``deletes`` (location -> positions to
    delete now), merged with the delete files in ``existing`` for that data file (its current DV,
    or on a table upgraded from v2 its position-delete files). Returns (DeleteFiles to add,
    DeleteFiles to remove) for one RowDelta. Data files whose positions are all deleted already
    get nothing. Nothing is committed here; an unused Puffin file is an orphan for cleanup.

    Commit with ``RowDelta.validateFromSnapshot(<the snapshot existing was read from>)``: without
    it Iceberg checks the whole history and mistakes the DV being replaced for a concurrently
    added one ("Found concurrently added DV for ..."); with it, a DV another writer added since
    then fails the commit instead of leaving two DVs for one data file.
    """
    version = format_version(table)
    if version < 3:
        raise TableStateError(
            f"Cannot write deletion vectors to {table.name()}: it is format version {version}; "
            "deletion vectors need version 3 (use position delete files on v2 tables)"
        )
    existing = existing or {}
    blobs: list[DeletionVectorBlob] = []
    targets: list[JavaObject] = []
    replaced: dict[str, JavaObject] = {}
    for location in sorted(deletes):
        positions = to_bitmap(deletes[location])
        if not positions:
            continue
        data_file = require_data_file(data_files, location, table)
        check_positions(positions, data_file, location)
        previous_files = _as_list(existing.get(location))
        previous = BitMap64()
        for delete_file in previous_files:
            previous |= _previous_positions(iceberg, table, delete_file, location)
        merged = positions | previous
        if previous_files and len(merged) == len(previous):
            continue  # every position is deleted already: the current delete files stay
        for delete_file in previous_files:
            # DVs and file-scoped position deletes are replaced; partition-scoped position delete
            # files stay (readers ignore them for a data file that has a DV).
            if _is_file_scoped(iceberg, delete_file):
                replaced.setdefault(delete_file_key(delete_file), delete_file)
        blobs.append(DeletionVectorBlob(location, INHERITED, encode_deletion_vector(merged), len(merged)))
        targets.append(data_file)
    if not blobs:
        return [], []
    content, placed = puffin_file_bytes(blobs)
    puffin_location = str(table.locationProvider().newDataLocation(f"doris-{uuid.uuid4()}-deletes.puffin"))
    write_file(iceberg, table, puffin_location, content)
    builder_class = iceberg.jvm.org.apache.iceberg.FileMetadata
    puffin = iceberg.jvm.org.apache.iceberg.FileFormat.PUFFIN
    added = []
    for blob, data_file, (offset, length) in zip(blobs, targets, placed):
        spec = table.specs().get(data_file.specId())
        added.append(
            builder_class.deleteFileBuilder(spec)
            .ofPositionDeletes()
            .withFormat(puffin)
            .withPath(puffin_location)
            .withPartition(data_file.partition())
            .withFileSizeInBytes(len(content))
            .withReferencedDataFile(blob.referenced_data_file)
            .withContentOffset(offset)
            .withContentSizeInBytes(length)
            .withRecordCount(blob.cardinality)
            .build()
        )
    return added, list(replaced.values())


def _as_list(value: JavaObject | Sequence[JavaObject] | None) -> list[JavaObject]:
    if value is None:
        return []
    if isinstance(value, JavaList):
        return java_items(value)
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def delete_file_key(delete_file: JavaObject) -> str:
    """Identity of a delete file: DVs share a Puffin file, so the blob offset is part of it."""
    return f"{delete_file.location()}@{delete_file.contentOffset()}"


def require_data_file(data_files: Mapping[str, JavaObject], location: str, table: JavaObject) -> JavaObject:
    try:
        return data_files[location]
    except KeyError:
        raise TableStateError(
            f"Cannot delete rows of {location}: it is not among the given data files of {table.name()} "
            "(pass every data file that gets deletes in data_files)"
        ) from None


def check_positions(positions: BitMap64, data_file: JavaObject, location: str) -> None:
    records = int(data_file.recordCount())
    if positions.max() >= records:
        raise TableStateError(
            f"Cannot delete row position {positions.max()} of {location}: the file has {records} rows "
            f"(positions 0..{records - 1})"
        )


def _previous_positions(iceberg: IcebergJava, table: JavaObject, delete_file: JavaObject, location: str) -> BitMap64:
    content = int(delete_file.content().id())
    if content != 1:
        raise TableStateError(
            f"Cannot merge {delete_file.location()} into a deletion vector of {location}: it is an equality "
            "delete file (only deletion vectors and position delete files can be merged)"
        )
    if is_deletion_vector(delete_file):
        referenced = delete_file.referencedDataFile()
        if referenced is not None and str(referenced) != location:
            raise TableStateError(
                f"The deletion vector at {delete_file.location()} (offset {delete_file.contentOffset()}) "
                f"belongs to {referenced}, not to {location}"
            )
        return read_deletion_vector(iceberg, table, delete_file)
    from iceberg_doris.engine.position_deletes import read_position_deletes  # it imports this module

    return read_position_deletes(iceberg, table, delete_file, location)


def _is_file_scoped(iceberg: IcebergJava, delete_file: JavaObject) -> bool:
    return bool(iceberg.jvm.org.apache.iceberg.util.ContentFileUtil.isFileScoped(delete_file))
