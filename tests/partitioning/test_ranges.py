"""RANGE keys and partitions: Doris's range texts, intersection, containment, batch expansion."""

from __future__ import annotations

import datetime as dt

import pytest

from iceberg_doris.errors import PartitionError
from iceberg_doris.partitioning import MAX, MIN, PartitionColumnType, RangeKey, RangePartition, expand_batch
from iceberg_doris.partitioning.ranges import contains, intersects, range_text, week_of_year

T = PartitionColumnType
D = dt.date


def test_partition_key_to_string_matches_doris():
    key = RangeKey.of("2020-01-01", [T.DATEV2])
    assert key.to_string() == "types: [DATEV2]; keys: [2020-01-01]; "
    lower, upper = RangeKey.of("2020-01-01", [T.DATEV2]), RangeKey.of("2020-02-01", [T.DATEV2])
    assert range_text(lower, upper) == (
        "[types: [DATEV2]; keys: [2020-01-01]; ..types: [DATEV2]; keys: [2020-02-01]; )"
    )


def test_datetime_range_text_as_in_the_auto_partition_overlap_message():
    p = RangePartition.of("p", "2013-01-01", "2014-01-01", [T.DATETIMEV2])
    assert p.range_text() == (
        "[types: [DATETIMEV2]; keys: [2013-01-01 00:00:00]; ..types: [DATETIMEV2]; keys: [2014-01-01 00:00:00]; )"
    )


def test_min_max_and_multi_column_text():
    assert RangeKey.max([T.INT]).to_string() == "types: [INT]; keys: [MAXVALUE]; "
    assert RangeKey.of("MAXVALUE", [T.INT, T.INT]).values == (MAX, MAX)
    key = RangeKey.of(["10"], [T.INT, T.DATEV2])
    assert key.values == (10, MIN)
    assert key.to_string() == "types: [INT, DATEV2]; keys: [10, 0000-01-01]; "
    assert key.to_sql() == "(\"10\", '0000-01-01')"
    assert RangeKey.min([T.TINYINT]).to_string() == "types: [TINYINT]; keys: [-128]; "
    assert RangeKey.of(["1", MAX], [T.INT, T.INT]).to_string() == "types: [INT, INT]; keys: [1, MAXVALUE]; "


def test_type_minimum_literal_is_min():
    assert RangeKey.of("-2147483648", [T.INT]).is_min
    assert RangeKey.of("0000-01-01 00:00:00", [T.DATETIMEV2]).is_min
    assert not RangeKey.of("-2147483647", [T.INT]).is_min


def test_too_many_values_and_null():
    with pytest.raises(PartitionError, match=r"Partition values number is more than partition column number: \('1', '2'\)"):
        RangeKey.of(["1", "2"], [T.INT])
    with pytest.raises(PartitionError, match="NULL is not allowed"):
        RangeKey.of([None], [T.INT])


def test_lexicographic_order():
    types = [T.INT, T.INT]
    a = RangeKey.of(["1", "100"], types)
    b = RangeKey.of(["2"], types)  # (2, MIN)
    c = RangeKey.of(["2", "0"], types)
    assert a < b < c < RangeKey.max(types)
    assert RangeKey.min(types) < a
    assert b == RangeKey((2, MIN), types)
    assert hash(b) == hash(RangeKey((2, MIN), types))


def test_lower_must_be_smaller_than_upper():
    with pytest.raises(PartitionError, match="The lower values must smaller than upper values"):
        RangePartition.of("p", "10", "10", [T.INT])
    with pytest.raises(PartitionError, match="The lower values must smaller than upper values"):
        RangePartition.of("p", "2020-02-01", "2020-01-01", [T.DATEV2])


def test_intersects_is_half_open():
    p1 = RangePartition.of("p1", "0", "10", [T.INT])
    p2 = RangePartition.of("p2", "10", "20", [T.INT])
    p3 = RangePartition.of("p3", "5", "15", [T.INT])
    assert not intersects(p1, p2) and not p2.intersects(p1)
    assert intersects(p1, p3) and intersects(p3, p2)
    assert intersects(p3, p3)


def test_contains_row_keys():
    p = RangePartition(
        "p", RangeKey.min([T.DATEV2]), RangeKey.of("2020-02-01", [T.DATEV2])
    )
    assert contains(p, D(2020, 1, 31))
    assert not contains(p, D(2020, 2, 1))
    assert contains(p, "2019-05-05")
    assert contains(p, None)  # NULL goes to the partition that starts at MIN
    q = RangePartition.of("q", "2020-02-01", "MAXVALUE", [T.DATEV2])
    assert q.contains(D(9999, 12, 31)) and not q.contains(None)
    multi = RangePartition.of("m", ["1", "5"], ["2"], [T.INT, T.INT])
    assert multi.contains((1, 5)) and multi.contains((1, 100)) and not multi.contains((1, 4))
    assert not multi.contains((2, 0))
    with pytest.raises(PartitionError):
        multi.contains(1)


def test_key_desc_sql():
    p = RangePartition.of("p", "0", "10", [T.INT])
    assert p.key_desc_sql() == '[("0"), ("10"))'


def test_batch_numbers():
    parts = expand_batch(T.INT, "1", "100", 10)
    assert [p.name for p in parts][:3] == ["p_1_11", "p_11_21", "p_21_31"]
    assert len(parts) == 10
    assert parts[-1].name == "p_91_100"
    assert (parts[-1].lower.values, parts[-1].upper.values) == ((91,), (100,))


