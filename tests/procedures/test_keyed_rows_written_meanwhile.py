"""A keyed load into a table with rows writes its new rows while it looks its keys up, and collects
its keys for the key index in its counting pass. Both start before the load knows everything: a
batch that repeats a key, or holds a version that loses to a stored one by sequence value, has its
early files replaced (and deleted: nothing unreferenced is left in the table's folder); rows the
load rejects or leaves unselected never reach the lookup, so they replace nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from iceberg_doris import doris
from iceberg_doris.engine.iceberg_java import IcebergJava
from iceberg_doris.errors import LoadError
from tests.support.spark_jobs import shuffled_rows

pytestmark = pytest.mark.spark


def data_files_on_disk(spark, table: str) -> set[str]:
    location = IcebergJava(spark).load_table(IcebergJava(spark).name(table)).location()
    folder = Path(location.removeprefix("file:").removeprefix("//")) / "data"
    return {str(p) for p in folder.rglob("*.parquet")}


def data_files_referenced(spark, table: str) -> set[str]:
    """Every data file some snapshot of the table references."""
    return {r[0].removeprefix("file:").removeprefix("//") for r in spark.sql(f"SELECT file_path FROM {table}.all_data_files").collect()}


def rows(spark, table: str) -> list[tuple]:
    return sorted(tuple(r) for r in spark.table(table).collect())


def summary(spark, table: str, snapshot_id: int) -> dict[str, str]:
    return spark.sql(f"SELECT summary FROM {table}.snapshots WHERE snapshot_id = {snapshot_id}").collect()[0][0]


def test_a_batch_that_repeats_a_key_leaves_one_row_per_key_and_no_unreferenced_file(spark, namespace):
    table = f"{namespace}.repeats"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k BIGINT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    doris.load(spark, table=table, query="SELECT id AS k, concat('old', id) AS v FROM range(20)")
    result = doris.load(
        spark, table=table,
        query="SELECT * FROM VALUES (3, 'first'), (25, 'new'), (3, 'second'), (7, 'seven') AS t(k, v)",
    )[0]
    assert summary(spark, table, result.snapshot_id)["doris.key-index"].startswith("probed ")
    expected = sorted([(k, f"old{k}") for k in range(20) if k not in (3, 7)] + [(3, "second"), (7, "seven"), (25, "new")])
    assert rows(spark, table) == expected
    assert data_files_on_disk(spark, table) == data_files_referenced(spark, table)


def test_a_version_that_loses_by_sequence_is_not_written_and_leaves_no_unreferenced_file(spark, namespace, caplog):
    import logging

    caplog.set_level(logging.WARNING, logger="iceberg_doris")
    table = f"{namespace}.sequenced"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k BIGINT NOT NULL, v STRING, s INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2 "
        'PROPERTIES ("function_column.sequence_col" = "s")',
    )
    doris.load(spark, table=table, query="SELECT id AS k, concat('old', id) AS v, 10 AS s FROM range(10)")
    result = doris.load(
        spark, table=table,
        query="SELECT * FROM VALUES (1, 'older', 9), (2, 'newer', 11), (30, 'new', 1) AS t(k, v, s)",
    )[0]
    assert summary(spark, table, result.snapshot_id)["doris.key-index"].startswith("probed ")
    expected = sorted([(k, f"old{k}", 10) for k in range(10) if k != 2] + [(2, "newer", 11), (30, "new", 1)])
    assert rows(spark, table) == expected
    assert data_files_on_disk(spark, table) == data_files_referenced(spark, table)
    # The discarded files' entries were finished before the files went: no entry read a deleted file.
    assert [r.getMessage() for r in caplog.records if "key index" in r.getMessage()] == []
    # Every version winning, the rows written meanwhile are the ones committed.
    result = doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'won', 12) AS t(k, v, s)")[0]
    assert summary(spark, table, result.snapshot_id)["doris.key-index"].startswith("probed ")
    assert (1, "won", 12) in rows(spark, table)
    assert data_files_on_disk(spark, table) == data_files_referenced(spark, table)


def test_rejected_and_unselected_rows_replace_no_stored_row(spark, namespace):
    table = f"{namespace}.filtered"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k BIGINT NOT NULL, v INT NOT NULL) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    doris.load(spark, table=table, query="SELECT id AS k, CAST(id AS INT) AS v FROM range(10)")
    # k=1: v is not a number, so NULL in a NOT NULL column (rejected); k=2: left out by where.
    result = doris.load(
        spark, table=table, where="v < 500", max_filter_ratio=0.5,
        query="SELECT * FROM VALUES (1, 'x'), (2, '900'), (3, '300'), (40, '400') AS t(k, v)",
    )[0]
    assert (result.loaded_rows, result.filtered_rows, result.unselected_rows) == (2, 1, 1)
    assert summary(spark, table, result.snapshot_id)["doris.key-index"].startswith("probed ")
    expected = sorted([(k, k) for k in range(10) if k != 3] + [(3, 300), (40, 400)])
    assert rows(spark, table) == expected


def test_rows_written_while_counted_read_the_counted_rows_without_a_shuffle(spark, namespace):
    # The new rows are written from the rows the counting pass caches, while it caches them: the
    # one writing task waits for each cached partition instead of computing the source again after
    # a shuffle (a cache not yet filled is not only read).
    table = f"{namespace}.while_counted"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k BIGINT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    doris.load(spark, table=table, query="SELECT id AS k, concat('old', id) AS v FROM range(0, 3000, 1, 4)")
    outcome = []
    batch = "SELECT id * 7 AS k, concat('new', id) AS v FROM range(0, 600, 1, 4)"
    assert shuffled_rows(spark, lambda: outcome.append(doris.load(spark, table=table, query=batch)[0])) == 0
    assert summary(spark, table, outcome[0].snapshot_id)["doris.key-index"].startswith("probed ")
    expected = {k: f"old{k}" for k in range(3000)} | {i * 7: f"new{i}" for i in range(600)}
    assert rows(spark, table) == sorted(expected.items())
    assert data_files_on_disk(spark, table) == data_files_referenced(spark, table)


def test_a_load_refused_after_counting_keeps_the_table_and_leaves_no_unreferenced_file(spark, namespace):
    # The new rows were being written while the rows were counted; the count refuses the load.
    table = f"{namespace}.refused"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k BIGINT NOT NULL, v INT NOT NULL) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    doris.load(spark, table=table, query="SELECT id AS k, CAST(id AS INT) AS v FROM range(10)")
    before = rows(spark, table)
    with pytest.raises(LoadError, match="max_filter_ratio"):
        doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'x'), (2, 'y'), (3, '30') AS t(k, v)")
    assert rows(spark, table) == before
    assert data_files_on_disk(spark, table) == data_files_referenced(spark, table)


def test_the_rows_written_meanwhile_are_indexed_once_from_when_they_are_written(spark, namespace, monkeypatch):
    # Their entries are built from the moment the files exist, on the writing thread, while the
    # keys are looked up; the entries built after the lookup are only the other files' (none here).
    import threading

    from iceberg_doris.engine import key_index
    from tests.engine.key_index.test_keys import entry_files

    table = f"{namespace}.indexed_early"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k BIGINT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    doris.load(spark, table=table, query="SELECT id AS k, concat('old', id) AS v FROM range(0, 400, 1, 2)")
    before = {r[0] for r in spark.sql(f"SELECT file_path FROM {table}.data_files").collect()}
    entries_before = len(entry_files(spark, table))
    started: list[tuple[str, frozenset[str]]] = []
    real = key_index.start_indexing

    def recorded(iceberg, java_table, files, key_columns, sequence_column):
        pending = real(iceberg, java_table, files, key_columns, sequence_column)
        if pending is not None:
            started.append((threading.current_thread().name, pending.locations))
        return pending

    monkeypatch.setattr(key_index, "start_indexing", recorded)
    result = doris.load(spark, table=table, query="SELECT id * 3 AS k, 'new' AS v FROM range(0, 300, 1, 2)")[0]
    added = {r[0] for r in spark.sql(f"SELECT file_path FROM {table}.data_files").collect()} - before
    assert [(name.startswith("iceberg-doris new rows of"), locations) for name, locations in started] == [(True, added)]
    assert len(entry_files(spark, table)) == entries_before + len(added)
    assert result.loaded_rows == 300 and len(rows(spark, table)) == len(set(range(400)) | {3 * i for i in range(300)})
