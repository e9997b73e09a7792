"""Deletion vectors: the blob and Puffin formats, checked against Iceberg's own Java code and
against what Spark writes; DVs we commit are applied by Spark, pyiceberg and DuckDB."""

from __future__ import annotations

import json
import struct
import zlib

import pytest
from py4j.protocol import Py4JJavaError
from pyroaring import BitMap, BitMap64

from iceberg_doris.engine import deletion_vectors as dv
from iceberg_doris.errors import TableStateError
from tests.engine import commit_row_delta, ids_by_every_reader, live_delete_files, load, row_positions

pytestmark = pytest.mark.spark

V3 = "TBLPROPERTIES ('format-version'='3', 'write.delete.mode'='merge-on-read')"
LARGE = [0, 1, 2, 70_000, 2**31, 2**32 - 1, 2**32, 2**32 + 5, 3 * 2**32 + 9, dv.MAX_POSITION]


# --- the blob, without a JVM -----------------------------------------------------------------


@pytest.mark.parametrize("positions", [[], [0], [1, 3], list(range(0, 100_000, 3)), list(range(5000)), LARGE])
def test_round_trip(positions):
    blob = dv.encode_deletion_vector(positions)
    assert list(dv.decode_deletion_vector(blob, expected_cardinality=len(positions))) == sorted(positions)


def test_blob_layout_follows_the_puffin_spec():
    positions = BitMap64([1, 3, 2**32 + 5])
    blob = dv.encode_deletion_vector(positions)
    (length,) = struct.unpack(">i", blob[:4])  # big-endian length of magic + vector
    assert length == len(blob) - 8
    assert blob[4:8] == bytes.fromhex("d1d33964")
    vector = blob[8:-4]
    assert vector == positions.serialize()  # pyroaring's BitMap64 serialization is the portable format
    assert struct.unpack("<q", vector[:8]) == (2,)  # two 32-bit bitmaps, little-endian count
    assert struct.unpack_from("<I", vector, 8) == (0,)  # first key, little-endian
    assert struct.unpack(">I", blob[-4:]) == (zlib.crc32(blob[4:-4]),)  # CRC-32 of magic + vector


def test_decodes_the_dense_key_layout_iceberg_java_writes():
    # Java writes an (empty) bitmap for every key below the largest; pyroaring writes only used keys.
    empty_32bit_bitmap = BitMap().serialize()
    assert empty_32bit_bitmap == bytes.fromhex("3a30000000000000")  # what Java's RoaringBitmap writes too
    vector = struct.pack("<q", 2) + struct.pack("<I", 0) + empty_32bit_bitmap
    vector += struct.pack("<I", 1) + BitMap([5]).serialize()
    payload = dv.DV_MAGIC + vector
    blob = struct.pack(">i", len(payload)) + payload + struct.pack(">I", zlib.crc32(payload))
    assert list(dv.decode_deletion_vector(blob)) == [2**32 + 5]


def _reframe(payload: bytes) -> bytes:
    return struct.pack(">i", len(payload)) + payload + struct.pack(">I", zlib.crc32(payload))


@pytest.mark.parametrize(
    ("corrupt", "message"),
    [
        (lambda b: b[:4] + b"\x00\x00\x00\x00" + b[8:], "magic"),
        (lambda b: _reframe(b"\x00\x00\x00\x00" + b[8:-4]), "magic"),
        (lambda b: b[:-1] + bytes([b[-1] ^ 1]), "CRC-32 mismatch"),
        (lambda b: b[:20] + bytes([b[20] ^ 0x40]) + b[21:], "CRC-32 mismatch"),
        (lambda b: struct.pack(">i", len(b)) + b[4:], "length field"),
        (lambda b: b[:-6], "length field"),
        (lambda b: b[:10], "too short"),
        (lambda b: _reframe(b[4:-4] + b"\x00\x00"), "stray bytes"),
        (lambda b: _reframe(b[4:-6]), "truncated"),
        (lambda b: _reframe(dv.DV_MAGIC + struct.pack("<q", 1) + struct.pack("<I", 2**31) + b[24:-4]), "too large"),
    ],
)
def test_decode_rejects_damaged_blobs(corrupt, message):
    blob = dv.encode_deletion_vector([1, 3, 70_000, 2**32 + 5])
    with pytest.raises(dv.DeletionVectorFormatError, match=message):
        dv.decode_deletion_vector(corrupt(blob))


def test_decode_checks_the_cardinality_from_metadata():
    with pytest.raises(dv.DeletionVectorFormatError, match="holds 2 positions but its metadata says 3"):
        dv.decode_deletion_vector(dv.encode_deletion_vector([1, 2]), expected_cardinality=3)


