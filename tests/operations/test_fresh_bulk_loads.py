"""Keyed bulk loads into an empty table are written in one pass and checked after: no counting
pass of their own when no key repeats and no row deletes (the progress log shows a ``write``
phase and no ``check``), the new files' key-index entries built on the way; a batch that repeats
a key or deletes falls back to the usual path and keeps Doris's rules."""

from __future__ import annotations

import logging

import pytest

from iceberg_doris import doris
from iceberg_doris.engine import key_index
from iceberg_doris.engine.iceberg_java import IcebergJava
from iceberg_doris.errors import ConfigurationError
from iceberg_doris.operations.progress import LOGGER_NAME
from tests.concurrency import readers_agree, unique_table, values
from tests.engine.key_index.test_keys import entry_files, summary_of
from tests.support import duckdb_reader
from tests.support.spark_conf import session_settings

pytestmark = pytest.mark.spark


def phases_of(caplog, table: str) -> list[str]:
    """The phases the load of ``table`` reported as done."""
    return [r.doris_phase for r in caplog.records if r.name == LOGGER_NAME and r.doris_table == table and "done" in r.getMessage()]


@pytest.fixture
def phases(caplog):
    caplog.set_level(logging.INFO, logger=LOGGER_NAME)
    return caplog


def data_files(spark, table: str) -> int:
    return spark.sql(f"SELECT count(*) FROM {table}.data_files").collect()[0][0]


def test_distinct_keys_into_an_empty_unique_table_are_written_in_one_pass_and_indexed(spark, namespace, py_catalog, phases):
    table = unique_table(spark, namespace)
    result = doris.load(spark, table=table, query="SELECT CAST(id * 7 AS INT) AS k, CAST(id AS STRING) AS v, 1 AS s FROM range(300)")[0]
    assert result.loaded_rows == 300 and result.deleted_rows == 0
    done = phases_of(phases, table)
    assert "write" in done and "check" not in done
    assert len(entry_files(spark, table)) == data_files(spark, table) == 2
    # The entries serve the next load, in a new session too: nothing is built.
    key_index.clear_cache(IcebergJava(spark))
    second = doris.load(spark, table=table, query=values(["(7,'seven',2)", "(14,'fourteen',2)", "(1,'new',2)"]))[0]
    assert summary_of(spark, table, second.snapshot_id).endswith("built 0, read 2")
    rows = readers_agree(spark, py_catalog, table)
    assert len(rows) == 301 and (7, "seven", 2) in rows and (0, "0", 1) in rows and (1, "new", 2) in rows


def test_a_repeated_key_falls_back_and_the_last_version_wins(spark, namespace, py_catalog, phases):
    table = unique_table(spark, namespace)
    result = doris.load(spark, table=table, query=values(["(1,'first',1)", "(2,'b',1)", "(1,'second',1)"]))[0]
    assert result.loaded_rows == 3
    assert "check" in phases_of(phases, table)  # counted again on the usual path
    assert readers_agree(spark, py_catalog, table) == [(1, "second", 1), (2, "b", 1)]
    # Only the usual path's files were committed; the one-pass attempt's files were not.
    assert spark.sql(f"SELECT sum(record_count) FROM {table}.data_files").collect()[0][0] == 2


def test_a_batch_that_deletes_falls_back_and_deletes_nothing_stored(spark, namespace, py_catalog, phases):
    table = unique_table(spark, namespace)
    doris.load(spark, table=table, query=values(["(1,'a',1)", "(2,'gone',1)"]), merge_type="MERGE", delete_on="v = 'gone'")
    assert "check" in phases_of(phases, table)
    assert readers_agree(spark, py_catalog, table) == [(1, "a", 1)]


def test_aggregate_tables_merge_a_repeated_key_and_write_distinct_keys_in_one_pass(spark, namespace, py_catalog, phases):
    for name in ("once", "twice"):
        doris.create_table(
            spark,
            ddl=f"CREATE TABLE {namespace}.{name} (k BIGINT NOT NULL, n BIGINT SUM, m INT MAX, r STRING REPLACE) "
            "AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2",
        )
    once, twice = f"{namespace}.once", f"{namespace}.twice"
    doris.load(spark, table=once, query="SELECT * FROM VALUES (1, 10, 1, 'a'), (2, 5, 7, 'b') AS t(k, n, m, r)")
    assert "check" not in phases_of(phases, once)
    doris.load(spark, table=twice, query="SELECT * FROM VALUES (1, 10, 1, 'a'), (1, 5, 7, 'b') AS t(k, n, m, r)")
    assert "check" in phases_of(phases, twice)
    assert readers_agree(spark, py_catalog, once) == [(1, 10, 1, "a"), (2, 5, 7, "b")]
    assert readers_agree(spark, py_catalog, twice) == [(1, 15, 7, "b")]


