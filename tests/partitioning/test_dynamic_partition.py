"""Dynamic partitions (spec §5.4): property validation with Doris's messages and scheduler passes
with fixed clocks."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from iceberg_doris.errors import InvalidTableDefinitionError, PartitionError
from iceberg_doris.partitioning import (
    MAX,
    PartitionColumnType,
    PartitionSet,
    apply_dynamic_plan,
    check_alter_allowed,
    dynamic_partition_name,
    partition_border,
    plan_dynamic_partitions,
    resolve_time_zone,
    validate_dynamic_properties,
)

T = PartitionColumnType
D = dt.date
DT = dt.datetime
UTC = dt.timezone.utc


def props(**kwargs: str) -> dict[str, str]:
    base = {"time_unit": "DAY", "end": "3", "prefix": "p"}
    base.update(kwargs)
    return {f"dynamic_partition.{k}": v for k, v in base.items()}


def config(column_type=T.DATEV2, **kwargs: str):
    return validate_dynamic_properties(props(**kwargs), column_type, column_name="k1", default_time_zone="UTC")


def table(column_type: str = "DATE") -> PartitionSet:
    return PartitionSet.new("RANGE", ["k1"], [column_type])


def spans(partitions) -> list[tuple]:
    return [(p.name, p.lower.values[0], p.upper.values[0]) for p in partitions]


# -- the regression proof -----------------------------------------------------------------------------


def test_regression_dynamic_partition_with_update():
    """test_dynamic_partition.groovy: 7 partitions, 4 manual ones -> 11, the scheduler brings it to 8."""
    properties = {
        "dynamic_partition.enable": "true",
        "dynamic_partition.end": "3",
        "dynamic_partition.buckets": "1",
        "dynamic_partition.start": "-3",
        "dynamic_partition.prefix": "p",
        "dynamic_partition.time_unit": "DAY",
        "dynamic_partition.create_history_partition": "true",
        "dynamic_partition.replication_allocation": "tag.location.default: 1",
        "replication_num": "1",
    }
    cfg = validate_dynamic_properties(properties, T.DATEV2, column_name="k1", default_time_zone="UTC")
    now = DT(2024, 6, 15, 10, 0, tzinfo=UTC)
    ps = table()
    plan = plan_dynamic_partitions(cfg, ps, now)
    assert [p.name for p in plan.create] == [f"p202406{d}" for d in range(12, 19)]
    assert plan.drop == []
    ps = apply_dynamic_plan(ps, plan)
    assert len(ps) == 7
    assert spans(ps.formal)[0] == ("p20240612", D(2024, 6, 12), D(2024, 6, 13))

    # dynamic partition disabled: manual partitions may be added
    disabled = validate_dynamic_properties(
        {"dynamic_partition.enable": "false"}, T.DATEV2, existing=cfg.to_properties()
    )
    assert disabled.enable is False
    check_alter_allowed(disabled, "test_dynamic_partition_with_update")
    ps = ps.add_partition("p1", values_range=("2020-01-02", "2020-01-05"))
    ps = ps.add_partition("p2", values_range=("2020-05-02", "2020-06-06"))
    ps = ps.add_partition("p3", values_range=("2020-07-04", "2020-07-28"))
    ps = ps.add_partition("p4", values_range=("2999-04-25", "2999-04-28"))
    assert len(ps) == 11
    assert plan_dynamic_partitions(disabled, ps, now).create == []

    enabled = validate_dynamic_properties({"dynamic_partition.enable": "true"}, T.DATEV2, existing=disabled.to_properties())
    with pytest.raises(PartitionError) as info:
        check_alter_allowed(enabled, "test_dynamic_partition_with_update")
    assert str(info.value) == (
        "Cannot add/drop partition on a Dynamic Partition Table, Use command `ALTER TABLE "
        'test_dynamic_partition_with_update SET ("dynamic_partition.enable" = "false")` firstly.'
    )
    plan = plan_dynamic_partitions(enabled, ps, now)
    assert plan.create == []
    assert plan.drop == ["p1", "p2", "p3"]
    ps = apply_dynamic_plan(ps, plan)
    assert len(ps) == 8
    assert "p4" in ps.partition_names


# -- units, offsets, names -------------------------------------------------------------------------


def test_day_without_history_creates_from_today():
    cfg = config(start="-3")
    plan = plan_dynamic_partitions(cfg, table(), DT(2024, 6, 15, 23, 59, tzinfo=UTC))
    assert [p.name for p in plan.create] == ["p20240615", "p20240616", "p20240617", "p20240618"]


def test_history_partition_num_limits_the_history():
    cfg = config(start="-10", history_partition_num="2", create_history_partition="true")
    assert cfg.real_start == -2
    plan = plan_dynamic_partitions(cfg, table(), DT(2024, 6, 15, tzinfo=UTC))
    assert plan.create[0].name == "p20240613" and len(plan.create) == 6


def test_time_zone_defines_today():
    now = DT(2024, 6, 15, 20, 0, tzinfo=UTC)
    utc = plan_dynamic_partitions(config(end="1"), table(), now)
    shanghai = plan_dynamic_partitions(config(end="1", time_zone="Asia/Shanghai"), table(), now)
    assert [p.name for p in utc.create] == ["p20240615", "p20240616"]
    assert [p.name for p in shanghai.create] == ["p20240616", "p20240617"]


def test_hour_partitions_in_a_time_zone():
    cfg = config(T.DATETIMEV2, time_unit="HOUR", start="-2", end="2", create_history_partition="true", time_zone="Asia/Shanghai")
    plan = plan_dynamic_partitions(cfg, table("DATETIME"), DT(2024, 6, 15, 23, 30, tzinfo=UTC))
    assert spans(plan.create) == [
        (f"p20240616{h:02d}", DT(2024, 6, 16, h), DT(2024, 6, 16, h + 1)) for h in range(5, 10)
    ]


def test_hour_partitions_across_a_dst_change():
    cfg = config(T.DATETIMEV2, time_unit="HOUR", end="2", time_zone="America/New_York")
    plan = plan_dynamic_partitions(cfg, table("DATETIME"), DT(2024, 3, 10, 6, 30, tzinfo=UTC))  # 01:30 EST
    assert spans(plan.create) == [
        ("p2024031001", DT(2024, 3, 10, 1), DT(2024, 3, 10, 3)),
        ("p2024031003", DT(2024, 3, 10, 3), DT(2024, 3, 10, 4)),
        ("p2024031004", DT(2024, 3, 10, 4), DT(2024, 3, 10, 5)),
    ]


def test_week_partitions_doc_example():
    cfg = config(T.DATETIMEV2, time_unit="WEEK", end="1", start_day_of_week="1")
    plan = plan_dynamic_partitions(cfg, table("DATETIME"), DT(2020, 5, 29, 12, tzinfo=UTC))
    assert spans(plan.create) == [
        ("p2020_22", DT(2020, 5, 25), DT(2020, 6, 1)),
        ("p2020_23", DT(2020, 6, 1), DT(2020, 6, 8)),
    ]


def test_week_53_rule():
    cfg = config(time_unit="WEEK", end="1")
    plan = plan_dynamic_partitions(cfg, table(), DT(2019, 12, 31, tzinfo=UTC))
    assert spans(plan.create) == [
        ("p2019_53", D(2019, 12, 30), D(2020, 1, 6)),
        ("p2020_02", D(2020, 1, 6), D(2020, 1, 13)),
    ]


def test_week_start_day_follows_the_scheduler_code():
    cfg = config(time_unit="WEEK", start_day_of_week="3")
    sunday = DT(2020, 5, 24, tzinfo=UTC)
    assert partition_border(cfg, sunday, 0) == D(2020, 5, 20)
    assert partition_border(cfg, sunday, -1) == D(2020, 5, 13)
    monday = DT(2020, 5, 25, tzinfo=UTC)
    assert partition_border(cfg, monday, 0) == D(2020, 5, 27)  # Doris: the same ISO week's Wednesday


def test_month_partitions_with_start_day_of_month():
    cfg = config(time_unit="MONTH", end="1", start_day_of_month="3")
    plan = plan_dynamic_partitions(cfg, table(), DT(2020, 5, 24, tzinfo=UTC))
    assert spans(plan.create) == [
        ("p202005", D(2020, 5, 3), D(2020, 6, 3)),
        ("p202006", D(2020, 6, 3), D(2020, 7, 3)),
    ]
    early = plan_dynamic_partitions(cfg, table(), DT(2020, 5, 2, tzinfo=UTC))
    assert spans(early.create)[0] == ("p202004", D(2020, 4, 3), D(2020, 5, 3))
    plain = config(time_unit="MONTH", end="1")
    assert partition_border(plain, DT(2020, 1, 31, tzinfo=UTC), 1) == D(2020, 2, 1)


def test_year_partitions():
    cfg = config(time_unit="YEAR", end="1")
    plan = plan_dynamic_partitions(cfg, table(), DT(2024, 6, 15, tzinfo=UTC))
    assert spans(plan.create) == [("p2024", D(2024, 1, 1), D(2025, 1, 1)), ("p2025", D(2025, 1, 1), D(2026, 1, 1))]


def test_integer_columns_hold_yyyymmdd():
    cfg = config(T.INT, end="1")
    plan = plan_dynamic_partitions(cfg, table("INT"), DT(2024, 6, 15, tzinfo=UTC))
    assert spans(plan.create) == [("p20240615", 20240615, 20240616), ("p20240616", 20240616, 20240617)]
    month = config(T.BIGINT, time_unit="MONTH", end="1", start="-1")
    assert partition_border(month, DT(2024, 6, 15, tzinfo=UTC), 0) == 20240601


def test_datetime_columns_get_midnight_bounds():
    cfg = config(T.DATETIMEV2, end="1")
    plan = plan_dynamic_partitions(cfg, table("DATETIME"), DT(2024, 6, 15, 13, 14, 15, tzinfo=UTC))
    assert plan.create[0].lower.values[0] == DT(2024, 6, 15)
    assert plan.create[0].range_text().startswith("[types: [DATETIMEV2]; keys: [2024-06-15 00:00:00]; ..")


def test_names():
    hour = validate_dynamic_properties(props(time_unit="HOUR"), T.DATETIMEV2, default_time_zone="UTC")
    assert dynamic_partition_name(hour, DT(2020, 5, 29, 7)) == "p2020052907"
    day = config()
    assert dynamic_partition_name(day, D(2020, 5, 29)) == "p20200529"
    assert dynamic_partition_name(day, 20200529) == "p20200529"
    week = config(time_unit="WEEK")
    assert dynamic_partition_name(week, D(2020, 5, 25)) == "p2020_22"
    assert dynamic_partition_name(week, D(2021, 1, 4)) == "p2021_02"  # Java Locale.US weeks
    assert dynamic_partition_name(week, D(2021, 1, 4), week_first_day=1, week_min_days=4) == "p2021_01"
    empty_prefix = config(prefix="")
    assert dynamic_partition_name(empty_prefix, D(2020, 5, 29)) == "20200529"


# -- overlap, drop, reserved periods ---------------------------------------------------------------


def test_overlapping_ranges_are_skipped():
    ps = table().add_partition("manual", values_range=("2024-06-14", "2024-06-20"))
    cfg = config(start="-3", create_history_partition="true")
    plan = plan_dynamic_partitions(cfg, ps, DT(2024, 6, 15, tzinfo=UTC))
    assert [p.name for p in plan.create] == ["p20240612", "p20240613"]
    assert plan.drop == []


def test_name_taken_by_a_temp_partition_is_reported():
    ps = table().add_partition("p20240615", values_range=("2000-01-01", "2000-01-02"), temporary=True)
    plan = plan_dynamic_partitions(config(end="1"), ps, DT(2024, 6, 15, tzinfo=UTC))
    assert [p.name for p in plan.create] == ["p20240616"]
    assert plan.errors == ["Duplicate partition name p20240615"]


def test_drop_keeps_partitions_reaching_into_the_window_and_beyond_end():
    ps = table()
    ps = ps.add_partition("old", values_range=("2024-06-01", "2024-06-12"))
    ps = ps.add_partition("edge", values_range=("2024-06-12", "2024-06-13"))
    ps = ps.add_partition("future", values_range=("2999-01-01", "2999-01-02"))
    ps = ps.add_partition("pmin", values_less_than="2024-05-01")
    cfg = config(start="-3")
    plan = plan_dynamic_partitions(cfg, ps, DT(2024, 6, 15, tzinfo=UTC))
    assert plan.drop == ["pmin", "old"]
    no_start = config()
    assert plan_dynamic_partitions(no_start, ps, DT(2024, 6, 15, tzinfo=UTC)).drop == []


def test_maxvalue_partition_is_never_dropped():
    ps = table().add_partition("pmax", values_range=("2020-01-01", MAX))
    plan = plan_dynamic_partitions(config(start="-1"), ps, DT(2024, 6, 15, tzinfo=UTC))
    assert plan.drop == [] and plan.create == []  # every range overlaps pmax


@pytest.mark.parametrize(
    ("periods", "dropped"),
    [
        ("[2020-01-01,2020-01-03]", ["p2"]),
        ("[2019-12-01,2020-01-02]", ["p2"]),
        ("[2020-01-05,2020-01-06]", ["p1", "p2"]),
        ("[2020-01-05,2020-01-06],[2020-06-05,2020-07-01]", ["p1"]),
        ("NULL", ["p1", "p2"]),
    ],
)
def test_reserved_history_periods(periods, dropped):
    ps = table()
    ps = ps.add_partition("p1", values_range=("2020-01-02", "2020-01-05"))
    ps = ps.add_partition("p2", values_range=("2020-05-02", "2020-06-06"))
    cfg = config(start="-3", reserved_history_periods=periods)
    assert plan_dynamic_partitions(cfg, ps, DT(2024, 6, 15, tzinfo=UTC)).drop == dropped


def test_reserved_hour_periods():
    cfg = config(
        T.DATETIMEV2, time_unit="HOUR", start="-1", reserved_history_periods="[2020-01-01 10:00:00,2020-01-01 11:00:00]"
    )
    ps = table("DATETIME")
    ps = ps.add_partition("keep", values_range=("2020-01-01 11:00:00", "2020-01-01 12:00:00"))
    ps = ps.add_partition("gone", values_range=("2020-01-01 12:00:00", "2020-01-01 13:00:00"))
    plan = plan_dynamic_partitions(cfg, ps, DT(2024, 6, 15, tzinfo=UTC))
    assert plan.drop == ["gone"]


def test_disabled_config_plans_nothing():
    cfg = config(enable="false", start="-1")
    ps = table().add_partition("old", values_range=("2000-01-01", "2000-01-02"))
    plan = plan_dynamic_partitions(cfg, ps, DT(2024, 6, 15, tzinfo=UTC))
    assert plan.create == [] and plan.drop == []


def test_now_must_be_aware():
    with pytest.raises(ValueError):
        plan_dynamic_partitions(config(), table(), DT(2024, 6, 15))


# -- validation ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"time_unit": "MINUTE"}, "Unsupported time unit MINUTE. Expect HOUR/DAY/WEEK/MONTH/YEAR."),
        ({"time_unit": "HOUR"}, "dynamic_partition.time_unit could not be HOUR when type of partition column k1 is DATE or DATEV2"),
        ({"start": "0"}, "Dynamic partition start must less than 0"),
        ({"start": "abc"}, "Invalid dynamic partition start abc"),
        ({"end": "0"}, "Dynamic partition end must greater than 0"),
        ({"end": "-1"}, "Dynamic partition end must greater than 0"),
        ({"end": "x"}, "Invalid dynamic partition end x"),
        ({"prefix": "1p"}, "Invalid dynamic partition prefix: 1p."),
        ({"buckets": "0"}, "Dynamic partition buckets must greater than 0"),
        ({"buckets": "x"}, "Invalid dynamic partition buckets x"),
        ({"enable": "yes"}, "Invalid dynamic partition enable: yes. Expected true or false"),
        ({"create_history_partition": "1"}, "Invalid dynamic partition create_history_partition: 1. Expected true or false"),
        ({"history_partition_num": "-2"}, "Dynamic history partition num must greater than 0"),
        ({"history_partition_num": "x"}, "Invalid properties: dynamic_partition.history_partition_num"),
        (
            {"create_history_partition": "true"},
            "Provide start or history_partition_num property when create_history_partition=true. "
            "Otherwise set create_history_partition=false",
        ),
        ({"end": "501"}, "Too many dynamic partitions: 501. Limit: 500"),
        ({"start": "-1000", "create_history_partition": "true"}, "Too many dynamic partitions: 1003. Limit: 500"),
        ({"start_day_of_week": "8"}, "dynamic_partition.start_day_of_week should between 1 and 7"),
        ({"start_day_of_week": "x"}, "Invalid properties: dynamic_partition.start_day_of_week"),
        ({"start_day_of_month": "29"}, "dynamic_partition.start_day_of_month should between 1 and 28"),
        ({"start_day_of_month": "0"}, "dynamic_partition.start_day_of_month should between 1 and 28"),
        ({"time_zone": "Mars/Olympus"}, "Unknown or incorrect time zone: 'Mars/Olympus'"),
        ({"time_zone": "EST5EDT"}, "Unknown or incorrect time zone: 'EST5EDT'"),
        ({"hot_partition_num": "-1"}, "dynamic_partition.hot_partition_num must larger than 0."),
        ({"replication_num": "0"}, "Dynamic partition replication num must greater than 0"),
        ({"replication_num": "x"}, "Invalid dynamic partition replication num: x."),
        ({"storage_medium": "tape"}, "invalid storage medium: tape. Should be SSD or HDD"),
        (
            {"reserved_history_periods": "[2020-01-01,2020-01-03],[2020-02-01,2020-01-01]"},
            "The first date is larger than the second date, [2020-02-01,2020-01-01] is invalid.",
        ),
    ],
)
def test_validation_messages(overrides, message):
    with pytest.raises(InvalidTableDefinitionError) as info:
        config(**overrides)
    assert str(info.value) == message


@pytest.mark.parametrize(
    "periods",
    ["2020-01-01,2020-01-03", "[2020-01-01,2020-01-03],[2020-02-01]", "[2020-01-01,]", "[2020-01-01 00:00:00,2020-01-02 00:00:00]"],
)
def test_reserved_history_periods_format(periods):
    with pytest.raises(InvalidTableDefinitionError) as info:
        config(reserved_history_periods=periods)
    assert str(info.value) == (
        f'Invalid " dynamic_partition.reserved_history_periods " value {periods}. It must be like '
        '"[yyyy-MM-dd,yyyy-MM-dd],[...,...]" while time_unit is DAY/WEEK/MONTH or '
        '"[yyyy-MM-dd HH:mm:ss,yyyy-MM-dd HH:mm:ss],[...,...]" while time_unit is HOUR.'
    )


def test_reserved_history_periods_dates():
    with pytest.raises(InvalidTableDefinitionError, match="It must be correct DATE value"):
        config(reserved_history_periods="[2020-02-30,2020-03-01]")
    with pytest.raises(InvalidTableDefinitionError, match=r"^Invalid dynamic_partition.reserved_history_periods value. It must be like"):
        config(reserved_history_periods="[2020-13-01,2020-14-01]")
    ok = config(reserved_history_periods="[2020-01-01,2020-01-03],[2021-01-01,2021-01-01]")
    assert ok.reserved_history_periods == (("2020-01-01", "2020-01-03"), ("2021-01-01", "2021-01-01"))


def test_required_keys_and_unknown_keys():
    with pytest.raises(InvalidTableDefinitionError, match="^Must assign dynamic_partition.time_unit properties$"):
        validate_dynamic_properties({"dynamic_partition.end": "3", "dynamic_partition.prefix": "p"}, T.DATEV2)
    with pytest.raises(InvalidTableDefinitionError, match="^Must assign dynamic_partition.prefix properties$"):
        validate_dynamic_properties({"dynamic_partition.end": "3", "dynamic_partition.time_unit": "DAY"}, T.DATEV2)
    with pytest.raises(InvalidTableDefinitionError, match="^Must assign dynamic_partition.end properties$"):
        validate_dynamic_properties({"dynamic_partition.prefix": "p", "dynamic_partition.time_unit": "DAY"}, T.DATEV2)
    bad = {**props(), "dynamic_partition.foo": "1", "dynamic_partition.bar": "2"}
    with pytest.raises(InvalidTableDefinitionError) as info:
        validate_dynamic_properties(bad, T.DATEV2)
    assert str(info.value) == "Invalid dynamic partition properties: dynamic_partition.foo, dynamic_partition.bar"
    assert validate_dynamic_properties({"replication_num": "1"}, T.DATEV2) is None


def test_table_shape_checks():
    with pytest.raises(InvalidTableDefinitionError, match="^Dynamic partition only support single-column range partition$"):
        validate_dynamic_properties(props(), PartitionSet.new("LIST", ["k"], ["INT"]))
    with pytest.raises(InvalidTableDefinitionError, match="^Dynamic partition only support single-column range partition$"):
        validate_dynamic_properties(props(), PartitionSet.new("RANGE", ["a", "b"], ["DATE", "INT"]))
    with pytest.raises(InvalidTableDefinitionError, match="^Dynamic Partition Only Support DATE, DATETIME and INTEGER Type Now.$"):
        validate_dynamic_properties(props(), T.VARCHAR)
    with pytest.raises(InvalidTableDefinitionError, match="could not be HOUR when type of partition column id is Integer"):
        validate_dynamic_properties(props(time_unit="hour"), PartitionSet.new("RANGE", ["id"], ["BIGINT"]))
    cfg = validate_dynamic_properties(props(), PartitionSet.new("RANGE", ["dt"], ["DATE"]), default_time_zone="UTC")
    assert cfg.column_name == "dt" and cfg.column_type is T.DATEV2


def test_auto_partition_combination():
    with pytest.raises(InvalidTableDefinitionError, match="^Dynamic partition end must greater than 0$"):
        config(end="0")
    cfg = validate_dynamic_properties(props(end="0"), T.DATEV2, is_auto=True, auto_unit="day", default_time_zone="UTC")
    assert cfg.end == 0
    with pytest.raises(InvalidTableDefinitionError) as info:
        validate_dynamic_properties(props(), T.DATEV2, is_auto=True, auto_unit="month")
    assert str(info.value) == (
        "If support auto partition and dynamic partition at same time, they must have the same interval unit."
    )


def test_defaults_and_normalized_properties():
    cfg = config()
    assert cfg.enable is True and cfg.start == -(2**31) and cfg.end == 3
    assert cfg.create_history_partition is False and cfg.history_partition_num == -1
    assert cfg.start_day_of_week == 1 and cfg.start_day_of_month == 1 and cfg.time_zone == "UTC"
    assert cfg.first_offset == 0
    again = validate_dynamic_properties(cfg.to_properties(), T.DATEV2, column_name="k1")
    assert again == cfg
    week = config(time_unit="week", start_day_of_week="3", replication_num="2", buckets="4")
    assert week.time_unit == "WEEK" and week.buckets == 4
    assert week.to_properties()["dynamic_partition.start_day_of_week"] == "3"
    assert week.to_properties()["dynamic_partition.replication_allocation"] == "tag.location.default: 2"
    disabled_many = config(end="1000", enable="false")
    assert disabled_many.end == 1000  # the limit only applies to enabled tables


def test_time_zones():
    assert resolve_time_zone("Asia/Shanghai") == ZoneInfo("Asia/Shanghai")
    assert resolve_time_zone("CST") == ZoneInfo("Asia/Shanghai")
    assert resolve_time_zone("+08:00").utcoffset(None) == dt.timedelta(hours=8)
    assert resolve_time_zone("-05:30").utcoffset(None) == dt.timedelta(hours=-5, minutes=-30)
    assert resolve_time_zone("UTC+8").utcoffset(None) == dt.timedelta(hours=8)
    assert resolve_time_zone("UTC").utcoffset(DT(2024, 1, 1)) == dt.timedelta(0)
    with pytest.raises(InvalidTableDefinitionError, match=r"Unknown or incorrect time zone: '\+15:00'"):
        resolve_time_zone("+15:00")
    cfg = config(time_zone="+08:00")
    assert [p.name for p in plan_dynamic_partitions(cfg, table(), DT(2024, 6, 15, 20, tzinfo=UTC)).create][0] == "p20240616"


def test_empty_values_take_defaults_when_dynamic_partitioning_is_first_set():
    # DynamicPartitionUtil.checkInputDynamicPartitionProperties: an empty enable, start, buckets,
    # time_zone, create_history_partition, history_partition_num or reserved_history_periods is "not given".
    base = {"dynamic_partition.time_unit": "DAY", "dynamic_partition.end": "3", "dynamic_partition.prefix": "p"}
    empty = {key: "" for key in (
        "dynamic_partition.enable", "dynamic_partition.start", "dynamic_partition.buckets", "dynamic_partition.time_zone",
        "dynamic_partition.create_history_partition", "dynamic_partition.history_partition_num",
        "dynamic_partition.reserved_history_periods",
    )}
    cfg = validate_dynamic_properties({**base, **empty}, T.DATEV2, column_name="k1", default_time_zone="UTC", default_buckets=4)
    assert (cfg.enable, cfg.start, cfg.buckets, cfg.time_zone, cfg.create_history_partition) == (True, -(2**31), 4, "UTC", False)
    assert (cfg.history_partition_num, cfg.reserved_history_periods) == (-1, ())
    # Once the table has dynamic properties, ALTER checks the value itself (analyzeDynamicPartition).
    with pytest.raises(InvalidTableDefinitionError, match=r"^Dynamic partition buckets is empty$"):
        validate_dynamic_properties({"dynamic_partition.buckets": ""}, T.DATEV2, column_name="k1", existing=base,
                                    default_time_zone="UTC")
    with pytest.raises(InvalidTableDefinitionError, match=r"^Dynamic reserved history periods is empty\.$"):
        validate_dynamic_properties({"dynamic_partition.reserved_history_periods": ""}, T.DATEV2, column_name="k1",
                                    existing=base, default_time_zone="UTC")