def test_positions_out_of_range_are_refused():
    with pytest.raises(dv.DeletionVectorFormatError, match="beyond"):
        dv.encode_deletion_vector([dv.MAX_POSITION + 1])
    with pytest.raises(OverflowError):
        dv.encode_deletion_vector([-1])


def test_puffin_file_layout():
    first, second = dv.encode_deletion_vector([1, 3]), dv.encode_deletion_vector(LARGE)
    content, placed = dv.puffin_file_bytes(
        [("s3://b/d1.parquet", -1, first, 2), ("s3://b/d2.parquet", -1, second, len(LARGE))]
    )
    assert content[:4] == content[-4:] == b"PFA1"
    assert placed == [(4, len(first)), (4 + len(first), len(second))]
    assert [content[o : o + n] for o, n in placed] == [first, second]
    assert content[-8:-4] == bytes(4)  # flags: footer not compressed
    (size,) = struct.unpack("<i", content[-12:-8])
    assert content[-16 - size : -12 - size] == b"PFA1"
    footer = dv.read_puffin_footer(content)
    assert footer == json.loads(content[-12 - size : -12])
    assert footer["blobs"][1] == {
        "type": "deletion-vector-v1",
        "fields": [2147483645],
        "snapshot-id": -1,
        "sequence-number": -1,
        "offset": 4 + len(first),
        "length": len(second),
        "properties": {"referenced-data-file": "s3://b/d2.parquet", "cardinality": str(len(LARGE))},
    }
    assert "compression-codec" not in footer["blobs"][0]
    with pytest.raises(ValueError, match="inherited"):
        dv.puffin_file_bytes([("s3://b/d1.parquet", 7, first, 2)])


# --- against Iceberg's Java code and Spark ---------------------------------------------------


def _java_serialize(spark, positions: list[int]) -> bytes:
    """The blob Iceberg's Java code (Deletes.toPositionIndex(...).serialize()) writes for ``positions``."""
    jvm = spark.sparkContext._jvm
    array = spark.sparkContext._gateway.new_array(jvm.long, len(positions))
    for i, position in enumerate(positions):
        array[i] = position
    boxed = jvm.java.util.stream.LongStream.of(array).boxed().collect(jvm.java.util.stream.Collectors.toList())
    # combine(Iterable, Closeable): withNoopClose has an overload for one element that py4j may pick
    closeable = jvm.java.io.ByteArrayInputStream(bytearray(0))
    iterable = jvm.org.apache.iceberg.io.CloseableIterable.combine(boxed, closeable)
    index = jvm.org.apache.iceberg.deletes.Deletes.toPositionIndex(iterable)
    return bytes(jvm.org.apache.iceberg.util.ByteBuffers.toByteArray(index.serialize()))


def test_iceberg_java_reads_our_blobs_and_we_read_its(spark):
    jvm = spark.sparkContext._jvm
    positions = LARGE[:-1]
    java_blob = _java_serialize(spark, positions)
    assert list(dv.decode_deletion_vector(java_blob)) == positions  # Java writes empty bitmaps for unused keys
    small = positions[:6]  # one key: Java and we write the same bytes
    assert dv.encode_deletion_vector(small) == _java_serialize(spark, small)

    ours = dv.encode_deletion_vector(positions)
    spec = jvm.org.apache.iceberg.PartitionSpec.unpartitioned()
    delete_file = (
        jvm.org.apache.iceberg.FileMetadata.deleteFileBuilder(spec)
        .ofPositionDeletes()
        .withFormat(jvm.org.apache.iceberg.FileFormat.PUFFIN)
        .withPath("file:/tmp/x.puffin")
        .withFileSizeInBytes(1000)
        .withReferencedDataFile("file:/tmp/d.parquet")
        .withContentOffset(4)
        .withContentSizeInBytes(len(ours))
        .withRecordCount(len(positions))
        .build()
    )
    decoded = jvm.org.apache.iceberg.deletes.PositionDeleteIndex.deserialize(bytearray(ours), delete_file)
    assert decoded.cardinality() == len(positions)
    assert all(decoded.isDeleted(p) for p in positions)
    assert not decoded.isDeleted(3) and not decoded.isDeleted(2**32 + 6)


