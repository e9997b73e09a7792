"""``CALL doris.recover_partition``: a dropped partition back from table history."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import PartitionError, TableNotFoundError
from tests.procedures.by_procedure import call, not_found, partition_names, snapshot_count, sql_error, table_rows
from tests.support import duckdb_reader

pytestmark = pytest.mark.spark

SIGNATURE = "doris.recover_partition(table string, partition string, new_name string = NULL, partition_id bigint = NULL)"


@pytest.fixture(scope="module")
def table(spark, ns):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {ns}.u (k INT NOT NULL, v STRING) UNIQUE KEY(k) "
        "PARTITION BY RANGE(k) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20), "
        "PARTITION p2 VALUES LESS THAN (30)) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    table = f"{ns}.u"
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'b'), (11, 'c'), (21, 'd') AS t(k, v)")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (2, 'b2') AS t(k, v)")  # a deletion vector in p0
    doris.create_table(spark, ddl=f"CREATE TABLE {ns}.flat (k INT NOT NULL) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    return table


def drop_snapshot(spark, table: str) -> int:
    return spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0][0]


def test_positional_arguments(spark, table, py_catalog):
    doris.drop_partition(spark, table=table, partition="p0")
    dropped_in = drop_snapshot(spark, table)
    assert table_rows(spark, table) == [(11, "c"), (21, "d")]
    [row] = call(spark, f"CALL doris.recover_partition('{table}', 'p0')")
    assert row[:4] == ("p0", "[types: [INT]; keys: [-2147483648]; ..types: [INT]; keys: [10]; )", 2, dropped_in)
    assert row[4] == drop_snapshot(spark, table)
    # The same rows, the replaced version of key 2 still deleted (its deletion vector came back too).
    assert table_rows(spark, table) == [(1, "a"), (2, "b2"), (11, "c"), (21, "d")]
    assert partition_names(spark, table) == ["p0", "p1", "p2"]
    loaded = py_catalog.load_table(table)
    assert sorted((r["k"], r["v"]) for r in loaded.scan().to_arrow().to_pylist()) == [(1, "a"), (2, "b2"), (11, "c"), (21, "d")]
    assert duckdb_reader.read_rows(loaded.metadata_location, "k, v", order_by="k") == [(1, "a"), (2, "b2"), (11, "c"), (21, "d")]
    # Keys keep working: an upsert of key 1 replaces the recovered row.
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a2') AS t(k, v)")
    assert table_rows(spark, table)[:2] == [(1, "a2"), (2, "b2")]


def test_named_arguments(spark, table):
    doris.drop_partition(spark, table=table, partition="p2")
    rows = call(spark, f"CALL doris.recover_partition(table => '{table}', partition => 'p2', new_name => 'p2_back')")
    assert rows[0][:3] == ("p2_back", "[types: [INT]; keys: [20]; ..types: [INT]; keys: [30]; )", 1)
    assert partition_names(spark, table) == ["p0", "p1", "p2_back"]
    assert (21, "d") in table_rows(spark, table)
    # Once recovered, that drop is spent: recovering p2 again finds nothing.
    with pytest.raises(PartitionError) as raised:
        doris.recover_partition(spark, table=table, partition="p2")
    assert str(raised.value).startswith("No partition named 'p2' or partition id '-1' in table u: ")


def test_invalid_state(spark, ns, table):
    doris.drop_partition(spark, table=table, partition="p1")
    doris.add_partition(spark, table=table, partition="p1x", values_range=["15", "20"])
    before = snapshot_count(spark, table), partition_names(spark, table)
    cases = [
        (dict(table=table, partition="p0"),
         "partition[p0] already exist in table[u]: drop it first (force => true keeps it out of the recycle bin), "
         "rename it, or recover this one under another name (new_name => ...)"),
        (dict(table=table, partition="p1"),
         "Can not recover partition[p1]. Partition item conflict. It overlaps partition p1x; drop that partition first "
         "(force => true keeps it out of the recycle bin)"),
        (dict(table=table, partition="never"),
         "No partition named 'never' or partition id '-1' in table u: the recycle bin keeps the partitions "
         "drop_partition, truncate (both without force), insert_overwrite and partition.retention_count emptied for "
         "catalog_trash_expire_second "
         "(86400) seconds, while their snapshot is on the table's history"),
        (dict(table=f"{ns}.flat", partition="flat"),
         "No partition named 'flat' or partition id '-1' in table flat: the recycle bin keeps the partitions "
         "drop_partition, truncate (both without force), insert_overwrite and partition.retention_count emptied for "
         "catalog_trash_expire_second "
         "(86400) seconds, while their snapshot is on the table's history"),
    ]
    for arguments, message in cases:
        with pytest.raises(PartitionError) as raised:
            doris.recover_partition(spark, **arguments)
        assert str(raised.value) == message
    with pytest.raises(TableNotFoundError) as raised:
        doris.recover_partition(spark, table=f"{ns}.nope", partition="p0")
    assert str(raised.value) == not_found(f"{ns}.nope")
    assert (snapshot_count(spark, table), partition_names(spark, table)) == before


def test_invalid_arguments(spark, table):
    assert sql_error(spark, f"CALL doris.recover_partition('{table}', 'p1', 'a b')") == (
        "Incorrect partition name 'a b': a partition name is 1 to 128 letters, digits, '_' or '-' and does not start "
        "with '-', e.g. 'p202405'"
    )
    assert sql_error(spark, f"CALL doris.recover_partition(table => '{table}', partition => 'p1', as => 'x')") == (
        f"Unknown argument: as. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, f"CALL doris.recover_partition(table => '{table}')") == (
        f"Missing required parameters: [partition]. Usage: {SIGNATURE}"
    )


def test_cleanup_empties_the_recycle_bin_once_entries_expire(spark, ns):
    table = f"{ns}.expiring"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL) DUPLICATE KEY(k) "
        "PARTITION BY RANGE(k) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20)) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1), (11) AS t(k)")
    doris.drop_partition(spark, table=table, partition="p0")
    doris.set_properties(spark, table=table, properties={"catalog_trash_expire_second": "0"})
    doris.load(spark, table=table, query="SELECT * FROM VALUES (12) AS t(k)")  # the drop is no longer the head
    doris.cleanup(spark, table=table, older_than="2999-01-01 00:00:00", retain_last=1)
    with pytest.raises(PartitionError) as raised:
        doris.recover_partition(spark, table=table, partition="p0")
    assert str(raised.value).startswith("No partition named 'p0' or partition id '-1' in table expiring: ")
    assert partition_names(spark, table) == ["p1"]
