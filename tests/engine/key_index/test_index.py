"""The primary-key index of unique-key loads: the keys a load replaces are found by probing
per-file sorted keys (built on first use, cached in the executor) instead of scanning; the result
is exactly what the scan finds, for files written by any engine, across compaction and rollback."""

from __future__ import annotations

import random

import pytest

from iceberg_doris import doris
from iceberg_doris.engine import key_index
from iceberg_doris.engine.iceberg_java import IcebergJava
from tests.procedures.test_keyed_loads import readers_agree, rows, unique_table, values

pytestmark = pytest.mark.spark


def key_index_summary(spark, table: str, snapshot_id: int) -> str | None:
    summary = spark.sql(f"SELECT summary FROM {table}.snapshots WHERE snapshot_id = {snapshot_id}").collect()[0][0]
    return summary.get("doris.key-index")


@pytest.fixture
def cold_index(spark):
    """Every test starts without cached index entries (local mode: the executors are this JVM), and
    loads leave their new files' entries to the first lookup (what these tests watch being built;
    test_on_load.py covers the default, loads indexing their own files)."""
    key_index.clear_cache(IcebergJava(spark))
    spark.conf.set(key_index.BUILD_ON_LOAD_CONF, "false")
    yield
    spark.conf.unset(key_index.BUILD_ON_LOAD_CONF)
    spark.conf.unset(key_index.ENABLED_CONF)
    spark.conf.unset(key_index.MAX_ROWS_CONF)


def test_loads_find_keys_through_the_index_built_once_per_file(spark, namespace, py_catalog, cold_index):
    table = unique_table(spark, namespace, buckets=1)
    first = doris.load(spark, table=table, query=values(["(1,'a',1)", "(2,'b',1)", "(3,'c',1)"]))[0]
    assert key_index_summary(spark, table, first.snapshot_id) is None  # an empty table: nothing to look up

    second = doris.load(spark, table=table, query=values(["(2,'b2',2)", "(4,'d',2)"]))[0]
    assert key_index_summary(spark, table, second.snapshot_id) == "probed 1 files, built 1"
    third = doris.load(spark, table=table, query=values(["(1,'x',0)", "(2,'y',0)"]), merge_type="MERGE", delete_on="s = 0 AND k = 1")[0]
    # The first file's entry comes from the cache; the second load's file is new.
    assert key_index_summary(spark, table, third.snapshot_id) == "probed 2 files, built 1"
    assert third.deleted_rows == 1
    assert readers_agree(spark, py_catalog, table) == [(2, "y", 0), (3, "c", 1), (4, "d", 2)]
    assert key_index.cached_rows(IcebergJava(spark)) >= 3 + 2


def test_index_and_scan_agree_over_random_upserts_deletes_and_reinserts(spark, namespace, cold_index):
    indexed = unique_table(spark, namespace, "indexed", buckets=2)
    scanned = unique_table(spark, namespace, "scanned", buckets=2)
    generator = random.Random(7)
    expected: dict[int, tuple[str, int]] = {}
    used_index = 0
    for batch in range(6):
        chosen = generator.sample(range(60), 25)
        batch_rows = []
        for key in chosen:
            delete = generator.random() < 0.3
            batch_rows.append((key, f"v{batch}-{key}", 1 if delete else 0))
            if delete:
                expected.pop(key, None)
            else:
                expected[key] = (f"v{batch}-{key}", 0)
        query = values([f"({k},'{v}',{s})" for k, v, s in batch_rows])
        result = doris.load(spark, table=indexed, query=query, merge_type="MERGE", delete_on="s = 1")[0]
        used_index += key_index_summary(spark, indexed, result.snapshot_id) is not None
        spark.conf.set(key_index.ENABLED_CONF, "false")
        try:
            plain = doris.load(spark, table=scanned, query=query, merge_type="MERGE", delete_on="s = 1")[0]
        finally:
            spark.conf.unset(key_index.ENABLED_CONF)
        assert key_index_summary(spark, scanned, plain.snapshot_id) is None
        assert result.deleted_rows == plain.deleted_rows
    assert used_index == 5  # every load but the first, into an empty table
    wanted = sorted((k, v, s) for k, (v, s) in expected.items())
    assert rows(spark, indexed) == rows(spark, scanned) == wanted


