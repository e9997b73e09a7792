"""prepare_rows: Doris's mapping, conversion, strict mode, checks, defaults and WHERE, on real Spark."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from iceberg_doris.errors import LoadError
from iceberg_doris.loading import (
    REASON_COLUMN,
    STATUS_COLUMN,
    TargetColumn,
    loaded_columns,
    parse_column_mapping,
    prepare_rows,
    read_source,
)

pytestmark = pytest.mark.spark

LARGEINT_MAX = 2**127 - 1

CONVERSION_TARGETS = [
    TargetColumn("k", "INT", False, "INT"),
    TargetColumn("t", "INT", True, "TINYINT", min_value=-128, max_value=127),
    TargetColumn("s", "STRING", True, "VARCHAR(4)", max_length=4),
    TargetColumn("d", "DATE", True, "DATE"),
    TargetColumn("ts", "TIMESTAMP_NTZ", True, "DATETIME"),
    TargetColumn("m", "DECIMAL(5,2)", True, "DECIMAL(5,2)"),
    TargetColumn("big", "DECIMAL(38,0)", True, "LARGEINT", min_value=-(2**127), max_value=LARGEINT_MAX),
]

# one row per rule: (k, t, s, d, ts, m, big)
CONVERSION_ROWS = [
    ("1", "127", "abcd", "2024-03-05", "2024-03-05 10:11:12", "123.456", "9" * 38),
    ("2", "-129", None, None, None, None, None),
    ("3", None, "ééé", None, None, None, None),  # 3 characters, 6 bytes
    ("4", None, None, "20240305", "20240305101112", None, None),
    ("5", "abc", None, None, None, None, None),
    (None, "1", None, None, None, None, None),
    ("x", None, None, None, None, None, None),
    ("3000000000", None, None, None, None, None, None),
    ("9", None, None, None, None, "1234.5", None),
    ("10", None, None, None, None, None, str(LARGEINT_MAX)),  # 39 digits: more than Iceberg's DECIMAL(38,0)
    (" 11 ", None, "", "2024/3/5", "2024-03-05T10:11:12.5", "-0.5", "-1"),
    ("12", None, None, "2024-02-30", "not a date", None, None),
]


def _error(function: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(LoadError) as caught:
        function(*args, **kwargs)
    message = str(caught.value)
    assert "\tat org." not in message and "== SQL ==" not in message and "Project [" not in message
    return message


def test_conversion_strict_mode_and_checks(spark: Any) -> None:
    source = spark.createDataFrame(
        [(index, *row) for index, row in enumerate(CONVERSION_ROWS)],
        "order INT, k STRING, t STRING, s STRING, d STRING, ts STRING, m STRING, big STRING",
    )
    lenient = prepare_rows(source, CONVERSION_TARGETS, extra={"order": "order"})
    strict = prepare_rows(source, CONVERSION_TARGETS, strict_mode=True, extra={"order": "order"})
    assert lenient.columns == [t.name for t in CONVERSION_TARGETS] + ["order", STATUS_COLUMN, REASON_COLUMN]
    assert dict(lenient.dtypes)["ts"] == "timestamp_ntz" and dict(lenient.dtypes)["m"] == "decimal(5,2)"
    both = lenient.selectExpr("*", "false AS strict").unionByName(strict.selectExpr("*", "true AS strict"))
    rows = {(row["order"], row["strict"]): row for row in both.collect()}

    def outcome(order: int, strict_mode: bool) -> tuple[str, str | None]:
        row = rows[(order, strict_mode)]
        return row[STATUS_COLUMN], row[REASON_COLUMN]

    first = rows[(0, False)]
    assert (first.k, first.t, first.s, first.d, first.ts, first.m, first.big) == (
        1, 127, "abcd", dt.date(2024, 3, 5), dt.datetime(2024, 3, 5, 10, 11, 12), Decimal("123.46"), Decimal("9" * 38),
    )
    assert rows[(3, True)].d == dt.date(2024, 3, 5) and rows[(3, True)].ts == dt.datetime(2024, 3, 5, 10, 11, 12)
    eleven = rows[(10, True)]
    assert (eleven.k, eleven.s, eleven.d, eleven.ts, eleven.m, eleven.big) == (
        11, "", dt.date(2024, 3, 5), dt.datetime(2024, 3, 5, 10, 11, 12, 500000), Decimal("-0.50"), Decimal(-1),
    )
    for strict_mode in (False, True):
        assert outcome(0, strict_mode) == ("ok", None)
        assert outcome(3, strict_mode) == ("ok", None)
        assert outcome(10, strict_mode) == ("ok", None)
        # out of range / too long / NULL in NOT NULL: errors whatever strict mode says
        assert outcome(1, strict_mode) == ("error", "column t: value -129 is out of range for TINYINT [-128, 127]")
        assert outcome(2, strict_mode) == (
            "error", "column s: value 'ééé' is 6 bytes, longer than VARCHAR(4) allows (4 bytes)"
        )
        assert outcome(5, strict_mode) == ("error", "column k is NOT NULL but the value is NULL")
        assert outcome(7, strict_mode) == ("error", "column k: value '3000000000' is out of range for INT")
        assert outcome(8, strict_mode) == ("error", "column m: value '1234.5' is out of range for DECIMAL(5,2)")
        assert outcome(9, strict_mode) == ("error", f"column big: value '{LARGEINT_MAX}' is out of range for LARGEINT")
    # values that do not convert: NULL without strict mode, error rows with it
    assert outcome(4, False) == ("ok", None) and rows[(4, False)].t is None
    assert outcome(4, True) == ("error", "column t: cannot convert 'abc' to TINYINT")
    assert outcome(6, False) == ("error", "column k is NOT NULL but the value is NULL")
    assert outcome(6, True) == ("error", "column k: cannot convert 'x' to INT")
    assert outcome(11, False) == ("ok", None) and rows[(11, False)].d is None and rows[(11, False)].ts is None
    assert outcome(11, True) == ("error", "column d: cannot convert '2024-02-30' to DATE")


def test_csv_mapping_derived_columns_where_and_extra(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text("1\tabc\t10\n2\tdef\t20\n3\tghi\n4\tjkl\t40\tmore\n5\tmno\tx\n\\N\tpqr\t30\n")
    targets = [
        TargetColumn("id", "INT", False, "INT"),
        TargetColumn("name", "STRING", True, "VARCHAR(10)", max_length=10),
        TargetColumn("score", "BIGINT", True, "BIGINT"),
    ]
    frame = read_source(spark, path=str(path))
    assert frame.columns == ["_c0", "_c1", "_c2"]
    mapping = parse_column_mapping("id, tmp, raw, name = upper(tmp), score = raw * 2")
    prepared = prepare_rows(
        frame, targets, mapping=mapping, where="score > 20 OR tmp = 'pqr'", strict_mode=True,
        extra={"del": "tmp = 'def'", "seq": "id * 100"},
    )
    assert prepared.columns == ["id", "name", "score", "del", "seq", STATUS_COLUMN, REASON_COLUMN]
    rows = {row["name"] or row[REASON_COLUMN]: tuple(row) for row in prepared.collect()}
    assert rows["ABC"] == (1, "ABC", 20, False, 100, "unselected", None)  # WHERE false: not an error
    assert rows["DEF"] == (2, "DEF", 40, True, 200, "ok", None)
    # a NULL computed by an expression is not a conversion failure, even in strict mode
    assert rows["MNO"] == (5, "MNO", None, False, 500, "unselected", None)
    # error rows stay errors even where WHERE would select them
    assert rows["PQR"][5:] == ("error", "column id is NOT NULL but the value is NULL")
    assert rows["GHI"][5:] == (
        "error", "column count mismatch: the load expects 3 columns but the line has 2 columns: 3\tghi"
    )
    assert rows["JKL"][5] == "error" and "the line has 4 columns: 4\tjkl\t40\tmore" in rows["JKL"][6]
    assert loaded_columns(frame, targets, mapping) == ("id", "name", "score")

    # without columns: field i feeds table column i; a 2-field mapping sees 2-field lines as good
    plain = prepare_rows(frame, targets).selectExpr("'plain' AS how", "*")
    short = prepare_rows(frame, targets, mapping=parse_column_mapping("id, name")).selectExpr("'short' AS how", "*")
    outcomes = {(row.how, row.id): row[STATUS_COLUMN] for row in plain.unionByName(short).collect()}
    assert outcomes[("plain", 1)] == outcomes[("plain", 5)] == "ok"
    assert outcomes[("plain", 3)] == outcomes[("plain", 4)] == "error"
    assert sorted(key[1] for key, status in outcomes.items() if key[0] == "short" and status == "ok") == [3]


def test_enclosed_csv_and_positional_frames_check_the_column_count(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "quoted.csv"
    path.write_text("1,'a,b',x\n2,'c'\n3,'multi\nline',z\n")
    targets = [TargetColumn("k", "INT", True, "INT"), TargetColumn("v", "STRING", True, "STRING")]
    frame = read_source(spark, path=str(path), options={"column_separator": ",", "enclose": "'"})
    prepared = prepare_rows(frame, targets, mapping=parse_column_mapping("k, v, rest"))
    rows = {row.k: (row.v, row[STATUS_COLUMN], row[REASON_COLUMN]) for row in prepared.collect()}
    assert rows[1] == ("a,b", "ok", None) and rows[3] == ("multi\nline", "ok", None)
    assert rows[2][1] == "error" and rows[2][2].startswith("column count mismatch: the load expects 3 columns: 2,'c'")

    # a frame with _c columns from elsewhere: a count that differs from the table's fails every row
    positional = spark.createDataFrame([("1", "x")], "_c0 STRING, _c1 STRING")
    three = targets + [TargetColumn("w", "STRING", True, "STRING")]
    assert prepare_rows(positional, three).select(REASON_COLUMN).collect()[0][0] == (
        "column count mismatch: the load expects 3 columns but the source has 2"
    )


def test_json_sources_map_by_name_and_flag_malformed_lines(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "rows.json"
    path.write_text('{"K": 1, "Val": "a", "other": 5}\n{"K": 2}\n{broken\n{"K": "x", "Val": "b"}\n')
    targets = [
        TargetColumn("k", "INT", False, "INT"),
        TargetColumn("val", "STRING", True, "STRING"),
        TargetColumn("absent", "STRING", True, "STRING"),
    ]
    frame = read_source(spark, path=str(path))
    prepared = prepare_rows(frame, targets, strict_mode=True, where="other IS NULL OR other > 1")
    rows = sorted((tuple(row) for row in prepared.collect()), key=lambda row: str(row[0]))
    assert rows == [
        (1, "a", None, "ok", None),
        (2, None, None, "ok", None),
        (None, None, None, "error", "malformed JSON record: {broken"),
        (None, "b", None, "error", "column k: cannot convert 'x' to INT"),
    ]
    # only the status is needed: Spark must still read the malformed lines correctly
    assert prepared.where(f"{STATUS_COLUMN} = 'error'").count() == 2
    unchecked = prepare_rows(frame, [TargetColumn("val", "STRING", True, "STRING")])
    assert unchecked.where(f"{STATUS_COLUMN} = 'error'").count() == 1
    assert loaded_columns(frame, targets) == ("k", "val")

    # columns naming JSON keys: case-insensitive, and a key no object has reads as NULL
    mapped = prepare_rows(frame, targets, mapping=parse_column_mapping("k, nothing, val = upper(Val)"))
    assert sorted(row.val for row in mapped.collect() if row.val) == ["A", "B"]


def test_defaults_and_absent_columns(spark: Any) -> None:
    source = spark.createDataFrame([(1,), (2,)], "k INT")
    targets = [
        TargetColumn("k", "INT", False, "INT"),
        TargetColumn("v", "STRING", True, "VARCHAR(8)", max_length=8, default="dflt"),
        TargetColumn("n", "INT", False, "TINYINT", min_value=-128, max_value=127, default="7"),
        TargetColumn("ts", "TIMESTAMP_NTZ", False, "DATETIME", default="CURRENT_TIMESTAMP"),
        TargetColumn("day", "DATE", True, "DATE", default="20240305"),
        TargetColumn("z", "INT", True, "INT"),
        TargetColumn("pi", "DOUBLE", True, "DOUBLE", default="PI"),
    ]
    required = targets + [TargetColumn("q", "INT", False, "INT")]
    assert "column q is NOT NULL and has no default value, but the load does not supply it (the load supplies: k)" in (
        _error(prepare_rows, source, required)
    )
    # partial-column updates: absent columns are the caller's business
    prepared = prepare_rows(source, required, required_present=False)
    rows = prepared.orderBy("k").collect()
    assert [(row.k, row.v, row.n, row.day, row.z, row.q, row[STATUS_COLUMN]) for row in rows] == [
        (1, "dflt", 7, dt.date(2024, 3, 5), None, None, "ok"),
        (2, "dflt", 7, dt.date(2024, 3, 5), None, None, "ok"),
    ]
    assert all(isinstance(row.ts, dt.datetime) and round(row.pi, 5) == 3.14159 for row in rows)
    assert loaded_columns(source, required) == ("k",)
    bad_default = [targets[0], TargetColumn("x", "INT", True, "INT", default="abc")]
    assert "column x: its default value 'abc' is not a valid INT" in _error(prepare_rows, source, bad_default)


def test_bad_expressions_and_mappings_are_load_errors(spark: Any) -> None:
    source = spark.createDataFrame([(1, "a", [1])], "k INT, v STRING, arr ARRAY<INT>")
    targets = [TargetColumn("k", "INT", False, "INT"), TargetColumn("v", "STRING", True, "STRING")]
    unresolved = _error(prepare_rows, source, targets, where="nope > 1")
    # Spark's own words differ by line ("A column, variable, or function parameter" on 4.x).
    assert unresolved.startswith("where 'nope > 1' cannot be evaluated: A column")
    assert "parameter with name `nope` cannot be resolved" in unresolved
    assert "where 'k >' is not a valid expression: Syntax error" in _error(prepare_rows, source, targets, where="k >")
    assert "where 'k + 1' must be a condition" in _error(prepare_rows, source, targets, where="k + 1")
    assert "del expression 'nope = 1' cannot be evaluated" in (
        _error(prepare_rows, source, targets, extra={"del": "nope = 1"})
    )
    assert "extra column V clashes" in _error(prepare_rows, source, targets, extra={"V": "1"})
    mapping = parse_column_mapping("k, v = missing_function(k)")
    assert "columns item 'v = missing_function(k)' cannot be evaluated:" in (
        _error(prepare_rows, source, targets, mapping=mapping)
    )
    mapping = parse_column_mapping("k, w = upper(v)")
    assert "columns item 'w = upper(v)': the table has no column w; its columns are: k, v" in (
        _error(prepare_rows, source, targets, mapping=mapping)
    )
    assert "columns names x, which the source does not have; the source's columns are: k, v, arr" in (
        _error(prepare_rows, source, targets, mapping=parse_column_mapping("k, x"))
    )
    dated = [targets[0], TargetColumn("arr", "DATE", True, "DATE")]
    assert "column arr: a ARRAY<INT> source value cannot be loaded into DATE" in _error(prepare_rows, source, dated)
    # hidden Doris columns may be derived for the caller's extra expressions
    hidden = prepare_rows(
        source, targets, mapping=parse_column_mapping("k, v, __DORIS_DELETE_SIGN__ = k = 1"),
        extra={"delete": "__DORIS_DELETE_SIGN__"},
    )
    assert hidden.columns == ["k", "v", "delete", STATUS_COLUMN, REASON_COLUMN]


def test_a_too_long_value_is_dropped_from_its_error_row(spark: Any) -> None:
    """Issue 42: the reason keeps the value's start and size; the row does not keep the value,
    so a huge field is never cached with a load's batch nor written again to its error rows."""
    targets = [TargetColumn("k", "INT", False, "INT"), TargetColumn("s", "STRING", True, "VARCHAR(4)", max_length=4)]
    source = spark.createDataFrame([(1, "abcd"), (2, "abcdefgh"), (3, None)], "k INT, s STRING")
    rows = {r.k: r for r in prepare_rows(source, targets).collect()}
    assert (rows[1].s, rows[1][STATUS_COLUMN]) == ("abcd", "ok")
    assert (rows[2].s, rows[2][STATUS_COLUMN]) == (None, "error")
    assert rows[2][REASON_COLUMN] == "column s: value 'abcdefgh' is 8 bytes, longer than VARCHAR(4) allows (4 bytes)"
    assert (rows[3].s, rows[3][STATUS_COLUMN]) == (None, "ok")
