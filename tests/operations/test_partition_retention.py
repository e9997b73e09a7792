"""``partition.retention_count`` on real Spark and Iceberg: a scheduler pass (``run_dynamic_partition``)
keeps the newest N history partitions of an AUTO RANGE table, drops the others into the recycle bin
in one commit, and never touches the current and future partitions.

The scenarios are Doris's (paths under apache/doris's regression-test/suites)."""

from __future__ import annotations

import datetime as dt

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import InvalidTableDefinitionError
from iceberg_doris.operations.dynamic_partitions import scheduled_tables
from iceberg_doris.partitioning import resolve_time_zone
from iceberg_doris.partitioning.dynamic_partition.time_zones import system_time_zone
from tests.concurrency import values
from tests.operations.test_recycle_bin import snapshot_count

pytestmark = pytest.mark.spark

AUTO_DAY = "AUTO PARTITION BY RANGE (date_trunc(k0, 'day')) () DISTRIBUTED BY HASH(`k0`) BUCKETS 1"


def today() -> dt.date:
    """Today on the clock retention reads (the system time zone, as Doris's FE reads its own)."""
    return dt.datetime.now(resolve_time_zone(system_time_zone())).date()


def name(day: dt.date) -> str:
    return "p" + day.strftime("%Y%m%d") + "000000"


def noon_rows(days: list[dt.date], copies: int = 1) -> str:
    rows = [f"(TIMESTAMP_NTZ'{d.isoformat()} 12:00:00', {i})" for d in days for i in range(copies)]
    return values(rows, "k0, n")


def create(spark, table: str, properties: str = "") -> None:
    props = f"PROPERTIES ({properties})" if properties else ""
    doris.create_table(
        spark, ddl=f"CREATE TABLE {table} (k0 DATETIME NOT NULL, n INT NOT NULL) DUPLICATE KEY(k0) {AUTO_DAY} {props}"
    )


def partition_names(spark, table: str) -> list[str]:
    return [r.partition_name for r in doris.show_partitions(spark, table=table)]


def days_held(spark, table: str) -> list[dt.date]:
    return [r[0].date() for r in spark.sql(f"SELECT k0 FROM {table} ORDER BY k0").collect()]


def test_a_pass_keeps_the_three_newest_history_partitions_and_every_current_and_future_one(spark, namespace):
    # partition_p0/auto_partition/test_auto_new_recycle.groovy ("verify not consider future partition when do
    # recycle": [-5, -1] -> [-3, -1], [0, 2] -> [0, 2]), with ten history days.
    table = f"{namespace}.auto_recycle"
    create(spark, table, '"replication_num" = "1", "partition.retention_count" = "3"')
    now = today()
    history = [now + dt.timedelta(days=offset) for offset in range(-10, 0)]
    current_and_future = [now + dt.timedelta(days=offset) for offset in range(0, 3)]
    doris.load(spark, table=table, query=noon_rows(history + current_and_future, copies=2))
    assert len(partition_names(spark, table)) == 13  # loads never drop: Doris drops on its scheduler's tick

    before = snapshot_count(spark, table)
    rows = doris.run_dynamic_partition(spark, table=table)
    assert [(r.table, r.action, r.partition_name) for r in rows] == [(table, "DROP", name(d)) for d in history[:7]]
    assert snapshot_count(spark, table) == before + 1  # one commit for the whole pass
    kept = history[7:] + current_and_future
    assert partition_names(spark, table) == [name(d) for d in kept]
    assert days_held(spark, table) == [d for d in kept for _ in range(2)]  # the dropped days' rows are gone
    assert doris.run_dynamic_partition(spark, table=table) == []  # nothing left to drop, nothing committed
    assert snapshot_count(spark, table) == before + 1

    # Dropped into the recycle bin, as Doris's scheduler drops without FORCE: the rows come back.
    [recovered] = doris.recover_partition(spark, table=table, partition=name(history[0]))
    assert recovered.recovered_rows == 2
    assert days_held(spark, table)[:2] == [history[0], history[0]]
    # It is a history partition beyond the newest three again, so the next pass drops it again.
    assert [r.partition_name for r in doris.run_dynamic_partition(spark, table=table)] == [name(history[0])]
    assert partition_names(spark, table) == [name(d) for d in kept]


