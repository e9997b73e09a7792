"""The rowid mapping of a unique-key table pairs rows by key alone (cheaper: only the keys are read
back), and falls back to pairing every column when the keys do not identify each row (a key stored
twice by a writer outside iceberg-doris): the deletes it carries over still hit the right rows."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from tests.concurrency import readers_agree, values
from tests.concurrency.test_compaction_beside_loads import compact_snapshot, keyed_table, with_work_for_compact
from tests.concurrency.test_races_per_commit_path import at_commit

pytestmark = pytest.mark.spark


def test_a_key_stored_twice_is_paired_by_every_column(spark, namespace, py_catalog):
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
    assert compact_snapshot(spark, table)["doris.carried-deletes"] == "1"


@pytest.mark.parametrize("version", [3, 2])
def test_unique_keys_pair_the_rows_and_a_load_converts_through_them(spark, namespace, py_catalog, version):
    table = with_work_for_compact(spark, keyed_table(spark, namespace, version))
    doris.compact(spark, table=table)
    summary = compact_snapshot(spark, table)
    mapped = spark.read.parquet(summary["doris.rowid-map"]).collect()
    # Every live row of the rewritten file (keys 2-6) has its old and new place.
    assert len(mapped) == 5 and len({(r.old_file, r.old_pos) for r in mapped}) == 5
    assert sorted(r.new_pos for r in mapped) == [0, 1, 2, 3, 4]
    new_rows = spark.read.parquet(mapped[0].new_file).collect()
    old_rows = {(r.old_file, r.old_pos): r.new_pos for r in mapped}
    # The old position of key k in the first file was k-1: its row now sits at new_pos.
    first_file = mapped[0].old_file
    assert [new_rows[old_rows[(first_file, k - 1)]].k for k in range(2, 7)] == [2, 3, 4, 5, 6]
    doris.load(spark, table=table, query=values(["(3,'after',0)"]))
    assert [r[:2] for r in readers_agree(spark, py_catalog, table)][2] == (3, "after")
