"""The primary-key index for every key: string, composite and sequence-column keys give exactly the
rows the scan gives; entries are stored next to the table, read back by a cold executor, rebuilt
(with a warning) when damaged, and removed by cleanup once their data file is gone."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest

from iceberg_doris import doris
from iceberg_doris.engine import key_index
from iceberg_doris.engine.iceberg_java import IcebergJava
from tests.procedures.test_keyed_loads import rows as first_column_ordered_rows

pytestmark = pytest.mark.spark


def summary_of(spark, table: str, snapshot_id: int) -> str | None:
    summary = spark.sql(f"SELECT summary FROM {table}.snapshots WHERE snapshot_id = {snapshot_id}").collect()[0][0]
    return summary.get("doris.key-index")


@pytest.fixture
def cold_index(spark):
    """No cached entries; loads leave their new files' entries to the first lookup (watched here)."""
    key_index.clear_cache(IcebergJava(spark))
    spark.conf.set(key_index.BUILD_ON_LOAD_CONF, "false")
    yield
    spark.conf.unset(key_index.BUILD_ON_LOAD_CONF)
    spark.conf.unset(key_index.ENABLED_CONF)
    spark.conf.unset(key_index.PERSIST_CONF)


def rows(spark, table: str) -> list[tuple]:
    """Every row, sorted on all columns (NULL first)."""
    return sorted(first_column_ordered_rows(spark, table), key=lambda row: [(v is not None, v) for v in row])


def entry_files(spark, table: str) -> list[Path]:
    location = IcebergJava(spark).load_table(IcebergJava(spark).name(table)).location()
    folder = Path(location.removeprefix("file:").removeprefix("//")) / "_doris_key_index"
    return sorted(folder.rglob("*.parquet"))


def load(spark, table: str, batch: list[str], columns: str, *, index: bool):
    spark.conf.set(key_index.ENABLED_CONF, "true" if index else "false")
    try:
        query = "SELECT * FROM VALUES " + ", ".join(batch) + f" AS t({columns})"
        return doris.load(spark, table=table, query=query, merge_type="MERGE", delete_on="d = 1")[0]
    finally:
        spark.conf.unset(key_index.ENABLED_CONF)


def load_cold(spark, caplog, table: str, batch: list[str], columns: str):
    """:func:`load` with the cached entries forgotten (a new session's first load reads the stored
    ones), the key index's warnings captured in ``caplog``."""
    key_index.clear_cache(IcebergJava(spark))
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="iceberg_doris.engine.key_index"):
        return load(spark, table, batch, columns, index=True)


def rejected_for(caplog, reason: str = "") -> bool:
    """Whether a stored entry was rejected (for ``reason``, if given), and so rebuilt with a warning."""
    return any("stored entry rejected" in r.getMessage() and reason in r.getMessage() for r in caplog.records)


KINDS = {
    "bigint": ("k BIGINT NOT NULL, v STRING, d INT", "k", "k", ""),
    "varchar": ("k VARCHAR(20) NOT NULL, v STRING, d INT", "k", "k", ""),
    "date_bigint": ("dt DATE NOT NULL, k BIGINT NOT NULL, v STRING, d INT", "dt, k", "k", ""),
    "bigint_sequence": ("k BIGINT NOT NULL, v STRING, d INT, s INT", "k", "k", 'PROPERTIES ("function_column.sequence_col" = "s")'),
    # Every other kind the codec reads, read back from its encoding for the pruning filter and,
    # with a sequence column, for the live rows: wide decimals, strings after them, DATETIME,
    # scaled decimals, booleans, TINYINT, a DATE sequence.
    "largeint_varchar": ("k LARGEINT NOT NULL, w VARCHAR(20) NOT NULL, v STRING, d INT", "k, w", "k", ""),
    "datetime_decimal_boolean": (
        "t DATETIME NOT NULL, m DECIMAL(10, 2) NOT NULL, b BOOLEAN NOT NULL, v STRING, d INT", "t, m, b", "t", ""),
    "varchar_date_sequence": (
        "k VARCHAR(20) NOT NULL, v STRING, d INT, s DATE", "k", "k", 'PROPERTIES ("function_column.sequence_col" = "s")'),
    "tinyint_sequence": ("k TINYINT NOT NULL, v STRING, d INT, s BIGINT", "k", "k", 'PROPERTIES ("function_column.sequence_col" = "s")'),
}
KEY_COLUMNS = {"date_bigint": "dt, k", "largeint_varchar": "k, w", "datetime_decimal_boolean": "t, m, b"}
# String keys whose encodings must keep prefixes, NUL bytes and non-ASCII apart.
STRINGS = ["", "a", "a\\0", "a\\0b", "ab", "b", "é", "ß", "z" * 19, "0", "-1", "a b"]