def test_setting_the_count_later_and_changing_it(spark, namespace):
    # partition_p0/auto_partition/test_auto_new_recycle.groovy: 100 days of 2020 loaded, the count set to 3, a
    # pass leaves 3; the same days loaded again, a pass leaves the 3 newest with two rows each; a count of 1
    # leaves 1; a count of 10 and 2022's days leave 10. Twelve days stand for the hundred here.
    table = f"{namespace}.auto_recycle"
    create(spark, table, '"replication_num" = "1"')
    days = [dt.date(2020, 1, 1) + dt.timedelta(days=i) for i in range(12)]
    doris.load(spark, table=table, query=noon_rows(days))
    assert len(partition_names(spark, table)) == 12

    [change] = doris.set_properties(spark, table=table, properties={"partition.retention_count": "3"})
    assert (change.property, change.old_value, change.new_value) == ("partition.retention_count", None, "3")
    assert len(partition_names(spark, table)) == 12  # set_properties drops nothing; the pass does
    # A pass over every table (no table given) visits it.
    assert table in scheduled_tables(spark)
    assert len(doris.run_dynamic_partition(spark, table=table)) == 9
    assert partition_names(spark, table) == [name(d) for d in days[-3:]]

    doris.load(spark, table=table, query=noon_rows(days))
    doris.run_dynamic_partition(spark, table=table)
    assert days_held(spark, table) == [d for d in days[-3:] for _ in range(2)]

    doris.set_properties(spark, table=table, properties={"partition.retention_count": "1"})
    doris.run_dynamic_partition(spark, table=table)
    assert partition_names(spark, table) == [name(days[-1])]

    doris.set_properties(spark, table=table, properties={"partition.retention_count": "10"})
    later = [dt.date(2022, 1, 1) + dt.timedelta(days=i) for i in range(12)]
    doris.load(spark, table=table, query=noon_rows(later))
    doris.run_dynamic_partition(spark, table=table)
    assert partition_names(spark, table) == [name(d) for d in later[-10:]]


def test_set_properties_refuses_what_doris_refuses_and_changes_nothing(spark, namespace):
    # partition_p0/auto_partition/test_auto_new_recycle.groovy
    table = f"{namespace}.auto_recycle"
    create(spark, table, '"replication_num" = "1", "partition.retention_count" = "3"')
    dynamic = {
        "dynamic_partition.enable": "true", "dynamic_partition.time_unit": "DAY", "dynamic_partition.end": "3",
        "dynamic_partition.prefix": "p", "dynamic_partition.buckets": "32",
    }
    both = "^Can not use partition.retention_count and dynamic_partition properties at the same time$"
    with pytest.raises(InvalidTableDefinitionError, match=both):
        doris.set_properties(spark, table=table, properties=dynamic)
    with pytest.raises(InvalidTableDefinitionError, match=r"^partition\.retention_count should be > 0"):
        doris.set_properties(spark, table=table, properties={"partition.retention_count": "0"})
    described = {r.name: r.value for r in doris.describe(spark, table=table) if r.section == "property"}
    assert described.get("partition.retention_count") == "3"
    assert not any(key.startswith("dynamic_partition.") for key in described)

    # CREATE TABLE with both, as Doris's first case.
    remove = "^Please remove dynamic_partition properties when partition.retention_count enabled$"
    with pytest.raises(InvalidTableDefinitionError, match=remove):
        create(spark, f"{namespace}.both", '"dynamic_partition.enable" = "true", "dynamic_partition.time_unit" = "DAY", '
               '"dynamic_partition.start" = "-1", "dynamic_partition.end" = "2", "dynamic_partition.prefix" = "p", '
               '"dynamic_partition.create_history_partition" = "true", "partition.retention_count" = "3"')

    # The other way round: a dynamic-partition AUTO RANGE table cannot take the count.
    other = f"{namespace}.auto_dynamic"
    create(spark, other, '"dynamic_partition.enable" = "true", "dynamic_partition.time_unit" = "DAY", '
           '"dynamic_partition.end" = "0", "dynamic_partition.prefix" = "p"')
    with pytest.raises(InvalidTableDefinitionError, match=both):
        doris.set_properties(spark, table=other, properties={"partition.retention_count": "3"})
