"""Stored key-index entries keep their format: an entry's footer checksum covers its rows as every
version since format 2 computed it, so entries a table already holds stay readable (a checksum
computed differently would reject them all, and every first lookup would rebuild them). An entry
whose positions are 0, 1, 2, ... (a file sorted by its keys) says so in its footer, and a reader
fills them instead of decoding them; the checksum still covers them, so a false mark is caught."""

from __future__ import annotations

import logging

import pyarrow.parquet as pq
import pytest

from iceberg_doris import doris
from iceberg_doris.engine import key_index
from iceberg_doris.engine.iceberg_java import IcebergJava
from tests.procedures.test_key_index_keys import cold_index, entry_files, load, rows, summary_of  # noqa: F401 - cold_index is a fixture

IN_ORDER = (b"doris.key-index.positions", b"in-order")

pytestmark = pytest.mark.spark

# Checksums of these exact entries as format 2 wrote them (computed at 3e4d12d, before the
# checksum's rewrite): integer keys, encoded (VARCHAR, DATE) keys, and sequence values with NULLs.
CASES = {
    "longs": (
        "k BIGINT NOT NULL, v STRING", "k", "",
        "SELECT id * 3 - 7 AS k, concat('v', id) AS v FROM range(50)", "3768220961",
    ),
    "encoded": (
        "k VARCHAR(20) NOT NULL, d DATE NOT NULL, v STRING", "k, d", "",
        "SELECT concat('key-', id % 7) AS k, date_add(DATE'2024-01-01', CAST(id AS INT)) AS d, 'x' AS v FROM range(40)",
        "4209462871",
    ),
    "sequence": (
        "k BIGINT NOT NULL, v STRING, s INT", "k", 'PROPERTIES ("function_column.sequence_col" = "s")',
        "SELECT id AS k, 'x' AS v, CASE WHEN id % 4 = 0 THEN NULL ELSE CAST(id * 11 % 17 AS INT) END AS s FROM range(30)",
        "1464643137",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_entry_checksum_is_the_one_format_2_defines(spark, namespace, case):
    columns, keys, properties, query, checksum = CASES[case]
    table = f"{namespace}.format_{case}"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} ({columns}) UNIQUE KEY({keys}) DISTRIBUTED BY HASH(k) BUCKETS 1 {properties}")
    doris.load(spark, table=table, query=query)
    (entry,) = entry_files(spark, table)
    footer = pq.read_metadata(entry).metadata
    assert footer[b"doris.key-index.crc32c"].decode() == checksum
    assert footer.get(IN_ORDER[0]) == IN_ORDER[1]  # a load writes its files sorted by key


def test_an_entry_falsely_marked_in_order_is_rejected_by_its_checksum(spark, namespace, cold_index, caplog):
    import pyarrow.parquet as pq

    table = f"{namespace}.unordered"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k BIGINT NOT NULL, v INT, d INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    # Written by plain Spark without a sort order: the file's rows are not in key order.
    spark.sql(f"ALTER TABLE {table} WRITE UNORDERED")
    spark.sql(f"INSERT INTO {table} SELECT CAST((id * 37) % 101 AS BIGINT), CAST(id AS INT), 0 FROM range(0, 101, 1, 1)")
    first = load(spark, table, ["(5, 500, 0)"], "k, v, d", index=True)  # the first lookup builds and stores the entry
    entries = [e for e in entry_files(spark, table) if pq.read_table(e).num_rows == 101]
    assert len(entries) == 1, (summary_of(spark, table, first.snapshot_id), [pq.read_table(e).num_rows for e in entry_files(spark, table)])
    entry = entries[0]
    stored = pq.read_table(entry)
    footer = pq.ParquetFile(entry).metadata.metadata
    assert stored.column("pos").to_pylist() != list(range(101)) and IN_ORDER[0] not in footer

    # The same rows and checksum, with the mark: positions filled in order no longer match it.
    pq.write_table(stored.replace_schema_metadata({**footer, IN_ORDER[0]: IN_ORDER[1]}), entry, data_page_version="2.0")
    entry.with_name(f".{entry.name}.crc").unlink(missing_ok=True)
    key_index.clear_cache(IcebergJava(spark))
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="iceberg_doris.engine.key_index"):
        result = load(spark, table, ["(6, 600, 0)", "(7, 0, 1)"], "k, v, d", index=True)
    assert any("stored entry rejected" in r.getMessage() for r in caplog.records)
    assert not summary_of(spark, table, result.snapshot_id).endswith("built 0")
    assert result.deleted_rows == 1
    got = {k: v for k, v, _ in rows(spark, table)}
    assert got[5] == 500 and got[6] == 600 and 7 not in got and len(got) == 100


def test_writing_entries_leaves_data_file_writers_their_own_parquet_encoders(spark, namespace):
    # Parquet's default values-writer factory is shared by every writer in the JVM and re-pointed
    # at the v1 or v2 encoders of whichever writer was created last (parquet-java GH-3224). Entries
    # are Parquet v2; table data files v1. Had an entry's writer re-pointed it, a data file created
    # meanwhile would get v2 encoders (DELTA_BYTE_ARRAY strings in v1 pages), which Iceberg's
    # vectorized reader refuses. The load below writes its data file first, then its file's entry.
    jvm = spark.sparkContext._jvm
    parquet = jvm.org.apache.iceberg.shaded.org.apache.parquet
    table = f"{namespace}.encoders"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k VARCHAR(20) NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=table, query="SELECT concat('k', id) AS k, 'v' AS v FROM range(100)")
    assert entry_files(spark, table)  # the entry was written after the data file
    path = spark.sparkContext._gateway.new_array(jvm.java.lang.String, 1)
    path[0] = "w"
    column = parquet.column.ColumnDescriptor(path, parquet.schema.PrimitiveType.PrimitiveTypeName.BINARY, 0, 0)
    shared = parquet.column.ParquetProperties.DEFAULT_VALUES_WRITER_FACTORY
    # As the data file's (v1, dictionary) writer left it, not as the entry's (v2, no dictionary).
    assert shared.newValuesWriter(column).getEncoding().name() == "PLAIN_DICTIONARY"