def test_composite_keys_in_range_partitions_and_a_sequence_column(spark, namespace, py_catalog, phases):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {namespace}.c (d DATE NOT NULL, k BIGINT NOT NULL, v STRING, s INT) UNIQUE KEY(d, k) "
        "PARTITION BY RANGE(d) (PARTITION p1 VALUES LESS THAN ('2024-02-01'), PARTITION p2 VALUES LESS THAN ('2024-03-01')) "
        'DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("function_column.sequence_col" = "s")',
    )
    table = f"{namespace}.c"
    query = (
        "SELECT date_add(DATE'2024-01-20', CAST(id % 20 AS INT)) AS d, id AS k, CAST(id AS STRING) AS v, CAST(id % 3 AS INT) AS s "
        "FROM range(200)"
    )
    result = doris.load(spark, table=table, query=query)[0]
    assert result.loaded_rows == 200 and "check" not in phases_of(phases, table)
    # Same (d, k) twice across the batch would have fallen back; none does, so every row is there.
    assert spark.table(table).count() == 200
    # A later version of one key replaces it; an older one does not.
    doris.load(spark, table=table, query="SELECT * FROM VALUES (DATE'2024-01-21', 1, 'newer', 5), (DATE'2024-01-22', 2, 'older', 0) AS t(d, k, v, s)")
    rows = {(r.d.isoformat(), r.k): (r.v, r.s) for r in spark.table(table).collect()}
    assert rows[("2024-01-21", 1)] == ("newer", 5) and rows[("2024-01-22", 2)] == ("2", 2)
    # Spark, pyiceberg and DuckDB read the same 200 rows.
    seen = sorted(tuple(r) for r in spark.table(table).collect())
    loaded = py_catalog.load_table(table)
    assert sorted(tuple(r.values()) for r in loaded.scan().to_arrow().to_pylist()) == seen
    assert sorted(tuple(r) for r in duckdb_reader.read_rows(loaded.metadata_location, "*", order_by="1, 2")) == seen
    assert len(seen) == 200


def files_per_partition_added(spark, table: str, before: set[str]) -> list[int]:
    """How many data files each partition gained since ``before`` (file paths), checking each is sorted by k."""
    import pyarrow.parquet as pq

    counts: dict[tuple, int] = {}
    for row in spark.sql(f"SELECT file_path, partition FROM {table}.data_files").collect():
        if row.file_path in before:
            continue
        keys = pq.read_table(row.file_path.removeprefix("file:"), columns=["k"]).column("k").to_pylist()
        assert keys == sorted(keys), row.file_path
        counts[tuple(row.partition)] = counts.get(tuple(row.partition), 0) + 1
    return [counts[p] for p in sorted(counts)]


def test_a_small_upsert_is_written_as_one_sorted_file_per_partition(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, buckets=4)
    doris.load(spark, table=table, query="SELECT CAST(id AS INT) AS k, CAST(id AS STRING) AS v, 1 AS s FROM range(0, 4000, 1, 4)")
    before = {r.file_path for r in spark.sql(f"SELECT file_path FROM {table}.data_files").collect()}
    # Keys from every bucket, read from 4 Spark partitions in no key order: one task writes them all.
    batch = "SELECT CAST((id * 7919) % 6000 AS INT) AS k, 'new' AS v, 2 AS s FROM range(0, 3000, 1, 4)"
    result = doris.load(spark, table=table, query=batch)[0]
    assert result.loaded_rows == 3000
    assert files_per_partition_added(spark, table, before) == [1] * 4  # one sorted file per bucket
    rows = readers_agree(spark, py_catalog, table)
    expected = {(i * 7919) % 6000 for i in range(3000)}
    assert len(rows) == len(set(range(4000)) | expected)
    assert all((v, s) == ("new", 2) for k, v, s in rows if k in expected)


