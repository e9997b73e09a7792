"""doris.load (general part): sources, mapping, filtering, partitions, labels, auto partitions."""

from __future__ import annotations

import datetime as dt

import pytest
from pyspark.errors import IllegalArgumentException

from iceberg_doris import doris
from iceberg_doris.errors import LoadError
from iceberg_doris.loading import read_error_rows
from tests.support import duckdb_reader

pytestmark = pytest.mark.spark


def sales_table(spark, namespace: str) -> str:
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {namespace}.sales (dt DATE NOT NULL, id INT NOT NULL, city VARCHAR(5), amount BIGINT)
        DUPLICATE KEY(dt, id)
        PARTITION BY RANGE(dt) (PARTITION p1 VALUES LESS THAN ("2024-02-01"), PARTITION p2 VALUES LESS THAN ("2024-03-01"))
        DISTRIBUTED BY HASH(id) BUCKETS AUTO""",
    )
    return f"{namespace}.sales"


def rows(spark, table: str) -> list[tuple]:
    return [tuple(r) for r in spark.sql(f"SELECT * FROM {table} ORDER BY id").collect()]


CSV = "2024-01-05\t1\tbj\t10\n2024-02-05\t2\tshanghai\t20\n2024-05-01\t3\tsh\t30\nnot-a-date\t4\tsh\t40\n2024-02-07\t5\tgz\t50\n"


def test_csv_load_filters_rows_with_reasons_and_respects_max_filter_ratio(spark, namespace, tmp_path, py_catalog):
    table = sales_table(spark, namespace)
    (tmp_path / "in.csv").write_text(CSV)
    with pytest.raises(IllegalArgumentException, match=r"^too many filtered rows: 3 of 5 rows were filtered"):
        spark.sql(f"CALL doris.load(table => '{table}', path => '{tmp_path}/in.csv', strict_mode => true)")
    assert rows(spark, table) == []  # nothing committed
    result = spark.sql(
        f"CALL doris.load(table => '{table}', path => '{tmp_path}/in.csv', strict_mode => true, "
        "max_filter_ratio => 0.8, label => 'first')"
    ).collect()[0]
    assert (result.label, result.status, result.loaded_rows, result.filtered_rows, result.unselected_rows) == ("first", "FINISHED", 2, 3, 0)
    assert rows(spark, table) == [(dt.date(2024, 1, 5), 1, "bj", 10), (dt.date(2024, 2, 7), 5, "gz", 50)]
    reasons = sorted(r["reason"] for r in read_error_rows(result.error_rows_path))
    assert len(reasons) == 3
    assert any("no partition for this tuple" == r for r in reasons)
    assert any("city" in r and "shanghai" in r for r in reasons)
    assert any("dt" in r and "not-a-date" in r for r in reasons)
    snapshot = spark.sql(f"SELECT summary FROM {table}.snapshots WHERE snapshot_id = {result.snapshot_id}").collect()[0]
    assert snapshot.summary["doris.label"] == "first"
    metadata = py_catalog.load_table(table).metadata_location
    assert duckdb_reader.read_rows(metadata, "id", order_by="id") == [(1,), (5,)]


def test_label_is_used_once(spark, namespace):
    table = sales_table(spark, namespace)
    query = "SELECT date'2024-01-01' AS dt, 1 AS id, 'a' AS city, 1L AS amount"
    doris.load(spark, table=table, query=query, label="once")
    with pytest.raises(LoadError, match=rf"^Label \[once\] has already been used on {table}"):
        doris.load(spark, table=table, query=query, label="once")
    assert len(rows(spark, table)) == 1


def test_columns_mapping_where_and_dataframe_source(spark, namespace):
    table = sales_table(spark, namespace)
    frame = spark.createDataFrame([("2024-01-02", 1, 5), ("2024-01-03", 2, 7), ("2024-02-03", 3, 9)], "d string, k int, n int")
    result = doris.load(
        spark, table=table, source=frame, columns="d, k, n, dt = d, id = k, amount = n * 10, city = 'x'", where="amount > 50"
    )[0]
    assert (result.loaded_rows, result.unselected_rows, result.filtered_rows) == (2, 1, 0)
    assert rows(spark, table) == [(dt.date(2024, 1, 3), 2, "x", 70), (dt.date(2024, 2, 3), 3, "x", 90)]


def test_partitions_restriction_filters_other_rows(spark, namespace):
    table = sales_table(spark, namespace)
    spark.sql(f"CREATE TEMPORARY VIEW {namespace}_src AS SELECT * FROM VALUES (date'2024-01-05', 1, 'a', 1L), (date'2024-02-05', 2, 'b', 2L) AS t(dt, id, city, amount)")
    result = spark.sql(
        f"CALL doris.load(table => '{table}', source => '{namespace}_src', partitions => array('p2'), max_filter_ratio => 0.5)"
    ).collect()[0]
    assert (result.loaded_rows, result.filtered_rows) == (1, 1)
    assert [r[1] for r in rows(spark, table)] == [2]


def test_load_argument_rules_use_dorises_messages(spark, namespace):
    table = sales_table(spark, namespace)
    query = "SELECT date'2024-01-01' AS dt, 1 AS id, 'a' AS city, 1L AS amount"
    with pytest.raises(LoadError, match=r"^load by MERGE or DELETE is only supported in unique tables\.$"):
        doris.load(spark, table=table, query=query, merge_type="DELETE")
    with pytest.raises(LoadError, match=r"^There is no sequence column in the table sales$"):
        doris.load(spark, table=table, query=query, sequence_col="amount")
    with pytest.raises(IllegalArgumentException, match=r"^\[INVALID_ARGUMENT\]Invalid merge type other"):
        spark.sql(f"CALL doris.load(table => '{table}', query => \"{query}\", merge_type => 'other')")


def auto_day_table(spark, namespace: str) -> str:
    """An empty table with auto RANGE partitions by day; returns its name."""
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {namespace}.events (ts DATETIME NOT NULL, v INT) DUPLICATE KEY(ts)
        AUTO PARTITION BY RANGE (date_trunc(ts, 'day')) () DISTRIBUTED BY HASH(v) BUCKETS AUTO""",
    )
    return f"{namespace}.events"


