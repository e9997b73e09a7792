"""Position delete files (Iceberg format v2): Parquet files of (file_path, pos).

Iceberg's schema for them is ``file_path: string`` (field id 2147483546) and ``pos: long`` (field id
2147483545), both required, rows sorted by ``file_path`` then ``pos``. A position delete file
applies to data files of its own partition (same spec and partition values) with a data sequence
number up to its own, so we write one file per partition. Readers union every position delete file
that applies to a data file, so new deletes never need to rewrite old files (in v3, deletion
vectors replace them: see ``deletion_vectors``).

The manifest entry carries exact ``file_path``/``pos`` bounds: Iceberg uses equal ``file_path``
bounds to treat a file as scoped to one data file, and all readers use them to skip delete files
that cannot match a data file.
"""

from __future__ import annotations

import io
import struct
import uuid
from collections.abc import Iterable, Mapping

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyroaring import BitMap64

from iceberg_doris.engine.file_bytes import read_file_range, write_file
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, file_format
from iceberg_doris.engine.row_positions import check_positions, format_version, require_data_file, to_bitmap
from iceberg_doris.errors import TableStateError

FILE_PATH_FIELD_ID = 2147483546
POS_FIELD_ID = 2147483545
POSITION_DELETE_SCHEMA = pa.schema(
    [
        pa.field("file_path", pa.string(), nullable=False, metadata={b"PARQUET:field_id": b"%d" % FILE_PATH_FIELD_ID}),
        pa.field("pos", pa.int64(), nullable=False, metadata={b"PARQUET:field_id": b"%d" % POS_FIELD_ID}),
    ]
)


def java_order(path: str) -> bytes:
    """Sort key matching Iceberg's (Java's) string order, which compares UTF-16 code units."""
    return path.encode("utf-16-be", "surrogatepass")


def position_delete_table(deletes: Mapping[str, BitMap64 | Iterable[int]]) -> pa.Table:
    """The rows of one position delete file, sorted by file_path then pos."""
    paths: list[str] = []
    positions: list[int] = []
    for location in sorted(deletes, key=java_order):
        bitmap = to_bitmap(deletes[location])
        paths.extend([location] * len(bitmap))
        positions.extend(bitmap.to_array())  # ascending
    return pa.table(
        [pa.array(paths, pa.string()), pa.array(positions, pa.int64())], schema=POSITION_DELETE_SCHEMA
    )


def position_delete_file_bytes(deletes: Mapping[str, BitMap64 | Iterable[int]]) -> tuple[bytes, pa.Table]:
    """The Parquet bytes of one position delete file, and its rows."""
    rows = position_delete_table(deletes)
    sink = io.BytesIO()
    pq.write_table(rows, sink, compression="zstd")
    return sink.getvalue(), rows


def write_position_deletes(
    iceberg: IcebergJava,
    table: JavaObject,
    deletes: Mapping[str, BitMap64 | Iterable[int]],
    *,
    data_files: Mapping[str, JavaObject],
) -> list[JavaObject]:
    """Writes one position delete file per partition for ``deletes`` (data file location ->
    positions) under the table's data location; returns their DeleteFiles for one RowDelta.
    Nothing is committed here."""
    version = format_version(table)
    if version != 2:
        hint = "use deletion vectors (write_deletion_vectors) on v3 tables" if version >= 3 else "upgrade it to v2"
        raise TableStateError(
            f"Cannot write position delete files to {table.name()}: it is format version {version}; {hint}"
        )
    groups: dict[tuple[int, str], dict[str, BitMap64]] = {}
    first_file: dict[tuple[int, str], JavaObject] = {}
    for location, given in deletes.items():
        positions = to_bitmap(given)
        if not positions:
            continue
        data_file = require_data_file(data_files, location, table)
        check_positions(positions, int(data_file.recordCount()), location)
        spec = table.specs().get(data_file.specId())
        key = (int(data_file.specId()), str(spec.partitionToPath(data_file.partition())))
        groups.setdefault(key, {})[location] = positions
        first_file.setdefault(key, data_file)
    added = []
    for key in sorted(groups):
        added.append(_write_group(iceberg, table, first_file[key], groups[key]))
    return added


def _write_group(
    iceberg: IcebergJava, table: JavaObject, data_file: JavaObject, deletes: dict[str, BitMap64]
) -> JavaObject:
    jvm = iceberg.jvm
    spec = table.specs().get(data_file.specId())
    partition = data_file.partition()
    content, rows = position_delete_file_bytes(deletes)
    file_name = f"doris-{uuid.uuid4()}-deletes.parquet"
    if spec.isPartitioned():
        location = str(table.locationProvider().newDataLocation(spec, partition, file_name))
    else:
        location = str(table.locationProvider().newDataLocation(file_name))
    write_file(iceberg, table, location, content)

    paths = sorted(deletes, key=java_order)
    positions = rows.column("pos")
    lower = jvm.java.util.HashMap()
    upper = jvm.java.util.HashMap()
    lower.put(FILE_PATH_FIELD_ID, _buffer(jvm, paths[0].encode("utf-8")))
    upper.put(FILE_PATH_FIELD_ID, _buffer(jvm, paths[-1].encode("utf-8")))
    lower.put(POS_FIELD_ID, _buffer(jvm, struct.pack("<q", pc.min(positions).as_py())))
    upper.put(POS_FIELD_ID, _buffer(jvm, struct.pack("<q", pc.max(positions).as_py())))
    metrics = jvm.org.apache.iceberg.Metrics(rows.num_rows, None, None, None, None, lower, upper)
    return (
        jvm.org.apache.iceberg.FileMetadata.deleteFileBuilder(spec)
        .ofPositionDeletes()
        .withFormat(jvm.org.apache.iceberg.FileFormat.PARQUET)
        .withPath(location)
        .withPartition(partition)
        .withFileSizeInBytes(len(content))
        .withMetrics(metrics)
        .build()
    )


def _buffer(jvm: JavaObject, data: bytes) -> JavaObject:
    """A Java ByteBuffer (Iceberg's single-value serialization of a bound)."""
    return jvm.java.nio.ByteBuffer.wrap(bytearray(data))


def read_position_deletes(iceberg: IcebergJava, table: JavaObject, delete_file: JavaObject, location: str) -> BitMap64:
    """The positions a Parquet position delete file deletes in the data file at ``location``."""
    if file_format(delete_file) != "PARQUET":
        raise TableStateError(
            f"Cannot read position deletes from {delete_file.location()}: "
            f"{delete_file.format()} files are not supported"
        )
    data = read_file_range(iceberg, table, str(delete_file.location()))
    rows = pq.read_table(io.BytesIO(data), columns=["file_path", "pos"])
    matching = rows.filter(pc.equal(rows.column("file_path"), location))
    return BitMap64(matching.column("pos").to_pylist())
