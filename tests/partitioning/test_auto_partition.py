"""Auto partitions (spec §5.5): date_trunc ranges and names, the auto LIST name algorithm, limits."""

from __future__ import annotations

import datetime as dt

import pytest

from iceberg_doris.errors import PartitionError
from iceberg_doris.partitioning import (
    MAX,
    PartitionColumnType,
    PartitionSet,
    auto_list_partition,
    auto_list_partition_name,
    auto_range_bounds,
    auto_range_partition,
    auto_range_partition_name,
    check_auto_partition_limit,
    date_trunc,
    plan_auto_partitions,
    validate_auto_range_column,
    validate_date_trunc_unit,
)
from iceberg_doris.partitioning.auto_partition import java_string_hash

T = PartitionColumnType
DT = dt.datetime
D = dt.date

# test_auto_partition_name.groovy, test_list_name1: value -> partition name
SINGLE_COLUMN_NAMES = [
    ("Beijing", "pBeijing7"),
    ("XXX", "pXXX3"),
    ("xxx", "pxxx3"),
    ("Abc", "pAbc3"),
    (None, "pX"),
    ("您好", "p60a8597d2"),
    ("   ", "p2020203"),
    ("", "p0"),
    ("X", "pX1"),
    ("NULL", "pNULL4"),
    ("a,b,c,", "pa2cb2cc2c6"),
    ("---###___a#b!c!!", "p_2d2d2d2323235f5f5fa23b21c212116"),
    ("\bcdaef", "p8cdaef6"),
    ("Beijing#Beijing@Beijing!Beijing", "pBeijing23Beijing40Beijing21Beijing31"),
    ("Line1\nLine2", "pLine1aLine211"),
    ("12345", "p123455"),
    ("-9876", "p_2d98765"),
    ("x;y;z", "px3by3bz5"),
    ("p|q|r", "pp7cq7cr5"),
    ("C:\\Windows\\", "pC3a5cWindows5c11"),
    ("Carriage\rReturn", "pCarriagedReturn15"),
    ("accenté", "paccente97"),
    ("😊😂👍", "p1f60ade0a1f602de021f44ddc4d6"),
    ("!@#$%^&*()", "p21402324255e262a282910"),
]

# test_list_name2: two VARCHAR columns
TWO_COLUMN_NAMES = [
    (("123", "123"), "p12331233"),
    (("1231", "23"), "p12314232"),
    (("12", "31,23"), "p122312c235"),
    ((None, ","), "pX2c1"),
    ((",", None), "p2c1X"),
    (("", ""), "p00"),
    ((" ", " "), "p201201"),
    (("", " "), "p0201"),
    (("你好,世界", "😊,😂"), "p4f60597d2c4e16754c51f60ade0a2c1f602de025"),
    ((",,", "\\,"), "p2c2c25c2c2"),
    (('"a,b"', "c,d"), "p22a2cb225c2cd3"),
    (("", ",123"), "p02c1234"),
]


@pytest.mark.parametrize(("value", "name"), SINGLE_COLUMN_NAMES)
def test_auto_list_names_single_column(value, name):
    assert auto_list_partition_name([value], [T.VARCHAR]) == name


@pytest.mark.parametrize(("values", "name"), TWO_COLUMN_NAMES)
def test_auto_list_names_two_columns(values, name):
    assert auto_list_partition_name(values, [T.VARCHAR, T.VARCHAR]) == name


def test_auto_list_names_other_types():
    assert auto_list_partition_name([-9876], [T.INT]) == "p_2d98765"
    assert auto_list_partition_name([123, 123], [T.INT, T.BIGINT]) == "p12331233"
    assert auto_list_partition_name([D(2020, 1, 1)], [T.DATEV2]) == "p20202d012d0110"
    assert auto_list_partition_name(["2020-01-01 00:00:00"], [T.DATETIMEV2]) == "p20202d012d0120003a003a0019"
    assert auto_list_partition_name([True], [T.BOOLEAN]) == "p11"


