"""Row positions to delete in data files: what both delete-file writers check before writing.

Deletion vectors (format v3, ``engine.deletion_vectors``) and position delete files (format v2,
``engine.position_deletes``) both take data file location -> positions; the table's format version
picks which one a table gets.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pyroaring import BitMap64

from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.errors import DeletionVectorFormatError, TableStateError

# Iceberg's Java bitmap keeps keys 0 .. 2^31 - 2 and, in the last key, low halves up to 2^31; a
# larger position could be written but Java readers would refuse it.
MAX_POSITION = ((2**31 - 2) << 32) | 0x80000000


def to_bitmap(positions: BitMap64 | Iterable[int]) -> BitMap64:
    """A new BitMap64 of ``positions``, checked to be valid row positions."""
    bitmap = BitMap64(positions) if not isinstance(positions, BitMap64) else positions.copy()
    if len(bitmap) and bitmap.max() > MAX_POSITION:
        raise DeletionVectorFormatError(
            f"Row position {bitmap.max()} is beyond what a deletion vector can hold (at most {MAX_POSITION})"
        )
    return bitmap


def format_version(table: JavaObject) -> int:
    return int(table.operations().current().formatVersion())


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
