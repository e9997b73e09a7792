"""``CALL doris.add_partition``: a RANGE or LIST partition, or a temporary one."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import PartitionError
from tests.procedures.by_procedure import call, not_partitioned, partition_names, sql_error

pytestmark = pytest.mark.spark

SIGNATURE = (
    "doris.add_partition(table string, partition string, values_less_than string|array<string> = NULL, "
    "values_range array<string>|array<array<string>> = NULL, values_in array<string>|array<array<string>> = NULL, "
    "temporary boolean = false)"
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
    assert call(spark, f"CALL doris.add_partition('{table}', 'p2', '30')") == [
        ("p2", rng(20, 30), False, None, "truncate(10, k), bucket(1, k)"),
    ]
    assert "p2" in partition_names(spark, table)


def test_named_arguments(spark, table):
    rows = call(
        spark,
        f"CALL doris.add_partition(table => '{table}', partition => 'tp9', values_range => array('90', '100'), temporary => true)",
    )
    assert rows == [("tp9", rng(90, 100), True, "doris_temp_tp9", "truncate(10, k), bucket(1, k)")]
    assert partition_names(spark, table, temporary=True) == ["tp9"]
    assert spark.sql(f"SELECT count(*) FROM {table}.refs WHERE name = 'doris_temp_tp9'").collect()[0][0] == 1


def test_invalid_state(spark, ns, table):
    with pytest.raises(PartitionError) as raised:
        doris.add_partition(spark, table=table, partition="p15", values_range=["15", "25"])
    assert str(raised.value) == f"Range {rng(15, 25)} is intersected with range: {rng(10, 20)} (conflicting partition: p1)"
    with pytest.raises(PartitionError) as raised:
        doris.add_partition(spark, table=f"{ns}.flat", partition="p0", values_less_than="10")
    assert str(raised.value) == not_partitioned(f"{ns}.flat")
    assert "p15" not in partition_names(spark, table)


def test_invalid_arguments(spark, table):
    assert sql_error(spark, f"CALL doris.add_partition('{table}', 'p5', '50', NULL, NULL, 3)") == (
        "Wrong arg type for temporary: cannot cast bigint to boolean"
    )
    assert sql_error(spark, f"CALL doris.add_partition(table => '{table}', partition => 'p5', values_less_than => '50', size => 3)") == (
        f"Unknown argument: size. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, f"CALL doris.add_partition(table => '{table}', values_less_than => '50')") == (
        f"Missing required parameters: [partition]. Usage: {SIGNATURE}"
    )
    with pytest.raises(PartitionError) as raised:  # an argument problem, though raised as PartitionError
        doris.add_partition(spark, table=table, partition="p5")
    assert str(raised.value) == "Give exactly one of values_less_than, values_range or values_in"