def test_java_string_hash():
    assert java_string_hash("") == 0
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("Aa") == java_string_hash("BB") == 2112
    assert java_string_hash("polygenelubricants") == -(2**31)


def test_long_string_names_are_cut_with_the_java_hash():
    value = "jwklefjklwehrnkjlwbfjkwhefkjhwjkefhkjwehfkjwehfkjwehfkjbvkwebconqkcqnocdmowqmosqmojwnqknrviuwbnclkmwkj"
    full = "p" + value + "102"
    h = 0
    for ch in full:
        h = (31 * h + ord(ch)) % 2**32
    name = auto_list_partition_name([value], [T.VARCHAR])
    assert name == full[:50] + "_" + format(h, "x")
    assert len(name) <= 59


def test_long_non_string_names_fail():
    big = "1" * 36
    with pytest.raises(PartitionError) as info:
        auto_list_partition_name([big, big], [T.LARGEINT, T.LARGEINT])
    assert str(info.value) == "Partition name's length is over limit of 50."


def test_auto_list_partition():
    p = auto_list_partition(["Beijing"], [T.VARCHAR])
    assert p.name == "pBeijing7" and p.values == (("Beijing",),)


def test_date_trunc_units():
    v = DT(2022, 12, 14, 19, 20, 30, 123)
    assert date_trunc(v, "year") == DT(2022, 1, 1)
    assert date_trunc(v, "QUARTER") == DT(2022, 10, 1)
    assert date_trunc(v, "month") == DT(2022, 12, 1)
    assert date_trunc(v, "week") == DT(2022, 12, 12)  # Monday
    assert date_trunc(v, "day") == DT(2022, 12, 14)
    assert date_trunc(v, "hour") == DT(2022, 12, 14, 19)
    assert date_trunc(v, "minute") == DT(2022, 12, 14, 19, 20)
    assert date_trunc(v, "second") == DT(2022, 12, 14, 19, 20, 30)
    assert date_trunc(D(2022, 5, 5), "quarter") == D(2022, 4, 1)


def test_invalid_unit_message():
    with pytest.raises(PartitionError) as info:
        validate_date_trunc_unit("yeear")
    assert str(info.value) == (
        "date_trunc function second param only support argument is year|quarter|month|week|day|hour|minute|second"
    )
    with pytest.raises(PartitionError, match="date_trunc function second param only support argument is"):
        auto_range_partition(DT(2020, 12, 12), "yeear", T.DATETIMEV2)


@pytest.mark.parametrize(
    ("value", "unit", "lower", "upper", "name"),
    [
        (DT(2022, 12, 14, 8), "year", DT(2022, 1, 1), DT(2023, 1, 1), "p20220101000000"),
        (DT(2022, 12, 14, 8), "quarter", DT(2022, 10, 1), DT(2023, 1, 1), "p20221001000000"),
        (DT(2022, 7, 26), "month", DT(2022, 7, 1), DT(2022, 8, 1), "p20220701000000"),
        (DT(2022, 12, 14), "week", DT(2022, 12, 12), DT(2022, 12, 19), "p20221212000000"),
        (DT(2000, 2, 29, 23), "day", DT(2000, 2, 29), DT(2000, 3, 1), "p20000229000000"),
        (DT(2015, 9, 18, 13, 45, 12), "hour", DT(2015, 9, 18, 13), DT(2015, 9, 18, 14), "p20150918130000"),
        (DT(2015, 9, 18, 13, 45, 12), "minute", DT(2015, 9, 18, 13, 45), DT(2015, 9, 18, 13, 46), "p20150918134500"),
        (DT(2015, 9, 18, 13, 45, 12), "second", DT(2015, 9, 18, 13, 45, 12), DT(2015, 9, 18, 13, 45, 13), "p20150918134512"),
    ],
)
def test_auto_range_partitions(value, unit, lower, upper, name):
    p = auto_range_partition(value, unit, T.DATETIMEV2)
    assert p.name == name
    assert p.lower.values == (lower,) and p.upper.values == (upper,)


