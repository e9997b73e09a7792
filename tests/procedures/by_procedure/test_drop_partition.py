"""``CALL doris.drop_partition``: a partition and its rows, or a temporary partition, in one commit."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import PartitionError
from tests.procedures.by_procedure import call, not_partitioned, partition_names, sql_error, table_rows

pytestmark = pytest.mark.spark

SIGNATURE = (
    "doris.drop_partition(table string, partition string, temporary boolean = false, if_exists boolean = false, "
    "force boolean = false)"
)


@pytest.fixture(scope="module")
def table(spark, ns):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {ns}.d (k INT NOT NULL, v STRING) DUPLICATE KEY(k) "
        "PARTITION BY RANGE(k) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20), "
        "PARTITION p2 VALUES LESS THAN (30)) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    table = f"{ns}.d"
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'b'), (11, 'c'), (21, 'd') AS t(k, v)")
    doris.add_partition(spark, table=table, partition="tp0", values_less_than="10", temporary=True)
    doris.create_table(spark, ddl=f"CREATE TABLE {ns}.flat (k INT NOT NULL) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    return table


def test_positional_arguments(spark, table):
    [row] = call(spark, f"CALL doris.drop_partition('{table}', 'p0')")
    head = spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0][0]
    assert row == ("p0", False, True, head, 2)
    assert "p0" not in partition_names(spark, table)
    assert all(k >= 10 for k, _ in table_rows(spark, table))
    previous = spark.sql(f"SELECT parent_id FROM {table}.snapshots WHERE snapshot_id = {head}").collect()[0][0]
    assert (1, "a") in table_rows(spark, table, str(previous))  # time travel still reads them


def test_named_arguments(spark, table):
    [row] = call(spark, f"CALL doris.drop_partition(table => '{table}', partition => 'tp0', temporary => true)")
    assert row[:3] == ("tp0", True, True)
    assert partition_names(spark, table, temporary=True) == []
    assert call(spark, f"CALL doris.drop_partition(table => '{table}', partition => 'gone', if_exists => true)")[0][:3] == (
        "gone", False, False,
    )
    assert (11, "c") in table_rows(spark, table)


def test_invalid_state(spark, ns, table):
    with pytest.raises(PartitionError) as raised:
        doris.drop_partition(spark, table=table, partition="zz")
    assert str(raised.value) == (
        "Error in list of partitions to zz: the table has no partition zz; doris.show_partitions lists them, and "
        "if_exists => true ignores a missing one"
    )
    with pytest.raises(PartitionError) as raised:
        doris.drop_partition(spark, table=f"{ns}.flat", partition="p0")
    # The same words as add_partition on such a table.
    assert str(raised.value) == not_partitioned(f"{ns}.flat")


def test_invalid_arguments(spark, table):
    assert sql_error(spark, f"CALL doris.drop_partition('{table}', 'p2', 'maybe')") == (
        "Wrong arg type for temporary: cannot cast string to boolean"
    )
    assert sql_error(spark, f"CALL doris.drop_partition(table => '{table}', partition => 'p2', purge => true)") == (
        f"Unknown argument: purge. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, f"CALL doris.drop_partition(table => '{table}')") == (
        f"Missing required parameters: [partition]. Usage: {SIGNATURE}"
    )
    assert "p2" in partition_names(spark, table)
