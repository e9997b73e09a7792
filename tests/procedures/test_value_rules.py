"""Doris's value rules where Spark would wrap or fail (issue 52): integer arithmetic in a load's
source never stores a wrapped key or value, a NULL for a NOT NULL column through Spark's INSERT is
a filtered row with Doris's message (strict mode off loads the other rows), and a streaming view
gets the precise message."""

from __future__ import annotations

import pytest
from pyspark.errors import IllegalArgumentException

from iceberg_doris import doris
from iceberg_doris.errors import QueryValueError
from tests.concurrency import snapshot_count, unique_table

pytestmark = pytest.mark.spark

OVERFLOW = "integer arithmetic in the load's source overflowed"


def test_insert_of_an_overflowing_sum_stores_no_wrapped_key(spark_statements, namespace):
    spark = spark_statements
    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.u (k BIGINT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    table = f"{namespace}.u"
    before = snapshot_count(spark, table)
    with pytest.raises(IllegalArgumentException, match=OVERFLOW):
        spark.sql(f"INSERT INTO {table} SELECT 9223372036854775807L + id, 'x' FROM range(1, 2)")
    assert snapshot_count(spark, table) == before
    assert spark.sql(f"SELECT count(*) FROM {table}").collect()[0][0] == 0


def test_a_load_query_with_an_overflowing_product_names_the_fix(spark, namespace):
    table = unique_table(spark, namespace)
    with pytest.raises(QueryValueError, match=OVERFLOW) as raised:
        doris.load(spark, table=table, query="SELECT 1 AS k, 'v' AS v, 2147483647 * 2 AS s")
    assert "DECIMAL(38, 0)" in str(raised.value)
    assert spark.sql(f"SELECT count(*) FROM {table}").collect()[0][0] == 0


def test_a_columns_mapping_with_an_overflowing_product_fails(spark, namespace):
    table = unique_table(spark, namespace)
    with pytest.raises(QueryValueError, match=OVERFLOW):
        doris.load(spark, table=table, query="SELECT 1 AS k, 'v' AS v, 2 AS x", columns="k, v, x, s = x * 2147483647")
    doris.load(spark, table=table, query="SELECT 1 AS k, 'v' AS v, 2 AS x", columns="k, v, x, s = x * 1000")
    assert [tuple(r) for r in spark.sql(f"SELECT * FROM {table}").collect()] == [(1, "v", 2000)]


def test_arithmetic_in_range_still_loads(spark_statements, namespace):
    spark = spark_statements
    table = unique_table(spark, namespace)
    spark.sql(f"INSERT INTO {table} SELECT CAST(id AS INT) + 1, 'x', CAST(id * 2 AS INT) - 1 FROM range(0, 3)")
    assert [tuple(r) for r in spark.sql(f"SELECT * FROM {table} ORDER BY k").collect()] == [(1, "x", -1), (2, "x", 1), (3, "x", 3)]


def test_insert_of_a_null_key_is_a_filtered_row_in_doris_words(spark_statements, namespace):
    spark = spark_statements
    table = unique_table(spark, namespace)
    before = snapshot_count(spark, table)
    with pytest.raises(IllegalArgumentException, match="^Insert has filtered data in strict mode"):
        spark.sql(f"INSERT INTO {table} VALUES (NULL, 'a', 1), (2, 'b', 2)")
    assert snapshot_count(spark, table) == before


def test_with_strict_mode_off_the_other_rows_load(spark_statements, namespace):
    spark = spark_statements
    table = unique_table(spark, namespace)
    spark.conf.set("spark.doris.enable_insert_strict", "false")
    try:
        result = spark.sql(f"INSERT INTO {table} VALUES (NULL, 'a', 1), (2, 'b', 2)").collect()[0]
    finally:
        spark.conf.unset("spark.doris.enable_insert_strict")
    assert (result.loaded_rows, result.filtered_rows) == (1, 1)
    assert [tuple(r) for r in spark.sql(f"SELECT * FROM {table}").collect()] == [(2, "b", 2)]


def test_insert_from_a_streaming_view_gets_the_precise_message(spark_statements, namespace):
    spark = spark_statements
    table = unique_table(spark, namespace)
    spark.readStream.format("rate").load().selectExpr("CAST(value AS INT) AS k", "'r' AS v", "1 AS s") \
        .createOrReplaceTempView("rate_rows")
    with pytest.raises(IllegalArgumentException, match="streaming") as raised:
        spark.sql(f"INSERT INTO {table} SELECT * FROM rate_rows")
    assert "report it" not in str(raised.value)
    assert "foreachBatch" in str(raised.value)


def test_a_json_object_where_the_column_holds_a_number_is_a_filtered_row(spark, namespace, tmp_path):
    table = unique_table(spark, namespace)
    source = tmp_path / "nested.json"
    source.write_text('{"k": 1, "v": "a", "s": {"x": 1}}\n{"k": 2, "v": "b", "s": [5]}\n')
    strict = doris.load(spark, table=table, path=str(source), strict_mode=True, max_filter_ratio=1.0)[0]
    assert (strict.loaded_rows, strict.filtered_rows) == (0, 2)
    loose = doris.load(spark, table=table, path=str(source))[0]  # strict mode off: the value is NULL
    assert (loose.loaded_rows, loose.filtered_rows) == (2, 0)
    assert [tuple(r) for r in spark.sql(f"SELECT * FROM {table} ORDER BY k").collect()] == [(1, "a", None), (2, "b", None)]