def test_auto_range_on_date_column():
    p = auto_range_partition("2008-05-05", "year", T.DATEV2)
    assert p.name == "p20080101000000"
    assert (p.lower.values[0], p.upper.values[0]) == (D(2008, 1, 1), D(2009, 1, 1))
    with pytest.raises(PartitionError, match="finer than a day"):
        auto_range_partition(D(2008, 5, 5), "hour", T.DATEV2)


def test_upper_bound_beyond_the_type_maximum_is_maxvalue():
    assert auto_range_bounds(D(9999, 12, 31), "year", T.DATEV2) == (D(9999, 1, 1), MAX)
    assert auto_range_bounds(D(9999, 12, 31), "day", T.DATEV2) == (D(9999, 12, 31), MAX)
    assert auto_range_bounds(DT(9999, 12, 31, 23, 30), "hour", T.DATETIMEV2) == (DT(9999, 12, 31, 23), MAX)
    assert auto_range_bounds(D(9999, 12, 30), "day", T.DATEV2) == (D(9999, 12, 30), D(9999, 12, 31))
    p = auto_range_partition(D(9999, 6, 1), "month", T.DATEV2)
    assert p.upper.values == (D(9999, 7, 1),)


@pytest.mark.parametrize(
    ("unit", "length"),
    [("year", 5), ("quarter", 7), ("month", 7), ("week", 9), ("day", 9), ("hour", 11), ("minute", 13), ("second", 15)],
)
def test_simple_names_have_doris_lengths(unit, length):
    for value in ("2022-12-14", "2022-01-15", "2022-07-26", "2000-02-29", "2015-09-18"):
        p = auto_range_partition(value, unit, T.DATETIMEV2, simple_name=True)
        assert len(p.name) == length
        assert auto_range_partition(value, unit, T.DATETIMEV2).name.startswith(p.name)


def test_simple_name_examples():
    assert auto_range_partition_name(D(2022, 10, 1), "quarter", simple=True) == "p202210"
    assert auto_range_partition_name(DT(2022, 12, 12), "week", simple=True) == "p20221212"


def test_null_and_column_checks():
    with pytest.raises(PartitionError, match="^Can't create partition for NULL Range$"):
        auto_range_partition(None, "day", T.DATETIMEV2)
    with pytest.raises(PartitionError, match="^AUTO RANGE PARTITION doesn't support NULL column$"):
        validate_auto_range_column(T.DATETIMEV2, nullable=True)
    with pytest.raises(PartitionError, match="^partition expr date_trunc is illegal!$"):
        validate_auto_range_column(T.BIGINT)


def test_limit():
    check_auto_partition_limit(1999, 1)
    with pytest.raises(PartitionError) as info:
        check_auto_partition_limit(1999, 2)
    assert str(info.value) == "create partition failed. partition numbers will exceed limit variable max_auto_partition_num"


def test_plan_auto_range_with_a_manual_partition():
    # test_auto_partition_behavior.groovy: a manual p2010 < 2010-01-01 next to auto year partitions
    ps = PartitionSet.new("RANGE", ["k0"], ["DATETIME"])
    ps = ps.add_partition("p2010", values_less_than="2010-01-01")
    rows = [DT(2009, 5, 5), DT(2013, 6, 1), DT(2013, 7, 1), DT(2020, 2, 2)]
    plan = plan_auto_partitions(ps, rows, unit="year")
    assert [p.name for p in plan.created] == ["p20130101000000", "p20200101000000"]
    out = plan.partition_set
    assert out.route(DT(2009, 5, 5)) == "p2010"
    assert out.route(DT(2013, 12, 31, 23, 59, 59)) == "p20130101000000"
    with pytest.raises(PartitionError) as info:
        out.add_partition("p2012", values_range=("2012-01-01", "2013-05-01"))
    assert (
        "is intersected with range: [types: [DATETIMEV2]; keys: [2013-01-01 00:00:00]; "
        "..types: [DATETIMEV2]; keys: [2014-01-01 00:00:00]; )"
    ) in str(info.value)
    # dropping the manual partition is allowed; its rows would then get auto partitions
    again = plan_auto_partitions(out.drop_partition("p2010"), [DT(2009, 5, 5)], unit="year")
    assert [p.name for p in again.created] == ["p20090101000000"]


