"""Unique- and aggregate-key loads: merge-on-write delete bitmaps, batch delete, sequence columns,
partial updates, aggregates, concurrency; every reader sees one row per key."""

from __future__ import annotations

import threading

import pytest
from pyspark.errors import IllegalArgumentException

from iceberg_doris import doris
from iceberg_doris.errors import LoadError
from tests.support import duckdb_reader

pytestmark = pytest.mark.spark


def values(rows: list[str], columns: str = "k, v, s") -> str:
    return "SELECT * FROM VALUES " + ", ".join(rows) + f" AS t({columns})"


def rows(spark, table: str) -> list[tuple]:
    return [tuple(r) for r in spark.sql(f"SELECT * FROM {table} ORDER BY 1").collect()]


def readers_agree(spark, py_catalog, table: str) -> list[tuple]:
    """Spark, pyiceberg and DuckDB see the same rows (no filter, no merge); returns them."""
    seen = rows(spark, table)
    loaded = py_catalog.load_table(table)
    names = [f.name for f in loaded.schema().fields]
    arrow = sorted(tuple(r[n] for n in names) for r in loaded.scan().to_arrow().to_pylist())
    duck = duckdb_reader.read_rows(loaded.metadata_location, "*", order_by="1")
    assert arrow == seen == [tuple(r) for r in duck]
    return seen


def unique_table(
    spark, namespace: str, name: str = "u", properties: str = "", extra_columns: str = "", buckets: int = 2
) -> str:
    props = f"PROPERTIES ({properties})" if properties else ""
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {namespace}.{name} (k INT NOT NULL, v STRING, s INT{extra_columns}) UNIQUE KEY(k) "
        f"DISTRIBUTED BY HASH(k) BUCKETS {buckets} {props}",
    )
    return f"{namespace}.{name}"


def test_upserts_replace_rows_with_deletion_vectors_only(spark, namespace, py_catalog):
    table = unique_table(spark, namespace)
    doris.load(spark, table=table, query=values(["(1,'a',1)", "(2,'b',1)", "(3,'c',1)"]))
    result = doris.load(spark, table=table, query=values(["(2,'b2',1)", "(4,'d',1)", "(4,'d2',2)"]))[0]
    assert result.loaded_rows == 3
    assert readers_agree(spark, py_catalog, table) == [(1, "a", 1), (2, "b2", 1), (3, "c", 1), (4, "d2", 2)]
    files = {r.content: r.n for r in spark.sql(f"SELECT content, count(*) AS n FROM {table}.files GROUP BY content").collect()}
    assert files.get(2, 0) == 0  # never equality deletes
    assert files[1] >= 1  # deletion vectors
    formats = {r[0] for r in spark.sql(f"SELECT file_format FROM {table}.delete_files").collect()}
    assert formats == {"PUFFIN"}
    snapshot = spark.sql(f"SELECT operation, summary FROM {table}.snapshots WHERE snapshot_id = {result.snapshot_id}").collect()[0]
    assert snapshot.operation == "overwrite" and "deleted-data-files" not in snapshot.summary  # no data file rewritten


def test_batch_delete_merge_types(spark, namespace, py_catalog):
    table = unique_table(spark, namespace)
    doris.load(spark, table=table, query=values(["(1,'a',0)", "(2,'b',0)", "(3,'c',0)"]))
    deleted = doris.load(spark, table=table, query=values(["(2,'ignored',0)", "(9,'absent',0)"]), merge_type="DELETE")[0]
    assert deleted.deleted_rows == 1  # deleting an absent key is a no-op
    merged = doris.load(spark, table=table, query=values(["(1,'x',1)", "(3,'c2',0)", "(5,'e',0)"]), merge_type="MERGE", delete_on="s = 1")[0]
    assert merged.deleted_rows == 1
    assert readers_agree(spark, py_catalog, table) == [(3, "c2", 0), (5, "e", 0)]


def test_batch_delete_rules_use_dorises_messages(spark, namespace):
    table = unique_table(spark, namespace)
    with pytest.raises(LoadError, match=r"^not support DELETE ON clause when merge type is not MERGE\.$"):
        doris.load(spark, table=table, query=values(["(1,'a',1)"]), merge_type="DELETE", delete_on="s = 1")
    with pytest.raises(IllegalArgumentException, match=r"^Excepted DELETE ON clause when merge type is MERGE\.$"):
        spark.sql(f"CALL doris.load(table => '{table}', query => \"{values(['(1,2,3)'])}\", merge_type => 'MERGE')")


