"""Position delete files (format v2) written by us are applied by Spark, pyiceberg and DuckDB; on a
table upgraded to v3 they are merged into deletion vectors."""

from __future__ import annotations

import io
import struct

import pyarrow.parquet as pq
import pytest
from pyroaring import BitMap64

from iceberg_doris.engine import deletion_vectors as dv
from iceberg_doris.engine import position_deletes as pd
from iceberg_doris.errors import TableStateError
from tests.engine import commit_row_delta, ids_by_every_reader, live_delete_files, load, row_positions

pytestmark = pytest.mark.spark

V2 = "TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')"


def test_file_layout_follows_the_spec():
    high, astral = "s3://b/\uffff.parquet", "s3://b/\U0001f600.parquet"
    deletes = {"s3://b/z.parquet": [7, 1], "s3://b/a.parquet": BitMap64([2**33, 0]), high: [3], astral: [4]}
    content, rows = pd.position_delete_file_bytes(deletes)
    # sorted by file_path (as Java compares strings: UTF-16 code units, so U+1F600 < U+FFFF) then pos
    assert rows.to_pydict() == {
        "file_path": ["s3://b/a.parquet"] * 2 + ["s3://b/z.parquet"] * 2 + [astral, high],
        "pos": [0, 2**33, 1, 7, 4, 3],
    }
    parquet = pq.ParquetFile(io.BytesIO(content))
    schema = parquet.schema_arrow
    assert [(f.name, str(f.type), f.nullable, f.metadata[b"PARQUET:field_id"]) for f in schema] == [
        ("file_path", "string", False, b"2147483546"),
        ("pos", "int64", False, b"2147483545"),
    ]
    assert parquet.read().equals(rows)


def test_position_deletes_are_applied_by_spark_pyiceberg_and_duckdb(spark, namespace, py_catalog):
    name = f"{namespace}.t"
    spark.sql(f"CREATE TABLE {name} (id BIGINT, k STRING) USING iceberg PARTITIONED BY (k) {V2}")
    for start in (0, 30):  # two data files per partition
        spark.sql(
            f"INSERT INTO {name} SELECT /*+ COALESCE(1) */ id, IF(id % 2 = 0, 'even', 'odd') "
            f"FROM range({start}, {start + 30})"
        )
    deletes = row_positions(spark, name, "id IN (0, 1, 2, 33, 34, 59)")
    assert len(deletes) == 4

    iceberg, table = load(spark, name)
    data_files, _ = dv.live_files(table)
    added = pd.write_position_deletes(iceberg, table, deletes, data_files=data_files)
    assert len(added) == 2  # one file per partition
    commit_row_delta(table, added)

    expected = sorted(set(range(60)) - {0, 1, 2, 33, 34, 59})
    assert ids_by_every_reader(spark, py_catalog, name) == (expected, expected, expected)
    partitions = {r.file_path: r.partition for r in spark.sql(f"SELECT file_path, partition FROM {name}.files").collect()}
    rows = live_delete_files(spark, name)
    assert sorted((r.file_format, r.partition.k, r.record_count) for r in rows) == [
        ("PARQUET", "even", 3),
        ("PARQUET", "odd", 3),
    ]
    # each file holds exactly its partition's deletes, with exact bounds
    _, table = load(spark, name)
    for delete_file in added:
        location = str(delete_file.location())
        content = pq.read_table(io.BytesIO(dv.read_file_range(iceberg, table, location)))
        paths = set(content.column("file_path").to_pylist())
        assert {partitions[p] for p in paths} == {next(r.partition for r in rows if r.file_path == location)}
        (bounds,) = spark.sql(
            f"SELECT lower_bounds, upper_bounds FROM {name}.delete_files WHERE file_path = '{location}'"
        ).collect()
        assert bytes(bounds.lower_bounds[2147483546]).decode() == min(paths)
        assert bytes(bounds.upper_bounds[2147483546]).decode() == max(paths)
        assert struct.unpack("<q", bytes(bounds.upper_bounds[2147483545]))[0] == max(content.column("pos").to_pylist())
        for path in paths:
            assert pd.read_position_deletes(iceberg, table, delete_file, path) == deletes[path]

    # a second round adds another file; readers union it with the first
    more = row_positions(spark, name, "id IN (10, 45)")
    data_files, _ = dv.live_files(table)
    commit_row_delta(table, pd.write_position_deletes(iceberg, table, more, data_files=data_files))
    expected = sorted(set(expected) - {10, 45})
    assert ids_by_every_reader(spark, py_catalog, name) == (expected, expected, expected)


def test_upgrade_to_v3_merges_position_deletes_into_dvs(spark, namespace, py_catalog):
    name = f"{namespace}.t"
    spark.sql(f"CREATE TABLE {name} (id BIGINT) USING iceberg {V2}")
    spark.sql(f"INSERT INTO {name} SELECT /*+ COALESCE(1) */ id FROM range(0, 20)")
    spark.sql(f"INSERT INTO {name} SELECT /*+ COALESCE(1) */ id FROM range(20, 40)")
    ours = row_positions(spark, name, "id IN (1, 21)")  # one partition-scoped file for both data files
    iceberg, table = load(spark, name)
    data_files, _ = dv.live_files(table)
    (our_file,) = pd.write_position_deletes(iceberg, table, ours, data_files=data_files)
    commit_row_delta(table, [our_file])
    by_spark = row_positions(spark, name, "id = 2")
    spark.sql(f"DELETE FROM {name} WHERE id = 2")  # Spark writes a file-scoped position delete file
    (spark_location,) = by_spark

    _, table = load(spark, name)
    data_files, existing = dv.live_files(table)
    assert len(existing[spark_location]) == 2  # ours (partition-scoped) and Spark's
    (spark_file,) = [f for f in existing[spark_location] if str(f.location()) != str(our_file.location())]
    assert pd.read_position_deletes(iceberg, table, spark_file, spark_location) == by_spark[spark_location]

    spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('format-version'='3')")
    iceberg, table = load(spark, name)
    with pytest.raises(TableStateError, match="use deletion vectors"):
        pd.write_position_deletes(iceberg, table, ours, data_files=data_files)
    data_files, existing = dv.live_files(table)
    now = row_positions(spark, name, "id = 3")
    added, removed = dv.write_deletion_vectors(iceberg, table, now, data_files=data_files, existing=existing)
    # the DV holds every delete of its data file; only Spark's file-scoped file is dropped, ours still
    # applies to the other data file
    (new_dv,) = added
    union = now[spark_location] | by_spark[spark_location] | ours[spark_location]
    assert dv.read_deletion_vector(iceberg, table, new_dv) == union
    assert [str(f.location()) for f in removed] == [str(spark_file.location())]
    commit_row_delta(table, added, removed)

    expected = sorted(set(range(40)) - {1, 2, 3, 21})
    assert ids_by_every_reader(spark, py_catalog, name) == (expected, expected, expected)
    assert sorted(r.file_format for r in live_delete_files(spark, name)) == ["PARQUET", "PUFFIN"]
