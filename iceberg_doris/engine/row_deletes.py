"""Delete files for row positions, in whichever form the table's format version takes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pyroaring import BitMap64

from iceberg_doris.engine.deletion_vectors import format_version, write_deletion_vectors
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.position_deletes import write_position_deletes


def write_row_deletes(
    iceberg: IcebergJava,
    table: JavaObject,
    deletes: Mapping[str, BitMap64 | Iterable[int]],
    *,
    data_files: Mapping[str, JavaObject],
    existing: Mapping[str, Any] | None = None,
) -> tuple[list[JavaObject], list[JavaObject]]:
    """Deletion vectors merged with each data file's ``existing`` deletes (format v3), or
    position-delete files (v2). Returns (delete files to add, to remove) for one RowDelta;
    nothing is committed."""
    if format_version(table) >= 3:
        return write_deletion_vectors(iceberg, table, deletes, data_files=data_files, existing=existing)
    return (write_position_deletes(iceberg, table, deletes, data_files=data_files) if deletes else []), []