def test_sequence_column_larger_wins_in_any_load_order(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, properties='"function_column.sequence_col" = "s"')
    doris.load(spark, table=table, query=values(["(1,'a',5)", "(1,'b',4)", "(2,'c',5)", "(3,'n1',NULL)"]))
    doris.load(spark, table=table, query=values(["(1,'old',3)", "(2,'new',6)", "(3,'n2',NULL)", "(4,'x',-1)"]))
    doris.load(spark, table=table, query=values(["(4,'null loses',NULL)", "(2,'tie wins',6)"]))
    assert readers_agree(spark, py_catalog, table) == [(1, "a", 5), (2, "tie wins", 6), (3, "n2", None), (4, "x", -1)]


def test_sequence_delete_tombstones(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, properties='"function_column.sequence_col" = "s"')
    doris.load(spark, table=table, query=values(["(1,'a',10)", "(2,'b',10)"]))
    doris.load(spark, table=table, query=values(["(1,'del',9)"]), merge_type="DELETE")  # smaller: ignored
    doris.load(spark, table=table, query=values(["(2,'del',10)"]), merge_type="DELETE")  # equal: deletes
    assert rows(spark, table) == [(1, "a", 10)]
    doris.load(spark, table=table, query=values(["(2,'late',3)"]))  # older than the delete: stays deleted
    assert rows(spark, table) == [(1, "a", 10)]
    doris.load(spark, table=table, query=values(["(2,'back',11)"]))
    assert readers_agree(spark, py_catalog, table) == [(1, "a", 10), (2, "back", 11)]


def test_missing_sequence_value_is_refused(spark, namespace):
    table = unique_table(spark, namespace, properties='"function_column.sequence_type" = "int"')
    with pytest.raises(LoadError, match=r"^Table u has sequence column, need to specify the sequence column: give sequence_col "
                       r"=> '<source column>', or a __DORIS_SEQUENCE_COL__ column in the source or the columns mapping$"):
        doris.load(spark, table=table, query=values(["(1,'a',1)"]))
    doris.load(spark, table=table, query=values(["(1,'a',7)", "(1,'b',3)"]), sequence_col="s")
    doris.load(spark, table=table, query=values(["(1,'c',5)"]), sequence_col="s")
    assert [r[:2] for r in rows(spark, table)] == [(1, "a")]
    hidden = spark.sql(f"SELECT __DORIS_SEQUENCE_COL__ FROM {table}").collect()[0][0]
    assert hidden == 7


def test_partial_column_update(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, extra_columns=", w STRING NOT NULL DEFAULT 'dw'")
    doris.load(spark, table=table, query=values(["(1,'a',1,'w1')", "(2,'b',2,'w2')"], "k, v, s, w"))
    doris.load(spark, table=table, query="SELECT 1 AS k, 'a2' AS v UNION ALL SELECT 3, 'new'", columns="k, v", partial_columns=True)
    assert readers_agree(spark, py_catalog, table) == [(1, "a2", 1, "w1"), (2, "b", 2, "w2"), (3, "new", None, "dw")]
    with pytest.raises(LoadError, match="^too many filtered rows: 1 of 1 rows were filtered"):
        doris.load(spark, table=table, query="SELECT 4 AS k, 'x' AS v", columns="k, v", partial_columns=True, strict_mode=True)


def test_aggregate_table_merges_each_load(spark, namespace, py_catalog):
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {namespace}.agg (k INT NOT NULL, total BIGINT SUM, hi INT MAX, lo INT MIN,
        last STRING REPLACE, keep STRING REPLACE_IF_NOT_NULL) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1""",
    )
    table = f"{namespace}.agg"
    cols = "k, total, hi, lo, last, keep"
    doris.load(spark, table=table, query=values(["(1, 5, 5, 5, 'a', 'x')", "(1, 1, 9, 2, 'b', NULL)"], cols))
    doris.load(spark, table=table, query=values(["(1, 10, 7, 1, 'c', NULL)", "(2, 1, 1, 1, 'z', 'z')"], cols))
    assert readers_agree(spark, py_catalog, table) == [(1, 16, 9, 1, "c", "x"), (2, 1, 1, 1, "z", "z")]


def test_replace_version_column_orders_replace_columns(spark, namespace):
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {namespace}.ver (k INT NOT NULL, ver INT REPLACE, val STRING REPLACE, n BIGINT SUM)
        AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replace_version_column" = "ver")""",
    )
    table = f"{namespace}.ver"
    doris.load(spark, table=table, query=values(["(1, 5, 'five', 1)", "(1, 3, 'three', 1)"], "k, ver, val, n"))
    doris.load(spark, table=table, query=values(["(1, 4, 'four', 1)"], "k, ver, val, n"))
    assert rows(spark, table) == [(1, 5, "five", 3)]


