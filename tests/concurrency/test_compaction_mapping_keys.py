"""A compaction's rowid mapping, both kinds.

Parquet files are copied in order (``engine.compaction.ordered_rewrite``): the mapping is one
segment per old file, and a delete committed while the compaction runs lands on the row's new
place by arithmetic (offset, old position, rows deleted before it). Files it cannot copy (equality
deletes, which only a scan applies) are rewritten by a Spark scan and paired by key, or by every
column when the keys do not identify each row (a key stored twice by a writer outside
iceberg-doris). Neither Spark nor this package writes equality deletes, so those tests take the
scan rewrite by turning the order-keeping one off (``scan_rewrite``). ORC files are rewritten by
the scan too, without a mapping: Spark gives row positions of Parquet files only."""

from __future__ import annotations

import importlib

import pytest
from pyroaring import BitMap64

from iceberg_doris import doris
from iceberg_doris.engine.compaction import ordered_rewrite
from iceberg_doris.errors import CommitConflictError
from tests.concurrency import readers_agree, unique_table, values
from tests.concurrency.test_compaction_beside_loads import compact_snapshot, keyed_table, with_work_for_compact
from tests.concurrency.test_races_per_commit_path import at_commit

pytestmark = pytest.mark.spark

# The module, not the function iceberg_doris.operations re-exports under the same name.
compact_operation = importlib.import_module("iceberg_doris.operations.compact")


def segments(spark, summary: dict[str, str]) -> list:
    return spark.read.parquet(summary["doris.rowid-map"] + "/segments.parquet").orderBy("offset").collect()


def spark_and_pyiceberg_rows(spark, py_catalog, table: str) -> list:
    """The rows Spark and pyiceberg read (DuckDB reads no ORC), ordered by key."""
    seen = [tuple(r) for r in spark.sql(f"SELECT * FROM {table} ORDER BY k").collect()]
    arrow = sorted(tuple(r.values()) for r in py_catalog.load_table(table).scan().to_arrow().to_pylist())
    assert arrow == seen
    return seen


@pytest.fixture
def scan_rewrite(monkeypatch):
    """Compaction takes the scan rewrite, as it does for files with equality deletes."""
    monkeypatch.setattr(ordered_rewrite, "applies", lambda *args: False)


@pytest.mark.parametrize("copy", ["scan", "in order"])
def test_a_key_stored_twice_keeps_the_right_row_deleted(spark, namespace, py_catalog, monkeypatch, copy):
    if copy == "scan":
        monkeypatch.setattr(ordered_rewrite, "applies", lambda *args: False)
    # The duplicate arrives after the compaction's repair of keys stored twice (a writer racing it),
    # so the rewrite itself meets the key twice: the repair is left out.
    monkeypatch.setattr(compact_operation, "repaired_first", lambda spark, handle: handle)
    table = with_work_for_compact(spark, keyed_table(spark, namespace, 3))
    # Plain Spark writes key 2 a second time (no merge-on-write) and a row it then deletes, so the
    # file holding the duplicate has a delete and is rewritten with the first one.
    spark.sql(f"INSERT INTO {table} VALUES (2, 'dup', 0), (9, 'gone', 0)")
    spark.sql(f"DELETE FROM {table} WHERE k = 9")
    # While compact commits, the original key-2 row is deleted: it must be carried over onto that
    # row's new place, not onto the duplicate's.
    with at_commit(spark, table, f"DELETE FROM {table} WHERE v = 'v2'"):
        [result] = doris.compact(spark, table=table)
    assert result.rewritten_data_files == 2
    assert readers_agree(spark, py_catalog, table) == [
        (1, "one", 0), (2, "dup", 0), (3, "v3", 0), (4, "v4", 0), (5, "v5", 0), (6, "v6", 0),
    ]
    summary = compact_snapshot(spark, table)
    assert summary["doris.carried-deletes"] == "1"
    columns = spark.read.parquet(summary["doris.rowid-map"]).columns
    assert ("old_pos" in columns) == (copy == "scan")  # pairs, or one segment per old file


