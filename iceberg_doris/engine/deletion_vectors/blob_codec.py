"""The ``deletion-vector-v1`` blob: the bytes of one deletion vector (pure, no JVM).

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
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable

from pyroaring import BitMap64

from iceberg_doris.engine.row_positions import to_bitmap
from iceberg_doris.errors import DeletionVectorFormatError

DV_MAGIC = bytes([0xD1, 0xD3, 0x39, 0x64])

_LENGTH_BYTES = 4
_CRC_BYTES = 4
_MIN_BLOB_BYTES = _LENGTH_BYTES + len(DV_MAGIC) + 8 + _CRC_BYTES  # an empty vector


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