def key_literal(kind: str, key: int) -> str:
    if kind in ("varchar", "varchar_date_sequence"):
        return string_literal(key)
    if kind == "date_bigint":
        return f"DATE'2024-0{1 + key % 3}-1{key % 7}', {key // 3 - 5}"
    if kind == "largeint_varchar":
        return f"CAST({(key % 5 - 2) * 2**100 + key} AS DECIMAL(38, 0)), {string_literal(key // 2)}"
    if kind == "datetime_decimal_boolean":
        return f"TIMESTAMP_NTZ'2024-01-0{1 + key % 3} 1{key % 5}:00:00', {key // 4 - 3}.{key % 100:02d}, {str(key % 2 == 0).upper()}"
    if kind == "tinyint_sequence":
        return str(key - 20)
    return str(key * 7919 - 100_000)  # negative and positive


def string_literal(key: int) -> str:
    return "'" + STRINGS[key % len(STRINGS)] + f"{key // len(STRINGS) or ''}'"


def sequence_literal(kind: str, value: int) -> str:
    return f"DATE'2024-01-0{value + 1}'" if kind == "varchar_date_sequence" else str(value)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_index_and_scan_agree_for_every_key_kind(spark, namespace, cold_index, kind):
    columns_ddl, keys, hashed, properties = KINDS[kind]
    tables = []
    for name in ("indexed", "scanned"):
        doris.create_table(
            spark,
            ddl=f"CREATE TABLE {namespace}.{name} ({columns_ddl}) UNIQUE KEY({keys}) DISTRIBUTED BY HASH({hashed}) BUCKETS 2 {properties}",
        )
        tables.append(f"{namespace}.{name}")
    sequence = "sequence_col" in properties
    columns = KEY_COLUMNS.get(kind, "k") + ", v, d" + (", s" if sequence else "")
    generator = random.Random(13)
    for number in range(5):
        # Upserts, deletes and re-inserts of deleted keys; one batch repeats keys.
        chosen = generator.choices(range(40), k=20) if number == 3 else generator.sample(range(40), 20)
        batch = []
        for key in chosen:
            delete = 1 if number and generator.random() < 0.3 else 0
            row = f"{key_literal(kind, key)}, 'v{number}-{key}', {delete}"
            if sequence:
                row += f", {sequence_literal(kind, generator.randrange(6))}"  # out of order, with ties
            batch.append(f"({row})")
        indexed = load(spark, tables[0], batch, columns, index=True)
        scanned = load(spark, tables[1], batch, columns, index=False)
        if number:
            assert summary_of(spark, tables[0], indexed.snapshot_id).startswith("probed ")
        assert summary_of(spark, tables[1], scanned.snapshot_id) is None
        assert indexed.deleted_rows == scanned.deleted_rows
        assert rows(spark, tables[0]) == rows(spark, tables[1])
    assert len(rows(spark, tables[0])) > 5


