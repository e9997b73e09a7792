"""Counting rows per group in one Spark job (the load's counting pass) gives what Spark's own
``groupBy`` gives, for the column types a load groups and ranges by."""

from __future__ import annotations

import pytest

from iceberg_doris.engine.group_counts import count_groups

pytestmark = pytest.mark.spark

ROWS_SQL = """
SELECT
  CASE WHEN id % 7 = 0 THEN 'error' WHEN id % 11 = 0 THEN 'unselected' ELSE 'ok' END AS status,
  CASE WHEN id % 3 = 0 THEN NULL ELSE concat('p', CAST(id % 3 AS STRING)) END AS `part.name`,
  CASE WHEN id % 5 = 0 THEN NULL ELSE named_struct('day', date_add(DATE'2024-01-01', CAST(id % 2 AS INT))) END AS auto_key,
  CASE WHEN id % 13 = 0 THEN NULL ELSE concat('k', lpad(CAST((id * 7919) % 1000 AS STRING), 4, '0')) END AS key,
  CAST(id * 1000003 % 999983 AS DECIMAL(20, 2)) AS amount,
  date_add(DATE'2020-01-01', CAST(id * 37 % 400 AS INT)) AS day,
  CASE WHEN id % 17 = 0 THEN NULL ELSE id % 97 = 0 END AS deletes
FROM range(0, 5000, 1, 3)
"""


def spark_groups(frame, groups, range_column, flag_column):
    from pyspark.sql import functions as F

    aggregates = [F.count(F.lit(1)).alias("count")]
    if range_column:
        aggregates += [
            F.min(F.col(f"`{range_column}`")).alias("low"),
            F.max(F.col(f"`{range_column}`")).alias("high"),
            F.coalesce(F.max(F.col(flag_column).cast("int")), F.lit(0)).cast("boolean").alias("flag"),
        ]
    return [row.asDict() for row in frame.groupBy(*[F.col(f"`{g}`") for g in groups]).agg(*aggregates).collect()]


def ordered(groups: list[dict]) -> list[tuple]:
    return sorted((tuple(repr(v) for v in g.values()) for g in groups))


@pytest.mark.parametrize("range_column", [None, "key", "amount", "day"])
def test_groups_match_spark_group_by(spark, range_column):
    frame = spark.sql(ROWS_SQL).cache()
    try:
        groups = ["status", "part.name", "auto_key"]
        flag = "deletes" if range_column else None
        ours = count_groups(frame, groups, range_column, flag)
        assert ordered(ours) == ordered(spark_groups(frame, groups, range_column, flag))
        assert sum(g["count"] for g in ours) == 5000
        assert len(ours) == 3 * 3 * 3  # every status x partition (NULL too) x auto key (NULL too)
    finally:
        frame.unpersist()


def test_a_group_whose_range_column_is_all_null_has_no_range(spark):
    frame = spark.sql("SELECT 'ok' AS status, CAST(NULL AS BIGINT) AS k, false AS d FROM range(3)")
    assert count_groups(frame, ["status"], "k", "d") == [{"status": "ok", "count": 3, "low": None, "high": None, "flag": False}]


def test_no_rows_means_no_groups(spark):
    frame = spark.sql("SELECT 'ok' AS status, id AS k, true AS d FROM range(10)").filter("k < 0")
    assert count_groups(frame, ["status"], "k", "d") == []
    assert count_groups(frame, ["status"]) == []