@pytest.mark.parametrize("shape", ["aggregate", "partial"])
def test_a_small_merge_with_stored_rows_is_written_as_one_file_per_partition(spark, namespace, py_catalog, shape):
    # Merged rows come from a join, which Spark estimates as the product of its sides; the
    # batch's size bounds them, so a few merged rows go to one writing task, not to a range
    # distribution over every shuffle partition (uncoalesced here, so it would show as files).
    model = "n BIGINT SUM) AGGREGATE KEY(k)" if shape == "aggregate" else "n BIGINT, w STRING) UNIQUE KEY(k)"
    table = f"{namespace}.merged_{shape}"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, {model} DISTRIBUTED BY HASH(k) BUCKETS 2")
    first = "SELECT CAST(id AS INT) AS k, id AS n" + ("" if shape == "aggregate" else ", 'old' AS w")
    doris.load(spark, table=table, query=f"{first} FROM range(0, 2000, 1, 4)")
    before = {r.file_path for r in spark.sql(f"SELECT file_path FROM {table}.data_files").collect()}
    settings = {"spark.sql.adaptive.coalescePartitions.enabled": "false", "spark.sql.shuffle.partitions": "8"}
    batch = "SELECT CAST(id * 3 AS INT) AS k, 1000000 AS n FROM range(0, 300, 1, 4)"
    with session_settings(spark, settings):
        extra = {} if shape == "aggregate" else {"columns": "k, n", "partial_columns": True}
        result = doris.load(spark, table=table, query=batch, **extra)[0]
    assert result.loaded_rows == 300
    assert files_per_partition_added(spark, table, before) == [1, 1]  # one sorted file per bucket
    rows = {row[0]: row[1:] for row in readers_agree(spark, py_catalog, table)}
    assert len(rows) == 2000
    for k in range(2000):
        hit = k % 3 == 0 and k < 900
        n = (k + 1000000 if shape == "aggregate" else 1000000) if hit else k  # SUM adds; a partial update replaces n
        assert rows[k] == ((n,) if shape == "aggregate" else (n, "old"))


@pytest.fixture
def range_distributed_writes(spark):
    """Every staged write range-distributed (as large loads are) and not coalesced into one task,
    so one partition's rows reach several files."""
    settings = {
        "spark.doris.load.smallWriteMaxBytes": "0",
        "spark.sql.adaptive.coalescePartitions.enabled": "false",
        "spark.sql.shuffle.partitions": "4",
    }
    with session_settings(spark, settings):
        yield


def test_range_distributed_loads_split_a_partition_into_disjoint_files_and_stay_one_pass(
    spark, namespace, py_catalog, phases, range_distributed_writes
):
    table = unique_table(spark, namespace, buckets=1)
    query = "SELECT CAST(id * 7 AS INT) AS k, CAST(id AS STRING) AS v, 1 AS s FROM range(4000)"
    result = doris.load(spark, table=table, query=query)[0]
    assert result.loaded_rows == 4000
    assert "check" not in phases_of(phases, table)  # the split files' key ranges are disjoint
    ranges = spark.sql(f"SELECT lower_bounds, upper_bounds FROM {table}.data_files").collect()
    assert len(ranges) > 1  # one bucket, several files
    assert len(entry_files(spark, table)) == len(ranges)
    rows = readers_agree(spark, py_catalog, table)
    assert len(rows) == 4000 and rows[:2] == [(0, "0", 1), (7, "1", 1)]


def test_range_distributed_loads_still_find_a_repeated_key(spark, namespace, py_catalog, phases, range_distributed_writes):
    table = unique_table(spark, namespace, buckets=1)
    # Key 7 twice (ids 1 and 4000): ranges hold equal keys in one task, so one file shows the repeat.
    query = "SELECT CAST(CASE WHEN id = 4000 THEN 7 ELSE id * 7 END AS INT) AS k, CAST(id AS STRING) AS v, 1 AS s FROM range(4001)"
    result = doris.load(spark, table=table, query=query)[0]
    assert result.loaded_rows == 4001
    assert "check" in phases_of(phases, table)  # fell back to the usual path
    rows = readers_agree(spark, py_catalog, table)
    assert len(rows) == 4000 and (7, "4000", 1) in rows


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("spark.doris.load.smallWriteMaxBytes", "16MB",
         r"spark\.doris\.load\.smallWriteMaxBytes must be a whole number of bytes, not '16MB'"),
        # The old name is refused with the new one named, not quietly ignored.
        ("spark.doris.load.hashWriteMaxBytes", "1000", r"hashWriteMaxBytes is now called spark\.doris\.load\.smallWriteMaxBytes"),
    ],
)
def test_a_bad_small_write_limit_setting_is_refused_with_the_setting_named(spark, namespace, key, value, message):
    table = unique_table(spark, namespace)
    spark.conf.set(key, value)
    try:
        with pytest.raises(ConfigurationError, match=message):
            doris.load(spark, table=table, query=values(["(1,'a',1)"]))
    finally:
        spark.conf.unset(key)
    assert spark.table(table).count() == 0  # nothing committed