def test_plan_auto_range_fails_on_partial_overlap():
    ps = PartitionSet.new("RANGE", ["k0"], ["DATETIME"]).add_partition(
        "pjune", values_range=("2013-06-01", "2013-07-01")
    )
    with pytest.raises(PartitionError, match="is intersected with range"):
        plan_auto_partitions(ps, [DT(2013, 3, 1)], unit="year")


def test_plan_auto_limit_counts_existing_partitions():
    ps = PartitionSet.new("RANGE", ["k0"], ["DATETIME"])
    ps = plan_auto_partitions(ps, [DT(2020, 1, 1)], unit="day").partition_set
    with pytest.raises(PartitionError, match="max_auto_partition_num"):
        plan_auto_partitions(ps, [DT(2020, 1, 2), DT(2020, 1, 3)], unit="day", max_partitions=2)
    ok = plan_auto_partitions(ps, [DT(2020, 1, 2), DT(2020, 1, 2, 5)], unit="day", max_partitions=2)
    assert len(ok.partition_set) == 2


def test_plan_auto_list_is_case_sensitive_and_handles_null():
    ps = PartitionSet.new("LIST", ["k"], ["VARCHAR"], nullable=True)
    plan = plan_auto_partitions(ps, ["AAA", "aaa", "AaA", "aaa", None])
    # Doris names each "p" + its formatted values, nothing more: its partition map is case-sensitive
    # (regression-test/suites/partition_p0/auto_partition/test_auto_partition_name.groovy expects pXXX3
    # and pxxx3 side by side; PartitionExprUtil.getAddPartitionClauseFromPartitionValues).
    assert [p.name for p in plan.created] == ["pAAA3", "paaa3", "pAaA3", "pX"]
    assert plan.partition_set.route("aaa") == "paaa3"
    assert plan.partition_set.route("AaA") == "pAaA3"
    assert plan.partition_set.route(None) == "pX"
    assert plan.partition_set.get("paaa3").values == (("aaa",),)  # each found by its exact name
    assert plan.partition_set.get("PAAA3").name == "pAAA3"  # other spellings: case-insensitively
    manual = PartitionSet.new("LIST", ["k"], ["VARCHAR"]).add_partition("p1", values_in=["a"])
    plan = plan_auto_partitions(manual, ["a", "b"])
    assert [p.name for p in plan.created] == ["pb1"]
    with pytest.raises(PartitionError, match="is conflict with current partitionKeys"):
        plan.partition_set.add_partition("p2", values_in=["b"])


def test_plan_auto_range_needs_a_unit():
    ps = PartitionSet.new("RANGE", ["k0"], ["DATETIME"])
    with pytest.raises(PartitionError):
        plan_auto_partitions(ps, [DT(2020, 1, 1)])


def test_xxx_after_xxx_in_capitals_is_named_as_doris_names_it():
    # regression-test/suites/partition_p0/auto_partition/test_auto_partition_name.groovy (test_list_name1):
    # "XXX" then "xxx" in one table become pXXX3 and pxxx3; a later load of "xxx" finds pxxx3.
    ps = PartitionSet.new("LIST", ["str"], ["VARCHAR"], nullable=True)
    first = plan_auto_partitions(ps, ["XXX"]).partition_set
    second = plan_auto_partitions(first, ["xxx"])
    assert [p.name for p in second.created] == ["pxxx3"]
    assert sorted(second.partition_set.partition_names) == ["pXXX3", "pxxx3"]
    assert plan_auto_partitions(second.partition_set, ["xxx", "XXX"]).created == ()
    # a partition a user adds is still a duplicate of a name that differs only by case
    with pytest.raises(PartitionError, match="Duplicate partition name PXXX3"):
        second.partition_set.add_partition("PXXX3", values_in=["other"])
