"""RANGE/LIST partitions, add/drop/show, dynamic partitions, through CALL doris.* on real Spark."""

from __future__ import annotations

import datetime as dt

import pytest
from pyspark.errors import IllegalArgumentException

from iceberg_doris import doris
from tests.support import duckdb_reader

pytestmark = pytest.mark.spark


def create_range_table(spark, namespace: str) -> str:
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {namespace}.sales (
            `dt` DATE NOT NULL, `id` INT NOT NULL, `amount` BIGINT SUM DEFAULT "0")
        AGGREGATE KEY(`dt`, `id`)
        PARTITION BY RANGE(`dt`) (
            PARTITION p202401 VALUES LESS THAN ("2024-02-01"),
            PARTITION p202402 VALUES [("2024-02-01"), ("2024-03-01")),
            PARTITION pmax VALUES LESS THAN MAXVALUE)
        DISTRIBUTED BY HASH(`id`) BUCKETS 2""",
    )
    table = f"{namespace}.sales"
    spark.sql(
        f"INSERT INTO {table} VALUES (date'2024-01-05', 1, 10), (date'2024-01-20', 2, 20), "
        "(date'2024-02-10', 3, 30), (date'2024-07-01', 4, 40)"
    )
    return table


def partitions(spark, table: str, temporary: bool = False) -> dict[str, int]:
    """Rows per partition, after checking the file counts add up to what Iceberg lists."""
    rows = spark.sql(f"CALL doris.show_partitions(table => '{table}', temporary => {str(temporary).lower()})").collect()
    if not temporary:
        files = spark.sql(f"SELECT content, count(*) AS n FROM {table}.files GROUP BY content").collect()
        by_content = {r.content: r.n for r in files}
        assert sum(r.data_files for r in rows) == by_content.get(0, 0)
        assert sum(r.delete_files for r in rows) == by_content.get(1, 0)
    return {r.partition_name: r.row_count for r in rows}


def test_show_partitions_counts_from_metadata(spark, namespace):
    table = create_range_table(spark, namespace)
    assert partitions(spark, table) == {"p202401": 2, "p202402": 1, "pmax": 1}
    spark.sql(f"DELETE FROM {table} WHERE id = 1")
    assert partitions(spark, table) == {"p202401": 1, "p202402": 1, "pmax": 1}
    assert spark.sql(f"CALL doris.show_partitions('{table}')").collect()[0].delete_files == 1
    rows = spark.sql(f"CALL doris.show_partitions('{table}')").collect()
    first = rows[0]
    assert first.range == "[types: [DATEV2]; keys: [0000-01-01]; ..types: [DATEV2]; keys: [2024-02-01]; )"
    assert first.partition_key == "dt" and first.is_temp is False and first.branch is None
    assert rows[-1].range.endswith("keys: [MAXVALUE]; )")


def test_drop_partition_is_one_metadata_only_commit_with_time_travel(spark, namespace, py_catalog):
    table = create_range_table(spark, namespace)
    before = spark.sql(f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at DESC LIMIT 1").collect()[0][0]
    row = spark.sql(f"CALL doris.drop_partition(table => '{table}', partition => 'p202401')").collect()[0]
    assert (row.partition_name, row.dropped, row.deleted_rows) == ("p202401", True, 2)
    snapshot = spark.sql(f"SELECT operation, summary FROM {table}.snapshots WHERE snapshot_id = {row.snapshot_id}").collect()[0]
    assert snapshot.operation == "delete"
    february_2024 = (2024 - 1970) * 12 + 1  # Iceberg's month ordinal
    files_before = spark.sql(
        f"SELECT count(*) FROM {table}.files VERSION AS OF {before} WHERE partition.dt_month < {february_2024}"
    ).collect()
    assert snapshot.summary["deleted-data-files"] == str(files_before[0][0])
    assert "added-data-files" not in snapshot.summary and "added-delete-files" not in snapshot.summary
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {table}").collect()) == [3, 4]
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {table} VERSION AS OF {before}").collect()) == [1, 2, 3, 4]
    assert set(partitions(spark, table)) == {"p202402", "pmax"}
    metadata = py_catalog.load_table(table).metadata_location
    assert duckdb_reader.read_rows(metadata, "id", order_by="id") == [(3,), (4,)]
    assert sorted(r["id"] for r in py_catalog.load_table(table).scan().to_arrow().to_pylist()) == [3, 4]


def test_drop_unknown_partition(spark, namespace):
    table = create_range_table(spark, namespace)
    with pytest.raises(IllegalArgumentException, match="^Error in list of partitions to p9: the table has no partition p9"):
        spark.sql(f"CALL doris.drop_partition(table => '{table}', partition => 'p9')")
    row = spark.sql(f"CALL doris.drop_partition(table => '{table}', partition => 'p9', if_exists => true)").collect()[0]
    assert row.dropped is False


def test_add_partition_refuses_overlap_naming_the_partition(spark, namespace):
    table = create_range_table(spark, namespace)
    spark.sql(f"CALL doris.drop_partition(table => '{table}', partition => 'pmax')")
    with pytest.raises(IllegalArgumentException) as error:
        spark.sql(f"CALL doris.add_partition(table => '{table}', partition => 'px', values_range => array('2024-02-15', '2024-04-01'))")
    assert str(error.value) == (
        "Range [types: [DATEV2]; keys: [2024-02-15]; ..types: [DATEV2]; keys: [2024-04-01]; ) is intersected with range: "
        "[types: [DATEV2]; keys: [2024-02-01]; ..types: [DATEV2]; keys: [2024-03-01]; ) (conflicting partition: p202402)"
    )
    with pytest.raises(IllegalArgumentException, match="Duplicate partition name p202402"):
        spark.sql(f"CALL doris.add_partition(table => '{table}', partition => 'p202402', values_less_than => '2024-09-01')")


def test_add_less_than_partition_takes_previous_upper_bound(spark, namespace):
    table = create_range_table(spark, namespace)
    spark.sql(f"CALL doris.drop_partition(table => '{table}', partition => 'pmax')")
    row = spark.sql(f"CALL doris.add_partition(table => '{table}', partition => 'p202403', values_less_than => '2024-04-01')").collect()[0]
    assert row.range == "[types: [DATEV2]; keys: [2024-03-01]; ..types: [DATEV2]; keys: [2024-04-01]; )"
    assert row.partition_spec == "month(dt), bucket(2, id)"


def test_unaligned_partition_evolves_the_spec_and_drops_stay_metadata_only(spark, namespace):
    table = create_range_table(spark, namespace)
    spark.sql(f"CALL doris.drop_partition(table => '{table}', partition => 'pmax')")
    row = spark.sql(
        f"CALL doris.add_partition(table => '{table}', partition => 'p0315', values_range => array('2024-03-15', '2024-03-16'))"
    ).collect()[0]
    assert row.partition_spec == "bucket(2, id), day(dt)"  # Iceberg keeps the kept field first
    spark.sql(f"INSERT INTO {table} VALUES (date'2024-03-15', 9, 90)")
    assert partitions(spark, table)["p0315"] == 1
    spark.sql(f"CALL doris.drop_partition(table => '{table}', partition => 'p202402')")
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {table}").collect()) == [1, 2, 9]


def test_list_partitions_multi_column_and_null(spark, namespace):
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {namespace}.visits (id INT NOT NULL, city VARCHAR(20), kind INT NOT NULL)
        DUPLICATE KEY(id) PARTITION BY LIST(city, kind) (
            PARTITION p_bj VALUES IN (("Beijing", "1"), ("Beijing", "2")),
            PARTITION p_null VALUES IN ((NULL, "1")))
        DISTRIBUTED BY HASH(id) BUCKETS AUTO""",
    )
    table = f"{namespace}.visits"
    spark.sql(f"INSERT INTO {table} VALUES (1, 'Beijing', 1), (2, 'Beijing', 2), (3, NULL, 1)")
    assert partitions(spark, table) == {"p_bj": 2, "p_null": 1}
    with pytest.raises(IllegalArgumentException, match=r'^The partition key\[\("Beijing", "2"\)\] in partition item.*\(conflicting partition: p_bj\)$'):
        spark.sql(f"CALL doris.add_partition(table => '{table}', partition => 'p2', values_in => array(array('Beijing', '2')))")
    spark.sql(f"CALL doris.drop_partition(table => '{table}', partition => 'p_null')")
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {table}").collect()) == [1, 2]


