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


@pytest.mark.parametrize("sequence", [False, True])
def test_keys_collected_while_counting_are_the_kept_rows_keys(spark, namespace, sequence):
    """The counting pass's keys (a keyed load the index decides) are what a job of their own
    collects from the kept rows: NULL keys and rows of other statuses left out."""
    from iceberg_doris import doris
    from iceberg_doris.engine.group_counts import count_groups_collecting_keys
    from iceberg_doris.engine.iceberg_java import IcebergJava
    from iceberg_doris.engine.key_index import collect_batch_keys
    from pyspark.sql import functions as F

    properties = ' PROPERTIES ("function_column.sequence_col" = "s")' if sequence else ""
    doris.create_table(
        spark, ddl=f"CREATE TABLE {namespace}.keyed (key VARCHAR(10) NOT NULL, s BIGINT, v INT) UNIQUE KEY(key) "
        f"DISTRIBUTED BY HASH(key) BUCKETS 1{properties}",
    )
    iceberg = IcebergJava(spark)
    table = iceberg.load_table(iceberg.name(f"{namespace}.keyed"))
    frame = spark.sql(ROWS_SQL).withColumn("seq", F.col("amount").cast("bigint")).cache()
    try:
        key_columns = [F.col("key"), F.coalesce(F.col("deletes"), F.lit(False))] + ([F.col("seq")] if sequence else [])
        groups, keys = count_groups_collecting_keys(
            table, frame, ["status", "part.name"], "key", "deletes", kept=("status", "ok"), key_columns=key_columns,
            key_names=["key"], sequence_column="s" if sequence else None,
        )
        assert ordered(groups) == ordered(spark_groups(frame, ["status", "part.name"], "key", "deletes"))
        alone = collect_batch_keys(iceberg, table, frame.filter("status = 'ok'").select(*key_columns), ["key"], "s" if sequence else None)
        ok_keys = frame.filter("status = 'ok' AND key IS NOT NULL")
        assert keys.count == alone.count == ok_keys.count() > 0
        assert keys.has_duplicates and alone.has_duplicates  # 1000 key values among ~3000 rows
        assert keys.first_column_range() == alone.first_column_range()
        assert keys.first_column_values() == alone.first_column_values() == sorted(r[0] for r in ok_keys.select("key").collect())
    finally:
        frame.unpersist()
