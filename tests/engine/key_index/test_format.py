"""Stored key-index entries keep their format: an entry's footer checksum covers its rows as every
version since format 2 computed it, so entries a table already holds stay readable (a checksum
computed differently would reject them all, and every first lookup would rebuild them). An entry
whose positions are 0, 1, 2, ... (a file sorted by its keys) says so in its footer, and a reader
fills them instead of decoding them; the checksum still covers them, so a false mark is caught.

Entries also carry a second, cheaper CRC-32C of the same rows taken column by column, which
readers verify instead when it is there; an entry without it (as earlier versions wrote them) is
verified by the row checksum and read, not rebuilt."""

from __future__ import annotations

import struct

import pyarrow.parquet as pq
import pytest

from iceberg_doris import doris
from tests.engine.key_index.test_keys import (  # noqa: F401 - cold_index is a fixture
    cold_index, entry_files, load, load_cold, rejected_for, rows, summary_of,
)

IN_ORDER = (b"doris.key-index.positions", b"in-order")
ROW_CHECKSUM = b"doris.key-index.crc32c"
COLUMN_CHECKSUM = b"doris.key-index.crc32c-columns"

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
def test_an_entry_carries_the_format_2_row_checksum_and_the_crc32c_of_its_columns(spark, namespace, case):
    columns, keys, properties, query, checksum = CASES[case]
    table = f"{namespace}.format_{case}"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} ({columns}) UNIQUE KEY({keys}) DISTRIBUTED BY HASH(k) BUCKETS 1 {properties}")
    doris.load(spark, table=table, query=query)
    (entry,) = entry_files(spark, table)
    footer = pq.read_metadata(entry).metadata
    assert footer[ROW_CHECKSUM].decode() == checksum  # still written, for readers that predate the column one
    assert footer.get(IN_ORDER[0]) == IN_ORDER[1]  # a load writes its files sorted by key
    stored = pq.read_table(entry)
    sequences = stored.column("seq").to_pylist() if properties else None
    expected = column_checksum(stored.column("key").to_pylist(), stored.column("pos").to_pylist(), sequences)
    assert footer[COLUMN_CHECKSUM].decode() == str(expected)


def test_an_entry_falsely_marked_in_order_is_rejected_by_its_checksum(spark, namespace, cold_index, caplog):
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
    rewritten_footer(entry, {**footer, IN_ORDER[0]: IN_ORDER[1]}, stored)
    result = load_cold(spark, caplog, table, ["(6, 600, 0)", "(7, 0, 1)"], "k, v, d")
    assert rejected_for(caplog, "checksum mismatch")
    assert not summary_of(spark, table, result.snapshot_id).endswith("built 0")
    assert result.deleted_rows == 1
    got = {k: v for k, v, _ in rows(spark, table)}
    assert got[5] == 500 and got[6] == 600 and 7 not in got and len(got) == 100


def test_writing_entries_leaves_data_file_writers_their_own_parquet_encoders(spark, namespace):
    # Parquet's default values-writer factory was shared by every writer in the JVM and re-pointed
    # at the v1 or v2 encoders of whichever writer was created last (parquet-java GH-3224). Entries
    # are Parquet v2; table data files v1. Had an entry's writer re-pointed it, a data file created
    # meanwhile would get v2 encoders (DELTA_BYTE_ARRAY strings in v1 pages), which Iceberg's
    # vectorized reader refuses. Two loads: the second's data file is written after the first's entry.
    import pyarrow.parquet as pq

    table = f"{namespace}.encoders"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k VARCHAR(20) NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=table, query="SELECT concat('k', id) AS k, 'v' AS v FROM range(100)")
    assert entry_files(spark, table)  # an entry was written (Parquet v2)
    doris.load(spark, table=table, query="SELECT concat('n', id) AS k, 'w' AS v FROM range(100)")
    data_files = [row.file_path for row in spark.sql(f"SELECT file_path FROM {table}.files WHERE content = 0").collect()]
    assert len(data_files) == 2
    for data_file in data_files:
        metadata = pq.ParquetFile(data_file.removeprefix("file:")).metadata
        encodings = {e for g in range(metadata.num_row_groups) for c in range(metadata.num_columns)
                     for e in metadata.row_group(g).column(c).encodings}
        assert "DELTA_BYTE_ARRAY" not in encodings and "DELTA_BINARY_PACKED" not in encodings, (data_file, encodings)


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli, reflected), bit by bit: an independent reference for the entries'."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def column_checksum(keys: list, positions: list[int], sequences: list[int | None] | None = None) -> int:
    """The column checksum as the format documents it: the keys (8 bytes each, or encoded keys'
    bytes back to back and then where each ends), the positions, then with sequence values a flag
    byte per row and the values (0 for NULL); numbers big-endian."""
    if keys and isinstance(keys[0], int):
        data = b"".join(struct.pack(">q", k) for k in keys)
    else:
        data = b"".join(keys)
        end = 0
        for key in keys:
            end += len(key)
            data += struct.pack(">i", end)
    data += b"".join(struct.pack(">i", p) for p in positions)
    if sequences is not None:
        data += bytes(0 if s is None else 1 for s in sequences)
        data += b"".join(struct.pack(">q", 0 if s is None else s) for s in sequences)
    return crc32c(data)