def test_sequence_rule_with_out_of_order_loads(spark, namespace, cold_index):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {namespace}.q (k VARCHAR(8) NOT NULL, v STRING, d INT, s DATE) UNIQUE KEY(k) "
        'DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("function_column.sequence_col" = "s")',
    )
    table = f"{namespace}.q"
    columns = "k, v, d, s"
    load(spark, table, ["('a','a1',0,DATE'2024-01-05')", "('b','b1',0,DATE'2024-01-05')"], columns, index=True)
    older = load(spark, table, ["('a','a0',0,DATE'2024-01-04')", "('b','b2',0,DATE'2024-01-05')"], columns, index=True)
    assert summary_of(spark, table, older.snapshot_id).startswith("probed 1 files")
    # a: the smaller sequence loses; b: an equal sequence wins (the later load).
    assert rows(spark, table) == [("a", "a1", 0, _date(5)), ("b", "b2", 0, _date(5))]
    # A delete with a larger sequence removes the key and leaves a tombstone an older row cannot pass.
    deleted = load(spark, table, ["('a','gone',1,DATE'2024-01-09')"], columns, index=True)
    assert deleted.deleted_rows == 1
    load(spark, table, ["('a','late',0,DATE'2024-01-08')", "('c','c1',0,NULL)"], columns, index=True)
    assert rows(spark, table) == [("b", "b2", 0, _date(5)), ("c", "c1", 0, None)]
    # NULL sorts below every value: a NULL sequence loses to a stored one, wins against NULL.
    last = load(spark, table, ["('b','null',0,NULL)", "('c','c2',0,NULL)", "('a','back',0,DATE'2024-01-10')"], columns, index=True)
    assert summary_of(spark, table, last.snapshot_id).startswith("probed ")
    assert rows(spark, table) == [("a", "back", 0, _date(10)), ("b", "b2", 0, _date(5)), ("c", "c2", 0, None)]
    # Stored entries keep NULL sequence values: read back by a cold executor, they decide the same.
    spark.conf.set(key_index.BUILD_ON_LOAD_CONF, "true")  # this load stores its new file's entry too
    load(spark, table, ["('c','c2',0,NULL)"], columns, index=True)
    key_index.clear_cache(IcebergJava(spark))
    cold = load(spark, table, ["('c','c3',0,NULL)", "('b','b3',0,DATE'2024-01-04')"], columns, index=True)
    assert ", built 0, read " in summary_of(spark, table, cold.snapshot_id)
    assert rows(spark, table) == [("a", "back", 0, _date(10)), ("b", "b2", 0, _date(5)), ("c", "c3", 0, None)]


def _date(day: int):
    import datetime as dt

    return dt.date(2024, 1, day)


def test_files_written_by_plain_spark_are_indexed_and_entries_stored(spark, namespace, cold_index):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {namespace}.c (dt DATE NOT NULL, k VARCHAR(10) NOT NULL, v INT) UNIQUE KEY(dt, k) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    table = f"{namespace}.c"
    spark.sql(f"INSERT INTO {table} VALUES (DATE'2024-02-01','x',1), (DATE'2024-01-01','y',2), (DATE'2024-02-01','a',3)")
    spark.sql(f"INSERT INTO {table} VALUES (DATE'2024-03-01','x',4)")
    result = doris.load(
        spark, table=table, query="SELECT * FROM VALUES (DATE'2024-02-01','x',10), (DATE'2024-03-01','x',11), (DATE'2024-01-01','z',12) AS t(dt, k, v)"
    )[0]
    assert summary_of(spark, table, result.snapshot_id) == "probed 2 files, built 2"
    assert len(entry_files(spark, table)) == 2
    assert [(str(d), k, v) for d, k, v in rows(spark, table)] == [
        ("2024-01-01", "y", 2), ("2024-01-01", "z", 12), ("2024-02-01", "a", 3), ("2024-02-01", "x", 10), ("2024-03-01", "x", 11)
    ]


