"""The edges of the argument checks: what binding accepts still works end to end."""

from __future__ import annotations

import datetime as dt

import pytest

from iceberg_doris import doris

pytestmark = pytest.mark.spark


def test_cleanup_older_than_takes_timestamps_dates_and_expressions(spark, namespace):
    table = f"{namespace}.c"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    for k in range(3):
        doris.load(spark, table=table, query=f"SELECT {k} AS k, 'v' AS v")
    for older_than in ["TIMESTAMP '2020-01-01 00:00:00'", "DATE '2020-01-01'", "'2020-01-01'", "'2020-01-01T00:00:00Z'"]:
        row = spark.sql(f"CALL doris.cleanup(table => '{table}', older_than => {older_than})").collect()[0]
        assert row.expired_snapshots == 0
    assert doris.cleanup(spark, table=table, older_than=dt.datetime(2020, 1, 1))[0].expired_snapshots == 0
    # An expression is evaluated by Spark before binding: a cutoff after every snapshot expires all
    # but the newest.
    row = spark.sql(
        f"CALL doris.cleanup(table => '{table}', older_than => current_timestamp() + INTERVAL 1 MINUTE, retain_last => 1)"
    ).collect()[0]
    assert row.expired_snapshots == 2
    assert sorted(r.k for r in spark.sql(f"SELECT k FROM {table}").collect()) == [0, 1, 2]


def test_max_filter_ratio_bounds_are_inclusive(spark, namespace):
    table = f"{namespace}.r"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v VARCHAR(2)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    result = doris.load(spark, table=table, query="SELECT 1 AS k, 'too long' AS v", max_filter_ratio=1.0, label="all:filtered")[0]
    assert (result.loaded_rows, result.filtered_rows) == (0, 1)
    assert result.error_rows_path.endswith(f"/_doris_load_errors/{namespace}/r/all%3Afiltered")
    assert doris.load(spark, table=table, query="SELECT 2 AS k, 'ok' AS v", max_filter_ratio=0.0)[0].loaded_rows == 1


def test_sequence_value_supplied_through_the_columns_mapping(spark, namespace):
    table = f"{namespace}.s"
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {table} (k INT NOT NULL, v STRING, s INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1
        PROPERTIES ("function_column.sequence_col" = "s")""",
    )
    doris.load(spark, table=table, query="SELECT 1 AS k, 'new' AS v, 5 AS x", columns="k, v, x, s = x")
    doris.load(spark, table=table, query="SELECT 1 AS k, 'old' AS v, 3 AS x", columns="k, v, x, s = x")
    assert [tuple(r) for r in spark.sql(f"SELECT * FROM {table}").collect()] == [(1, "new", 5)]
