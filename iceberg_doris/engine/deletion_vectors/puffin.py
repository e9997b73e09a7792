"""Puffin files of deletion vectors: the file around the blobs, and its footer (pure, no JVM).

A Puffin file is ``PFA1``, the blobs, then the footer ``PFA1 <JSON> <JSON length, 4 bytes LE>
<4 flag bytes> PFA1``. The JSON lists each blob with ``snapshot-id``/``sequence-number`` -1 (they are
inherited from the commit) and the properties ``referenced-data-file`` and ``cardinality``. Table
metadata points at a DV by the Puffin file's location plus the blob's ``content_offset`` and
``content_size_in_bytes``.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Sequence
from typing import NamedTuple

from iceberg_doris.errors import DeletionVectorFormatError

DV_BLOB_TYPE = "deletion-vector-v1"
PUFFIN_MAGIC = b"PFA1"
# The blob metadata "fields" of a DV: the row-position metadata column (_pos), as Iceberg writes it.
ROW_POSITION_FIELD_ID = 2147483645
# snapshot-id and sequence-number of every DV blob: "not known when the file is written" (inherited).
INHERITED = -1
REFERENCED_DATA_FILE = "referenced-data-file"
CARDINALITY = "cardinality"
CREATED_BY = "iceberg-doris"

_FOOTER_TAIL_BYTES = 4 + 4 + len(PUFFIN_MAGIC)  # payload size, flags, magic


class DeletionVectorBlob(NamedTuple):
    """One DV blob to put in a Puffin file (plain tuples of the same shape are accepted too)."""

    referenced_data_file: str
    snapshot_id: int  # snapshot-id and sequence-number in the footer; -1 (inherited) for DVs
    data: bytes  # the encoded blob, from encode_deletion_vector
    cardinality: int


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