def test_our_dv_is_applied_by_spark_pyiceberg_and_duckdb(spark, namespace, py_catalog):
    name = f"{namespace}.t"
    spark.sql(f"CREATE TABLE {name} (id BIGINT, v STRING) USING iceberg {V3}")
    spark.sql(f"INSERT INTO {name} SELECT /*+ COALESCE(1) */ id, CAST(id AS STRING) FROM range(0, 50)")
    spark.sql(f"INSERT INTO {name} SELECT /*+ COALESCE(1) */ id, CAST(id AS STRING) FROM range(50, 80)")
    deletes = row_positions(spark, name, "id IN (0, 7, 49, 50, 79)")
    assert len(deletes) == 2

    iceberg, table = load(spark, name)
    data_files, existing = dv.live_files(table)
    assert existing == {}
    added, removed = dv.write_deletion_vectors(iceberg, table, deletes, data_files=data_files, existing=existing)
    assert removed == [] and len(added) == len(deletes)
    assert len({str(f.location()) for f in added}) == 1  # one Puffin file for the whole call
    commit_row_delta(table, added, removed)

    expected = sorted(set(range(80)) - {0, 7, 49, 50, 79})
    assert ids_by_every_reader(spark, py_catalog, name) == (expected, expected, expected)

    # Iceberg's own Puffin reader accepts the file and finds our footer
    puffin_location = str(added[0].location())
    jvm = spark.sparkContext._jvm
    reader = jvm.org.apache.iceberg.puffin.Puffin.read(table.io().newInputFile(puffin_location)).build()
    blobs = list(reader.fileMetadata().blobs())
    reader.close()
    assert {str(b.properties().get("referenced-data-file")) for b in blobs} == set(deletes)
    assert {str(b.type()) for b in blobs} == {"deletion-vector-v1"}
    rows = live_delete_files(spark, name)
    assert {(r.file_format, r.referenced_data_file, r.record_count) for r in rows} == {
        ("PUFFIN", location, len(positions)) for location, positions in deletes.items()
    }
    _, table = load(spark, name)
    for delete_file in dv.live_files(table)[1].values():
        (only,) = delete_file
        assert dv.read_deletion_vector(iceberg, table, only) == deletes[str(only.referencedDataFile())]


def test_we_read_sparks_dv_and_merge_into_it(spark, namespace, py_catalog):
    name = f"{namespace}.t"
    spark.sql(f"CREATE TABLE {name} (id BIGINT, v STRING) USING iceberg {V3}")
    spark.sql(f"INSERT INTO {name} SELECT /*+ COALESCE(1) */ id, CAST(id AS STRING) FROM range(0, 40)")
    spark.sql(f"INSERT INTO {name} SELECT /*+ COALESCE(1) */ id, CAST(id AS STRING) FROM range(40, 60)")
    by_spark = row_positions(spark, name, "id IN (1, 3, 41)")
    spark.sql(f"DELETE FROM {name} WHERE id IN (1, 3, 41)")

    iceberg, table = load(spark, name)
    data_files, existing = dv.live_files(table)
    assert set(existing) == set(by_spark)
    for location, (spark_dv,) in existing.items():
        assert str(spark_dv.format().name()) == "PUFFIN"
        assert dv.read_deletion_vector(iceberg, table, spark_dv) == by_spark[location]
        # byte for byte the blob Spark wrote
        offset, size = spark_dv.contentOffset(), spark_dv.contentSizeInBytes()
        blob = dv.read_file_range(iceberg, table, str(spark_dv.location()), offset, size)
        assert blob == dv.encode_deletion_vector(by_spark[location])

    ours = row_positions(spark, name, "id IN (2, 10, 59)")
    for location in by_spark:
        ours.setdefault(location, BitMap64()).update(by_spark[location])  # re-deleting is harmless
    added, removed = dv.write_deletion_vectors(iceberg, table, ours, data_files=data_files, existing=existing)
    assert {_key(f) for f in removed} == {_key(f) for (f,) in existing.values()}
    commit_row_delta(table, added, removed)

    expected = sorted(set(range(60)) - {1, 3, 41, 2, 10, 59})
    assert ids_by_every_reader(spark, py_catalog, name) == (expected, expected, expected)
    rows = live_delete_files(spark, name)
    assert sorted(r.referenced_data_file for r in rows) == sorted(data_files)  # one DV per data file
    union = {loc: by_spark.get(loc, BitMap64()) | ours[loc] for loc in ours}
    assert {r.referenced_data_file: r.record_count for r in rows} == {loc: len(p) for loc, p in union.items()}

    # Spark in turn reads our DV and merges its next delete into it
    spark.sql(f"DELETE FROM {name} WHERE id IN (20, 42)")
    expected = sorted(set(expected) - {20, 42})
    assert ids_by_every_reader(spark, py_catalog, name) == (expected, expected, expected)
    assert len(live_delete_files(spark, name)) == 2

    # deleting only what is deleted already writes nothing
    _, table = load(spark, name)
    data_files, existing = dv.live_files(table)
    assert dv.write_deletion_vectors(iceberg, table, by_spark, data_files=data_files, existing=existing) == ([], [])