def test_a_batch_repeating_keys_keeps_each_keys_last_version_through_the_index(spark, namespace, py_catalog, cold_index):
    """Keys are collected before the batch is de-duplicated; a repeated key sends the batch
    through the window that keeps each key's last version, and the index still decides."""
    indexed = unique_table(spark, namespace, "indexed", buckets=1)
    scanned = unique_table(spark, namespace, "scanned", buckets=1)
    base = values(["(1,'a',0)", "(2,'b',0)", "(3,'c',0)"])
    # Key 1: updated twice, the second wins. Key 2: deleted, then written again. Key 3: written, then deleted.
    batch = values(["(1,'x',0)", "(2,'gone',1)", "(3,'c2',0)", "(1,'y',0)", "(2,'back',0)", "(3,'c3',1)", "(4,'d',0)"])
    outcomes = []
    for table, enabled in ((indexed, "true"), (scanned, "false")):
        spark.conf.set(key_index.ENABLED_CONF, enabled)
        doris.load(spark, table=table, query=base)
        outcomes.append(doris.load(spark, table=table, query=batch, merge_type="MERGE", delete_on="s = 1")[0])
    spark.conf.unset(key_index.ENABLED_CONF)
    assert key_index_summary(spark, indexed, outcomes[0].snapshot_id) == "probed 1 files, built 1"
    assert key_index_summary(spark, scanned, outcomes[1].snapshot_id) is None
    assert outcomes[0].deleted_rows == outcomes[1].deleted_rows == 1
    assert readers_agree(spark, py_catalog, indexed) == rows(spark, scanned) == [(1, "y", 0), (2, "back", 0), (4, "d", 0)]


def test_files_of_other_engines_are_indexed_unsorted_and_with_duplicate_keys(spark, namespace, py_catalog, cold_index):
    table = unique_table(spark, namespace, buckets=1)
    doris.load(spark, table=table, query=values(["(5,'a',0)", "(1,'b',0)"]))
    # Plain Spark writes keys unsorted and, not knowing the key, a second live row for key 5.
    spark.sql(f"INSERT INTO {table} VALUES (9,'p',0), (3,'q',0), (5,'dup',0), (7,'r',0)")
    result = doris.load(spark, table=table, query=values(["(5,'new',1)", "(3,'q2',1)", "(8,'s',1)"]))[0]
    assert key_index_summary(spark, table, result.snapshot_id) == "probed 2 files, built 2"
    assert readers_agree(spark, py_catalog, table) == [
        (1, "b", 0), (3, "q2", 1), (5, "new", 1), (7, "r", 0), (8, "s", 1), (9, "p", 0)
    ]