def test_batch_years_snap_to_january_and_clamp_to_end():
    parts = expand_batch(T.DATEV2, "2000-11-14", "2021-11-14", 2, "YEAR")
    assert [p.name for p in parts] == [f"p_{y}" for y in range(2000, 2021, 2)]
    assert parts[0].lower.values == (D(2000, 11, 14),) and parts[0].upper.values == (D(2002, 1, 1),)
    assert parts[-1].lower.values == (D(2020, 1, 1),) and parts[-1].upper.values == (D(2021, 11, 14),)


def test_batch_months():
    parts = expand_batch(T.DATEV2, "2021-11-14", "2022-11-14", 1, "month")
    assert len(parts) == 13
    assert parts[0].name == "p_202111"
    assert (parts[0].lower.values[0], parts[0].upper.values[0]) == (D(2021, 11, 14), D(2021, 12, 1))
    assert parts[-1].name == "p_202211"
    assert (parts[-1].lower.values[0], parts[-1].upper.values[0]) == (D(2022, 11, 1), D(2022, 11, 14))


def test_batch_weeks_named_by_week_of_year():
    parts = expand_batch(T.DATEV2, "2022-11-14", "2023-01-03", 1, "WEEK")
    names = [p.name for p in parts]
    assert names == [
        "p_2022_47",
        "p_2022_48",
        "p_2022_49",
        "p_2022_50",
        "p_2022_51",
        "p_2022_52",
        "p_2022_53",
        "p_2023_02",
    ]
    assert parts[-2].lower.values[0] == D(2022, 12, 26) and parts[-2].upper.values[0] == D(2023, 1, 2)
    assert parts[-1].upper.values[0] == D(2023, 1, 3)


def test_batch_days_do_not_clamp_the_last_upper_bound():
    parts = expand_batch(T.DATEV2, "2023-01-03", "2023-01-14", 1, "DAY")
    assert len(parts) == 11 and parts[0].name == "p_20230103" and parts[-1].name == "p_20230113"
    parts = expand_batch(T.DATEV2, "2023-01-03", "2023-01-14", 2, "DAY")
    assert parts[-1].lower.values[0] == D(2023, 1, 13)
    assert parts[-1].upper.values[0] == D(2023, 1, 15)


def test_batch_hours_on_datetime():
    parts = expand_batch(T.DATETIMEV2, "2023-01-01 00:00:00", "2023-01-01 03:00:00", 1, "HOUR")
    assert [p.name for p in parts] == ["p_2023010100", "p_2023010101", "p_2023010102"]
    assert parts[1].lower.values[0] == dt.datetime(2023, 1, 1, 1)


def test_batch_day_on_datetime_column_gives_datetime_bounds():
    parts = expand_batch(T.DATETIMEV2, "2023-01-01", "2023-01-03", 1, "DAY")
    assert parts[0].upper.values[0] == dt.datetime(2023, 1, 2)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((T.INT, "1", "10", 0, None), "Multi partition time interval must be larger than zero."),
        ((T.DATEV2, "2020-01-01", "2021-01-01", 1, "QUARTER"), "Multi build partition does not support time interval type: QUARTER"),
        ((T.DATEV2, "2020-01-01", "2021-01-01", 1, "FOO"), "Multi build partition got an unknown time interval type: FOO"),
        ((T.DATEV2, "2021-01-01", "2020-01-01", 1, "DAY"), "Multi build partition start time should less than end time."),
        ((T.DATEV2, "2020-01-01", "2021-01-01", 1, None), "Batch build partition INTERVAL is number type but From or TO does not type match."),
        ((T.INT, "10", "1", 1, None), "Batch build partition From value should less then TO value."),
        ((T.DATEV2, "2020/01/01", "2021-01-01", 1, "DAY"), "Multi build partition start or end time style is illegal."),
    ],
)
def test_batch_errors(args, message):
    with pytest.raises(PartitionError) as info:
        expand_batch(*args)
    assert str(info.value) == message


def test_batch_partition_count_limit():
    assert len(expand_batch(T.INT, "0", "10", 1, max_partitions=10)) == 10
    with pytest.raises(PartitionError) as info:
        expand_batch(T.INT, "0", "11", 1, max_partitions=10)
    assert str(info.value) == "The number of Multi partitions too much, should not exceed:10"


def test_week_of_year_java_calendar_rules():
    # Locale.US: weeks start on Sunday, week 1 holds January 1st.
    assert week_of_year(D(2020, 5, 25)) == 22
    assert week_of_year(D(2019, 12, 30)) == 1  # Java counts it in 2020's first week
    assert week_of_year(D(2022, 1, 1)) == 1
    assert week_of_year(D(2022, 1, 2)) == 2
    # ISO rules (Monday, 4 days): 2021-01-01 is in 2020-W53
    assert week_of_year(D(2021, 1, 1), first_day_of_week=1, min_days_in_first_week=4) == 53
    assert week_of_year(D(2021, 1, 4), first_day_of_week=1, min_days_in_first_week=4) == 1
    # java.time.WeekFields: no wrap, week 0 before week 1
    assert week_of_year(D(2021, 1, 1), first_day_of_week=1, min_days_in_first_week=4, calendar_semantics=False) == 0
    assert week_of_year(D(2022, 12, 26), first_day_of_week=1, calendar_semantics=False) == 53