def rewritten_footer(entry, footer: dict[bytes, bytes], stored=None, **options) -> None:
    """Writes the entry's rows (or ``stored``) again, in Parquet v2 pages as the format reads,
    with ``footer`` and pyarrow's writer ``options``."""
    stored = pq.read_table(entry) if stored is None else stored
    pq.write_table(stored.replace_schema_metadata(footer), entry, data_page_version="2.0", **options)
    entry.with_name(f".{entry.name}.crc").unlink(missing_ok=True)


def test_an_entry_with_only_the_row_checksum_is_read_not_rebuilt(spark, namespace, cold_index, caplog):
    table = f"{namespace}.row_checksum_only"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k VARCHAR(20) NOT NULL, v INT, d INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=table, query="SELECT concat('key-', id) AS k, CAST(id AS INT) AS v, 0 AS d FROM range(60)")
    first = load(spark, table, ["('key-5', 500, 0)"], "k, v, d", index=True)  # builds and stores the entry
    assert summary_of(spark, table, first.snapshot_id).startswith("probed 1 files, built 1")
    (entry,) = [e for e in entry_files(spark, table) if pq.read_metadata(e).num_rows == 60]
    footer = dict(pq.read_metadata(entry).metadata)
    del footer[COLUMN_CHECKSUM]  # as an entry written before the column checksum
    rewritten_footer(entry, footer)
    result = load_cold(spark, caplog, table, ["('key-6', 600, 0)", "('key-7', 0, 1)"], "k, v, d")
    assert not any("key index" in r.getMessage() for r in caplog.records)
    # The stored file probed (the first load's new file had no entry stored: build on load is off).
    assert "read 1" in summary_of(spark, table, result.snapshot_id)
    got = {k: v for k, v, _ in rows(spark, table)}
    assert got["key-5"] == 500 and got["key-6"] == 600 and "key-7" not in got and len(got) == 59


def test_an_entry_whose_column_checksum_differs_is_rejected_and_rebuilt(spark, namespace, cold_index, caplog):
    table = f"{namespace}.column_checksum_differs"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k BIGINT NOT NULL, v INT, d INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=table, query="SELECT id AS k, CAST(id AS INT) AS v, 0 AS d FROM range(40)")
    load(spark, table, ["(5, 500, 0)"], "k, v, d", index=True)  # builds and stores the entry
    (entry,) = [e for e in entry_files(spark, table) if pq.read_metadata(e).num_rows == 40]
    footer = dict(pq.read_metadata(entry).metadata)
    # The rows and the row checksum unchanged: only the column checksum says otherwise.
    footer[COLUMN_CHECKSUM] = str((int(footer[COLUMN_CHECKSUM]) + 1) % 2**32).encode()
    rewritten_footer(entry, footer)
    result = load_cold(spark, caplog, table, ["(6, 600, 0)", "(7, 0, 1)"], "k, v, d")
    assert rejected_for(caplog, "checksum mismatch")
    assert "built 1" in summary_of(spark, table, result.snapshot_id)
    got = {k: v for k, v, _ in rows(spark, table)}
    assert got[5] == 500 and got[6] == 600 and 7 not in got and len(got) == 39


def row_checksum(keys: list, positions: list[int]) -> int:
    """The format-2 row checksum of an entry without sequence values, as its footer documents it."""
    data = b""
    for key, position in zip(keys, positions):
        data += struct.pack(">q", key) if isinstance(key, int) else struct.pack(">i", len(key)) + key
        data += struct.pack(">ib", position, 0) + bytes(8)
    return crc32c(data)


