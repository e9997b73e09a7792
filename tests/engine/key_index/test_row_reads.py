"""The key index for loads that merge with the stored rows: aggregate keys, partial-column updates
and sequence tables whose tombstones copy NOT NULL values. The index finds the live rows'
positions and only those rows are read, by position, from their data files; every load gives
exactly the rows the scan gives (the same loads into a twin table with the index off), and the
snapshot summary says the index decided."""

from __future__ import annotations

import datetime as dt
import logging
import random
from decimal import Decimal
from pathlib import Path

import pytest

from iceberg_doris import doris
from iceberg_doris.engine import key_index
from iceberg_doris.engine.iceberg_java import IcebergJava
from iceberg_doris.errors import LoadError
from tests.engine.key_index.test_keys import (  # noqa: F401 - cold_index is a fixture
    cold_index, entry_files, key_literal, rows, string_literal,
)
from tests.procedures.test_keyed_loads import readers_agree
from tests.support.spark_jobs import shuffled_rows

pytestmark = pytest.mark.spark


def summary_of(spark, table: str, snapshot_id: int) -> str | None:
    summary = spark.sql(f"SELECT summary FROM {table}.snapshots WHERE snapshot_id = {snapshot_id}").collect()[0][0]
    return summary.get("doris.key-index")


def twins(spark, namespace: str, columns: str, tail: str) -> tuple[str, str]:
    """Two tables made by the same Doris DDL: one loaded with the index, one with the scan."""
    tables = []
    for name in ("indexed", "scanned"):
        doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.{name} ({columns}) {tail}")
        tables.append(f"{namespace}.{name}")
    return tables[0], tables[1]


def load_both(spark, tables: tuple[str, str], query: str, **options):
    """The same load into both twins; the indexed one's summary must say the index decided (once
    the table holds rows). Returns both results."""
    indexed, scanned = tables
    had_rows = spark.table(indexed).limit(1).count() > 0
    first = doris.load(spark, table=indexed, query=query, **options)[0]
    spark.conf.set(key_index.ENABLED_CONF, "false")
    try:
        second = doris.load(spark, table=scanned, query=query, **options)[0]
    finally:
        spark.conf.unset(key_index.ENABLED_CONF)
    assert summary_of(spark, scanned, second.snapshot_id) is None
    if had_rows:
        summary = summary_of(spark, indexed, first.snapshot_id)
        assert summary is not None and summary.startswith("probed ") and summary.endswith(" rows read by position"), summary
    assert (first.loaded_rows, first.deleted_rows) == (second.loaded_rows, second.deleted_rows)
    assert rows(spark, indexed) == rows(spark, scanned)
    return first, second


def literal(value) -> str:
    if value is None:
        return "NULL"
    return f"'{value}'" if isinstance(value, str) else str(value)


def query_of(batch: list[tuple], columns: str, types: dict[str, str] | None = None) -> str:
    """A VALUES query; ``types`` casts columns that may be all NULL in a batch."""
    names = [c.strip() for c in columns.split(",")]
    body = ", ".join("(" + ", ".join(literal(v) for v in row) + ")" for row in batch)
    selected = ", ".join(f"CAST({n} AS {types[n]}) AS {n}" if types and n in types else n for n in names)
    return f"SELECT {selected} FROM VALUES {body} AS t({columns})"


AGGREGATE_COLUMNS = "k INT NOT NULL, total BIGINT SUM, high INT MAX, last STRING REPLACE, kept STRING REPLACE_IF_NOT_NULL"
AGGREGATE_TYPES = {"total": "BIGINT", "high": "INT", "last": "STRING", "kept": "STRING"}


def aggregate_batch(generator: random.Random, number: int, keys: int = 60, size: int = 25) -> list[tuple]:
    # Keys repeat within a batch (aggregated before the merge); values NULL now and then.
    chosen = generator.choices(range(keys), k=size)
    return [
        (
            key,
            None if generator.random() < 0.1 else generator.randrange(-50, 50),
            None if generator.random() < 0.1 else generator.randrange(1000),
            f"r{number}-{key}",
            None if generator.random() < 0.4 else f"n{number}-{key}",
        )
        for key in chosen
    ]


@pytest.mark.parametrize("format_version", ["3", "2"])
def test_aggregate_loads_read_stored_rows_by_position(spark, namespace, cold_index, format_version):
    tables = twins(
        spark, namespace, AGGREGATE_COLUMNS,
        f'AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("format-version" = "{format_version}")',
    )
    generator = random.Random(21)
    for number in range(4):
        load_both(spark, tables, query_of(aggregate_batch(generator, number), "k, total, high, last, kept", AGGREGATE_TYPES))
    delete_kind = spark.sql(f"SELECT DISTINCT content, file_format FROM {tables[0]}.delete_files").collect()
    assert [tuple(r) for r in delete_kind] == ([(1, "PUFFIN")] if format_version == "3" else [(1, "PARQUET")])
    assert len(rows(spark, tables[0])) > 30


