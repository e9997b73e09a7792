"""``CALL doris.add_temp_partition``: the contract's short form of add_partition(temporary => true)."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import PartitionError, TableNotFoundError
from tests.procedures.by_procedure import call, not_found, partition_names, snapshot_count, sql_error

pytestmark = pytest.mark.spark

SIGNATURE = (
    "doris.add_temp_partition(table string, partition string, values_less_than string|array<string> = NULL, "
    "values_range array<string>|array<array<string>> = NULL, values_in array<string>|array<array<string>> = NULL)"
)


def rng(lower: int, upper: int) -> str:
    return f"[types: [INT]; keys: [{lower}]; ..types: [INT]; keys: [{upper}]; )"


@pytest.fixture(scope="module")
def table(spark, ns):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {ns}.d (k INT NOT NULL, v STRING) DUPLICATE KEY(k) "
        "PARTITION BY RANGE(k) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20)) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.create_table(spark, ddl=f"CREATE TABLE {ns}.flat (k INT NOT NULL) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    return f"{ns}.d"


def test_positional_arguments(spark, table):
    assert call(spark, f"CALL doris.add_temp_partition('{table}', 'tp0', '10')") == [
        ("tp0", rng(-2147483648, 10), True, "doris_temp_tp0", "truncate(10, k), bucket(1, k)"),
    ]
    assert partition_names(spark, table, temporary=True) == ["tp0"]
    assert partition_names(spark, table) == ["p0", "p1"]  # formal partitions untouched


def test_named_arguments(spark, ns, table):
    rows = call(spark, f"CALL doris.add_temp_partition(table => '{table}', partition => 'tp9', values_range => array('90', '100'))")
    assert rows == [("tp9", rng(90, 100), True, "doris_temp_tp9", "truncate(10, k), bucket(1, k)")]
    assert spark.sql(f"SELECT count(*) FROM {table}.refs WHERE name = 'doris_temp_tp9'").collect()[0][0] == 1
    # An unpartitioned table takes a temp partition without values (Doris: ADD TEMPORARY PARTITION name).
    assert call(spark, f"CALL doris.add_temp_partition(table => '{ns}.flat', partition => 'staged')") == [
        ("staged", None, True, "doris_temp_staged", "bucket(1, k)"),
    ]
    assert partition_names(spark, f"{ns}.flat", temporary=True) == ["staged"]


def test_invalid_state(spark, ns, table):
    before = snapshot_count(spark, table), partition_names(spark, table, temporary=True)
    with pytest.raises(PartitionError) as raised:
        doris.add_temp_partition(spark, table=table, partition="p1", values_range=["50", "60"])
    assert str(raised.value) == "Duplicate partition name p1"
    with pytest.raises(PartitionError) as raised:  # temp partitions must not overlap each other
        doris.add_temp_partition(spark, table=table, partition="tp95", values_range=["95", "99"])
    assert str(raised.value) == f"Range {rng(95, 99)} is intersected with range: {rng(90, 100)} (conflicting partition: tp9)"
    with pytest.raises(PartitionError) as raised:
        doris.add_temp_partition(spark, table=f"{ns}.flat", partition="tp1", values_less_than="10")
    assert str(raised.value) == (
        f"Only support adding partition to range and list partitioned table: {ns}.flat is not partitioned, so a "
        "temporary partition of it takes no values (give none: it stages rows for the whole table)"
    )
    with pytest.raises(TableNotFoundError) as raised:
        doris.add_temp_partition(spark, table=f"{ns}.nope", partition="tp1", values_less_than="10")
    assert str(raised.value) == not_found(f"{ns}.nope")
    assert (snapshot_count(spark, table), partition_names(spark, table, temporary=True)) == before


def test_invalid_arguments(spark, table):
    assert sql_error(spark, "CALL doris.add_temp_partition(1, 'tp5', '50')") == (
        "Wrong arg type for table: cannot cast bigint to string"
    )
    assert sql_error(spark, f"CALL doris.add_temp_partition(table => '{table}', partition => 'tp5', temporary => true)") == (
        f"Unknown argument: temporary. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, f"CALL doris.add_temp_partition(table => '{table}')") == (
        f"Missing required parameters: [partition]. Usage: {SIGNATURE}"
    )
    with pytest.raises(PartitionError) as raised:
        doris.add_temp_partition(spark, table=table, partition="tp5")
    assert str(raised.value) == "Give exactly one of values_less_than, values_range or values_in"
    assert "tp5" not in partition_names(spark, table, temporary=True)