def test_format_v2_tables_get_position_delete_files(spark, namespace, py_catalog):
    v2 = f"{namespace}.v2"
    # A v2 table made by Spark, given the Doris unique-key model through its properties.
    spark.sql(
        f"CREATE TABLE {v2} (k INT NOT NULL, v STRING, s INT) USING iceberg TBLPROPERTIES ('format-version'='2', "
        "'write.wap.enabled'='true', 'doris.keys-model'='UNIQUE', 'doris.key-columns'='k', 'doris.merge-on-write'='true')"
    )
    doris.load(spark, table=v2, query=values(["(1,'a',1)", "(2,'b',1)"]))
    doris.load(spark, table=v2, query=values(["(1,'a2',1)"]))
    doris.load(spark, table=v2, query=values(["(2,'x',1)"]), merge_type="DELETE")
    assert readers_agree(spark, py_catalog, v2) == [(1, "a2", 1)]
    assert {r[0] for r in spark.sql(f"SELECT file_format FROM {v2}.delete_files").collect()} == {"PARQUET"}


def test_concurrent_writers_on_overlapping_keys_leave_one_row_per_key(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, properties='"function_column.sequence_col" = "s"')
    doris.load(spark, table=table, query=values([f"({k},'init',0)" for k in range(10)]))
    errors: list[str] = []

    def writer(number: int) -> None:
        try:
            for round_ in range(2):
                sequence = number * 10 + round_
                batch = [f"({k},'w{number}r{round_}',{sequence})" for k in range(number, 10, 2)]
                doris.load(spark, table=table, query=values(batch))
        except Exception as error:  # noqa: BLE001 - collected for the assertion
            errors.append(str(error))

    threads = [threading.Thread(target=writer, args=(n,)) for n in (1, 2, 3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    seen = readers_agree(spark, py_catalog, table)
    assert [r[0] for r in seen] == list(range(10))  # one row per key
    expected = {}
    for k in range(10):
        writers = [n for n in (1, 2, 3) if k >= n and (k - n) % 2 == 0]
        expected[k] = f"w{max(writers)}r1" if writers else "init"
    assert {r[0]: r[1] for r in seen} == expected  # the largest sequence value won, whatever the timing


def test_compact_drops_deleted_rows_and_keeps_young_tombstones(spark, namespace, py_catalog):
    # One bucket: the first load is one file, of which two rows get replaced or deleted.
    table = unique_table(spark, namespace, properties='"function_column.sequence_col" = "s"', buckets=1)
    doris.load(spark, table=table, query=values(["(1,'a',1)", "(2,'b',1)", "(3,'c',1)"]))
    doris.load(spark, table=table, query=values(["(1,'a2',2)"]))
    doris.load(spark, table=table, query=values(["(2,'gone',5)"]), merge_type="DELETE")
    before = readers_agree(spark, py_catalog, table)
    result = spark.sql(f"CALL doris.compact('{table}')").collect()[0]
    assert result.rewritten_data_files >= 1 and result.removed_delete_files >= 1
    assert result.kept_tombstone_files == 1  # the delete of key 2 still guards it
    assert readers_agree(spark, py_catalog, table) == before == [(1, "a2", 2), (3, "c", 1)]
    partially_deleted = spark.sql(
        f"SELECT count(*) FROM {table}.files f WHERE content = 0 AND EXISTS "
        f"(SELECT 1 FROM {table}.delete_files d WHERE d.referenced_data_file = f.file_path) "
        f"AND record_count > (SELECT max(d.record_count) FROM {table}.delete_files d WHERE d.referenced_data_file = f.file_path)"
    ).collect()[0][0]
    assert partially_deleted == 0  # every remaining bitmap hides a whole tombstone file
    doris.load(spark, table=table, query=values(["(2,'late',4)"]))  # older than the kept tombstone
    assert [r[0] for r in rows(spark, table)] == [1, 3]
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('doris.tombstone-retention-hours' = '0')")
    dropped = spark.sql(f"CALL doris.compact('{table}')").collect()[0]
    assert dropped.dropped_tombstone_files == 1 and dropped.kept_tombstone_files == 0
    assert readers_agree(spark, py_catalog, table) == [(1, "a2", 2), (3, "c", 1)]


def test_cdc_stream_in_any_batch_order_leaves_what_doris_would(spark, namespace, py_catalog):
    """Upserts and deletes with out-of-order sequence values: whatever order the batches load in,
    each key ends as its largest-sequence event says (absent if that event is a delete)."""
    import random

    generator = random.Random(20261121)
    events = []
    for sequence in generator.sample(range(1, 1000), 120):  # distinct sequence values, random order
        key = generator.randrange(25)
        op = "D" if generator.random() < 0.3 else "U"
        events.append((key, f"v{sequence}", sequence, op))
    expected = {}
    for key, value, sequence, op in sorted(events, key=lambda e: e[2]):
        expected[key] = None if op == "D" else (key, value, sequence)
    want = sorted(row for row in expected.values() if row is not None)
    batches = [events[i : i + 20] for i in range(0, len(events), 20)]
    for attempt, order in enumerate([list(range(6)), list(range(5, -1, -1)), generator.sample(range(6), 6)]):
        table = unique_table(spark, namespace, f"cdc{attempt}", properties='"function_column.sequence_col" = "s"')
        for index in order:
            rows_sql = ", ".join(f"({k}, '{v}', {s}, '{op}')" for k, v, s, op in batches[index])
            doris.load(
                spark, table=table, query=f"SELECT * FROM VALUES {rows_sql} AS t(k, v, s, op)",
                columns="k, v, s, op", merge_type="MERGE", delete_on="op = 'D'",
            )
        assert readers_agree(spark, py_catalog, table) == want
        contents = {r[0] for r in spark.sql(f"SELECT content FROM {table}.files").collect()}
        assert contents <= {0, 1}  # data files and deletion vectors only


def test_compact_drops_fully_deleted_files_at_once_without_a_sequence_column(spark, namespace, py_catalog):
    # No sequence column, so no tombstones: a fully deleted file guards nothing and goes at once,
    # although the default retention (168 h) would keep it on a sequence table.
    table = unique_table(spark, namespace, buckets=1)
    doris.load(spark, table=table, query=values(["(1,'a',1)", "(2,'b',1)"]))
    doris.load(spark, table=table, query=values(["(1,'a2',1)", "(2,'b2',1)"]))  # every row of file 1 replaced
    result = spark.sql(f"CALL doris.compact('{table}')").collect()[0]
    assert (result.dropped_tombstone_files, result.kept_tombstone_files) == (1, 0)
    assert spark.sql(f"SELECT count(*) FROM {table}.delete_files").collect()[0][0] == 0
    assert spark.sql(f"SELECT count(*) FROM {table}.files").collect()[0][0] == 1
    assert readers_agree(spark, py_catalog, table) == [(1, "a2", 1), (2, "b2", 1)]


def test_a_load_adds_exactly_one_snapshot_and_no_session_state(spark, namespace):
    # Data files are staged in the JVM, not as an unpublished snapshot under a session-wide WAP
    # id, so a plain Spark write running meanwhile in another thread would be committed normally.
    table = unique_table(spark, namespace, properties='"function_column.sequence_col" = "s"')
    counts = []
    for batch, merge_type in ((["(1,'a',1)", "(2,'b',1)"], "APPEND"), (["(1,'a2',2)"], "APPEND"), (["(2,'x',3)"], "DELETE")):
        doris.load(spark, table=table, query=values(batch), merge_type=merge_type)
        counts.append(spark.sql(f"SELECT count(*) FROM {table}.snapshots").collect()[0][0])
        assert spark.conf.get("spark.wap.id", None) is None
    assert counts == [counts[0], counts[0] + 1, counts[0] + 2]
    assert rows(spark, table) == [(1, "a2", 2)]


def test_compact_limited_to_partitions_leaves_the_others_alone(spark, namespace, py_catalog):
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {namespace}.p (k INT NOT NULL, v STRING, s INT) UNIQUE KEY(k)
        PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN ("100"), PARTITION p2 VALUES LESS THAN ("200"))
        DISTRIBUTED BY HASH(k) BUCKETS 1""",
    )
    table = f"{namespace}.p"
    doris.load(spark, table=table, query=values(["(1,'a',1)", "(2,'b',1)", "(101,'c',1)", "(102,'d',1)"]))
    doris.load(spark, table=table, query=values(["(1,'a2',1)", "(101,'c2',1)"]))  # a DV in each partition
    before = readers_agree(spark, py_catalog, table)
    result = spark.sql(f"CALL doris.compact(table => '{table}', partitions => array('p1'))").collect()[0]
    assert (result.rewritten_data_files, result.removed_delete_files) == (1, 1)
    remaining = [r[0] for r in spark.sql(f"SELECT referenced_data_file FROM {table}.delete_files").collect()]
    p2_file = spark.sql(f"SELECT DISTINCT _file FROM {table} WHERE k = 102").collect()[0][0]
    assert remaining == [p2_file]  # p2's deletion vector is untouched
    assert readers_agree(spark, py_catalog, table) == before == [(1, "a2", 1), (2, "b", 1), (101, "c2", 1), (102, "d", 1)]
    with pytest.raises(Exception, match=r"Partition\[p9\] does not exist"):
        spark.sql(f"CALL doris.compact(table => '{table}', partitions => array('p9'))")
