"""Writing deletion vectors: one Puffin file per call, each data file's new deletes merged with
the deletes it already has.

At most one DV may apply to a data file, so adding deletes to a file that already has one writes the
union as a new DV and removes the old one in the same commit; on a table upgraded from v2 the
file's position delete files are merged in the same way.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence

from py4j.java_collections import JavaList
from pyroaring import BitMap64

from iceberg_doris.engine.deletion_vectors.blob_codec import encode_deletion_vector
from iceberg_doris.engine.deletion_vectors.puffin import INHERITED, DeletionVectorBlob, puffin_file_bytes
from iceberg_doris.engine.deletion_vectors.reader import is_deletion_vector, read_deletion_vector
from iceberg_doris.engine.file_bytes import write_file
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, java_items, join_locations
from iceberg_doris.engine.live_files import delete_file_key
from iceberg_doris.engine.position_deletes import read_position_deletes
from iceberg_doris.engine.row_positions import (
    check_positions,
    format_version,
    record_counts,
    require_data_files,
    to_bitmap,
)
from iceberg_doris.errors import TableStateError


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
    wanted = {location: to_bitmap(deletes[location]) for location in sorted(deletes)}
    if not any(wanted.values()):
        return [], []
    # The data files and their record counts cross py4j as one list each, not file by file.
    locations, data_file_list = require_data_files(
        iceberg, data_files, [location for location, positions in wanted.items() if positions], table
    )
    blobs: list[DeletionVectorBlob] = []
    targets: list[int] = []
    replaced: dict[str, JavaObject] = {}
    for index, (location, records) in enumerate(zip(locations, record_counts(iceberg, data_file_list))):
        positions = wanted[location]
        check_positions(positions, records, location)
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
        targets.append(index)
    if not blobs:
        return [], []
    content, placed = puffin_file_bytes(blobs)
    puffin_location = str(table.locationProvider().newDataLocation(f"doris-{uuid.uuid4()}-deletes.puffin"))
    write_file(iceberg, table, puffin_location, content)
    placements = join_locations(
        f"{index} {offset} {length} {blob.cardinality}" for index, blob, (offset, length) in zip(targets, blobs, placed)
    )
    added = iceberg.helpers.DeletionVectorFiles.of(table, data_file_list, puffin_location, len(content), placements)
    return java_items(added), list(replaced.values())


def _as_list(value: JavaObject | Sequence[JavaObject] | None) -> list[JavaObject]:
    if value is None:
        return []
    if isinstance(value, JavaList):
        return java_items(value)
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


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
    return read_position_deletes(iceberg, table, delete_file, location)


def _is_file_scoped(iceberg: IcebergJava, delete_file: JavaObject) -> bool:
    return bool(iceberg.jvm.org.apache.iceberg.util.ContentFileUtil.isFileScoped(delete_file))