# Key columns of every kind the key codec encodes, for aggregate tables: the stored rows read by
# position take their key columns from the batch keys the probe matched (decoded from their
# encoding), not from the data file.
AGGREGATE_KEY_KINDS = {
    "bigint": ("k BIGINT NOT NULL", "k"),
    "tinyint": ("k TINYINT NOT NULL", "k"),
    "date": ("dt DATE NOT NULL", "dt"),
    "varchar": ("k VARCHAR(20) NOT NULL", "k"),
    "date_bigint": ("dt DATE NOT NULL, k BIGINT NOT NULL", "dt, k"),
    "largeint_varchar": ("k LARGEINT NOT NULL, w VARCHAR(20) NOT NULL", "k, w"),
    "datetime_decimal_boolean": ("t DATETIME NOT NULL, m DECIMAL(10, 2) NOT NULL, b BOOLEAN NOT NULL", "t, m, b"),
}


def aggregate_key_literal(kind: str, key: int) -> str:
    if kind == "date":
        return f"DATE_ADD(DATE'2024-01-01', {key * 37 - 700})"
    return key_literal({"tinyint": "tinyint_sequence"}.get(kind, kind), key)


def files_with_keys_from_probe(spark) -> int:
    return key_index.files_with_keys_from_probe(IcebergJava(spark))


@pytest.mark.parametrize("kind", sorted(AGGREGATE_KEY_KINDS))
def test_aggregate_loads_take_stored_keys_from_the_probe_for_every_key_kind(spark, namespace, cold_index, kind):
    key_ddl, keys = AGGREGATE_KEY_KINDS[kind]
    tables = twins(
        spark, namespace, f"{key_ddl}, n BIGINT SUM, last STRING REPLACE",
        f"AGGREGATE KEY({keys}) DISTRIBUTED BY HASH({keys.split(',')[0]}) BUCKETS 2",
    )
    generator = random.Random(29)
    before = files_with_keys_from_probe(spark)
    for number in range(3):
        chosen = generator.choices(range(40), k=25)  # keys repeat within a batch, and across batches
        values = [
            f"({aggregate_key_literal(kind, key)}, "
            f"{'CAST(NULL AS BIGINT)' if generator.random() < 0.1 else generator.randrange(-50, 50)}, 'r{number}-{key}')"
            for key in chosen
        ]
        load_both(spark, tables, f"SELECT * FROM VALUES {', '.join(values)} AS t({keys}, n, last)")
    assert files_with_keys_from_probe(spark) - before >= 2  # a hit file in each load after the first
    assert len(rows(spark, tables[0])) > 20


def test_an_aggregate_load_needing_only_the_keys_opens_no_data_file(spark, namespace, cold_index):
    # Only REPLACE columns: the stored values are never used, and the keys come from the probe.
    tables = twins(
        spark, namespace, "k VARCHAR(20) NOT NULL, dt DATE NOT NULL, last STRING REPLACE",
        "AGGREGATE KEY(k, dt) DISTRIBUTED BY HASH(k) BUCKETS 2",
    )
    first = ", ".join(f"({string_literal(k)}, DATE'2024-02-0{1 + k % 5}', 'a{k}')" for k in range(30))
    load_both(spark, tables, f"SELECT * FROM VALUES {first} AS t(k, dt, last)")
    decoded, probed = files_read_from_pages(spark), files_with_keys_from_probe(spark)
    second = ", ".join(f"({string_literal(k)}, DATE'2024-02-0{1 + k % 5}', 'b{k}')" for k in range(0, 40, 3))
    load_both(spark, tables, f"SELECT * FROM VALUES {second} AS t(k, dt, last)")
    assert files_read_from_pages(spark) == decoded
    assert files_with_keys_from_probe(spark) > probed
    assert sorted(r[2] for r in rows(spark, tables[0]) if r[2].startswith("b")) == sorted(f"b{k}" for k in range(0, 40, 3))