def test_auto_range_partitions_are_created_with_dorises_names(spark, namespace, py_catalog):
    table = auto_day_table(spark, namespace)
    spark.sql(
        f"CALL doris.load(table => '{table}', query => \"SELECT * FROM VALUES "
        "(timestamp_ntz'2024-03-05 10:00:00', 1), (timestamp_ntz'2024-03-05 23:59:59', 2), "
        "(timestamp_ntz'2024-03-06 00:00:00', 3) AS t(ts, v)\")"
    )
    shown = {r.partition_name: r.row_count for r in spark.sql(f"CALL doris.show_partitions('{table}')").collect()}
    assert shown == {"p20240305000000": 2, "p20240306000000": 1}
    assert [str(f.transform) for f in py_catalog.load_table(table).spec().fields] == ["day"]


def test_auto_partition_rows_inside_a_hand_made_range_that_does_not_hold_them_are_filtered(spark, namespace):
    """A row whose day starts inside a hand-made partition that ends before the row gets no new
    partition (the day's range would overlap it): it fits no partition and is filtered, while the
    other rows go to their partitions, new ones created in the same commit."""
    table = auto_day_table(spark, namespace)
    spark.sql(
        f"CALL doris.add_partition(table => '{table}', partition => 'early', "
        "values_range => array('2024-03-05 00:00:00', '2024-03-05 06:00:00'))"
    )
    query = (
        "SELECT * FROM VALUES (timestamp_ntz'2024-03-05 01:00:00', 1), (timestamp_ntz'2024-03-05 08:00:00', 2), "
        "(timestamp_ntz'2024-03-07 09:00:00', 3) AS t(ts, v)"
    )
    result = doris.load(spark, table=table, query=query, max_filter_ratio=0.5)[0]
    assert (result.loaded_rows, result.filtered_rows) == (2, 1)
    shown = {r.partition_name: r.row_count for r in spark.sql(f"CALL doris.show_partitions('{table}')").collect()}
    assert shown == {"early": 1, "p20240307000000": 1}
    assert sorted(r.v for r in spark.table(table).collect()) == [1, 3]


def test_auto_list_partitions_named_as_doris_names_them(spark, namespace):
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {namespace}.cities (city VARCHAR(20), v INT) DUPLICATE KEY(city)
        AUTO PARTITION BY LIST (city) () DISTRIBUTED BY HASH(v) BUCKETS AUTO""",
    )
    frame = spark.createDataFrame([("Beijing", 1), (None, 2), ("", 3), ("-9876", 4), ("Beijing", 5)], "city string, v int")
    assert doris.load(spark, table=f"{namespace}.cities", source=frame)[0].loaded_rows == 5
    shown = {r.partition_name: r.row_count for r in spark.sql(f"CALL doris.show_partitions('{namespace}.cities')").collect()}
    assert shown == {"pBeijing7": 2, "pX": 1, "p0": 1, "p_2d98765": 1}