@pytest.mark.parametrize("version", [3, 2])
def test_unique_keys_pair_the_rows_of_a_scan_rewrite_and_a_load_converts_through_them(spark, namespace, py_catalog, scan_rewrite, version):
    table = with_work_for_compact(spark, keyed_table(spark, namespace, version))
    doris.compact(spark, table=table)
    summary = compact_snapshot(spark, table)
    mapped = spark.read.parquet(summary["doris.rowid-map"]).collect()
    # Every live row of the rewritten file (keys 2-6) has its old and new place.
    assert len(mapped) == 5 and len({(r.old_file, r.old_pos) for r in mapped}) == 5
    assert sorted(r.new_pos for r in mapped) == [0, 1, 2, 3, 4]
    doris.load(spark, table=table, query=values(["(3,'after',0)"]))
    assert [r[:2] for r in readers_agree(spark, py_catalog, table)][2] == (3, "after")


@pytest.mark.parametrize("version", [3, 2])
def test_parquet_files_are_copied_in_order_and_mapped_by_segment(spark, namespace, py_catalog, version):
    table = with_work_for_compact(spark, keyed_table(spark, namespace, version))
    old_order = [r.k for r in spark.sql(f"SELECT k, _file, _pos FROM {table} ORDER BY _file, _pos").collect()]
    doris.compact(spark, table=table)
    summary = compact_snapshot(spark, table)
    [segment] = [s for s in segments(spark, summary) if s.new_file is not None]
    # The first file held keys 1-6 with key 1 deleted: its live rows 2-6 start the new file, in order.
    assert (segment.offset, segment.rows) == (0, 6)
    new_rows = spark.read.parquet(segment.new_file).collect()
    assert [r.k for r in new_rows][:5] == [k for k in old_order if k != 1][:5] == [2, 3, 4, 5, 6]
    doris.load(spark, table=table, query=values(["(3,'after',0)"]))
    assert [r[:2] for r in readers_agree(spark, py_catalog, table)][2] == (3, "after")


@pytest.mark.parametrize("version", [3, 2])
def test_deletes_committed_meanwhile_land_on_the_rows_new_places_across_packed_files(spark, namespace, py_catalog, version):
    # Three files of one partition, each with a deleted row, packed into one new file: the rows of
    # the second and third files sit after an offset, and rows deleted before them shift them.
    table = keyed_table(spark, namespace, version)
    for first in (0, 10, 20):
        doris.load(spark, table=table, query=values([f"({k},'v{k}',0)" for k in range(first, first + 5)]))
    doris.load(spark, table=table, query=values(["(1,'x1',0)", "(11,'x11',0)", "(21,'x21',0)"]))
    # While compact runs, plain Spark deletes rows after the deleted ones in the 2nd and 3rd files.
    with at_commit(spark, table, f"DELETE FROM {table} WHERE k IN (13, 24)"):
        [result] = doris.compact(spark, table=table)
    # v3: the three files with DVs; v2: also the upsert file, which the partition-scoped position
    # delete file covers too. All of one partition: one new file.
    assert (result.rewritten_data_files, result.added_data_files) == (3 if version == 3 else 4, 1)
    summary = compact_snapshot(spark, table)
    assert summary["doris.carried-deletes"] == "2"
    found = segments(spark, summary)
    assert len(found) == result.rewritten_data_files
    live = [s.rows - len(BitMap64.deserialize(s.deleted)) for s in found]
    assert [s.offset for s in found] == [sum(live[:i]) for i in range(len(found))]
    assert sorted(s.rows for s in found)[-3:] == [5, 5, 5]
    expected = sorted(
        [(k, f"v{k}", 0) for k in (0, 2, 3, 4, 10, 12, 14, 20, 22, 23)] + [(1, "x1", 0), (11, "x11", 0), (21, "x21", 0)]
    )
    assert readers_agree(spark, py_catalog, table) == expected


def test_columns_renamed_and_added_after_a_file_was_written_read_as_a_scan_reads_them(spark, namespace, py_catalog):
    table = with_work_for_compact(spark, keyed_table(spark, namespace, 3))
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN v TO w")
    spark.sql(f"ALTER TABLE {table} ADD COLUMN extra STRING")
    before = readers_agree(spark, py_catalog, table)
    [result] = doris.compact(spark, table=table)
    assert result.rewritten_data_files == 1
    assert readers_agree(spark, py_catalog, table) == before
    assert before[1] == (2, "v2", 0, None)


