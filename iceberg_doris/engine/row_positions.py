"""Row positions to delete in data files: what both delete-file writers check before writing.

Deletion vectors (format v3, ``engine.deletion_vectors``) and position delete files (format v2,
``engine.position_deletes``) both take data file location -> positions; the table's format version
picks which one a table gets.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Iterable, Mapping

from pyroaring import BitMap64

from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, join_locations, split_locations
from iceberg_doris.engine.live_files import PlannedDataFiles
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


def require_data_files(
    iceberg: IcebergJava, data_files: Mapping[str, JavaObject], locations: list[str], table: JavaObject
) -> tuple[list[str], JavaObject]:
    """The data files at ``locations`` as one java.util.List, and the locations in that list's
    order. Those of a planned mapping (also inside a ChainMap) cross py4j in one round trip: a
    large upsert hits thousands of files."""
    maps = data_files.maps if isinstance(data_files, ChainMap) else [data_files]
    planned: PlannedDataFiles | None = None
    from_plan: list[str] = []
    others: list[str] = []
    for location in locations:
        source = next((found for found in maps if location in found), None)
        if source is None:
            require_data_file(data_files, location, table)  # raises, naming the file
        if isinstance(source, PlannedDataFiles) and (planned is None or source is planned):
            planned = source
            from_plan.append(location)
        else:
            others.append(location)
    files = planned.plan.dataFiles(join_locations(from_plan)) if planned is not None else iceberg.java_list([])
    for location in others:
        files.add(data_files[location])
    return from_plan + others, files


def record_counts(iceberg: IcebergJava, files: JavaObject) -> list[int]:
    """Each data file's record count, for a java.util.List of them, in one round trip."""
    return [int(count) for count in split_locations(str(iceberg.helpers.DeletionVectorFiles.recordCounts(files)))]


def check_positions(positions: BitMap64, records: int, location: str) -> None:
    """Refuses positions beyond the ``records`` rows of the data file at ``location``."""
    if positions.max() >= records:
        raise TableStateError(
            f"Cannot delete row position {positions.max()} of {location}: the file has {records} rows "
            f"(positions 0..{records - 1})"
        )