def test_partitioned_dv_carries_the_data_files_partition(spark, namespace, py_catalog):
    name = f"{namespace}.t"
    spark.sql(f"CREATE TABLE {name} (id BIGINT, day DATE, k STRING) USING iceberg PARTITIONED BY (day, bucket(2, k)) {V3}")
    spark.sql(
        f"INSERT INTO {name} SELECT id, date_add(DATE'2024-01-01', CAST(id % 3 AS INT)), CAST(id % 5 AS STRING) "
        "FROM range(60)"
    )
    deletes = row_positions(spark, name, "id % 4 = 0")
    iceberg, table = load(spark, name)
    data_files, existing = dv.live_files(table)
    added, removed = dv.write_deletion_vectors(iceberg, table, deletes, data_files=data_files, existing=existing)
    assert len(added) == len(deletes) > 3 and removed == []
    commit_row_delta(table, added, removed)

    expected = [i for i in range(60) if i % 4]
    assert ids_by_every_reader(spark, py_catalog, name) == (expected, expected, expected)
    partitions = {r.file_path: r.partition for r in spark.sql(f"SELECT file_path, partition FROM {name}.files").collect()}
    rows = live_delete_files(spark, name)
    assert len(rows) == len(deletes)
    for row in rows:
        assert row.partition == partitions[row.referenced_data_file]
    # a filtered read prunes by partition and still applies the DVs
    filtered = sorted(r.id for r in spark.sql(f"SELECT id FROM {name} WHERE day = DATE'2024-01-02'").collect())
    assert filtered == [i for i in expected if i % 3 == 1]


def test_refusals(spark, namespace):
    name = f"{namespace}.t"
    spark.sql(f"CREATE TABLE {name} (id BIGINT) USING iceberg {V3}")
    spark.sql(f"INSERT INTO {name} SELECT /*+ COALESCE(1) */ * FROM VALUES (1L), (2L) AS v(id)")
    iceberg, table = load(spark, name)
    data_files, _ = dv.live_files(table)
    (location,) = data_files
    with pytest.raises(TableStateError, match="file has 2 rows"):
        dv.write_deletion_vectors(iceberg, table, {location: [2]}, data_files=data_files)
    with pytest.raises(TableStateError, match="not among the given data files"):
        dv.write_deletion_vectors(iceberg, table, {"file:/elsewhere.parquet": [0]}, data_files=data_files)
    assert dv.write_deletion_vectors(iceberg, table, {location: []}, data_files=data_files) == ([], [])

    spark.sql(f"CREATE TABLE {name}_v2 (id BIGINT) USING iceberg TBLPROPERTIES ('format-version'='2')")
    _, v2 = load(spark, f"{name}_v2")
    with pytest.raises(TableStateError, match="format version 2"):
        dv.write_deletion_vectors(iceberg, v2, {}, data_files={})


def _key(delete_file) -> tuple[str, int]:
    return str(delete_file.location()), int(delete_file.contentOffset())



def test_file_io_moves_bytes_through_a_local_file(spark, namespace, tmp_path):
    name = f"{namespace}.t"
    spark.sql(f"CREATE TABLE {name} (id BIGINT) USING iceberg {V3}")
    iceberg, table = load(spark, name)
    payload = bytes(range(256)) * (2 * 4096 + 3)  # 2 MiB + 768 bytes: many copy buffers and a partial one
    location = str(table.locationProvider().newDataLocation("moved.bin"))
    dv.write_file(iceberg, table, location, payload)
    assert int(table.io().newInputFile(location).getLength()) == len(payload)
    assert dv.read_file_range(iceberg, table, location) == payload
    start, size = (1 << 20) - 7, (1 << 20) + 20
    assert dv.read_file_range(iceberg, table, location, start, size) == payload[start : start + size]
    with pytest.raises(dv.DeletionVectorFormatError, match="ends before"):
        dv.read_file_range(iceberg, table, location, len(payload) - 4, 8)
    # Writing never replaces a file, and a refused write leaves the existing one as it was.
    with pytest.raises(Py4JJavaError, match="AlreadyExists|already exists"):
        dv.write_file(iceberg, table, location, b"other")
    assert dv.read_file_range(iceberg, table, location) == payload