def test_orc_files_are_rewritten_without_a_mapping_and_a_delete_meanwhile_fails_the_compaction_only(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, buckets=1)
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('write.format.default' = 'orc')")
    with_work_for_compact(spark, table)
    with at_commit(spark, table, f"DELETE FROM {table} WHERE k = 4"):
        with pytest.raises(CommitConflictError, match="nothing was committed"):
            doris.compact(spark, table=table)
    assert [r[0] for r in spark_and_pyiceberg_rows(spark, py_catalog, table)] == [1, 2, 3, 5, 6]
    [result] = doris.compact(spark, table=table)
    assert result.rewritten_data_files == 1  # the first file, with key 1 replaced and key 4 deleted
    assert spark_and_pyiceberg_rows(spark, py_catalog, table) == [(1, "one", 0), (2, "v2", 0), (3, "v3", 0), (5, "v5", 0), (6, "v6", 0)]
    assert "doris.rowid-map" not in compact_snapshot(spark, table)


def test_identity_partitions_and_fully_deleted_files(spark, namespace, py_catalog):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {namespace}.p (k INT NOT NULL, d DATE NOT NULL, v STRING) UNIQUE KEY(k, d) "
        "PARTITION BY LIST(d) (PARTITION p1 VALUES IN ('2024-01-01'), PARTITION p2 VALUES IN ('2024-01-02')) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    table = f"{namespace}.p"
    rows = [f"({k + 10 * (d - 1)}, DATE'2024-01-0{d}', 'a')" for d in (1, 2) for k in range(4)]
    doris.load(spark, table=table, query="SELECT * FROM VALUES " + ", ".join(rows) + " AS t(k, d, v)")
    # Partition 1: one key replaced; partition 2: a small file whose only row is replaced again.
    doris.load(spark, table=table, query="SELECT * FROM VALUES (0, DATE'2024-01-01', 'b'), (19, DATE'2024-01-02', 'b') AS t(k, d, v)")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (19, DATE'2024-01-02', 'c') AS t(k, d, v)")
    before = readers_agree(spark, py_catalog, table)
    [result] = doris.compact(spark, table=table)
    assert result.dropped_tombstone_files == 1 and result.rewritten_data_files >= 2
    assert readers_agree(spark, py_catalog, table) == before
    assert [(k, str(d), v) for k, d, v in before if k in (0, 19)] == [(0, "2024-01-01", "b"), (19, "2024-01-02", "c")]
    partitions = {r[0] for r in spark.sql(f"SELECT partition FROM {table}.data_files").collect()}
    assert len(partitions) == 2


def test_nested_columns_are_copied_by_the_row_reader(spark, namespace, py_catalog):
    # The vectorized reader reads flat rows only; a table with an ARRAY and a MAP column is copied
    # row by row, and a delete committed meanwhile still lands on the right row.
    table = unique_table(spark, namespace, buckets=1, extra=", tags ARRAY<STRING>, attrs MAP<STRING, INT>")
    rows = ", ".join(f"({k}, 'v{k}', 0, array('a{k}', 'b'), map('n', {k}))" for k in range(1, 7))
    doris.load(spark, table=table, query=f"SELECT * FROM VALUES {rows} AS t(k, v, s, tags, attrs)")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'one', 0, array('x'), map('n', 0)) AS t(k, v, s, tags, attrs)")
    with at_commit(spark, table, f"DELETE FROM {table} WHERE k = 5"):
        [result] = doris.compact(spark, table=table)
    assert result.rewritten_data_files == 1
    seen = [tuple(r) for r in spark.sql(f"SELECT k, v, tags, attrs FROM {table} ORDER BY k").collect()]
    assert seen == [(1, "one", ["x"], {"n": 0})] + [(k, f"v{k}", [f"a{k}", "b"], {"n": k}) for k in (2, 3, 4, 6)]
    arrow = py_catalog.load_table(table).scan(selected_fields=("k", "tags")).to_arrow().to_pylist()
    assert sorted((r["k"], r["tags"]) for r in arrow) == [(k, t) for k, _, t, _ in seen]
    assert compact_snapshot(spark, table)["doris.carried-deletes"] == "1"
