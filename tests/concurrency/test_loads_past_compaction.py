"""The load side of rowid conversion: a compaction commits between a keyed load's lookup and its
commit, and the load converts its deletes through the compaction's kept rowid mapping onto the new
files, committing on its first lookup (``doris.lookups`` = 1, ``doris.past-compactions`` = 1).
Every interleaving is forced (the compaction runs in a hook at LOOKED_UP or BEFORE_COMMIT); rows
are compared with the serial result for Spark, pyiceberg and DuckDB. Unique keys with and without
a sequence column, aggregate keys and partial updates; format v3 (deletion vectors) and v2
(position delete files). When the mapping is gone the load looks its keys up again."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from iceberg_doris import doris
from iceberg_doris.engine import interleaving
from tests.concurrency import once_for, readers_agree, snapshot_summary, unique_table, values
from tests.concurrency.test_compaction_beside_loads import compact_snapshot, keyed_table, with_work_for_compact

pytestmark = pytest.mark.spark

PAST = "doris.past-compactions"


def compacting(spark: Any, table: str, point: str = interleaving.LOOKED_UP, after: Any = None) -> Any:
    """A hook at ``point`` that compacts ``table`` once (then runs ``after``, if given)."""

    def competitor() -> None:
        [result] = doris.compact(spark, table=table)
        assert result.rewritten_data_files >= 1
        if after is not None:
            after()

    return interleaving.inject(point, once_for(table, competitor))


def mapping_folder(spark: Any, table: str) -> Path:
    location = compact_snapshot(spark, table)["doris.rowid-map"]
    return Path(location.removeprefix("file:").removeprefix("//"))


def assert_converted(spark: Any, table: str, label: str) -> dict[str, str]:
    """The load committed on its first lookup, its deletes converted through one compaction."""
    summary = snapshot_summary(spark, table, label)
    assert (summary["doris.lookups"], summary.get(PAST)) == ("1", "1")
    return summary


@pytest.mark.parametrize("version", [3, 2])
def test_a_compaction_at_lookup_is_converted_not_looked_up_again(spark, namespace, py_catalog, version):
    table = with_work_for_compact(spark, keyed_table(spark, namespace, version))
    with compacting(spark, table):
        [loaded] = doris.load(spark, table=table, query=values(["(2,'outer',0)", "(3,'outer',0)", "(8,'new',0)"]), label="outer")
    assert readers_agree(spark, py_catalog, table) == [
        (1, "one", 0), (2, "outer", 0), (3, "outer", 0), (4, "v4", 0), (5, "v5", 0), (6, "v6", 0), (8, "new", 0),
    ]
    summary = assert_converted(spark, table, "outer")
    assert summary["doris.deleted-rows"] == "0"  # upserts replace rows; none is a DELETE
    # The replaced rows were deleted in the compacted file (the old one is gone), so one delete file.
    files = spark.sql(f"SELECT file_path FROM {table}.data_files").collect()
    deletes = spark.sql(f"SELECT referenced_data_file, record_count FROM {table}.delete_files").collect()
    assert len(files) == 3  # the compacted file, key 1's file, the load's new rows
    if version == 3:
        assert [(r.referenced_data_file in {f.file_path for f in files}, r.record_count) for r in deletes] == [(True, 2)]
    else:
        assert sum(r.record_count for r in deletes) == 2
    # Its parent is the compaction: it validated from there.
    parent = spark.sql(f"SELECT parent_id FROM {table}.snapshots WHERE snapshot_id = {loaded.snapshot_id}").collect()[0][0]
    compaction = spark.sql(f"SELECT snapshot_id FROM {table}.snapshots WHERE summary['doris.operation'] = 'compact'").collect()[0][0]
    assert parent == compaction
    # The table goes on from the converted deletes.
    doris.load(spark, table=table, query=values(["(2,'again',0)", "(4,'again',0)"]), label="after")
    assert [r[:2] for r in readers_agree(spark, py_catalog, table)] == [
        (1, "one"), (2, "again"), (3, "outer"), (4, "again"), (5, "v5"), (6, "v6"), (8, "new"),
    ]


@pytest.mark.parametrize("version", [3, 2])
def test_a_compaction_at_the_loads_swap_is_converted_on_the_rebuild(spark, namespace, py_catalog, version):
    """The compaction commits under the load's lock, right before its swap: the swap loses and the
    rebuild converts, still with one lookup."""
    table = with_work_for_compact(spark, keyed_table(spark, namespace, version))
    with compacting(spark, table, interleaving.BEFORE_COMMIT):
        doris.load(spark, table=table, query=values(["(5,'outer',0)"]), merge_type="MERGE", delete_on="v = 'gone'", label="outer")
        doris.load(spark, table=table, query=values(["(6,'gone',0)"]), merge_type="MERGE", delete_on="v = 'gone'", label="delete")
    assert readers_agree(spark, py_catalog, table) == [(1, "one", 0), (2, "v2", 0), (3, "v3", 0), (4, "v4", 0), (5, "outer", 0)]
    assert_converted(spark, table, "outer")
    # The second load looked up after the compaction: nothing to convert.
    assert (snapshot_summary(spark, table, "delete")["doris.lookups"], snapshot_summary(spark, table, "delete").get(PAST)) == ("1", None)


def test_a_sequence_table_load_keeps_its_decisions_past_a_compaction(spark, namespace, py_catalog):
    table = keyed_table(spark, namespace, 3, sequence=True)
    with_work_for_compact(spark, table, sequence=5)
    with compacting(spark, table):
        # key 2 newer (replaces), key 3 older (kept out), key 9 new
        doris.load(spark, table=table, query=values(["(2,'newer',9)", "(3,'older',1)", "(9,'new',1)"]), label="outer")
    assert readers_agree(spark, py_catalog, table) == [
        (1, "one", 5), (2, "newer", 9), (3, "v3", 5), (4, "v4", 5), (5, "v5", 5), (6, "v6", 5), (9, "new", 1),
    ]
    assert_converted(spark, table, "outer")


def test_a_sequence_table_delete_load_writes_its_tombstone_past_a_compaction(spark, namespace, py_catalog):
    table = keyed_table(spark, namespace, 3, sequence=True)
    with_work_for_compact(spark, table, sequence=5)
    with compacting(spark, table):
        doris.load(spark, table=table, query=values(["(4,'x',9)", "(5,'x',2)"]), merge_type="DELETE", label="outer")
    # key 4's delete is newer (deleted), key 5's older (ignored)
    assert readers_agree(spark, py_catalog, table) == [(1, "one", 5), (2, "v2", 5), (3, "v3", 5), (5, "v5", 5), (6, "v6", 5)]
    assert_converted(spark, table, "outer")
    # The tombstone still guards key 4 against an older row.
    doris.load(spark, table=table, query=values(["(4,'late',7)"]))
    assert [r for r in readers_agree(spark, py_catalog, table) if r[0] == 4] == []


def test_an_aggregate_load_past_a_compaction_counts_once(spark, namespace, py_catalog):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {namespace}.agg (k INT NOT NULL, total BIGINT SUM, hi INT MAX) AGGREGATE KEY(k) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    table = f"{namespace}.agg"
    doris.load(spark, table=table, query=values([f"({k}, 10, {k})" for k in range(1, 7)], "k, total, hi"))
    doris.load(spark, table=table, query=values(["(1, 1, 0)"], "k, total, hi"))  # a delete in the first file
    with compacting(spark, table):
        doris.load(spark, table=table, query=values(["(2, 5, 9)", "(3, 1, 0)", "(7, 2, 2)"], "k, total, hi"), label="outer")
    assert readers_agree(spark, py_catalog, table) == [
        (1, 11, 1), (2, 15, 9), (3, 11, 3), (4, 10, 4), (5, 10, 5), (6, 10, 6), (7, 2, 2),
    ]
    assert_converted(spark, table, "outer")


def test_a_partial_update_past_a_compaction(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, buckets=1, extra=", w STRING")
    doris.load(spark, table=table, query=values([f"({k},'v{k}',0,'w{k}')" for k in range(1, 7)], "k, v, s, w"))
    doris.load(spark, table=table, query=values(["(1,'one',0,'w1')"], "k, v, s, w"))
    with compacting(spark, table):
        doris.load(spark, table=table, query="SELECT 2 AS k, 'v-outer' AS v", columns="k, v", partial_columns=True, label="outer")
    assert readers_agree(spark, py_catalog, table) == [
        (1, "one", 0, "w1"), (2, "v-outer", 0, "w2"), (3, "v3", 0, "w3"), (4, "v4", 0, "w4"), (5, "v5", 0, "w5"), (6, "v6", 0, "w6"),
    ]
    assert_converted(spark, table, "outer")


def test_a_load_after_the_compaction_on_other_keys_is_validated_from_the_compaction(spark, namespace, py_catalog):
    table = with_work_for_compact(spark, keyed_table(spark, namespace, 3))

    def inner() -> None:
        doris.load(spark, table=table, query=values(["(7,'inner',0)"]), label="inner")

    with compacting(spark, table, after=inner):
        doris.load(spark, table=table, query=values(["(2,'outer',0)"]), label="outer")
    assert [r[:2] for r in readers_agree(spark, py_catalog, table)] == [
        (1, "one"), (2, "outer"), (3, "v3"), (4, "v4"), (5, "v5"), (6, "v6"), (7, "inner"),
    ]
    assert_converted(spark, table, "outer")


def test_a_load_before_the_compaction_makes_it_look_up_again(spark, namespace, py_catalog):
    """Only compactions right after the lookup are converted through: a load committed between
    the lookup and the compaction may have changed the keys, so the load looks them up again."""
    table = with_work_for_compact(spark, keyed_table(spark, namespace, 3))

    def inner_then_compact() -> None:
        doris.load(spark, table=table, query=values(["(2,'inner',0)", "(3,'inner',0)"]), label="inner")
        doris.compact(spark, table=table)

    with interleaving.inject(interleaving.LOOKED_UP, once_for(table, inner_then_compact)):
        doris.load(spark, table=table, query=values(["(2,'outer',0)"]), label="outer")
    assert [r[:2] for r in readers_agree(spark, py_catalog, table)] == [
        (1, "one"), (2, "outer"), (3, "inner"), (4, "v4"), (5, "v5"), (6, "v6"),
    ]
    outer = snapshot_summary(spark, table, "outer")
    assert (outer["doris.lookups"], outer.get(PAST)) == ("2", None)


@pytest.mark.parametrize("version", [3, 2])
def test_without_the_mapping_the_load_looks_up_again(spark, namespace, py_catalog, version):
    table = with_work_for_compact(spark, keyed_table(spark, namespace, version))

    def remove_mapping() -> None:
        shutil.rmtree(mapping_folder(spark, table))

    with compacting(spark, table, after=remove_mapping):
        doris.load(spark, table=table, query=values(["(2,'outer',0)", "(3,'outer',0)"]), label="outer")
    assert readers_agree(spark, py_catalog, table) == [
        (1, "one", 0), (2, "outer", 0), (3, "outer", 0), (4, "v4", 0), (5, "v5", 0), (6, "v6", 0),
    ]
    outer = snapshot_summary(spark, table, "outer")
    assert (outer["doris.lookups"], outer.get(PAST)) == ("2", None)


def test_the_mapping_is_kept_for_its_retention_then_removed_by_the_next_compaction(spark, namespace):
    table = with_work_for_compact(spark, keyed_table(spark, namespace, 3))
    doris.compact(spark, table=table)
    first = mapping_folder(spark, table)
    assert any(first.rglob("*.parquet"))  # kept after the commit
    # Age it past the retention (an hour), then compact again.
    aged = time.time() - 2 * 3600
    for path in [first, *first.rglob("*")]:
        os.utime(path, (aged, aged))
    doris.load(spark, table=table, query=values(["(2,'x',0)"]))
    doris.compact(spark, table=table)
    summaries = spark.sql(f"SELECT summary['doris.rowid-map'] FROM {table}.snapshots WHERE summary['doris.operation'] = 'compact' ORDER BY committed_at").collect()
    second = Path(summaries[-1][0].removeprefix("file:").removeprefix("//"))
    assert not first.exists() and any(second.rglob("*.parquet"))