def test_unpartitioned_table_has_one_partition_and_refuses_add(spark, namespace):
    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.flat (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    spark.sql(f"INSERT INTO {namespace}.flat VALUES (1, 1), (2, 2)")
    rows = spark.sql(f"CALL doris.show_partitions('{namespace}.flat')").collect()
    assert [(r.partition_name, r.row_count) for r in rows] == [("flat", 2)]
    with pytest.raises(IllegalArgumentException, match="^Only support adding partition to range and list partitioned table"):
        spark.sql(f"CALL doris.add_partition(table => '{namespace}.flat', partition => 'p', values_less_than => '5')")


def _day(offset: int) -> str:
    return (dt.datetime.now(dt.timezone.utc).date() + dt.timedelta(days=offset)).strftime("%Y%m%d")


def test_dynamic_partitions_created_at_creation_and_by_a_pass(spark, namespace):
    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {namespace}.events (d DATE NOT NULL, id INT NOT NULL) DUPLICATE KEY(d)
        PARTITION BY RANGE(d) () DISTRIBUTED BY HASH(id) BUCKETS AUTO
        PROPERTIES ("dynamic_partition.enable" = "true", "dynamic_partition.time_unit" = "DAY",
                    "dynamic_partition.start" = "-3", "dynamic_partition.end" = "3",
                    "dynamic_partition.prefix" = "p", "dynamic_partition.create_history_partition" = "true")""",
    )
    table = f"{namespace}.events"
    assert sorted(partitions(spark, table)) == [f"p{_day(i)}" for i in range(-3, 4)]
    with pytest.raises(IllegalArgumentException, match="^Cannot add/drop partition on a Dynamic Partition Table"):
        spark.sql(f"CALL doris.drop_partition(table => '{table}', partition => 'p{_day(0)}')")
    assert spark.sql(f"CALL doris.run_dynamic_partition('{table}')").collect() == []
    spark.sql(f"CALL doris.set_properties('{table}', map('dynamic_partition.start', '-1'))")
    assert len(partitions(spark, table)) == 7  # a property change never drops partitions by itself
    actions = spark.sql(f"CALL doris.run_dynamic_partition(table => '{table}')").collect()
    assert sorted((r.action, r.partition_name) for r in actions) == [("DROP", f"p{_day(-3)}"), ("DROP", f"p{_day(-2)}")]
    assert sorted(partitions(spark, table)) == [f"p{_day(i)}" for i in range(-1, 4)]


def test_dynamic_property_validation_uses_dorises_messages(spark, namespace):
    table = create_range_table(spark, namespace)
    with pytest.raises(IllegalArgumentException, match="^Unsupported time unit MINUTE. Expect HOUR/DAY/WEEK/MONTH/YEAR."):
        spark.sql(
            f"CALL doris.set_properties('{table}', map('dynamic_partition.enable', 'true', 'dynamic_partition.time_unit', "
            "'MINUTE', 'dynamic_partition.end', '3', 'dynamic_partition.prefix', 'p'))"
        )
