"""``CALL doris.drop_temp_partition``: the contract's short form of drop_partition(temporary => true)."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import PartitionError, TableNotFoundError
from tests.procedures.by_procedure import call, not_found, partition_names, snapshot_count, sql_error, table_rows

pytestmark = pytest.mark.spark

SIGNATURE = "doris.drop_temp_partition(table string, partition string, if_exists boolean = false)"


@pytest.fixture(scope="module")
def table(spark, ns):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {ns}.d (k INT NOT NULL, v STRING) DUPLICATE KEY(k) "
        "PARTITION BY RANGE(k) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20)) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    table = f"{ns}.d"
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (11, 'b') AS t(k, v)")
    for name, upper in (("tp0", "10"), ("tp1", "20")):
        doris.add_temp_partition(spark, table=table, partition=name, values_less_than=upper)
    doris.load(spark, table=table, query="SELECT * FROM VALUES (5, 't') AS t(k, v)", temporary_partitions=["tp0"])
    doris.create_table(spark, ddl=f"CREATE TABLE {ns}.flat (k INT NOT NULL) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.add_temp_partition(spark, table=f"{ns}.flat", partition="staged")
    return table


def test_positional_arguments(spark, table):
    [row] = call(spark, f"CALL doris.drop_temp_partition('{table}', 'tp0')")
    head = spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0][0]
    assert row == ("tp0", True, True, head, 0)
    assert partition_names(spark, table, temporary=True) == ["tp1"]
    assert spark.sql(f"SELECT count(*) FROM {table}.refs WHERE name = 'doris_temp_tp0'").collect()[0][0] == 0
    assert table_rows(spark, table) == [(1, "a"), (11, "b")]  # formal rows untouched


def test_named_arguments(spark, ns, table):
    assert call(spark, f"CALL doris.drop_temp_partition(table => '{table}', partition => 'tp1')")[0][:3] == ("tp1", True, True)
    assert call(spark, f"CALL doris.drop_temp_partition(table => '{table}', partition => 'gone', if_exists => true)")[0][:3] == (
        "gone", True, False,
    )
    assert partition_names(spark, table, temporary=True) == []
    assert call(spark, f"CALL doris.drop_temp_partition(table => '{ns}.flat', partition => 'staged')")[0][:3] == (
        "staged", True, True,
    )
    assert partition_names(spark, f"{ns}.flat", temporary=True) == []


def test_invalid_state(spark, ns, table):
    before = snapshot_count(spark, table)
    with pytest.raises(PartitionError) as raised:
        doris.drop_temp_partition(spark, table=table, partition="p0")  # a formal partition is not a temp one
    assert str(raised.value) == (
        "Error in list of partitions to p0: the table has no temporary partition p0; doris.show_partitions lists them, "
        "and if_exists => true ignores a missing one"
    )
    with pytest.raises(PartitionError) as raised:
        doris.drop_temp_partition(spark, table=f"{ns}.flat", partition="nope")
    assert str(raised.value) == (
        "Error in list of partitions to nope: the table has no temporary partition nope; doris.show_partitions lists "
        "them, and if_exists => true ignores a missing one"
    )
    with pytest.raises(TableNotFoundError) as raised:
        doris.drop_temp_partition(spark, table=f"{ns}.nope", partition="tp0")
    assert str(raised.value) == not_found(f"{ns}.nope")
    assert snapshot_count(spark, table) == before
    assert "p0" in partition_names(spark, table)


def test_invalid_arguments(spark, table):
    assert sql_error(spark, f"CALL doris.drop_temp_partition('{table}', 'tp1', 'maybe')") == (
        "Wrong arg type for if_exists: cannot cast string to boolean"
    )
    assert sql_error(spark, f"CALL doris.drop_temp_partition(table => '{table}', partition => 'tp1', temporary => true)") == (
        f"Unknown argument: temporary. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, f"CALL doris.drop_temp_partition(table => '{table}')") == (
        f"Missing required parameters: [partition]. Usage: {SIGNATURE}"
    )