# How the rewritten entry's key column is stored: pages a reader decodes itself (each key checked
# against the one before it, the first of a page against the last page's last) or through Parquet.
WRITERS = {
    "delta pages": {"use_dictionary": False, "column_encoding": {"key": "DELTA_BYTE_ARRAY"}},
    "a key per delta page": {"use_dictionary": False, "column_encoding": {"key": "DELTA_BYTE_ARRAY"}, "data_page_size": 1, "write_batch_size": 1},
    "dictionary pages": {"use_dictionary": ["key"]},
}


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_an_entry_with_keys_out_of_order_is_rejected_whatever_its_checksums_say(spark, namespace, cold_index, caplog, writer):
    import pyarrow as pa

    table = f"{namespace}.unsorted_{writer.replace(' ', '_')}"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k VARCHAR(20) NOT NULL, v INT, d INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=table, query="SELECT concat('key-', id + 100) AS k, CAST(id AS INT) AS v, 0 AS d FROM range(30)")
    load(spark, table, ["('key-105', 500, 0)"], "k, v, d", index=True)  # builds and stores the entry
    (entry,) = [e for e in entry_files(spark, table) if pq.read_metadata(e).num_rows == 30]
    stored = pq.read_table(entry)
    keys = stored.column("key").to_pylist()
    positions = stored.column("pos").to_pylist()
    # Two neighbours swapped, positions kept: key-117 would point at key-116's row.
    keys[16], keys[17] = keys[17], keys[16]
    footer = dict(pq.read_metadata(entry).metadata)
    footer[ROW_CHECKSUM] = str(row_checksum(keys, positions)).encode()
    swapped = stored.set_column(0, stored.schema.field("key"), pa.array(keys, pa.binary()))
    footer[COLUMN_CHECKSUM] = str(column_checksum(keys, positions)).encode()
    rewritten_footer(entry, footer, swapped, **WRITERS[writer])
    result = load_cold(spark, caplog, table, ["('key-116', 600, 0)", "('key-117', 0, 1)"], "k, v, d")
    assert rejected_for(caplog, "keys out of order")
    assert "built 1" in summary_of(spark, table, result.snapshot_id)
    got = {k: v for k, v, _ in rows(spark, table)}
    assert got["key-105"] == 500 and got["key-116"] == 600 and "key-117" not in got and len(got) == 29



def test_integer_entries_of_any_delta_width_and_page_layout_read_back_exactly(spark, namespace, cold_index, caplog):
    """Integer keys and sequence values decode from DELTA_BINARY_PACKED pages without Parquet's
    reader: deltas of every width up to 64 bits (the extremes of BIGINT next to each other), pages
    of a few values, sequence pages with and without NULLs. A wrong decode fails the checksum, so
    the entry would be rebuilt with a warning: read cleanly, it decoded exactly."""
    import random

    generator = random.Random(13)
    keys = sorted({-(2**63) + 1, 2**63 - 1, -1, 0, 1, *range(100, 140), *(generator.randrange(-(2**62), 2**62) for _ in range(200))})
    table = f"{namespace}.wide_deltas"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k BIGINT NOT NULL, v INT, d INT, s BIGINT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
        'PROPERTIES ("function_column.sequence_col" = "s")',
    )
    values = ", ".join(
        f"({k}, {i}, 0, {'NULL' if i % 50 == 7 else generator.randrange(-(2**62), 2**62)})" for i, k in enumerate(keys)
    )
    doris.load(spark, table=table, query=f"SELECT * FROM VALUES {values} AS t(k, v, d, s)")
    high = 2**62 + 1  # beats every stored sequence value
    load(spark, table, [f"({keys[3]}, 500, 0, {high})"], "k, v, d, s", index=True)  # builds and stores the entry
    (entry,) = [e for e in entry_files(spark, table) if pq.read_metadata(e).num_rows == len(keys)]
    footer = dict(pq.read_metadata(entry).metadata)
    stored = pq.read_table(entry)
    assert stored.column("key").to_pylist() == keys
    encodings = {"key": "DELTA_BINARY_PACKED", "seq": "DELTA_BINARY_PACKED"}
    rewritten_footer(entry, footer, stored, use_dictionary=False, column_encoding=encodings, data_page_size=256, write_batch_size=16)
    assert pq.ParquetFile(entry).metadata.row_group(0).column(0).total_compressed_size > 256  # several pages

    result = load_cold(spark, caplog, table, [f"({keys[0]}, 600, 0, {high})", f"({keys[-1]}, 0, 1, {high})"], "k, v, d, s")
    assert not any("key index" in r.getMessage() for r in caplog.records)
    assert "read 1" in summary_of(spark, table, result.snapshot_id)
    got = {k: v for k, v, _, _ in rows(spark, table)}
    assert got[keys[0]] == 600 and got[keys[3]] == 500 and keys[-1] not in got and len(got) == len(keys) - 1
