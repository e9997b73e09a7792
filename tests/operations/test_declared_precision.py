"""A DATETIME(p) column stores its values at the declared precision, rounded half up as Doris
rounds them (Doris regression suite datatype_p0/datetimev2/test_round): on every load path and in
aggregate MAX/MIN/REPLACE columns, as Spark, pyiceberg and DuckDB read the table."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from iceberg_doris import doris
from tests.concurrency import readers_agree

pytestmark = pytest.mark.spark

T = dt.datetime


def _table(spark, name: str) -> str:
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {name} (k INT NOT NULL, d0 DATETIME, d3 DATETIMEV2(3), d6 DATETIME(6)) "
        "UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    return name


EXPECTED = [
    (1, T(2024, 1, 1, 12, 12, 12), T(2024, 1, 1, 12, 12, 12, 123000), T(2024, 1, 1, 12, 12, 12, 123456)),
    (2, T(2024, 1, 1, 12, 12, 13), T(2024, 1, 1, 12, 12, 12, 124000), T(2024, 1, 1, 12, 12, 12, 123500)),
    (3, T(2025, 1, 1, 0, 0, 0), T(2025, 1, 1, 0, 0, 0), T(2024, 12, 31, 23, 59, 59, 999900)),
]


def _raw_values() -> list[tuple[int, str, str, str]]:
    return [
        (1, "2024-01-01 12:12:12.123456", "2024-01-01 12:12:12.123456", "2024-01-01 12:12:12.123456"),
        (2, "2024-01-01 12:12:12.5", "2024-01-01 12:12:12.1235", "2024-01-01 12:12:12.1235"),
        (3, "2024-12-31 23:59:59.9999", "2024-12-31 23:59:59.9999", "2024-12-31 23:59:59.9999"),
    ]


def test_query_load_rounds_to_the_declared_precision(spark, namespace, py_catalog):
    table = _table(spark, f"{namespace}.prec_query")
    rows = ", ".join(f"({k}, '{a}', '{b}', '{c}')" for k, a, b, c in _raw_values())
    doris.load(spark, table=table, query=f"SELECT * FROM VALUES {rows} AS t(k, d0, d3, d6)")
    assert readers_agree(spark, py_catalog, table) == EXPECTED


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_file_loads_round_to_the_declared_precision(spark, namespace, py_catalog, tmp_path, fmt):
    table = _table(spark, f"{namespace}.prec_{fmt}")
    path = tmp_path / f"rows.{fmt}"
    if fmt == "csv":
        path.write_text("".join(f"{k}\t{a}\t{b}\t{c}\n" for k, a, b, c in _raw_values()))
    elif fmt == "json":
        path.write_text("".join(json.dumps({"k": k, "d0": a, "d3": b, "d6": c}) + "\n" for k, a, b, c in _raw_values()))
    else:
        frame = spark.createDataFrame(
            [(k, T.fromisoformat(a), T.fromisoformat(b), T.fromisoformat(c)) for k, a, b, c in _raw_values()],
            "k INT, d0 TIMESTAMP_NTZ, d3 TIMESTAMP_NTZ, d6 TIMESTAMP_NTZ",
        )
        frame.coalesce(1).write.parquet(str(path))
    doris.load(spark, table=table, path=str(path), format=fmt)
    assert readers_agree(spark, py_catalog, table) == EXPECTED


def test_dataframe_load_and_insert_overwrite_round(spark, namespace, py_catalog):
    table = _table(spark, f"{namespace}.prec_frame")
    frame = spark.createDataFrame(
        [(k, T.fromisoformat(a), T.fromisoformat(b), T.fromisoformat(c)) for k, a, b, c in _raw_values()],
        "k INT, d0 TIMESTAMP_NTZ, d3 TIMESTAMP_NTZ, d6 TIMESTAMP_NTZ",
    )
    doris.load(spark, table=table, source=frame)
    assert readers_agree(spark, py_catalog, table) == EXPECTED
    doris.insert_overwrite(
        spark, table=table,
        query="SELECT 7 AS k, '2024-05-05 10:00:00.4999' AS d0, '2024-05-05 10:00:00.0004' AS d3, NULL AS d6",
    )
    assert readers_agree(spark, py_catalog, table) == [(7, T(2024, 5, 5, 10), T(2024, 5, 5, 10), None)]


def test_aggregate_max_min_replace_keep_the_rounded_value(spark, namespace, py_catalog):
    table = f"{namespace}.prec_agg"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, hi DATETIME MAX, lo DATETIME(1) MIN, last DATETIME REPLACE) "
        "AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=table, query=(
        "SELECT * FROM VALUES (1, '2024-01-01 00:00:00.6', '2024-01-01 00:00:00.26', '2024-01-01 00:00:00.2') "
        "AS t(k, hi, lo, last)"
    ))
    # 00:00:00.9 rounds to :01 (not above the stored :01); .24 rounds to .2 (below .3); .5 rounds up.
    doris.load(spark, table=table, query=(
        "SELECT * FROM VALUES (1, '2024-01-01 00:00:00.9', '2024-01-01 00:00:00.24', '2024-01-01 00:00:09.5') "
        "AS t(k, hi, lo, last)"
    ))
    assert readers_agree(spark, py_catalog, table) == [
        (1, T(2024, 1, 1, 0, 0, 1), T(2024, 1, 1, 0, 0, 0, 200000), T(2024, 1, 1, 0, 0, 10)),
    ]
