"""Keyed loads index the data files they commit (``spark.doris.keyIndex.buildOnLoad``, on by
default): the next load, in this session or a new one (a cleared cache), reads or reuses those
entries and builds none on its own latency path; rows stay exactly what the scan finds."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from iceberg_doris import doris
from iceberg_doris.engine import key_index
from iceberg_doris.engine.iceberg_java import IcebergJava
from tests.engine.key_index.test_keys import entry_files, rows, summary_of

pytestmark = pytest.mark.spark


@pytest.fixture
def fresh_cache(spark):
    key_index.clear_cache(IcebergJava(spark))
    yield
    spark.conf.unset(key_index.BUILD_ON_LOAD_CONF)


def data_files(spark, table: str) -> int:
    return spark.sql(f"SELECT count(*) FROM {table}.data_files").collect()[0][0]


def test_a_load_into_an_empty_table_stores_the_entries_of_its_files(spark, namespace, fresh_cache):
    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.e (k BIGINT NOT NULL, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    table = f"{namespace}.e"
    first = doris.load(spark, table=table, query="SELECT id AS k, CAST(id AS INT) AS v FROM range(200)")[0]
    assert summary_of(spark, table, first.snapshot_id) is None  # nothing was looked up
    assert len(entry_files(spark, table)) == data_files(spark, table) == 2

    # A new session's executors have nothing cached: they read the stored entries, build none.
    key_index.clear_cache(IcebergJava(spark))
    second = doris.load(spark, table=table, query="SELECT * FROM VALUES (5, 50), (500, 1) AS t(k, v)")[0]
    assert summary_of(spark, table, second.snapshot_id) == "probed 2 files, built 0, read 2"
    # ... and the second load's own file was indexed when it committed: a warm third load builds nothing.
    third = doris.load(spark, table=table, query="SELECT * FROM VALUES (5, 51), (500, 2), (7, 70) AS t(k, v)")[0]
    assert summary_of(spark, table, third.snapshot_id) == "probed 3 files, built 0"
    got = dict(rows(spark, table))
    assert len(got) == 201 and (got[5], got[500], got[7]) == (51, 2, 70) and got[6] == 6


def test_sequence_tables_index_their_tombstones_and_keep_the_winner(spark, namespace, fresh_cache):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {namespace}.s (k BIGINT NOT NULL, v INT, ver INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
        'PROPERTIES ("function_column.sequence_col" = "ver")',
    )
    table = f"{namespace}.s"
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 10, 5), (2, 20, 5) AS t(k, v, ver)")
    # Deletes key 1 at version 6: a tombstone file, indexed with the rest.
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 0, 6) AS t(k, v, ver)", merge_type="DELETE")
    assert len(entry_files(spark, table)) == data_files(spark, table)
    key_index.clear_cache(IcebergJava(spark))
    # An older version of key 1 must not come back; a newer version of key 2 wins.
    late = doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 11, 4), (2, 21, 7) AS t(k, v, ver)")[0]
    assert summary_of(spark, table, late.snapshot_id) == "probed 2 files, built 0, read 2"
    assert rows(spark, table) == [(2, 21, 7)]


def test_switched_off_loads_leave_entries_to_the_first_lookup(spark, namespace, fresh_cache):
    spark.conf.set(key_index.BUILD_ON_LOAD_CONF, "false")
    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.o (k BIGINT NOT NULL, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    table = f"{namespace}.o"
    doris.load(spark, table=table, query="SELECT id AS k, CAST(id AS INT) AS v FROM range(50)")
    assert entry_files(spark, table) == []
    second = doris.load(spark, table=table, query="SELECT * FROM VALUES (3, 30) AS t(k, v)")[0]
    assert summary_of(spark, table, second.snapshot_id) == "probed 1 files, built 1"


def test_a_failed_index_build_never_fails_the_committed_load(spark, namespace, fresh_cache, caplog):
    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.f (k BIGINT NOT NULL, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    table = f"{namespace}.f"
    # The entry folder is a plain file: no entry can be stored there.
    location = IcebergJava(spark).load_table(IcebergJava(spark).name(table)).location()
    folder = Path(location.removeprefix("file:").removeprefix("//")) / "_doris_key_index"
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text("not a folder")
    with caplog.at_level(logging.WARNING, logger="iceberg_doris.engine.key_index"):
        result = doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 1), (2, 2) AS t(k, v)")[0]
    assert result.status == "FINISHED" and result.loaded_rows == 2
    assert any("entry not stored" in r.getMessage() or "were not built" in r.getMessage() for r in caplog.records)
    assert rows(spark, table) == [(1, 1), (2, 2)]


def test_v2_tables_look_keys_up_through_the_index_and_match_the_scan(spark, namespace, fresh_cache):
    """Format v2: position-delete files instead of deletion vectors; the probe drops what they mark."""
    tables = {}
    for name, index in (("v2i", "true"), ("v2s", "false")):
        spark.sql(
            f"CREATE TABLE {namespace}.{name} (k INT NOT NULL, v STRING) USING iceberg TBLPROPERTIES ('format-version'='2', "
            "'doris.keys-model'='UNIQUE', 'doris.key-columns'='k', 'doris.merge-on-write'='true')"
        )
        tables[name] = (f"{namespace}.{name}", index)
    summaries = []
    batches = [
        ("SELECT id AS k, concat('a', id) AS v FROM range(40)", "APPEND"),
        ("SELECT id * 2 AS k, concat('b', id) AS v FROM range(15)", "APPEND"),
        ("SELECT id * 3 AS k, 'x' AS v FROM range(10)", "DELETE"),
        ("SELECT id * 3 AS k, concat('c', id) AS v FROM range(5)", "APPEND"),
        ("SELECT id + 35 AS k, concat('d', id) AS v FROM range(10)", "APPEND"),
    ]
    for query, merge_type in batches:
        for table, index in tables.values():
            spark.conf.set(key_index.ENABLED_CONF, index)
            try:
                result = doris.load(spark, table=table, query=query, merge_type=merge_type)[0]
            finally:
                spark.conf.unset(key_index.ENABLED_CONF)
            if index == "true":
                summaries.append(summary_of(spark, table, result.snapshot_id))
    assert all(s is not None and s.startswith("probed ") for s in summaries[1:]), summaries
    indexed, scanned = (rows(spark, t) for t, _ in tables.values())
    assert indexed == scanned and len({k for k, _ in indexed}) == len(indexed)
    assert {r[0] for r in spark.sql(f"SELECT file_format FROM {tables['v2i'][0]}.delete_files").collect()} == {"PARQUET"}


def test_files_written_again_after_a_second_lookup_are_indexed_too(spark, namespace, fresh_cache):
    # A sequence table writes its new rows again when a commit lands between its lookup and its
    # commit: the entries started for the first files are not the committed ones; the committed
    # files must be indexed all the same.
    from iceberg_doris.engine import interleaving
    from tests.concurrency import once_for

    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {namespace}.r (k BIGINT NOT NULL, v INT, ver INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
        'PROPERTIES ("function_column.sequence_col" = "ver")',
    )
    table = f"{namespace}.r"
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 10, 5), (2, 20, 5) AS t(k, v, ver)")

    def competitor() -> None:
        doris.load(spark, table=table, query="SELECT * FROM VALUES (2, 21, 9) AS t(k, v, ver)", label="inner")

    with interleaving.inject(interleaving.LOOKED_UP, once_for(table, competitor)):
        outer = doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 11, 6), (2, 22, 6) AS t(k, v, ver)", label="outer")[0]
    assert spark.sql(f"SELECT summary['doris.lookups'] FROM {table}.snapshots WHERE snapshot_id = {outer.snapshot_id}").collect()[0][0] == "2"
    key_index.clear_cache(IcebergJava(spark))
    files = data_files(spark, table)
    last = doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 12, 7), (2, 0, 1) AS t(k, v, ver)")[0]
    assert summary_of(spark, table, last.snapshot_id) == f"probed {files} files, built 0, read {files}"
    assert rows(spark, table) == [(1, 12, 7), (2, 21, 9)]
