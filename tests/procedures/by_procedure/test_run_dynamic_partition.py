"""``CALL doris.run_dynamic_partition``: one pass of Doris's dynamic-partition scheduler."""

from __future__ import annotations

import datetime as dt

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import DorisError, TableNotFoundError
from tests.procedures.by_procedure import call, not_found, partition_names, sql_error

pytestmark = pytest.mark.spark

SIGNATURE = "doris.run_dynamic_partition(table string = NULL)"


def day(offset: int) -> str:
    return "p" + (dt.datetime.now(dt.timezone.utc).date() + dt.timedelta(days=offset)).strftime("%Y%m%d")


def dynamic_table(spark, table: str) -> str:
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {table} (d DATE NOT NULL, id INT NOT NULL) DUPLICATE KEY(d)
        PARTITION BY RANGE(d) () DISTRIBUTED BY HASH(id) BUCKETS 1
        PROPERTIES ("dynamic_partition.enable" = "true", "dynamic_partition.time_unit" = "DAY",
                    "dynamic_partition.start" = "-2", "dynamic_partition.end" = "1",
                    "dynamic_partition.prefix" = "p", "dynamic_partition.create_history_partition" = "true")""",
    )
    # A later start: the pass drops what falls before it.
    doris.set_properties(spark, table=table, properties={"dynamic_partition.start": "-1"})
    return table


@pytest.fixture(scope="module")
def plain(spark, ns):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {ns}.d (k INT NOT NULL) DUPLICATE KEY(k) "
        "PARTITION BY RANGE(k) (PARTITION p0 VALUES LESS THAN (10)) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    return f"{ns}.d"


def test_positional_arguments(spark, ns):
    table = dynamic_table(spark, f"{ns}.pos")
    rows = call(spark, f"CALL doris.run_dynamic_partition('{table}')")
    dropped = (dt.datetime.now(dt.timezone.utc).date() - dt.timedelta(days=2)).isoformat()
    assert [(r[0], r[1], r[2], r[4]) for r in rows] == [(table, "DROP", day(-2), None)]
    assert dropped in rows[0][3]  # the range it had
    assert partition_names(spark, table) == [day(-1), day(0), day(1)]


def test_named_arguments(spark, ns):
    table = dynamic_table(spark, f"{ns}.named")
    rows = call(spark, f"CALL doris.run_dynamic_partition(table => '{table}')")
    assert [(r[0], r[1], r[2], r[4]) for r in rows] == [(table, "DROP", day(-2), None)]
    assert partition_names(spark, table) == [day(-1), day(0), day(1)]
    assert call(spark, f"CALL doris.run_dynamic_partition(table => '{table}')") == []  # nothing left to do


def test_invalid_state(spark, ns, plain):
    with pytest.raises(DorisError) as raised:
        doris.run_dynamic_partition(spark, table=plain)
    assert str(raised.value) == (
        f"Table {plain} has no enabled dynamic partitions and no partition.retention_count: set "
        "dynamic_partition.enable and the other dynamic_partition.* properties (or, on an AUTO RANGE table, "
        "partition.retention_count) first"
    )
    with pytest.raises(TableNotFoundError) as raised:
        doris.run_dynamic_partition(spark, table=f"{ns}.nope")
    assert str(raised.value) == not_found(f"{ns}.nope")


def test_invalid_arguments(spark, plain):
    assert sql_error(spark, "CALL doris.run_dynamic_partition(1)") == "Wrong arg type for table: cannot cast bigint to string"
    assert sql_error(spark, f"CALL doris.run_dynamic_partition(tables => '{plain}')") == (
        f"Unknown argument: tables. Usage: {SIGNATURE}"
    )
    # table is optional (NULL: every enabled table), so there is no missing-argument case.
