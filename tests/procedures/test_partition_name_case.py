"""Partition names are case-insensitive in every procedure that takes them, as Doris looks them
up (``OlapTable``'s name map ignores case): ``P1`` names ``p1``; a new name that differs from an
existing one only by case is a duplicate."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import PartitionError
from tests.concurrency import readers_agree

pytestmark = pytest.mark.spark


def _table(spark, namespace: str, name: str = "pc") -> str:
    table = f"{namespace}.{name}"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) UNIQUE KEY(k) "
        "PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN ('10'), PARTITION p2 VALUES LESS THAN ('20')) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (11, 'b') AS t(k, v)")
    return table


def _names(spark, table: str, temporary: bool = False) -> list[str]:
    return sorted(r.partition_name for r in doris.show_partitions(spark, table=table, temporary=temporary))


def test_truncate_load_delete_and_overwrite_find_partitions_in_any_case(spark, namespace, py_catalog):
    table = _table(spark, namespace)
    [row] = doris.truncate(spark, table=table, partitions=["P1"])
    assert row.partitions == "p1"
    assert readers_agree(spark, py_catalog, table) == [(11, "b")]
    doris.load(spark, table=table, query="SELECT * FROM VALUES (2, 'c'), (12, 'd') AS t(k, v)", partitions=["P1"],
               max_filter_ratio=1.0)
    assert readers_agree(spark, py_catalog, table) == [(2, "c"), (11, "b")]
    doris.delete(spark, table=table, where="k > 0", partitions=["P2"])
    assert readers_agree(spark, py_catalog, table) == [(2, "c")]
    doris.insert_overwrite(spark, table=table, query="SELECT 15, 'e'", partitions=["p2", "P1"])
    assert readers_agree(spark, py_catalog, table) == [(15, "e")]
    doris.compact(spark, table=table, partitions=["P2"])
    assert readers_agree(spark, py_catalog, table) == [(15, "e")]


def test_drop_recover_and_rename_in_any_case(spark, namespace, py_catalog):
    table = _table(spark, namespace, "pc_drop")
    doris.drop_partition(spark, table=table, partition="P1")
    assert _names(spark, table) == ["p2"]
    [row] = doris.recover_partition(spark, table=table, partition="P1")
    assert row.partition_name == "p1"  # comes back as it was spelled
    assert _names(spark, table) == ["p1", "p2"]
    assert readers_agree(spark, py_catalog, table) == [(1, "a"), (11, "b")]
    doris.rename_partition(spark, table=table, partition="P2", new_name="q2")
    assert _names(spark, table) == ["p1", "q2"]
    with pytest.raises(PartitionError, match=r"^Same partition name"):
        doris.rename_partition(spark, table=table, partition="p1", new_name="P1")


def test_a_name_differing_only_by_case_is_a_duplicate(spark, namespace):
    table = _table(spark, namespace, "pc_dup")
    with pytest.raises(PartitionError, match=r"^Duplicate partition name P1$"):
        doris.add_partition(spark, table=table, partition="P1", values_less_than="30")
    with pytest.raises(PartitionError, match=r"^Duplicate partition name P2$"):
        doris.add_temp_partition(spark, table=table, partition="P2", values_less_than="30")
    assert _names(spark, table) == ["p1", "p2"]


def test_temp_partitions_in_any_case(spark, namespace, py_catalog):
    table = _table(spark, namespace, "pc_temp")
    doris.add_temp_partition(spark, table=table, partition="tp1", values_less_than="10")
    doris.add_temp_partition(spark, table=table, partition="tp2", values_range=["10", "20"])
    doris.load(spark, table=table, query="SELECT 3 AS k, 'x' AS v", temporary_partitions=["TP1"])
    doris.load(spark, table=table, query="SELECT 13 AS k, 'y' AS v", temporary_partitions=["Tp2"])
    doris.replace_partition(spark, table=table, partitions=["P1"], temp_partitions=["TP1"])
    assert readers_agree(spark, py_catalog, table) == [(3, "x"), (11, "b")]
    assert _names(spark, table) == ["p1", "p2"]
    doris.swap_temp_partition(spark, table=table, partitions=["P2"], temp_partitions=["TP2"])
    assert readers_agree(spark, py_catalog, table) == [(3, "x"), (13, "y")]
    [temp] = _names(spark, table, temporary=True)
    doris.drop_temp_partition(spark, table=table, partition=temp.upper())
    assert _names(spark, table, temporary=True) == []
