"""``CALL doris.delete``: Doris DELETE FROM, one commit on any table model."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import PartitionError, TableNotFoundError
from tests.procedures.by_procedure import call, not_found, snapshot_count, sql_error, table_rows

pytestmark = pytest.mark.spark

SIGNATURE = "doris.delete(table string, where string, partitions array<string> = NULL, label string = NULL)"


@pytest.fixture(scope="module")
def parted(spark, ns):
    table = f"{ns}.parted"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) UNIQUE KEY(k) PARTITION BY RANGE(k) "
        "(PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20)) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'b'), (11, 'a'), (12, 'b') AS t(k, v)")
    return table


def head(spark, table: str) -> int:
    return spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0][0]


def test_positional_arguments(spark, parted):
    [row] = call(spark, f"CALL doris.delete('{parted}', \"v = 'a'\", array('p1'), 'del_p1')")
    assert row[:3] == ("del_p1", head(spark, parted), 1)
    assert table_rows(spark, parted) == [(1, "a"), (2, "b"), (12, "b")]


def test_named_arguments(spark, parted):
    [row] = call(spark, f"CALL doris.delete(where => 'k = 2', table => '{parted}')")
    assert row[1:3] == (head(spark, parted), 1)
    assert row[0].startswith("delete_")
    assert (2, "b") not in table_rows(spark, parted)


def test_invalid_state(spark, ns, parted):
    snapshots = snapshot_count(spark, parted)
    with pytest.raises(PartitionError) as raised:
        doris.delete(spark, table=parted, where="true", partitions=["zz"])
    assert str(raised.value) == f"Partition[zz] does not exist in {parted}: name one of its partitions (doris.show_partitions lists them)"
    assert snapshot_count(spark, parted) == snapshots
    with pytest.raises(TableNotFoundError) as raised:
        doris.delete(spark, table=f"{ns}.nope", where="true")
    assert str(raised.value) == not_found(f"{ns}.nope")


def test_invalid_arguments(spark, parted):
    assert sql_error(spark, f"CALL doris.delete('{parted}', 'true', map('p0', 'p1'))") == (
        "Wrong arg type for partitions: cannot cast map<string,string> to array<string>"
    )
    assert sql_error(spark, f"CALL doris.delete(table => '{parted}', where => 'true', merge_type => 'DELETE')") == (
        f"Unknown argument: merge_type. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, f"CALL doris.delete(table => '{parted}')") == (
        f"Missing required parameters: [where]. Usage: {SIGNATURE}"
    )
