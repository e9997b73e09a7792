"""``CALL doris.replace_partition``: temporary partitions replace formal ones (Doris REPLACE PARTITION)."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import PartitionError, TableNotFoundError
from tests.procedures.by_procedure import call, not_found, partition_names, sql_error, table_rows
from tests.procedures.by_procedure._temp_tables import temp_table

pytestmark = pytest.mark.spark

SIGNATURE = (
    "doris.replace_partition(table string, partitions array<string>, temp_partitions array<string>, "
    "strict_range boolean = true, use_temp_partition_name boolean = false)"
)


@pytest.fixture(scope="module")
def table(spark, ns):
    doris.create_table(spark, ddl=f"CREATE TABLE {ns}.flat (k INT NOT NULL) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    return temp_table(spark, f"{ns}.d")


def head(spark, table: str) -> int:
    return spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0][0]


def test_positional_arguments(spark, table):
    [row] = call(spark, f"CALL doris.replace_partition('{table}', array('p0'), array('tp0'))")
    assert row == ("p0", "tp0", 1, 1, 0, None, head(spark, table))
    assert [r for r in table_rows(spark, table) if r[0] < 10] == [(5, "t0")]
    assert "tp0" not in partition_names(spark, table, temporary=True)  # the replaced rows are dropped


def test_named_arguments(spark, table):
    [row] = call(
        spark,
        f"CALL doris.replace_partition(table => '{table}', partitions => array('p1'), temp_partitions => array('tp1'), "
        "strict_range => true, use_temp_partition_name => false)",
    )
    assert row == ("p1", "tp1", 1, 1, 0, None, head(spark, table))
    assert [r for r in table_rows(spark, table) if 10 <= r[0] < 20] == [(15, "t1")]
    assert "p1" in partition_names(spark, table) and "tp1" not in partition_names(spark, table, temporary=True)
    assert spark.sql(f"SELECT count(*) FROM {table}.refs WHERE name = 'doris_temp_tp1'").collect()[0][0] == 0


def test_invalid_state(spark, ns, table):
    with pytest.raises(PartitionError) as raised:
        doris.replace_partition(spark, table=table, partitions=["p2"], temp_partitions=["tpz"])
    assert str(raised.value) == "Temp partition[tpz] does not exist"
    with pytest.raises(PartitionError) as raised:
        doris.replace_partition(spark, table=table, partitions=["pz"], temp_partitions=["tp2"])
    assert str(raised.value) == "Partition[pz] does not exist"
    with pytest.raises(PartitionError) as raised:
        doris.replace_partition(spark, table=f"{ns}.flat", partitions=["p0"], temp_partitions=["tp0"])
    # An unpartitioned table's one partition is named after the table (temp partitions of it replace it all).
    assert str(raised.value) == f"Partition[p0] does not exist: {ns}.flat is unpartitioned, its one partition is named flat"
    with pytest.raises(TableNotFoundError) as raised:
        doris.replace_partition(spark, table=f"{ns}.nope", partitions=["p0"], temp_partitions=["tp0"])
    assert str(raised.value) == not_found(f"{ns}.nope")
    assert table_rows(spark, table, "doris_temp_tp2") == [(25, "t2")]


def test_invalid_arguments(spark, table):
    assert sql_error(spark, f"CALL doris.replace_partition('{table}', array('p2'), array('tp2'), 'no')") == (
        "Wrong arg type for strict_range: cannot cast string to boolean"
    )
    assert sql_error(spark, f"CALL doris.replace_partition(table => '{table}', partitions => array('p2'), temp_partitions => array('tp2'), force => true)") == (
        f"Unknown argument: force. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, f"CALL doris.replace_partition(table => '{table}', partitions => array('p2'))") == (
        f"Missing required parameters: [temp_partitions]. Usage: {SIGNATURE}"
    )
    assert table_rows(spark, table, "doris_temp_tp2") == [(25, "t2")]
