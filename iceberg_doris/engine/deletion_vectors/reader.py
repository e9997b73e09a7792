"""Reading a table's deletion vectors through its ``FileIO``: only the blob, at the offset table
metadata gives (ours or any engine's)."""

from __future__ import annotations

from pyroaring import BitMap64

from iceberg_doris.engine.deletion_vectors.blob_codec import decode_deletion_vector
from iceberg_doris.engine.file_bytes import read_file_range
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, file_format
from iceberg_doris.errors import DeletionVectorFormatError


def is_deletion_vector(delete_file: JavaObject) -> bool:
    return file_format(delete_file) == "PUFFIN"


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