def test_a_cold_executor_reads_stored_entries_instead_of_building(spark, namespace, cold_index):
    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.w (k VARCHAR(10) NOT NULL, v INT, d INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    table = f"{namespace}.w"
    load(spark, table, [f"('k{i}', {i}, 0)" for i in range(30)], "k, v, d", index=True)
    warm = load(spark, table, ["('k1', 100, 0)", "('k2', 0, 1)"], "k, v, d", index=True)
    built = summary_of(spark, table, warm.snapshot_id)
    assert built.startswith("probed ") and not built.endswith("built 0")
    stored = entry_files(spark, table)
    assert stored

    # A new session's executors know nothing: the stored entries are read, none is built.
    key_index.clear_cache(IcebergJava(spark))
    cold = load(spark, table, ["('k3', 300, 0)", "('k1', 101, 0)"], "k, v, d", index=True)
    summary = summary_of(spark, table, cold.snapshot_id)
    probed = int(summary.split()[1])
    # The warm load's own new file had no entry yet: only it is built.
    assert summary == f"probed {probed} files, built {probed - len(stored)}, read {len(stored)}"
    assert set(stored) <= set(entry_files(spark, table))
    expected = {f"k{i}": i for i in range(30)} | {"k1": 101, "k3": 300}
    del expected["k2"]
    assert rows(spark, table) == sorted((k, v, 0) for k, v in expected.items())


def test_a_cold_executor_reads_delta_encoded_string_entries_exactly(spark, namespace, cold_index):
    import pyarrow.parquet as pq

    # Enough distinct long keys (about 1.5 MB) that Parquet gives up the dictionary and writes the
    # entry's later pages in DELTA_BYTE_ARRAY, which the reader decodes itself; keys share long
    # prefixes (each page's first key has none) and differ in length.
    doris.create_table(
        spark, ddl=f"CREATE TABLE {namespace}.long_keys (k VARCHAR(200) NOT NULL, v BIGINT, d INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
    )
    table = f"{namespace}.long_keys"
    count = 10_000
    key = "concat('region-', id % 7, '/order-', lpad(cast(id AS STRING), 9, '0'), '/', repeat('x', cast(100 + id % 53 AS INT)))"
    spark.conf.set(key_index.BUILD_ON_LOAD_CONF, "true")  # the load stores its file's entry
    spark.conf.set(key_index.ENABLED_CONF, "true")
    doris.load(spark, table=table, source=spark.range(count).selectExpr(f"{key} AS k", "id AS v", "0 AS d"))
    (entry,) = entry_files(spark, table)
    encodings = {e for g in range(pq.ParquetFile(entry).metadata.num_row_groups)
                 for e in pq.ParquetFile(entry).metadata.row_group(g).column(0).encodings}
    assert "DELTA_BYTE_ARRAY" in encodings

    key_index.clear_cache(IcebergJava(spark))
    # Hits at both ends and throughout (every page), deletes among them, and keys the file lacks.
    hits = [0, 1, count - 1, *range(7, count, 97)]
    batch = spark.range(count).where(f"id IN ({', '.join(map(str, hits))})").selectExpr(
        f"{key} AS k", "-id AS v", "CAST(id % 5 = 0 AS INT) AS d"
    ).union(spark.range(count, count + 3).selectExpr(f"{key} AS k", "-id AS v", "0 AS d"))
    result = doris.load(spark, table=table, source=batch, merge_type="MERGE", delete_on="d = 1")[0]
    spark.conf.unset(key_index.ENABLED_CONF)
    assert summary_of(spark, table, result.snapshot_id) == "probed 1 files, built 0, read 1"  # read back, not rejected
    deleted = {i for i in hits if i % 5 == 0}
    assert result.deleted_rows == len(deleted)
    values = {v for (v,) in spark.sql(f"SELECT v FROM {table}").collect()}
    expected = ({i for i in range(count) if i not in hits} | {-i for i in hits if i not in deleted}
                | {-i for i in range(count, count + 3)})
    assert values == expected and spark.table(table).count() == len(expected)


def test_entries_with_dictionary_pages_as_earlier_versions_wrote_them_are_read(spark, namespace, cold_index):
    import pyarrow as pa
    import pyarrow.parquet as pq

    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.dict (k VARCHAR(10) NOT NULL, v INT, d INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    table = f"{namespace}.dict"
    load(spark, table, [f"('k{i:03d}', {i}, 0)" for i in range(300)], "k, v, d", index=True)
    load(spark, table, ["('k001', 1, 0)"], "k, v, d", index=True)  # the first lookup stores the entry
    (entry,) = entry_files(spark, table)
    stored = pq.read_table(entry)
    footer = pq.ParquetFile(entry).metadata.metadata
    assert "DELTA_BYTE_ARRAY" in pq.ParquetFile(entry).metadata.row_group(0).column(0).encodings

    # The same rows (so the same checksum) in dictionary-encoded v2 pages, with key statistics.
    pq.write_table(stored.replace_schema_metadata(footer), entry, use_dictionary=True, data_page_version="2.0")
    entry.with_name(f".{entry.name}.crc").unlink(missing_ok=True)
    assert "RLE_DICTIONARY" in pq.ParquetFile(entry).metadata.row_group(0).column(0).encodings
    key_index.clear_cache(IcebergJava(spark))
    result = load(spark, table, ["('k007', 70, 0)", "('k299', 0, 1)", "('k300', 300, 0)"], "k, v, d", index=True)
    assert summary_of(spark, table, result.snapshot_id) == "probed 1 files, built 0, read 1"  # read, not rejected
    assert result.deleted_rows == 1
    got = {k: v for k, v, _ in rows(spark, table)}
    assert got["k007"] == 70 and got["k300"] == 300 and "k299" not in got and len(got) == 300


def test_a_corrupt_entry_is_rebuilt_with_a_warning_and_rows_stay_right(spark, namespace, cold_index, caplog):
    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.x (k BIGINT NOT NULL, v INT, d INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    table = f"{namespace}.x"
    load(spark, table, [f"({i}, {i}, 0)" for i in range(200)], "k, v, d", index=True)
    load(spark, table, ["(5, 50, 0)"], "k, v, d", index=True)
    (entry,) = entry_files(spark, table)
    original = entry.read_bytes()
    for number, damage in enumerate((_flip_middle, _truncate, _swap_positions)):
        entry.write_bytes(damage(original))
        result = load_cold(spark, caplog, table, [f"({10 + number}, 70, 0)", f"({100 + number}, 0, 1)"], "k, v, d")
        assert not summary_of(spark, table, result.snapshot_id).endswith("built 0")
        assert rejected_for(caplog)
        assert result.deleted_rows == 1
    got = dict((k, v) for k, v, _ in rows(spark, table))
    assert got[5] == 50 and [got[k] for k in (10, 11, 12)] == [70, 70, 70] and len(got) == 197
    assert not {100, 101, 102} & set(got)


def test_an_entry_swapped_with_another_files_is_rebuilt_never_used(spark, namespace, cold_index, caplog):
    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.w (k BIGINT NOT NULL, v INT, d INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    table = f"{namespace}.w"
    # Two data files of 20 rows each, keys 0-19 and 100-119; a lookup in both stores both entries.
    load(spark, table, [f"({i}, {i}, 0)" for i in range(20)], "k, v, d", index=True)
    load(spark, table, [f"({i}, {i}, 0)" for i in range(100, 120)], "k, v, d", index=True)
    load(spark, table, ["(0, 0, 0)", "(100, 100, 0)"], "k, v, d", index=True)
    first, second = [e for e in entry_files(spark, table) if len(pq_rows(e)) == 20]
    # Same row count, valid checksums: each entry now sits where the other file's belongs.
    first_bytes, second_bytes = first.read_bytes(), second.read_bytes()
    first.write_bytes(second_bytes)
    second.write_bytes(first_bytes)
    for entry in (first, second):
        entry.with_name(f".{entry.name}.crc").unlink(missing_ok=True)
    result = load_cold(spark, caplog, table, ["(5, 55, 0)", "(105, 0, 1)"], "k, v, d")
    assert rejected_for(caplog, "bound to another data file")
    assert result.deleted_rows == 1
    got = dict((k, v) for k, v, _ in rows(spark, table))
    # Used as they were, the swapped entries would miss both keys: key 5 twice, key 105 kept.
    assert got[5] == 55 and 105 not in got and len(got) == 39
    assert len([k for k, _v, _d in rows(spark, table) if k == 5]) == 1


def pq_rows(entry: Path) -> list:
    import pyarrow.parquet as pq

    return pq.read_table(entry).column("pos").to_pylist()


def _flip_middle(data: bytes) -> bytes:
    middle = len(data) // 3
    return data[:middle] + bytes(b ^ 0x5A for b in data[middle:middle + 16]) + data[middle + 16:]


def _truncate(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _swap_positions(data: bytes) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(pa.BufferReader(data))
    positions = table.column("pos").to_pylist()
    positions[0], positions[1] = positions[1], positions[0]  # still each row once, keys still sorted
    table = table.set_column(1, "pos", pa.array(positions, pa.int32()))
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)  # no checksum in this footer: rejected before any row is used
    return sink.getvalue().to_pybytes()


def test_stored_entries_keep_an_integer_key_as_longs_and_other_keys_encoded(spark, namespace, cold_index, caplog):
    import pyarrow as pa
    import pyarrow.parquet as pq

    kinds = {"n": ("k BIGINT NOT NULL", ["(30, 3, 0)", "(-10, 1, 0)", "(20, 2, 0)"], pa.int64()),
             "s": ("k VARCHAR(10) NOT NULL", ["('c', 3, 0)", "('a', 1, 0)", "('b', 2, 0)"], pa.binary())}
    stored = {}
    for name, (key, batch, key_type) in kinds.items():
        table = f"{namespace}.{name}"
        doris.create_table(spark, ddl=f"CREATE TABLE {table} ({key}, v INT, d INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
        load(spark, table, batch, "k, v, d", index=True)
        load(spark, table, batch[:1], "k, v, d", index=True)  # the first lookup stores the entry
        (entry,) = entry_files(spark, table)
        entry_rows = pq.read_table(entry)
        stored[name] = (entry, entry_rows)
        assert entry_rows.schema.field("key").type == key_type
        assert entry_rows.column("key").to_pylist() == sorted(entry_rows.column("key").to_pylist())
        assert sorted(entry_rows.column("pos").to_pylist()) == [0, 1, 2]
    assert stored["n"][1].column("key").to_pylist() == [-10, 20, 30]

    # The integer entry rewritten with its keys as bytes, under its own checksum: not this format.
    entry, rows_of_entry = stored["n"]
    checksum = pq.ParquetFile(entry).metadata.metadata
    as_bytes = rows_of_entry.set_column(0, "key", pa.array([v.to_bytes(8, "big", signed=True) for v in [-10, 20, 30]], pa.binary()))
    pq.write_table(as_bytes.replace_schema_metadata(checksum), entry)
    entry.with_name(f".{entry.name}.crc").unlink(missing_ok=True)  # else Hadoop's own file checksum rejects it first
    key_index.clear_cache(IcebergJava(spark))
    with caplog.at_level(logging.WARNING, logger="iceberg_doris.engine.key_index"):
        result = load(spark, f"{namespace}.n", ["(20, 200, 0)", "(40, 4, 0)"], "k, v, d", index=True)
    assert any("stored entry rejected" in r.getMessage() and "column key" in r.getMessage() for r in caplog.records)
    assert summary_of(spark, f"{namespace}.n", result.snapshot_id) == "probed 2 files, built 2"
    assert rows(spark, f"{namespace}.n") == [(-10, 1, 0), (20, 200, 0), (30, 3, 0), (40, 4, 0)]


def test_cleanup_removes_entries_of_unreferenced_data_files(spark, namespace, cold_index):
    import datetime as dt

    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.o (k BIGINT NOT NULL, v INT, d INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    table = f"{namespace}.o"
    load(spark, table, [f"({i}, {i}, 0)" for i in range(20)], "k, v, d", index=True)
    load(spark, table, ["(1, 10, 0)"], "k, v, d", index=True)
    before = entry_files(spark, table)
    assert len(before) == 1
    doris.compact(spark, table=table)
    compacted = load(spark, table, ["(2, 20, 0)"], "k, v, d", index=True)
    assert summary_of(spark, table, compacted.snapshot_id).startswith("probed ")
    assert len(entry_files(spark, table)) > 1
    doris.cleanup(spark, table=table, older_than=dt.datetime.now() + dt.timedelta(seconds=1), retain_last=1)
    after = entry_files(spark, table)
    assert before[0] not in after and after  # the compacted-away file's entry went; live files' stayed
    key_index.clear_cache(IcebergJava(spark))
    again = load(spark, table, ["(3, 30, 0)"], "k, v, d", index=True)
    assert ", read " in summary_of(spark, table, again.snapshot_id)
    assert rows(spark, table)[:4] == [(0, 0, 0), (1, 10, 0), (2, 20, 0), (3, 30, 0)]


def test_many_encoded_keys_in_any_order_find_their_stored_rows(spark, namespace, cold_index):
    # Thousands of composite keys per batch task, in no order: sorted there by their encodings'
    # first 16 bytes, then byte by byte where those tie (a shared 18-byte prefix, NUL bytes, one
    # key a prefix of another), so every stored key is found once and replaced.
    tables = []
    for name in ("indexed", "scanned"):
        doris.create_table(
            spark,
            ddl=f"CREATE TABLE {namespace}.{name} (w VARCHAR(40) NOT NULL, k BIGINT NOT NULL, v STRING) "
            "UNIQUE KEY(w, k) DISTRIBUTED BY HASH(k) BUCKETS 2",
        )
        tables.append(f"{namespace}.{name}")
    # w: 'customer-000000000' then a tail that may be empty, hold a NUL byte, or extend another.
    tails = "CASE id % 5 WHEN 0 THEN '' WHEN 1 THEN 'x' WHEN 2 THEN concat('x', char(0)) WHEN 3 THEN concat('x', char(0), 'y') ELSE 'xy' END"
    keys = f"concat('customer-000000000', {tails}) AS w, (id * 7919) % 1201 - 600 AS k"
    stored = f"SELECT {keys}, 'old' AS v FROM range(0, 3000, 1, 2)"
    batch = f"SELECT {keys}, 'new' AS v FROM (SELECT (id * 104729) % 6000 AS id FROM range(0, 6000, 1, 2)) WHERE id % 2 = 0"
    for table in tables:
        doris.load(spark, table=table, query=stored)
    spark.conf.set(key_index.ENABLED_CONF, "false")
    try:
        doris.load(spark, table=tables[1], query=batch)
    finally:
        spark.conf.unset(key_index.ENABLED_CONF)
    result = doris.load(spark, table=tables[0], query=batch)[0]
    assert summary_of(spark, tables[0], result.snapshot_id).startswith("probed ")
    indexed = rows(spark, tables[0])
    assert indexed == rows(spark, tables[1])
    expected_keys = spark.sql(f"SELECT DISTINCT w, k FROM ({stored} UNION ALL {batch})").count()
    assert len(indexed) == expected_keys  # one row per key
    replaced = spark.sql(f"SELECT w, k FROM ({stored}) INTERSECT SELECT w, k FROM ({batch})").count()
    snapshot = spark.sql(f"SELECT summary FROM {tables[0]}.snapshots WHERE snapshot_id = {result.snapshot_id}").collect()[0][0]
    assert int(snapshot["added-position-deletes"]) == replaced > 500
