"""Typed partition keys: literal parsing, Doris's literal errors, sentinels, text forms."""

from __future__ import annotations

import datetime as dt
import pickle

import pytest

from iceberg_doris.errors import PartitionError
from iceberg_doris.partitioning import MAX, MAXVALUE, MIN, PartitionColumnType, format_key_value, parse_key_literal
from iceberg_doris.partitioning.keys import coerce_value, is_type_min, key_sort_key, key_value_to_sql, type_min_text

T = PartitionColumnType


@pytest.mark.parametrize(
    ("text", "type_", "expected"),
    [
        ("10", T.INT, 10),
        ("-5", T.TINYINT, -5),
        ("+7", T.SMALLINT, 7),
        ("9223372036854775807", T.BIGINT, 2**63 - 1),
        ("170141183460469231731687303715884105727", T.LARGEINT, 2**127 - 1),
        ("2020-01-01", T.DATEV2, dt.date(2020, 1, 1)),
        ("2020-1-2", T.DATE, dt.date(2020, 1, 2)),
        ("20200103", T.DATEV2, dt.date(2020, 1, 3)),
        ("2020-01-01 10:00:00", T.DATETIMEV2, dt.datetime(2020, 1, 1, 10)),
        ("2020-01-01T10:20:30", T.DATETIME, dt.datetime(2020, 1, 1, 10, 20, 30)),
        ("2020-01-01", T.DATETIMEV2, dt.datetime(2020, 1, 1)),
        ("2020-01-01 10:00:00", T.DATEV2, dt.date(2020, 1, 1)),
        ("2020-01-01 10:00:00.5", T.DATETIMEV2, dt.datetime(2020, 1, 1, 10, 0, 0, 500000)),
        ("Beijing", T.VARCHAR, "Beijing"),
        ("", T.STRING, ""),
        ("MAXVALUE", T.VARCHAR, "MAXVALUE"),
        ("true", T.BOOLEAN, True),
        ("0", T.BOOLEAN, False),
        (None, T.INT, None),
    ],
)
def test_parse_key_literal(text, type_, expected):
    assert parse_key_literal(text, type_) == expected
    assert type(parse_key_literal(text, type_)) is type(expected)


@pytest.mark.parametrize(
    ("text", "type_", "message"),
    [
        ("3000", T.TINYINT, "Number out of range[3000]. type: tinyint"),
        ("-129", T.TINYINT, "Number out of range[-129]. type: tinyint"),
        ("40000", T.SMALLINT, "Number out of range[40000]. type: smallint"),
        ("2147483648", T.INT, "Number out of range[2147483648]. type: int"),
        ("-50.1", T.INT, "Invalid number format: -50.1"),
        ("abc", T.BIGINT, "Invalid number format: abc"),
        ("9223372036854775808", T.BIGINT, "Invalid number format: 9223372036854775808"),
        (" 1", T.INT, "Invalid number format:  1"),
        ("1_000", T.INT, "Invalid number format: 1_000"),
        ("1e3", T.LARGEINT, "Invalid integer literal: 1e3"),
        ("170141183460469231731687303715884105728", T.LARGEINT, "Large int literal is out of range"),
        ("10000-01-01 00:00:00", T.DATETIMEV2, "date/datetime literal [10000-01-01 00:00:00] is invalid"),
        ("2020-02-30", T.DATEV2, "date/datetime literal [2020-02-30] is invalid"),
        ("2020-13-01", T.DATE, "date/datetime literal [2020-13-01] is invalid"),
        ("not a date", T.DATETIME, "date/datetime literal [not a date] is invalid"),
        ("0000-01-02", T.DATEV2, "date/datetime literal [0000-01-02] is invalid"),
        ("yes", T.BOOLEAN, "Invalid BOOLEAN literal: yes"),
    ],
)
def test_parse_key_literal_errors(text, type_, message):
    with pytest.raises(PartitionError) as info:
        parse_key_literal(text, type_)
    assert message in str(info.value)


def test_year_zero_min_is_the_min_sentinel():
    assert parse_key_literal("0000-01-01", T.DATEV2) is MIN
    assert parse_key_literal("0000-01-01 00:00:00", T.DATETIMEV2) is MIN
    with pytest.raises(PartitionError):
        parse_key_literal("0000-01-01 00:00:01", T.DATETIMEV2)


def test_maxvalue_keyword_for_non_string_types():
    assert parse_key_literal("MAXVALUE", T.INT) is MAX
    assert parse_key_literal("maxvalue", T.DATEV2) is MAX
    assert MAXVALUE is MAX
    assert parse_key_literal(MAX, T.VARCHAR) is MAX


