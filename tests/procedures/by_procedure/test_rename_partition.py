"""``CALL doris.rename_partition``: Doris RENAME PARTITION, one metadata commit."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import PartitionError, TableNotFoundError
from tests.procedures.by_procedure import call, not_found, partition_names, snapshot_count, sql_error, table_rows

pytestmark = pytest.mark.spark

SIGNATURE = "doris.rename_partition(table string, partition string, new_name string)"


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
    doris.add_temp_partition(spark, table=table, partition="tp1", values_less_than="20")
    doris.create_table(spark, ddl=f"CREATE TABLE {ns}.flat (k INT NOT NULL) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    return table


def test_positional_arguments(spark, table):
    snapshots = snapshot_count(spark, table)
    assert call(spark, f"CALL doris.rename_partition('{table}', 'p0', 'first')") == [("p0", "first")]
    assert partition_names(spark, table) == ["first", "p1"]
    assert snapshot_count(spark, table) == snapshots  # metadata only: no data snapshot
    assert table_rows(spark, table) == [(1, "a"), (11, "b")]
    # Rows still route by value: a load into the renamed partition lands there.
    doris.load(spark, table=table, query="SELECT * FROM VALUES (2, 'c') AS t(k, v)", partitions=["first"])
    assert [r.row_count for r in doris.show_partitions(spark, table=table)] == [2, 1]


def test_named_arguments(spark, table):
    assert call(spark, f"CALL doris.rename_partition(table => '{table}', partition => 'p1', new_name => 'second')") == [
        ("p1", "second"),
    ]
    assert partition_names(spark, table) == ["first", "second"]
    # A freed name can be taken again, and the new name stays clear of temp partitions.
    doris.add_temp_partition(spark, table=table, partition="p1", values_range=["50", "60"])
    assert partition_names(spark, table, temporary=True) == ["tp1", "p1"]


def test_invalid_state(spark, ns, table):
    cases = [
        (dict(table=table, partition="first", new_name="FIRST"), "Same partition name"),
        (dict(table=table, partition="zz", new_name="z2"),
         "Partition[zz] does not exists: doris.show_partitions lists the table's partitions (temporary partitions "
         "cannot be renamed)"),
        (dict(table=table, partition="tp1", new_name="tp2"),
         "Partition[tp1] does not exists: doris.show_partitions lists the table's partitions (temporary partitions "
         "cannot be renamed)"),
        (dict(table=table, partition="first", new_name="tp1"), "Partition name[tp1] is already used"),
        (dict(table=f"{ns}.flat", partition="flat", new_name="p"),
         "Table[flat] is single partitioned. no need to rename partition name."),
    ]
    before = partition_names(spark, table), partition_names(spark, table, temporary=True)
    for arguments, message in cases:
        with pytest.raises(PartitionError) as raised:
            doris.rename_partition(spark, **arguments)
        assert str(raised.value) == message
    with pytest.raises(TableNotFoundError) as raised:
        doris.rename_partition(spark, table=f"{ns}.nope", partition="p0", new_name="p9")
    assert str(raised.value) == not_found(f"{ns}.nope")
    assert (partition_names(spark, table), partition_names(spark, table, temporary=True)) == before


def test_invalid_arguments(spark, table):
    assert sql_error(spark, f"CALL doris.rename_partition('{table}', 'first', 'a/b')") == (
        "Incorrect partition name 'a/b': a partition name is 1 to 128 letters, digits, '_' or '-' and does not start "
        "with '-', e.g. 'p202405'"
    )
    assert sql_error(spark, f"CALL doris.rename_partition(table => '{table}', partition => 'first', to => 'x')") == (
        f"Unknown argument: to. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, f"CALL doris.rename_partition(table => '{table}', partition => 'first')") == (
        f"Missing required parameters: [new_name]. Usage: {SIGNATURE}"
    )
    assert partition_names(spark, table) == ["first", "second"]