def test_compaction_and_rollback_keep_lookups_exact(spark, namespace, cold_index):
    table = unique_table(spark, namespace, buckets=1)
    doris.load(spark, table=table, query=values([f"({k},'a',0)" for k in range(20)]))
    doris.load(spark, table=table, query=values([f"({k},'b',0)" for k in range(0, 20, 2)]))
    before_compaction = spark.sql(f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at DESC LIMIT 1").collect()[0][0]
    doris.compact(spark, table=table)
    compacted = doris.load(spark, table=table, query=values([f"({k},'c',0)" for k in range(0, 20, 5)]))[0]
    # Compaction replaced the first file (it had deletes) by a new one; the second load's file was
    # never probed before. Both entries are built; the replaced file's entry is no longer used.
    assert key_index_summary(spark, table, compacted.snapshot_id) == "probed 2 files, built 2"
    expected = {k: ("c" if k % 5 == 0 else "b" if k % 2 == 0 else "a") for k in range(20)}
    assert rows(spark, table) == [(k, v, 0) for k, v in sorted(expected.items())]

    spark.sql(f"CALL system.rollback_to_snapshot('{table}', {before_compaction})")
    rolled = doris.load(spark, table=table, query=values(["(1,'d',0)", "(2,'d',0)"]))[0]
    assert key_index_summary(spark, table, rolled.snapshot_id).startswith("probed 2 files")
    expected = {k: ("b" if k % 2 == 0 else "a") for k in range(20)} | {1: "d", 2: "d"}
    assert rows(spark, table) == [(k, v, 0) for k, v in sorted(expected.items())]


def test_the_cache_budget_is_auto_unless_a_number_of_rows_is_set(spark, cold_index):
    from iceberg_doris.errors import ConfigurationError

    assert key_index.max_rows(spark) is None  # unset: each executor takes a fifth of its heap
    spark.conf.set(key_index.MAX_ROWS_CONF, " Auto ")
    assert key_index.max_rows(spark) is None
    spark.conf.set(key_index.MAX_ROWS_CONF, "7")
    assert key_index.max_rows(spark) == 7
    for bad in ("-1", "lots"):
        spark.conf.set(key_index.MAX_ROWS_CONF, bad)
        with pytest.raises(ConfigurationError, match=r"spark\.doris\.keyIndex\.maxRows must be .*auto"):
            key_index.max_rows(spark)


def test_a_tiny_cache_budget_evicts_and_stays_exact(spark, namespace, cold_index):
    spark.conf.set(key_index.MAX_ROWS_CONF, "5")
    table = unique_table(spark, namespace, buckets=1)
    for batch in range(4):
        doris.load(spark, table=table, query=values([f"({k},'v{batch}',0)" for k in range(batch, 12)]))
    last = doris.load(spark, table=table, query=values([f"({k},'z',0)" for k in range(0, 12, 3)]))[0]
    summary = key_index_summary(spark, table, last.snapshot_id)
    assert summary is not None and ", read " in summary  # evicted entries came back from their stored files
    assert key_index.cached_rows(IcebergJava(spark)) <= 12  # the budget, or the one entry in use
    expected = {k: "v3" if k >= 3 else "v2" if k == 2 else "v1" if k == 1 else "v0" for k in range(12)}
    expected |= {k: "z" for k in range(0, 12, 3)}
    assert rows(spark, table) == [(k, v, 0) for k, v in sorted(expected.items())]


def test_loads_merging_with_stored_rows_read_them_by_position(spark, namespace, cold_index):
    doris.create_table(
        spark, ddl=f"CREATE TABLE {namespace}.a (k INT NOT NULL, n BIGINT SUM) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
    )
    doris.load(spark, table=f"{namespace}.a", query="SELECT * FROM VALUES (1, 1), (2, 2) AS t(k, n)")
    summed = doris.load(spark, table=f"{namespace}.a", query="SELECT * FROM VALUES (1, 3) AS t(k, n)")[0]
    assert key_index_summary(spark, f"{namespace}.a", summed.snapshot_id) == "probed 1 files, built 1, 1 rows read by position"
    assert rows(spark, f"{namespace}.a") == [(1, 4), (2, 2)]

    # A NOT NULL value column: a winning delete's tombstone copies it from the stored row.
    table = unique_table(spark, namespace, "seq", properties='"function_column.sequence_col" = "s"', extra_columns=", w INT NOT NULL", buckets=1)
    doris.load(spark, table=table, query=values(["(1,'a',5,1)"], "k, v, s, w"))
    older = doris.load(spark, table=table, query=values(["(1,'old',4,2)"], "k, v, s, w"))[0]
    assert key_index_summary(spark, table, older.snapshot_id) == "probed 1 files, built 1, 1 rows read by position"
    assert rows(spark, table) == [(1, "a", 5, 1)]


def test_positions_of_every_roaring_container_kind_reach_the_deletion_vectors(spark, namespace, py_catalog, cold_index):
    """Probes ship positions as portable Roaring bitmaps: a dense run, a dense scattered block and
    sparse positions beyond 2^16 (run, bitmap and array containers) must all arrive intact."""
    table = unique_table(spark, namespace, buckets=1)
    doris.load(spark, table=table, query="SELECT CAST(id AS INT) AS k, 'base' AS v, 0 AS s FROM range(200000)")
    dense_run = list(range(0, 30000))
    scattered = [k for k in range(70000, 130000) if k % 3 != 0]  # 40,000 in one 65,536 block
    sparse = list(range(140000, 200000, 997))
    changed = dense_run + scattered + sparse
    batch = spark.createDataFrame([(k, "new", 1) for k in changed], "k INT, v STRING, s INT")
    result = doris.load(spark, table=table, source=batch)[0]
    assert key_index_summary(spark, table, result.snapshot_id) is not None
    seen = spark.sql(f"SELECT v, count(*) AS n, sum(k) AS total FROM {table} GROUP BY v ORDER BY v").collect()
    assert [tuple(r) for r in seen] == [
        ("base", 200000 - len(changed), sum(range(200000)) - sum(changed)), ("new", len(changed), sum(changed))
    ]
    loaded = py_catalog.load_table(table).scan(row_filter="v = 'new'").to_arrow()
    assert sorted(loaded.column("k").to_pylist()) == changed


def test_files_imported_without_field_ids_are_indexed_by_column_name(spark, namespace, py_catalog, tmp_path, cold_index):
    # add_files imports a Parquet file whose columns carry no Iceberg field ids and come in another
    # order than the table's; the table's name mapping says which is which. An entry built by
    # position took v for the key: key 2 was found nowhere and stored twice.
    table = f"{namespace}.imported"
    spark.sql(
        f"CREATE TABLE {table} (k BIGINT NOT NULL, v BIGINT) USING iceberg TBLPROPERTIES ('format-version'='3', "
        "'doris.keys-model'='UNIQUE', 'doris.key-columns'='k', 'doris.merge-on-write'='true')"
    )
    source = str(tmp_path / "plain")
    spark.sql("SELECT id * 1000 + 7 AS v, id AS k FROM range(5)").coalesce(1).write.parquet(source)
    catalog = spark.conf.get("spark.sql.defaultCatalog")
    spark.sql(f"CALL {catalog}.system.add_files(table => '{table}', source_table => '`parquet`.`{source}`')").collect()
    [result] = doris.load(spark, table=table, query="SELECT 2L AS k, 99L AS v")
    assert readers_agree(spark, py_catalog, table) == [(0, 7), (1, 1007), (2, 99), (3, 3007), (4, 4007)]
    summary = spark.sql(f"SELECT summary FROM {table}.snapshots WHERE snapshot_id = {result.snapshot_id}").collect()[0][0]
    assert summary["doris.key-index"].startswith("probed 1 files, built 1")