def test_partial_updates_read_the_unsupplied_columns_by_position(spark, namespace, cold_index):
    tables = twins(spark, namespace, "k INT NOT NULL, a INT, b STRING, c INT", "UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    generator = random.Random(5)
    load_both(spark, tables, query_of([(k, k, f"b{k}", -k) for k in range(40)], "k, a, b, c"))
    for number in range(5):
        keys = generator.sample(range(60), 20)  # some keys new: their unsupplied columns are NULL
        if number % 2:
            batch, columns = [(k, number * 100 + k) for k in keys], "k, a"
        else:
            batch, columns = [(k, f"b{number}-{k}", generator.randrange(9)) for k in keys], "k, b, c"
        load_both(spark, tables, query_of(batch, columns), columns=columns, partial_columns=True)
    assert len(rows(spark, tables[0])) > 40


@pytest.mark.parametrize("nested", [False, True], ids=["vectorized", "row-by-row"])
def test_partial_updates_carry_every_column_type_read_by_position(spark, namespace, cold_index, nested):
    # Primitive columns are read through Iceberg's vectorized reader; a nested column sends the
    # file's read row by row. Either way the unsupplied columns come back exactly.
    columns = "k INT NOT NULL, a INT, d DATE, m DECIMAL(12, 2), w DECIMAL(30, 4), t DATETIME, f BOOLEAN, x DOUBLE, s STRING"
    tables = twins(spark, namespace, columns + (", tags ARRAY<INT>" if nested else ""), "UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    values = (
        "CAST(id AS INT) AS k, CAST(id AS INT) AS a, date_add(DATE'2024-01-01', CAST(id AS INT)) AS d, "
        "CAST(id / 7 AS DECIMAL(12, 2)) AS m, CAST(id * 1000000000000 + 0.5 AS DECIMAL(30, 4)) AS w, "
        "CAST(TIMESTAMP_NTZ'2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id) AS TIMESTAMP_NTZ) AS t, "
        "id % 2 = 0 AS f, id / 3.0 AS x, IF(id % 5 = 0, NULL, concat('s', id)) AS s"
        + (", IF(id % 4 = 0, NULL, array(CAST(id AS INT), NULL)) AS tags" if nested else "")
    )
    load_both(spark, tables, f"SELECT {values} FROM range(0, 50)")
    # Every third key, some of them new (no stored row: NULL in the unsupplied columns).
    result, _ = load_both(spark, tables, "SELECT CAST(id * 3 AS INT) AS k, -CAST(id AS INT) AS a FROM range(0, 20)",
                          columns="k, a", partial_columns=True)
    assert result.loaded_rows == 20
    stored = {row[0]: row for row in rows(spark, tables[0])}
    assert stored[3][1] == -1 and stored[3][8] == "s3" and stored[57][1] == -19 and stored[57][2] is None
    if nested:
        assert stored[6][9] == [6, None] and stored[12][9] is None


@pytest.mark.parametrize(
    "shape, repeated",
    [("aggregate", "in another file"), ("aggregate", "in one file"), ("partial", "in both ways")],
)
def test_keys_a_plain_insert_repeated_merge_every_live_row(spark, namespace, cold_index, shape, repeated):
    # A plain INSERT knows no key: key 5 gains a second live row in another file, key 12 two live
    # rows in one file. The index must see either and group the live rows per key as the scan
    # does; taken as one row per key, a repeated key would be written once per live row.
    columns, keys = ("n BIGINT SUM, high INT MAX", "AGGREGATE KEY(k)") if shape == "aggregate" else ("n BIGINT, high INT", "UNIQUE KEY(k)")
    tables = twins(spark, namespace, f"k INT NOT NULL, {columns}", f"{keys} DISTRIBUTED BY HASH(k) BUCKETS 1")
    load_both(spark, tables, "SELECT CAST(id AS INT) AS k, id AS n, CAST(id AS INT) AS high FROM range(1, 10)")
    plain = {"in another file": ["(5, 50, 1)"], "in one file": ["(12, 70, 2)", "(12, 700, 90)"]}
    inserted = plain.get(repeated, plain["in another file"] + plain["in one file"])
    for table in tables:
        spark.sql(f"INSERT INTO {table} VALUES {', '.join(inserted)}")
    # Key 12's two rows share one file: the newer is the one at the larger position.
    last_of_12 = spark.sql(f"SELECT high FROM {tables[0]} WHERE k = 12 ORDER BY _pos DESC LIMIT 1").collect()
    extra = {} if shape == "aggregate" else {"columns": "k, n", "partial_columns": True}
    batch = [(5, 1000), (12, 1000), (2, 1000)]
    query = query_of(batch, "k, n") if extra else query_of([row + (0,) for row in batch], "k, n, high")
    load_both(spark, tables, query, **extra)
    stored = rows(spark, tables[0])
    expected_keys = sorted(set(range(1, 10)) | {12})
    assert [row[0] for row in stored] == expected_keys  # one row per key again
    by_key = {row[0]: row[1:] for row in stored}
    if shape == "partial":  # n replaced; the unsupplied column from the newest live row (last commit, last position)
        assert by_key[5] == (1000, 5 if repeated == "in one file" else 1) and by_key[2] == (1000, 2)
        assert by_key[12] == (1000, last_of_12[0][0] if repeated != "in another file" else None)
    elif repeated == "in another file":
        assert by_key[5] == (5 + 50 + 1000, 5) and by_key[12] == (1000, 0)
    else:
        assert by_key[12] == (70 + 700 + 1000, 90) and by_key[5] == (1005, 5)


@pytest.mark.parametrize("shape", ["aggregate", "partial"])
def test_a_small_merge_with_stored_rows_shuffles_no_row(spark, namespace, cold_index, shape):
    # The few stored rows the batch meets are broadcast to the tasks reading the batch, which merge
    # and write where they read: shuffling both sides to join them cost the load two Spark jobs.
    columns, keys = ("n BIGINT SUM, w STRING MAX", "AGGREGATE KEY(k)") if shape == "aggregate" else ("n BIGINT, w STRING", "UNIQUE KEY(k)")
    table = f"{namespace}.broadcast_{shape}"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, {columns}) {keys} DISTRIBUTED BY HASH(k) BUCKETS 2")
    doris.load(spark, table=table, query="SELECT CAST(id AS INT) AS k, id AS n, concat('w', id) AS w FROM range(0, 3000, 1, 4)")
    extra = {} if shape == "aggregate" else {"columns": "k, n", "partial_columns": True}
    batch = "SELECT CAST(id * 7 AS INT) AS k, 1 AS n" + (", 'a' AS w" if shape == "aggregate" else "") + " FROM range(0, 600, 1, 4)"
    outcome = []
    assert shuffled_rows(spark, lambda: outcome.append(doris.load(spark, table=table, query=batch, **extra)[0])) == 0
    assert summary_of(spark, table, outcome[0].snapshot_id).endswith(" 429 rows read by position")
    stored = {row[0]: row[1:] for row in rows(spark, table)}
    assert len(stored) == 3000 + len([k for k in range(0, 4200, 7) if k >= 3000])
    assert stored[7] == ((8, "w7") if shape == "aggregate" else (1, "w7")) and stored[3003] == (1, "a" if shape == "aggregate" else None)


