"""The recycle bin (Doris RECOVER PARTITION): partitions emptied by drop_partition, truncate and
insert_overwrite come back from table history with the rows they had; FORCE skips it; entries
expire after catalog_trash_expire_second and cleanup keeps what an unexpired entry needs."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import PartitionError, ProcedureArgumentError
from tests.concurrency import readers_agree, values

pytestmark = pytest.mark.spark

RANGES = (
    "PARTITION BY RANGE(k) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20)) "
    "DISTRIBUTED BY HASH(k) BUCKETS 1"
)


def make_table(spark, namespace: str, name: str, keys: str = "UNIQUE KEY(k)") -> str:
    table = f"{namespace}.{name}"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) {keys} {RANGES}")
    doris.load(spark, table=table, query=values(["(1,'a')", "(2,'b')", "(11,'c')", "(12,'d')"], "k, v"))
    # Unique keys: a deletion vector in p0 (duplicate keys: one more row, distinct so readers order alike).
    doris.load(spark, table=table, query=values(["(2,'b2')" if keys.startswith("UNIQUE") else "(3,'b2')"], "k, v"))
    return table


def snapshot_count(spark, table: str) -> int:
    return spark.sql(f"SELECT count(*) FROM {table}.snapshots").collect()[0][0]


def not_in_bin(name: str, table: str, partition_id: int = -1, expire: int = 86400) -> str:
    return (
        f"No partition named '{name}' or partition id '{partition_id}' in table {table}: the recycle bin keeps the "
        "partitions drop_partition, truncate (both without force), insert_overwrite and partition.retention_count "
        "emptied for "
        f"catalog_trash_expire_second ({expire}) seconds, while their snapshot is on the table's history"
    )


def recover_error(spark, **arguments) -> str:
    with pytest.raises(PartitionError) as raised:
        doris.recover_partition(spark, **arguments)
    return str(raised.value)


def test_a_truncated_partition_comes_back_after_the_emptied_one_is_force_dropped(spark, namespace, py_catalog):
    table = make_table(spark, namespace, "trunc")
    [truncated] = doris.truncate(spark, table=table, partitions=["p0"])
    assert readers_agree(spark, py_catalog, table) == [(11, "c"), (12, "d")]
    # p0 still exists (empty): recovering it under its own name clashes, as in Doris.
    assert recover_error(spark, table=table, partition="p0") == (
        "partition[p0] already exist in table[trunc]: drop it first (force => true keeps it out of the recycle bin), "
        "rename it, or recover this one under another name (new_name => ...)"
    )
    # Under another name its range overlaps the empty p0.
    assert recover_error(spark, table=table, partition="p0", new_name="p0_old") == (
        "Can not recover partition[p0]. Partition item conflict. It overlaps partition p0; drop that partition first "
        "(force => true keeps it out of the recycle bin)"
    )
    doris.drop_partition(spark, table=table, partition="p0", force=True)
    [row] = doris.recover_partition(spark, table=table, partition="P0")  # names match case-insensitively
    assert (row.partition_name, row.recovered_rows, row.dropped_in_snapshot) == ("p0", 2, truncated.snapshot_id)  # back as it was spelled
    # The rows p0 had when truncated, the replaced version of key 2 still deleted.
    assert readers_agree(spark, py_catalog, table) == [(1, "a"), (2, "b2"), (11, "c"), (12, "d")]
    doris.load(spark, table=table, query=values(["(1,'a2')"], "k, v"))  # keys keep working
    assert readers_agree(spark, py_catalog, table)[:2] == [(1, "a2"), (2, "b2")]


def test_a_whole_table_truncate_recycles_each_partition_on_its_own(spark, namespace, py_catalog):
    table = make_table(spark, namespace, "trunc_all", keys="DUPLICATE KEY(k)")
    [truncated] = doris.truncate(spark, table=table)
    doris.load(spark, table=table, query=values(["(15,'new')"], "k, v"))
    doris.drop_partition(spark, table=table, partition="p0", force=True)
    # A forced drop is no entry: the newest p0 in the bin is the truncated one, chosen here by its id.
    [row] = doris.recover_partition(spark, table=table, partition="p0", partition_id=truncated.snapshot_id)
    assert row.recovered_rows == 3  # p0's rows only, from the files the truncate removed
    assert readers_agree(spark, py_catalog, table) == [(1, "a"), (2, "b"), (3, "b2"), (15, "new")]
    assert [r[0] for r in doris.show_partitions(spark, table=table)] == ["p0", "p1"]


def test_an_overwritten_partition_comes_back_and_a_forced_drop_does_not(spark, namespace, py_catalog):
    table = make_table(spark, namespace, "over")
    [overwrite] = doris.insert_overwrite(spark, table=table, query=values(["(13,'x')"], "k, v"), partitions=["p1"])
    assert readers_agree(spark, py_catalog, table) == [(1, "a"), (2, "b2"), (13, "x")]
    doris.drop_partition(spark, table=table, partition="p1", force=True)
    # FORCE skipped the bin: asking for the forced drop's snapshot finds nothing.
    forced = spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0][0]
    assert recover_error(spark, table=table, partition="p1", partition_id=forced) == not_in_bin("p1", "over", forced)
    [row] = doris.recover_partition(spark, table=table, partition="p1")
    assert (row.recovered_rows, row.dropped_in_snapshot) == (2, overwrite.snapshot_id)
    assert readers_agree(spark, py_catalog, table) == [(1, "a"), (2, "b2"), (11, "c"), (12, "d")]
    # Spent: the entry is recovered, and p1's forced drop left none.
    doris.drop_partition(spark, table=table, partition="p1", force=True)
    assert recover_error(spark, table=table, partition="p1") == not_in_bin("p1", "over")


def test_force_keeps_drop_and_truncate_out_of_the_bin(spark, namespace, py_catalog):
    table = make_table(spark, namespace, "forced")
    doris.truncate(spark, table=table, partitions=["p1"], force=True)
    doris.drop_partition(spark, table=table, partition="p1", force=True)
    doris.drop_partition(spark, table=table, partition="p0", force=True)
    before = snapshot_count(spark, table)
    for name in ("p0", "p1"):
        assert recover_error(spark, table=table, partition=name) == not_in_bin(name, "forced")
    assert snapshot_count(spark, table) == before
    assert readers_agree(spark, py_catalog, table) == []


def test_new_name_clash_and_drop_recover_under_new_name(spark, namespace, py_catalog):
    table = make_table(spark, namespace, "clash")
    doris.drop_partition(spark, table=table, partition="p0")
    assert recover_error(spark, table=table, partition="p0", new_name="P1") == (
        "partition[P1] already exist in table[clash]: drop it first (force => true keeps it out of the recycle bin), "
        "rename it, or recover this one under another name (new_name => ...)"
    )
    [row] = doris.recover_partition(spark, table=table, partition="p0", new_name="p0_back")
    assert row.partition_name == "p0_back"
    assert [r[0] for r in doris.show_partitions(spark, table=table)] == ["p0_back", "p1"]
    assert readers_agree(spark, py_catalog, table) == [(1, "a"), (2, "b2"), (11, "c"), (12, "d")]


def test_entries_expire_after_catalog_trash_expire_second(spark, namespace):
    table = make_table(spark, namespace, "expire")
    with pytest.raises(ProcedureArgumentError) as raised:
        doris.set_properties(spark, table=table, properties={"catalog_trash_expire_second": "-1"})
    assert str(raised.value) == (
        "Invalid catalog_trash_expire_second: '-1'. Give a whole number of seconds >= 0 (Doris's default is 86400, "
        "one day)"
    )
    doris.set_properties(spark, table=table, properties={"catalog_trash_expire_second": "0"})
    doris.drop_partition(spark, table=table, partition="p0")
    assert recover_error(spark, table=table, partition="p0") == not_in_bin("p0", "expire", expire=0)
    # Raising the setting again brings the entry back: expiry is judged when recovering.
    doris.set_properties(spark, table=table, properties={"catalog_trash_expire_second": "86400"})
    assert doris.recover_partition(spark, table=table, partition="p0")[0].recovered_rows == 2


def test_cleanup_keeps_what_an_unexpired_entry_needs(spark, namespace, py_catalog):
    table = make_table(spark, namespace, "kept")
    doris.truncate(spark, table=table)  # both partitions into the bin, in one shared snapshot
    doris.load(spark, table=table, query=values(["(15,'new')"], "k, v"))
    counts = doris.cleanup(spark, table=table, older_than="2999-01-01 00:00:00", retain_last=1)
    assert counts[0].deleted_data_files == 0
    doris.drop_partition(spark, table=table, partition="p0", force=True)
    assert doris.recover_partition(spark, table=table, partition="p0")[0].recovered_rows == 2
    assert readers_agree(spark, py_catalog, table) == [(1, "a"), (2, "b2"), (15, "new")]
    # Once expired, the next cleanup lets the history go and p1's entry with it.
    doris.set_properties(spark, table=table, properties={"catalog_trash_expire_second": "0"})
    assert doris.cleanup(spark, table=table, older_than="2999-01-01 00:00:00", retain_last=1)[0].expired_snapshots > 0
    doris.set_properties(spark, table=table, properties={"catalog_trash_expire_second": "86400"})
    doris.drop_partition(spark, table=table, partition="p1", force=True)
    assert recover_error(spark, table=table, partition="p1") == not_in_bin("p1", "kept")
