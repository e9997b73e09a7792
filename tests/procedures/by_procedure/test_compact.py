"""``CALL doris.compact``: files with deleted rows rewritten into files of live rows."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import PartitionError, TableNotFoundError
from tests.procedures.by_procedure import call, not_found, sql_error, table_rows

pytestmark = pytest.mark.spark

SIGNATURE = "doris.compact(table string, partitions array<string> = NULL)"


def keyed(spark, table: str, partitioned: bool) -> str:
    partitions = "PARTITION BY RANGE(k) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20)) " if partitioned else ""
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) UNIQUE KEY(k) {partitions}DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'b'), (11, 'c'), (12, 'd') AS t(k, v)")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a2'), (11, 'c2') AS t(k, v)")  # DVs: work for compact
    return table


def delete_files(spark, table: str) -> int:
    return spark.sql(f"SELECT count(*) FROM {table}.delete_files").collect()[0][0]


@pytest.fixture(scope="module")
def partitioned(spark, ns):
    return keyed(spark, f"{ns}.parted", partitioned=True)


def test_positional_arguments(spark, ns):
    table = keyed(spark, f"{ns}.flat", partitioned=False)
    [row] = call(spark, f"CALL doris.compact('{table}')")
    head = spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0][0]
    assert row == (1, 1, 1, 0, 0, head)  # one file with a DV rewritten into one file
    assert delete_files(spark, table) == 0
    assert table_rows(spark, table) == [(1, "a2"), (2, "b"), (11, "c2"), (12, "d")]


def test_named_arguments(spark, partitioned):
    before = delete_files(spark, partitioned)
    [row] = call(spark, f"CALL doris.compact(table => '{partitioned}', partitions => array('p1'))")
    assert row[:5] == (1, 1, 1, 0, 0)
    assert delete_files(spark, partitioned) == before - 1  # p0's deletion vector stays
    assert table_rows(spark, partitioned) == [(1, "a2"), (2, "b"), (11, "c2"), (12, "d")]


def test_invalid_state(spark, ns, partitioned):
    with pytest.raises(PartitionError) as raised:
        doris.compact(spark, table=partitioned, partitions=["zz"])
    assert str(raised.value) == f"Partition[zz] does not exist in {partitioned}"
    with pytest.raises(TableNotFoundError) as raised:
        doris.compact(spark, table=f"{ns}.nope")
    assert str(raised.value) == not_found(f"{ns}.nope")


def test_invalid_arguments(spark, partitioned):
    assert sql_error(spark, f"CALL doris.compact('{partitioned}', map('p0', 'p1'))") == (
        "Wrong arg type for partitions: cannot cast map<string,string> to array<string>"
    )
    assert sql_error(spark, f"CALL doris.compact(table => '{partitioned}', min_deletes => 1)") == (
        f"Unknown argument: min_deletes. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, "CALL doris.compact(partitions => array('p0'))") == (
        f"Missing required parameters: [table]. Usage: {SIGNATURE}"
    )
