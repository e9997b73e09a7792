"""read_source: tables, views, DataFrames, queries and CSV/JSON/Parquet files, on real Spark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from iceberg_doris.errors import LoadError
from iceberg_doris.loading import MALFORMED_COLUMN, read_source, source_info

pytestmark = pytest.mark.spark


def _rows(frame: Any) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in frame.collect()]


def _write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return str(path)


def _error(**kwargs: Any) -> str:
    with pytest.raises(LoadError) as caught:
        read_source(**kwargs)
    message = str(caught.value)
    assert "\tat org." not in message and "Traceback" not in message  # never a JVM stack trace
    return message


def test_table_view_dataframe_and_query(spark: Any, namespace: str) -> None:
    spark.sql(f"CREATE TABLE {namespace}.src (k INT, v STRING)")
    assert read_source(spark, source=f"{namespace}.src").columns == ["k", "v"]

    frame = spark.createDataFrame([(1, "a"), (2, "b")], "k INT, v STRING")
    assert read_source(spark, source=frame) is frame
    frame.createOrReplaceTempView("loading_src_view")
    query = read_source(spark, query="SELECT k * 10 AS k10, upper(v) AS v FROM loading_src_view -- comment\n;")
    assert read_source(spark, query="(SELECT 1 AS delete) UNION (SELECT 2)").columns == ["delete"]
    view = read_source(spark, source="loading_src_view")
    assert _rows(view.join(query, view.k * 10 == query.k10).orderBy("k").select("k", query.v)) == [(1, "A"), (2, "B")]
    assert source_info(view) is None

    assert "source table or view nope.missing does not exist" in _error(spark=spark, source="nope.missing")
    assert "give exactly one of source, query or path (got none of them)" in _error(spark=spark)
    assert "(got source, query)" in _error(spark=spark, source="t", query="SELECT 1")
    assert "format and options apply to path loads only" in _error(spark=spark, source="t", format="csv")


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("DROP TABLE loading_src_view", "not a DROP statement"),
        ("CALL doris.help()", "not a CALL statement"),
        ("INSERT INTO t SELECT 1", "not an INSERT statement"),
        ("WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x", "it is an INSERT statement"),
        ("WITH x AS (SELECT 1 AS a) DELETE FROM t WHERE a IN (SELECT a FROM x)", "it is a DELETE statement"),
        ("FROM loading_src_view INSERT INTO t SELECT k", "it is an INSERT statement"),
        ("SELECT 1; DROP TABLE t", "single statement"),
        ("   ", "query is empty"),
        # Spark's own words differ by line ("A column, variable, or function parameter" on 4.x).
        ("SELECT nope FROM (SELECT 1 AS a)", "query cannot be run: A column"),
        ("SELECT nope FROM (SELECT 1 AS a)", "parameter with name `nope` cannot be resolved"),
        ("SELECT (1 + FROM t", "query cannot be run: Syntax error"),
    ],
)
def test_query_must_be_one_valid_query(spark: Any, query: str, message: str) -> None:
    assert message in _error(spark=spark, query=query)


def test_csv_follows_doris_defaults(spark: Any, tmp_path: Path) -> None:
    # tab separated, \N is NULL, empty is '', quotes and spaces are data, blank lines are skipped
    path = _write(tmp_path / "a.csv", '1\tx\t\\N\n\n2\t\t"q, r"\r\n3\t é \tz\n')
    frame = read_source(spark, path=path)
    assert frame.columns == ["_c0", "_c1", "_c2"]
    assert _rows(frame) == [("1", "x", None), ("2", "", '"q, r"'), ("3", " é ", "z")]
    info = source_info(frame)
    assert info is not None and info.positional and info.format == "csv"


def test_csv_separators_header_and_globs(spark: Any, tmp_path: Path) -> None:
    _write(tmp_path / "in" / "p1.csv", "a||b\n1||x\n2||y\n")
    _write(tmp_path / "in" / "p2.csv", "a||b\n3||z\n")
    _write(tmp_path / "in" / "_SUCCESS", "")
    options = {"column_separator": "||", "header": "true"}
    headed = read_source(spark, path=str(tmp_path / "in" / "*.csv"), options=options)
    assert sorted(_rows(headed)) == [("1", "x"), ("2", "y"), ("3", "z")]
    # csv_with_names is Doris's name for the same; a directory is read whole
    named = read_source(spark, path=str(tmp_path / "in"), format="csv_with_names", options={"column_separator": "||"})
    assert named.count() == 3

    # hex-escaped separator and a multi-character line delimiter, several paths
    one = _write(tmp_path / "x1.txt", "1\x01a##2\x01b##")
    two = _write(tmp_path / "x2.txt", "3\x01c##")
    frame = read_source(
        spark, path=[one, two], format="csv", options={"column_separator": "\\x01", "line_delimiter": "##"}
    )
    assert sorted(_rows(frame)) == [("1", "a"), ("2", "b"), ("3", "c")]


def test_csv_enclose_and_escape(spark: Any, tmp_path: Path) -> None:
    path = _write(tmp_path / "e.csv", "1,'b,c',x\n2,'multi\nline',\\N\n3,'it\\'s',z\n")
    frame = read_source(spark, path=path, options={"column_separator": ",", "enclose": "'", "escape": "\\"})
    assert _rows(frame) == [("1", "b,c", "x"), ("2", "multi\nline", None), ("3", "it's", "z")]


def test_json_lines_arrays_and_malformed_records(spark: Any, tmp_path: Path) -> None:
    lines = _write(
        tmp_path / "a.json",
        '{"k": 1, "v": "x"}\n{"k": 123456789012345678901234567890, "extra": {"n": 1.25}}\n'
        'not json\n[{"k": 3}, {"k": 4, "v": null}]\n',
    )
    frame = read_source(spark, path=lines)
    assert set(frame.columns) == {"k", "v", "extra", MALFORMED_COLUMN}
    rows = sorted(_rows(frame.select("k", "v", MALFORMED_COLUMN)), key=lambda row: (row[0] is not None, str(row[0])))
    # integers keep all their digits; the bad line is flagged, not fatal
    assert rows == [
        (None, None, "malformed JSON record: not json"),
        ("1", "x", None),
        ("123456789012345678901234567890", None, None),
        ("3", None, None),
        ("4", None, None),
    ]
    # a pretty-printed top-level array is found without options; strip_outer_array says so explicitly
    array = _write(tmp_path / "b.json", '[\n  {"k": 1, "v": "x"},\n  {"k": 2}\n]\n')
    assert _rows(read_source(spark, path=array).select("k", "v").orderBy("k")) == [("1", "x"), ("2", None)]
    explicit = read_source(spark, path=array, options={"strip_outer_array": "true"})
    assert MALFORMED_COLUMN not in explicit.columns and source_info(explicit).absent_columns_are_null

    bad = _write(tmp_path / "bad.json", "{{{ nope\n")
    assert "bad.json is not valid JSON" in _error(spark=spark, path=bad)


def test_parquet_files_and_globs(spark: Any, tmp_path: Path) -> None:
    rows = spark.createDataFrame([(1, "a", 10), (2, "b", 20)], "k INT, v STRING, p INT")
    rows.coalesce(1).write.partitionBy("p").parquet(str(tmp_path / "pq"))
    # a partitioned directory: the format is found in the partition folders
    frame = read_source(spark, path=str(tmp_path / "pq"))
    assert sorted(_rows(frame)) == [(1, "a", 10), (2, "b", 20)]
    assert read_source(spark, path=str(tmp_path / "pq" / "p=*" / "*.parquet")).columns == ["k", "v"]

    broken = _write(tmp_path / "broken.parquet", "not parquet at all")
    message = _error(spark=spark, path=broken)
    assert "cannot read Parquet" in message and "broken.parquet is not a Parquet file" in message


def test_path_errors(spark: Any, tmp_path: Path) -> None:
    assert f"path {tmp_path}/missing.csv does not exist" in _error(spark=spark, path=str(tmp_path / "missing.csv"))
    assert "does not exist" in _error(spark=spark, path=str(tmp_path / "none*.csv"))
    data = _write(tmp_path / "data.bin", "1\n")
    assert "cannot tell the format of data.bin" in _error(spark=spark, path=data)
    csv = _write(tmp_path / "m" / "a.csv", "1\n")
    _write(tmp_path / "m" / "b.json", "{}\n")
    assert "different formats" in _error(spark=spark, path=str(tmp_path / "m"))
    assert "unknown format 'orc'" in _error(spark=spark, path=csv, format="orc")
    assert "unknown csv option(s) colum_separator; supported: column_separator" in _error(
        spark=spark, path=csv, options={"colum_separator": ","}
    )
    assert "option jsonpaths is not supported" in _error(spark=spark, path=csv, options={"jsonpaths": "[]"})
    assert "option enclose must be a single character" in _error(spark=spark, path=csv, options={"enclose": "ab"})
    assert "option header must be true or false" in _error(spark=spark, path=csv, options={"header": "maybe"})
    assert "path must be a string or a list" in _error(spark=spark, path=3)


def test_json_nested_deeper_than_the_parser_reads_is_named(spark: Any, tmp_path: Path) -> None:
    path = _write(tmp_path / "deep.json", '{"k": 1, "t": ' + "[" * 5000 + "]" * 5000 + "}\n")
    message = _error(spark=spark, path=path, format="json")
    assert message == (
        f"{path} nests JSON deeper than 1000 levels (its first line opens at least 4083), more than the JSON parser "
        "reads: flatten the document, or load deep values as JSON text (a string field) and parse the part you need "
        "in a columns expression (get_json_object)"
    )
    assert "not valid JSON" not in message