def test_live_rows_known_one_per_key_take_the_grouped_types(spark, namespace):
    """Reshaped without grouping, the live rows keep the columns and types the grouping gives (a
    SUM widens its type), so merging computes alike either way."""
    from iceberg_doris.engine.iceberg_tables import read_model
    from iceberg_doris.engine.table_names import TableName
    from iceberg_doris.merge_on_write import plan

    columns = {
        "t": ("TINYINT", "SUM"), "i": ("INT", "SUM"), "m": ("DECIMAL(9, 2)", "SUM"), "w": ("DECIMAL(36, 0)", "SUM"),
        "f": ("FLOAT", "SUM"), "x": ("DOUBLE", "SUM"), "h": ("INT", "MAX"), "l": ("SMALLINT", "MIN"),
        "r": ("STRING", "REPLACE"), "q": ("DATE", "REPLACE_IF_NOT_NULL"),
    }
    body = ", ".join(f"{name} {kind} {aggregation}" for name, (kind, aggregation) in columns.items())
    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.typed (k BIGINT NOT NULL, {body}) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    iceberg = IcebergJava(spark)
    model = read_model(iceberg, iceberg.load_table(TableName(namespace, "typed")))
    shape = plan.KeyedLoadShape(model, tuple(c.name for c in model.columns), partial=False)
    selected = ", ".join(f"CAST(id AS {kind}) AS {plan.LIVE}{name}" for name, (kind, _) in columns.items() if kind != "DATE")
    live = spark.sql(
        f"SELECT id AS k, {selected}, date_add(DATE'2024-01-01', CAST(id AS INT)) AS {plan.LIVE}q, "
        f"concat('file-', id % 2) AS {plan.FILE}, id AS {plan.POSITION} FROM range(0, 6)"
    )
    grouped = plan.one_per_key(live, shape)
    reshaped = plan.one_per_key(live, shape, already=True)
    assert [(f.name, f.dataType) for f in reshaped.schema.fields] == [(f.name, f.dataType) for f in grouped.schema.fields]
    assert sorted(reshaped.collect()) == sorted(grouped.collect())


