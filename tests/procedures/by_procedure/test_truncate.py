"""``CALL doris.truncate``: Doris TRUNCATE TABLE [PARTITION (...)], one metadata-only commit."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import PartitionError, TableNotFoundError
from tests.procedures.by_procedure import call, not_found, partition_names, snapshot_count, sql_error, table_rows
from tests.support import duckdb_reader

pytestmark = pytest.mark.spark

SIGNATURE = "doris.truncate(table string, partitions array<string> = NULL, temporary boolean = false, force boolean = false)"


def make(spark, table: str) -> str:
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) UNIQUE KEY(k) "
        "PARTITION BY RANGE(k) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20), "
        "PARTITION p2 VALUES LESS THAN (30)) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'b'), (11, 'c'), (21, 'd') AS t(k, v)")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (2, 'b2') AS t(k, v)")  # a deletion vector in p0
    doris.add_temp_partition(spark, table=table, partition="tp0", values_less_than="10")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (5, 't') AS t(k, v)", temporary_partitions=["tp0"])
    return table


@pytest.fixture(scope="module")
def table(spark, ns):
    doris.create_table(spark, ddl=f"CREATE TABLE {ns}.flat (k INT NOT NULL) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    return make(spark, f"{ns}.u")


def test_positional_arguments(spark, ns, py_catalog):
    table = make(spark, f"{ns}.whole")
    before = spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0][0]
    [row] = call(spark, f"CALL doris.truncate('{table}')")
    head = spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0][0]
    assert row == ("p0,p1,p2", "tp0", 5, head)  # records of the files removed (the replaced row's too)
    assert table_rows(spark, table) == []
    assert partition_names(spark, table) == ["p0", "p1", "p2"]  # the partitions stay, empty
    assert partition_names(spark, table, temporary=True) == []  # Doris: TRUNCATE TABLE drops temp partitions
    assert spark.sql(f"SELECT count(*) FROM {table}.refs WHERE name = 'doris_temp_tp0'").collect()[0][0] == 0
    assert table_rows(spark, table, str(before)) == [(1, "a"), (2, "b2"), (11, "c"), (21, "d")]
    loaded = py_catalog.load_table(table)
    assert loaded.scan().to_arrow().num_rows == 0
    assert duckdb_reader.read_rows(loaded.metadata_location) == []
    doris.load(spark, table=table, query="SELECT * FROM VALUES (3, 'new') AS t(k, v)")  # still a working table
    assert table_rows(spark, table) == [(3, "new")]


def test_named_arguments(spark, ns, table):
    [row] = call(spark, f"CALL doris.truncate(table => '{table}', partitions => array('p0', 'p2'))")
    assert row[:3] == ("p0,p2", None, 4)
    assert table_rows(spark, table) == [(11, "c")]
    assert table_rows(spark, table, "doris_temp_tp0") == [(5, "t")]  # named partitions leave temp partitions alone
    doris.load(spark, table=f"{ns}.flat", query="SELECT * FROM VALUES (1), (2) AS t(k)")
    assert doris.truncate(spark, table=f"{ns}.flat", partitions=["flat"])[0][:3] == ("flat", None, 2)
    assert spark.sql(f"SELECT count(*) FROM {ns}.flat").collect()[0][0] == 0


def test_invalid_state(spark, ns, table):
    before = snapshot_count(spark, table)
    with pytest.raises(PartitionError) as raised:
        doris.truncate(spark, table=table, partitions=["p1", "tp0"])  # a temp partition is not a partition here
    assert str(raised.value) == (
        "Partition tp0 does not exist: doris.show_partitions lists the table's partitions (temporary partitions "
        "cannot be truncated)"
    )
    with pytest.raises(PartitionError) as raised:
        doris.truncate(spark, table=table, partitions=["tp0"], temporary=True)
    assert str(raised.value) == (
        "Not support truncate temp partitions: drop the temporary partition (doris.drop_temp_partition) and add it "
        "again instead"
    )
    with pytest.raises(TableNotFoundError) as raised:
        doris.truncate(spark, table=f"{ns}.nope")
    assert str(raised.value) == not_found(f"{ns}.nope")
    assert snapshot_count(spark, table) == before
    assert (11, "c") in table_rows(spark, table)


def test_invalid_arguments(spark, table):
    assert sql_error(spark, f"CALL doris.truncate('{table}', array('p1'), 'maybe')") == (
        "Wrong arg type for temporary: cannot cast string to boolean"
    )
    assert sql_error(spark, f"CALL doris.truncate(table => '{table}', partition => 'p1')") == (
        f"Unknown argument: partition. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, "CALL doris.truncate(partitions => array('p1'))") == (
        f"Missing required parameters: [table]. Usage: {SIGNATURE}"
    )
    assert (11, "c") in table_rows(spark, table)
