"""Deletion vectors (Iceberg format v3): ``deletion-vector-v1`` blobs in Puffin files.

A deletion vector (DV) marks deleted row positions of ONE data file; at most one DV may apply to a
data file. The package, by job:

- ``blob_codec``: the blob's bytes (a portable 64-bit Roaring bitmap between length, magic and CRC);
- ``puffin``: the Puffin file holding the blobs, and its footer;
- ``reader``: reading a table's DV through its ``FileIO``;
- ``writer``: :func:`write_deletion_vectors`, merging new deletes with a data file's earlier ones.

Shared with position delete files (format v2) and so outside the package: ``engine.live_files``
(which data files and delete files a snapshot reads), ``engine.row_positions`` (checking the
positions; the table's format version) and ``engine.file_bytes`` (bytes through the table's
``FileIO``). Their names are re-exported here, as before the split.

The codec and Puffin functions need no JVM; the others read and write through the table's
``FileIO`` in Spark's JVM, so they work on any storage Iceberg does.
"""

from iceberg_doris.engine.deletion_vectors.blob_codec import DV_MAGIC, decode_deletion_vector, encode_deletion_vector
from iceberg_doris.engine.deletion_vectors.puffin import (
    CARDINALITY,
    CREATED_BY,
    DV_BLOB_TYPE,
    INHERITED,
    PUFFIN_MAGIC,
    REFERENCED_DATA_FILE,
    ROW_POSITION_FIELD_ID,
    DeletionVectorBlob,
    puffin_file_bytes,
    read_puffin_footer,
)
from iceberg_doris.engine.deletion_vectors.reader import is_deletion_vector, read_deletion_vector
from iceberg_doris.engine.deletion_vectors.writer import write_deletion_vectors
from iceberg_doris.engine.file_bytes import read_file_range, write_file
from iceberg_doris.engine.live_files import (
    PlannedDataFiles,
    PlannedPositionDeletes,
    delete_file_key,
    live_files,
    plan_live_files,
)
from iceberg_doris.engine.row_positions import (
    MAX_POSITION,
    check_positions,
    format_version,
    require_data_file,
    to_bitmap,
)
from iceberg_doris.errors import DeletionVectorFormatError

__all__ = [
    "CARDINALITY",
    "CREATED_BY",
    "DV_BLOB_TYPE",
    "DV_MAGIC",
    "INHERITED",
    "MAX_POSITION",
    "PUFFIN_MAGIC",
    "REFERENCED_DATA_FILE",
    "ROW_POSITION_FIELD_ID",
    "DeletionVectorBlob",
    "DeletionVectorFormatError",
    "PlannedDataFiles",
    "PlannedPositionDeletes",
    "check_positions",
    "decode_deletion_vector",
    "delete_file_key",
    "encode_deletion_vector",
    "format_version",
    "is_deletion_vector",
    "live_files",
    "plan_live_files",
    "puffin_file_bytes",
    "read_deletion_vector",
    "read_file_range",
    "read_puffin_footer",
    "require_data_file",
    "to_bitmap",
    "write_deletion_vectors",
    "write_file",
]
