"""``partition.retention_count``: which history partitions a pass drops, and Doris's validations,
with fixed clocks."""

from __future__ import annotations

import datetime as dt

import pytest

from iceberg_doris.errors import InvalidTableDefinitionError
from iceberg_doris.partitioning import (
    PartitionSet,
    check_retention_on_alter,
    expired_history_partitions,
    parse_retention_count,
)

UTC = dt.timezone.utc


def daily(column_type: str, first: dt.date, days: int) -> PartitionSet:
    """Auto RANGE day partitions from ``first`` on, named as Doris names them."""
    partitions = PartitionSet.new("RANGE", ["k0"], [column_type])
    for offset in range(days):
        lower = first + dt.timedelta(days=offset)
        upper = lower + dt.timedelta(days=1)
        name = "p" + lower.strftime("%Y%m%d") + "000000"
        bounds = (lower.isoformat(), upper.isoformat())
        if column_type.startswith("DATETIME"):
            bounds = (f"{bounds[0]} 00:00:00", f"{bounds[1]} 00:00:00")
        partitions = partitions.add_partition(name, values_range=bounds)
    return partitions


def dropped(partitions: PartitionSet, count: int, now: dt.datetime) -> list[str]:
    return [p.name for p in expired_history_partitions(partitions, count, now)]


def test_the_newest_history_partitions_stay_and_current_and_future_ones_are_never_counted(monkeypatch):
    # Doris's auto-partitioning docs, "Lifecycle management": now 2025-10-21, a partition for each day of
    # 2025-10-16 .. 2025-10-23 and a count of 3 leave 18, 19, 20 (history) and 21, 22, 23 (current and future);
    # regression-test/suites/partition_p0/auto_partition/test_auto_new_recycle.groovy ("[-5, -1] -> [-3, -1]").
    monkeypatch.setenv("TZ", "UTC")
    partitions = daily("DATETIMEV2", dt.date(2025, 10, 16), 8)
    now = dt.datetime(2025, 10, 21, 12, 30, tzinfo=UTC)
    assert dropped(partitions, 3, now) == ["p20251016000000", "p20251017000000"]
    assert dropped(partitions, 5, now) == []
    assert dropped(partitions, 1, now) == ["p20251016000000", "p20251017000000", "p20251018000000", "p20251019000000"]


def test_a_partition_ending_at_now_is_history(monkeypatch):
    # History: upper bound <= now. At midnight the day that just ended is history, the new day is not.
    monkeypatch.setenv("TZ", "UTC")
    partitions = daily("DATETIMEV2", dt.date(2020, 1, 1), 3)
    assert dropped(partitions, 1, dt.datetime(2020, 1, 3, 0, 0, tzinfo=UTC)) == ["p20200101000000"]
    assert dropped(partitions, 1, dt.datetime(2020, 1, 2, 23, 59, 59, tzinfo=UTC)) == []


def test_a_date_column_compares_with_today(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    partitions = daily("DATEV2", dt.date(2020, 1, 1), 4)
    assert dropped(partitions, 1, dt.datetime(2020, 1, 4, 23, 0, tzinfo=UTC)) == ["p20200101000000", "p20200102000000"]


def test_now_is_the_wall_clock_of_the_system_time_zone(monkeypatch):
    # Doris's FE reads its own clock: 2020-01-03 20:00 UTC is 2020-01-04 04:00 in Shanghai, where 2020-01-03 is history.
    partitions = daily("DATETIMEV2", dt.date(2020, 1, 1), 4)
    now = dt.datetime(2020, 1, 3, 20, 0, tzinfo=UTC)
    monkeypatch.setenv("TZ", "UTC")
    assert dropped(partitions, 1, now) == ["p20200101000000"]
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    assert dropped(partitions, 1, now) == ["p20200101000000", "p20200102000000"]


@pytest.mark.parametrize("value", ["0", "-1", "", "3.5", "three"])
def test_the_count_is_a_whole_number_above_zero(value):
    # regression-test/suites/partition_p0/auto_partition/test_auto_new_recycle.groovy ("should be > 0")
    with pytest.raises(InvalidTableDefinitionError, match=r"^partition\.retention_count should be > 0"):
        parse_retention_count(value)
    assert parse_retention_count(" 7 ") == 7


def test_alter_keeps_retention_and_dynamic_partitions_apart():
    # regression-test/suites/partition_p0/auto_partition/test_auto_new_recycle.groovy
    both = "Can not use partition.retention_count and dynamic_partition properties at the same time"
    dynamic = {"dynamic_partition.enable": "true", "dynamic_partition.time_unit": "DAY"}
    retention = {"partition.retention_count": "3"}
    with pytest.raises(InvalidTableDefinitionError, match=f"^{both}$"):
        check_retention_on_alter(dynamic, retention | dynamic, auto_range=True)
    with pytest.raises(InvalidTableDefinitionError, match=f"^{both}$"):
        check_retention_on_alter(retention, retention | dynamic, auto_range=True)
    with pytest.raises(InvalidTableDefinitionError, match="^Only AUTO RANGE PARTITION table could set"):
        check_retention_on_alter(retention, retention, auto_range=False)
    check_retention_on_alter(retention, retention, auto_range=True)
    check_retention_on_alter({"replication_num": "1"}, retention | {"replication_num": "1"}, auto_range=True)
