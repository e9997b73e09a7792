"""An integer loaded into a DATE or DATETIME column reads as Doris reads it (``from_date_int64``):
YYYYMMDD, YYMMDD (00-69: 20xx, 70-99: 19xx), YYYYMMDDhhmmss, YYMMDDhhmmss; anything else is no
date: NULL, or a filtered row in strict mode."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import LoadError
from tests.concurrency import readers_agree

pytestmark = pytest.mark.spark


def make(spark, table: str) -> str:
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, d DATE, t DATETIME) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    return table


def test_integers_load_as_doris_dates(spark, namespace, py_catalog):
    table = make(spark, f"{namespace}.dates")
    [result] = doris.load(
        spark,
        table=table,
        query="SELECT * FROM VALUES "
        "(1, 20240408, 20240408123045L), (2, 240408, 240408123045L), (3, 991231, 20240408L), "
        "(4, 700101, 19700101000000L), (5, 20240230, 20241301L), (6, 99, 0L) AS t(k, d, t)",
    )
    assert (result.loaded_rows, result.filtered_rows) == (6, 0)
    assert readers_agree(spark, py_catalog, table) == [
        (1, dt.date(2024, 4, 8), dt.datetime(2024, 4, 8, 12, 30, 45)),
        (2, dt.date(2024, 4, 8), dt.datetime(2024, 4, 8, 12, 30, 45)),
        (3, dt.date(1999, 12, 31), dt.datetime(2024, 4, 8)),
        (4, dt.date(1970, 1, 1), dt.datetime(1970, 1, 1)),
        (5, None, None),  # no 30 February, no month 13: NULL, as Doris's non-strict load
        (6, None, None),
    ]


def test_integer_dates_route_to_date_partitions(spark, namespace, py_catalog):
    table = f"{namespace}.by_day"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (d DATE NOT NULL, k INT NOT NULL) DUPLICATE KEY(d) PARTITION BY RANGE(d) "
        "(PARTITION p202404 VALUES LESS THAN ('2024-05-01')) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.load(spark, table=table, query="SELECT * FROM VALUES (20240408, 1), (20240430, 2) AS t(d, k)")
    assert readers_agree(spark, py_catalog, table) == [(dt.date(2024, 4, 8), 1), (dt.date(2024, 4, 30), 2)]
    assert [(r.partition_name, r.row_count) for r in doris.show_partitions(spark, table=table)] == [("p202404", 2)]


def test_strict_mode_filters_an_integer_that_is_no_date(spark, namespace):
    table = make(spark, f"{namespace}.strict")
    with pytest.raises(LoadError) as raised:
        doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 20240408, NULL), (2, 20241301, NULL) AS t(k, d, t)",
                   strict_mode=True, label="strict_dates")
    path = str(raised.value).rsplit(" ", 1)[-1]
    assert str(raised.value) == (
        f"too many filtered rows: 1 of 2 rows were filtered, more than max_filter_ratio 0.0 (first rejected row: column d: "
        f"cannot convert '20241301' to DATE); nothing was committed to "
        f"{table}. The rejected rows and their reasons are in {path}"
    )
    rejected = [json.loads(r.value) for r in spark.read.text(path).collect()]
    assert [r["reason"] for r in rejected] == ["column d: cannot convert '20241301' to DATE"]
    assert spark.sql(f"SELECT count(*) FROM {table}.snapshots").collect()[0][0] == 0