def test_strict_partial_updates_agree_and_refuse_new_keys_alike(spark, namespace, cold_index):
    tables = twins(spark, namespace, "k INT NOT NULL, a INT, b STRING", "UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    load_both(spark, tables, query_of([(k, k, f"b{k}") for k in range(30)], "k, a, b"))
    generator = random.Random(8)
    for number in range(3):
        batch = [(k, 1000 * number + k) for k in generator.sample(range(30), 12)]
        load_both(spark, tables, query_of(batch, "k, a"), columns="k, a", partial_columns=True, strict_mode=True)
    messages = []
    for index in (True, False):
        spark.conf.set(key_index.ENABLED_CONF, str(index).lower())
        try:
            with pytest.raises(LoadError) as refused:
                doris.load(spark, table=tables[0 if index else 1], query=query_of([(3, 1), (99, 2)], "k, a"), columns="k, a",
                           partial_columns=True, strict_mode=True)
        finally:
            spark.conf.unset(key_index.ENABLED_CONF)
        messages.append(str(refused.value).replace(tables[0 if index else 1], "<table>"))
    # Doris filters the row with the new key (99): 1 of 2 rows is more than max_filter_ratio 0.
    for message in messages:
        assert message.startswith("too many filtered rows: 1 of 2 rows were filtered, more than max_filter_ratio 0.0")
        assert "the row's key is not in the table" in message
    assert rows(spark, tables[0]) == rows(spark, tables[1])  # nothing committed by either


def test_partial_updates_of_a_sequence_table(spark, namespace, cold_index):
    tables = twins(
        spark, namespace, "k INT NOT NULL, a INT, b STRING, s INT",
        'UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("function_column.sequence_col" = "s")',
    )
    load_both(spark, tables, query_of([(k, k, f"b{k}", 5) for k in range(40)], "k, a, b, s"))
    generator = random.Random(3)
    for number in range(5):
        keys = generator.sample(range(50), 18)
        if number % 2:
            # The sequence column not supplied: each row keeps its stored sequence value.
            batch, columns = [(k, f"b{number}-{k}") for k in keys], "k, b"
        else:
            batch, columns = [(k, number * 100 + k, generator.randrange(3, 9)) for k in keys], "k, a, s"
        load_both(spark, tables, query_of(batch, columns), columns=columns, partial_columns=True)


def test_sequence_table_with_a_not_null_column_and_deletes(spark, namespace, py_catalog, cold_index):
    tables = twins(
        spark, namespace, "k INT NOT NULL, v STRING, d INT, s INT, w INT NOT NULL",
        'UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("function_column.sequence_col" = "s")',
    )
    generator = random.Random(11)
    deleted = 0
    for number in range(6):
        batch = []
        for key in generator.sample(range(40), 20):
            delete = 1 if number and generator.random() < 0.35 else 0
            # Out-of-order sequence values with ties.
            batch.append((key, f"v{number}-{key}", delete, generator.randrange(6), generator.randrange(100)))
        indexed, _ = load_both(spark, tables, query_of(batch, "k, v, d, s, w"), merge_type="MERGE", delete_on="d = 1")
        deleted += indexed.deleted_rows
    assert deleted > 0
    tombstones = spark.sql(f"SELECT count(*) FROM {tables[0]}.data_files").collect()[0][0]
    assert tombstones > 6  # tombstone files were written besides each load's rows
    assert readers_agree(spark, py_catalog, tables[0]) == rows(spark, tables[1])


def test_renamed_and_added_columns_are_read_by_field_id(spark, namespace, cold_index):
    tables = twins(spark, namespace, AGGREGATE_COLUMNS, "AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    generator = random.Random(2)
    columns = "k, total, high, last, kept"
    for number in range(2):
        load_both(spark, tables, query_of(aggregate_batch(generator, number, keys=30), columns, AGGREGATE_TYPES))
    for table in tables:
        spark.sql(f"ALTER TABLE {table} RENAME COLUMN total TO amount")
        spark.sql(f"ALTER TABLE {table} RENAME COLUMN kept TO note")
        spark.sql(f"ALTER TABLE {table} ADD COLUMN extra INT")  # no aggregation: REPLACE
    columns = "k, amount, high, last, note, extra"
    types = {"amount": "BIGINT", "high": "INT", "last": "STRING", "note": "STRING", "extra": "INT"}
    for number in range(2, 5):
        batch = [row + (None if generator.random() < 0.5 else number,) for row in aggregate_batch(generator, number, keys=30)]
        load_both(spark, tables, query_of(batch, columns, types))
    # Old files hold total/kept under their old names and no extra: the merged rows kept their values.
    assert [f.name for f in spark.table(tables[0]).schema.fields] == ["k", "amount", "high", "last", "note", "extra"]
    assert spark.sql(f"SELECT count(*) FROM {tables[0]} WHERE amount IS NOT NULL").collect()[0][0] > 20


def test_partial_updates_keep_renamed_and_added_columns(spark, namespace, cold_index):
    tables = twins(spark, namespace, "k INT NOT NULL, a INT, b STRING", "UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    load_both(spark, tables, query_of([(k, k * 10, f"b{k}") for k in range(6)], "k, a, b"))
    for table in tables:
        spark.sql(f"ALTER TABLE {table} RENAME COLUMN a TO amount")
        spark.sql(f"ALTER TABLE {table} ADD COLUMN c INT")
    # Kept: amount (stored as a in the old file) and c (not in the old file at all: NULL).
    load_both(spark, tables, query_of([(1, "x"), (2, "y")], "k, b"), columns="k, b", partial_columns=True)
    load_both(spark, tables, query_of([(2, 7), (3, 8)], "k, c"), columns="k, c", partial_columns=True)
    assert rows(spark, tables[0]) == [
        (0, 0, "b0", None), (1, 10, "x", None), (2, 20, "y", 7), (3, 30, "b3", 8), (4, 40, "b4", None), (5, 50, "b5", None)
    ]


def test_many_row_groups_are_read_by_position(spark, namespace, cold_index):
    """Files of many row groups: only the row groups holding a hit are read, and positions count
    across the skipped ones."""
    import pyarrow.parquet as pq

    tables = twins(spark, namespace, AGGREGATE_COLUMNS, "AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    for table in tables:
        spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('write.parquet.row-group-size-bytes' = '2048')")
    base = f"SELECT CAST(id AS INT) AS k, id AS total, CAST(id % 7 AS INT) AS high, 'r' || id AS last, CAST(NULL AS STRING) AS kept FROM range(3000)"
    load_both(spark, tables, base)
    files = [r[0] for r in spark.sql(f"SELECT file_path FROM {tables[0]}.data_files").collect()]
    assert max(pq.ParquetFile(f.removeprefix("file:")).num_row_groups for f in files) > 5
    generator = random.Random(4)
    for number in range(3):
        batch = aggregate_batch(generator, number, keys=3000, size=15)  # a few rows in a few row groups
        batch += [(2999, 1, 1, "last row", None), (0, 1, 1, "first row", "n")]
        load_both(spark, tables, query_of(batch, "k, total, high, last, kept", AGGREGATE_TYPES))


def test_a_corrupt_or_missing_entry_still_gives_the_right_rows(spark, namespace, cold_index, caplog):
    tables = twins(spark, namespace, AGGREGATE_COLUMNS, "AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    generator = random.Random(9)
    columns = "k, total, high, last, kept"
    for number in range(2):
        load_both(spark, tables, query_of(aggregate_batch(generator, number), columns, AGGREGATE_TYPES))
    stored = entry_files(spark, tables[0])
    assert stored
    for entry in stored:
        data = entry.read_bytes()
        entry.write_bytes(data[: len(data) // 3] + bytes(b ^ 0x5A for b in data[len(data) // 3:len(data) // 3 + 16]) + data[len(data) // 3 + 16:])
    key_index.clear_cache(IcebergJava(spark))
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="iceberg_doris.engine.key_index"):
        indexed, _ = load_both(spark, tables, query_of(aggregate_batch(generator, 2), columns, AGGREGATE_TYPES))
    assert any("stored entry rejected" in r.getMessage() for r in caplog.records)
    assert " built 0" not in summary_of(spark, tables[0], indexed.snapshot_id)
    for entry in entry_files(spark, tables[0]):
        Path(entry).unlink()
    key_index.clear_cache(IcebergJava(spark))
    indexed, _ = load_both(spark, tables, query_of(aggregate_batch(generator, 3), columns, AGGREGATE_TYPES))
    assert " built 0" not in summary_of(spark, tables[0], indexed.snapshot_id)


def test_what_the_index_cannot_decide_still_scans_and_says_why(spark, namespace, cold_index):
    """A data file that is not Parquet (plain Spark wrote ORC): the probe cannot read it, the load scans."""
    table = f"{namespace}.orc"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, n BIGINT SUM) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 1), (2, 2) AS t(k, n)")
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('write.format.default' = 'orc')")
    spark.sql(f"INSERT INTO {table} VALUES (4, 5)")
    spark.sql(f"ALTER TABLE {table} UNSET TBLPROPERTIES ('write.format.default')")
    summed = doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 3), (4, 3), (5, 1) AS t(k, n)")[0]
    assert summary_of(spark, table, summed.snapshot_id) == "scan: the probe failed"
    assert rows(spark, table) == [(1, 4), (2, 2), (4, 8), (5, 1)]


def files_read_from_pages(spark) -> int:
    return key_index.files_read_from_pages(IcebergJava(spark))


def chunk_encodings(spark, table: str) -> set[tuple[str, frozenset[str]]]:
    """(column, encodings) of every column chunk of the table's data files."""
    import pyarrow.parquet as pq

    found = set()
    for (path,) in spark.sql(f"SELECT file_path FROM {table}.data_files").collect():
        meta = pq.ParquetFile(path.removeprefix("file:")).metadata
        for group in range(meta.num_row_groups):
            for column in range(meta.num_columns):
                chunk = meta.row_group(group).column(column)
                found.add((chunk.path_in_schema, frozenset(chunk.encodings)))
    return found


def test_stored_rows_are_decoded_from_pages_of_every_type_and_encoding(spark, namespace, cold_index):
    # The hits' values are decoded from the pages themselves: small pages, dictionaries that
    # overflow into PLAIN pages mid-chunk (s repeats five values, then every value is new), runs of NULLs, and columns whose type was widened after
    # their files were written (INT to BIGINT, FLOAT to DOUBLE, a decimal's precision).
    columns = (
        "k INT NOT NULL, a INT, g FLOAT, d DATE, p DECIMAL(6, 2), m DECIMAL(12, 2), w DECIMAL(30, 4), t DATETIME, "
        "f BOOLEAN, x DOUBLE, s STRING, c STRING"
    )
    tables = twins(spark, namespace, columns, "UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    for table in tables:
        spark.sql(
            f"ALTER TABLE {table} SET TBLPROPERTIES ('write.parquet.page-row-limit' = '40', 'write.parquet.dict-size-bytes' = '2000')"
        )
    values = (
        "CAST(id AS INT) AS k, IF(id % 3 = 0, NULL, CAST(id * 7 AS INT)) AS a, CAST(id / 4.0 AS FLOAT) AS g, "
        "date_add(DATE'2024-01-01', CAST(id % 400 AS INT)) AS d, CAST(id / 9 AS DECIMAL(6, 2)) AS p, "
        "IF(id BETWEEN 200 AND 420, NULL, CAST(id / 7 AS DECIMAL(12, 2))) AS m, "
        "CAST(id * -1000000000000 + 0.25 AS DECIMAL(30, 4)) AS w, "
        "CAST(TIMESTAMP_NTZ'2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id) AS TIMESTAMP_NTZ) AS t, "
        "IF(id % 5 = 0, NULL, id % 2 = 0) AS f, id / 3.0 AS x, "
        "IF(id % 11 = 0, NULL, IF(id < 1200, concat('s', id % 5), concat('s', id))) AS s, "
        "concat('c', id % 4) AS c"
    )
    load_both(spark, tables, f"SELECT {values} FROM range(0, 3000)")
    encodings = chunk_encodings(spark, tables[0])
    assert ("s", frozenset({"PLAIN_DICTIONARY", "PLAIN", "RLE", "BIT_PACKED"})) in encodings, encodings  # overflowed into PLAIN
    assert ("c", frozenset({"PLAIN_DICTIONARY", "RLE", "BIT_PACKED"})) in encodings, encodings  # dictionary pages only
    for table in tables:
        spark.sql(f"ALTER TABLE {table} ALTER COLUMN a TYPE BIGINT")
        spark.sql(f"ALTER TABLE {table} ALTER COLUMN g TYPE DOUBLE")
        spark.sql(f"ALTER TABLE {table} ALTER COLUMN p TYPE DECIMAL(9, 2)")
    generator = random.Random(17)
    before = files_read_from_pages(spark)
    for number in range(3):
        keys = sorted(set(generator.sample(range(3000), 150)) | {0, 2999, 3000 + number})  # the first, the last, a new one
        batch, columns = [(k, f"u{number}-{k}") for k in keys], "k, c"
        load_both(spark, tables, query_of(batch, columns), columns=columns, partial_columns=True)
    assert files_read_from_pages(spark) - before >= 3 * 2  # every hit file of every load, two buckets
    stored = {row[0]: row for row in rows(spark, tables[0])}
    assert stored[2999][1:6] == (20993, 749.75, dt.date(2024, 7, 18), Decimal("333.22"), Decimal("428.43"))


@pytest.mark.parametrize("layout", ["v2 pages", "delta encodings"])
def test_stored_rows_of_files_another_writer_made_are_read_by_position(spark, namespace, cold_index, tmp_path, layout):
    # Files written by pyarrow with field ids, added with add_files: v2 data pages (dictionary and
    # PLAIN, zstd) are decoded from their pages; DELTA encodings are not, and go through Iceberg's
    # row reader (its vectorized one lacks DELTA_BYTE_ARRAY, so such tables turn vectorized reads
    # off, as the CHANGELOG says). Either way the rows are those the scan gives.
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([
        pa.field(name, kind, nullable=name != "k", metadata={"PARQUET:field_id": str(i + 1)})
        for i, (name, kind) in enumerate([("k", pa.int64()), ("a", pa.int64()), ("s", pa.string()), ("x", pa.float64())])
    ])
    ids = list(range(2000))
    data = pa.table({
        "k": ids, "a": [None if i % 4 == 0 else i * 3 for i in ids], "s": [None if i % 6 == 0 else f"s{i % 50}" for i in ids],
        "x": [i / 8 for i in ids],
    }, schema=schema)
    source = tmp_path / "written"
    source.mkdir()
    options = {"data_page_version": "2.0", "data_page_size": 512, "row_group_size": 700, "compression": "zstd"}
    if layout == "v2 pages":
        options |= {"use_dictionary": ["s"]}
    else:
        options |= {"use_dictionary": False, "column_encoding": {"a": "DELTA_BINARY_PACKED", "s": "DELTA_BYTE_ARRAY"}}
    pq.write_table(data, source / "part-0.parquet", **options)
    tables = []
    catalog = spark.conf.get("spark.sql.defaultCatalog")
    for name in ("indexed", "scanned"):
        table = f"{namespace}.{name}"
        spark.sql(
            f"CREATE TABLE {table} (k BIGINT NOT NULL, a BIGINT, s STRING, x DOUBLE) USING iceberg TBLPROPERTIES "
            "('format-version'='3', 'doris.keys-model'='UNIQUE', 'doris.key-columns'='k', 'doris.merge-on-write'='true')"
        )
        if layout == "delta encodings":
            spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('read.parquet.vectorization.enabled' = 'false')")
        spark.sql(f"CALL {catalog}.system.add_files(table => '{table}', source_table => '`parquet`.`{source}`')").collect()
        tables.append(table)
    before = files_read_from_pages(spark)
    keys = sorted(set(random.Random(6).sample(range(2000), 120)) | {0, 1999, 2500})
    load_both(spark, tuple(tables), query_of([(k, -k) for k in keys], "k, x"), columns="k, x", partial_columns=True)
    assert files_read_from_pages(spark) - before == (1 if layout == "v2 pages" else 0)
    stored = {row[0]: row for row in rows(spark, tables[0])}
    assert stored[1999] == (1999, 5997, "s49", -1999.0) and stored[0] == (0, None, None, 0.0) and stored[2500] == (2500, None, None, -2500.0)


def test_stored_rows_read_through_icebergs_readers_agree_with_the_pages(spark, namespace, cold_index):
    # spark.doris.keyIndex.rowsFromPages=false, the way out should a file's pages be decoded
    # wrongly: the same keyed loads, their hits read through Iceberg's readers instead of decoded
    # from the pages, leave the same rows as the default (and as the scan).
    columns = "k INT NOT NULL, a INT, d DATE, m DECIMAL(12, 2), t DATETIME, f BOOLEAN, s STRING"
    values = (
        "CAST(id AS INT) AS k, IF(id % 3 = 0, NULL, CAST(id * 7 AS INT)) AS a, date_add(DATE'2024-01-01', CAST(id % 400 AS INT)) AS d, "
        "IF(id % 7 = 0, NULL, CAST(id / 7 AS DECIMAL(12, 2))) AS m, "
        "CAST(TIMESTAMP_NTZ'2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id) AS TIMESTAMP_NTZ) AS t, "
        "IF(id % 5 = 0, NULL, id % 2 = 0) AS f, IF(id % 11 = 0, NULL, concat('s', id)) AS s"
    )
    results = {}
    for from_pages in ("true", "false"):
        if from_pages == "false":
            spark.conf.set(key_index.ROWS_FROM_PAGES_CONF, "false")
        try:
            tables = tuple(f"{namespace}.{name}_{from_pages}" for name in ("indexed", "scanned"))
            for table in tables:
                doris.create_table(spark, ddl=f"CREATE TABLE {table} ({columns}) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
            load_both(spark, tables, f"SELECT {values} FROM range(0, 600)")
            generator = random.Random(29)
            decoded = files_read_from_pages(spark)
            for number in range(3):
                keys = sorted(set(generator.sample(range(600), 40)) | {0, 599, 600 + number})  # the first, the last, a new one
                if number % 2:
                    batch, batch_columns = [(k, number * 100 + k) for k in keys], "k, a"
                else:
                    batch, batch_columns = [(k, f"u{number}-{k}") for k in keys], "k, s"
                load_both(spark, tables, query_of(batch, batch_columns), columns=batch_columns, partial_columns=True)
            if from_pages == "false":
                assert files_read_from_pages(spark) == decoded  # no hit file was decoded from its pages
            else:
                assert files_read_from_pages(spark) > decoded
            results[from_pages] = rows(spark, tables[0])
        finally:
            spark.conf.unset(key_index.ROWS_FROM_PAGES_CONF)
    assert results["false"] == results["true"]
    assert len(results["true"]) == 603