def test_sentinels_compare_below_and_above_everything():
    for value in (-(2**200), 0, dt.date(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59), "", "zzz"):
        assert MIN < value and value > MIN and MIN <= value and not MIN >= value
        assert MAX > value and value < MAX and MAX >= value and not MAX <= value
        assert MIN != value and value != MAX
    assert MIN < MAX and MAX > MIN and MIN == MIN and MAX == MAX and not MIN < MIN
    assert (MIN, 5) < (0, 0) < (MAX, MIN)
    assert sorted([3, MAX, MIN, 1]) == [MIN, 1, 3, MAX]


def test_sentinels_survive_pickling():
    assert pickle.loads(pickle.dumps(MIN)) is MIN
    assert pickle.loads(pickle.dumps((MAX, 1)))[0] is MAX


def test_format_key_value():
    assert format_key_value(dt.datetime(2020, 1, 1), T.DATETIMEV2) == "2020-01-01 00:00:00"
    assert format_key_value(dt.date(2020, 1, 1), T.DATEV2) == "2020-01-01"
    assert format_key_value(MAX, T.INT) == "MAXVALUE"
    assert format_key_value(None, T.INT) == "NULL"
    assert format_key_value(MIN, T.INT) == "-2147483648"
    assert format_key_value(MIN, T.TINYINT) == "-128"
    assert format_key_value(MIN, T.DATEV2) == "0000-01-01"
    assert format_key_value(MIN, T.DATETIMEV2) == "0000-01-01 00:00:00"
    assert format_key_value(True, T.BOOLEAN) == "true"
    assert format_key_value(dt.datetime(2020, 1, 1, 1, 2, 3, 4), T.DATETIMEV2) == "2020-01-01 01:02:03.000004"


def test_key_value_to_sql_quotes_like_partition_key_to_sql():
    assert key_value_to_sql(10, T.INT) == '"10"'
    assert key_value_to_sql("beijing", T.VARCHAR) == '"beijing"'
    assert key_value_to_sql(dt.date(2020, 1, 1), T.DATEV2) == "'2020-01-01'"
    assert key_value_to_sql(MAX, T.INT) == "MAXVALUE"
    assert key_value_to_sql(None, T.INT) == "NULL"


def test_type_from_sql():
    assert T.from_sql("int(11)") is T.INT
    assert T.from_sql("varchar(20)") is T.VARCHAR
    assert T.from_sql("DATE") is T.DATEV2
    assert T.from_sql("DATETIME(3)") is T.DATETIMEV2
    assert T.from_sql("DATE", date_v2=False) is T.DATE
    assert T.from_sql("timestamp") is T.DATETIMEV2
    assert T.from_sql("bool") is T.BOOLEAN
    assert T.coerce("DATEV2") is T.DATEV2
    with pytest.raises(PartitionError, match=r"Type\[DOUBLE\] cannot be a partition key"):
        T.from_sql("DOUBLE")


def test_type_min_and_is_type_min():
    assert type_min_text(T.BIGINT) == str(-(2**63))
    assert is_type_min(-128, T.TINYINT) and not is_type_min(-127, T.TINYINT)
    assert is_type_min(MIN, T.DATEV2)
    assert not is_type_min(False, T.TINYINT)


def test_coerce_value_converts_typed_values():
    assert coerce_value(dt.datetime(2020, 1, 1, 5), T.DATEV2) == dt.date(2020, 1, 1)
    assert coerce_value(dt.date(2020, 1, 1), T.DATETIMEV2) == dt.datetime(2020, 1, 1)
    aware = dt.datetime(2020, 1, 1, 5, tzinfo=dt.timezone.utc)
    assert coerce_value(aware, T.DATETIMEV2).tzinfo is None
    assert coerce_value(5.0, T.INT) == 5
    assert coerce_value(1, T.BOOLEAN) is True
    assert coerce_value(12, T.VARCHAR) == "12"
    with pytest.raises(PartitionError, match=r"Number out of range\[300\]. type: tinyint"):
        coerce_value(300, T.TINYINT)


def test_key_sort_key_puts_null_first():
    values = [5, None, MAX, MIN, 1]
    assert sorted(values, key=key_sort_key) == [None, MIN, 1, 5, MAX]


def test_coerce_value_takes_largeint_values_as_spark_reads_them():
    # LARGEINT is stored as decimal(38,0): Spark rows carry Decimal values.
    from decimal import Decimal

    assert coerce_value(Decimal("5"), T.LARGEINT) == 5
    assert coerce_value(Decimal("-12345678901234567890123456789012345678"), T.LARGEINT) == -12345678901234567890123456789012345678
    with pytest.raises(PartitionError) as raised:
        coerce_value(Decimal("1.5"), T.LARGEINT)
    assert str(raised.value) == "Invalid number format: 1.5"
