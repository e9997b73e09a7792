"""Doris DDL on real Spark and Iceberg: nothing accepted and ignored (docs/doris-features.md).

Each statement is Doris's own where it has one (paths under apache/doris's regression-test/suites).
"""

from __future__ import annotations

import pytest
from pyspark.errors import IllegalArgumentException

from iceberg_doris import doris
from iceberg_doris.errors import InvalidTableDefinitionError, PartitionError

pytestmark = pytest.mark.spark


def _tables(spark, namespace: str) -> list[str]:
    return [r.tableName for r in spark.sql(f"SHOW TABLES IN {namespace}").collect()]


def test_a_refused_auto_increment_column_creates_nothing(spark, namespace):
    # data_model_p0/duplicate/storage/test_dup_tab_auto_inc_col.groovy: a nullable auto-increment column
    auto_inc = (
        f"CREATE TABLE {namespace}.auto_inc (`id` int(11) AUTO_INCREMENT, `value` int(11) NOT NULL) ENGINE=OLAP "
        "DUPLICATE KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 1 "
        'PROPERTIES ("replication_allocation" = "tag.location.default: 1")'
    )
    with pytest.raises(IllegalArgumentException) as raised:
        spark.sql(f"CALL doris.create_table('{auto_inc}')").collect()
    assert "the auto increment column should be NOT NULL." in str(raised.value)
    assert _tables(spark, namespace) == []


def test_partition_retention_count_off_auto_range_and_unknown_properties_are_refused(spark, namespace):
    # partition_p0/auto_partition/test_auto_new_recycle.groovy
    with pytest.raises(InvalidTableDefinitionError, match="^Only AUTO RANGE PARTITION table could set partition.retention_count$"):
        doris.create_table(spark, ddl=(
            f"CREATE TABLE {namespace}.recycle (k0 datetime(6) NOT NULL) "
            "AUTO PARTITION BY LIST (k0) () DISTRIBUTED BY HASH(k0) BUCKETS 1 "
            'PROPERTIES ("replication_num" = "1", "partition.retention_count" = "3")'
        ))
    table = f"{namespace}.flat"
    doris.create_table(spark, ddl=f'CREATE TABLE {table} (k INT) PROPERTIES ("replication_num" = "1")')
    with pytest.raises(InvalidTableDefinitionError, match="^Only AUTO RANGE PARTITION table could set partition.retention_count$"):
        doris.set_properties(spark, table=table, properties={"partition.retention_count": "3"})
    with pytest.raises(InvalidTableDefinitionError, match=r"^Unknown properties: \{no_such_thing=1\}"):
        doris.set_properties(spark, table=table, properties={"no_such_thing": "1"})
    assert doris.set_properties(spark, table=table, properties={"storage_medium": "SSD"})[0].new_value == "SSD"
    assert _tables(spark, namespace) == ["flat"]


def test_table_comment_is_the_iceberg_comment(spark, namespace):
    table = f"{namespace}.commented"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT) DUPLICATE KEY(k) COMMENT 'OLAP' DISTRIBUTED BY HASH(k) BUCKETS 1")
    described = {r.col_name: r.data_type for r in spark.sql(f"DESCRIBE TABLE EXTENDED {table}").collect()}
    assert described["Comment"] == "OLAP"


@pytest.mark.parametrize("earlier", [None, "pxxx3_662a62b"], ids=["new-table", "named-by-the-earlier-rule"])
def test_xxx_after_xxx_in_capitals_gets_its_own_partition(spark, namespace, earlier):
    # partition_p0/auto_partition/test_auto_partition_name.groovy (test_list_name1): pXXX3 and pxxx3.
    # A table from before auto LIST partitions were named as Doris names them holds 'xxx' in
    # pxxx3_662a62b: rows are routed by value, never by a recomputed name, so they still land there.
    table = f"{namespace}.names"
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {table} (`str` varchar(20)) DUPLICATE KEY(`str`) AUTO PARTITION BY LIST (`str`) () "
        "DISTRIBUTED BY HASH(`str`) BUCKETS 1"
    ))
    doris.load(spark, table=table, query="SELECT 'XXX' AS str")
    if earlier is not None:
        doris.add_partition(spark, table=table, partition=earlier, values_in=["xxx"])
    doris.load(spark, table=table, query="SELECT * FROM VALUES ('xxx'), ('xxx') AS t(str)")
    lower = earlier or "pxxx3"
    shown = {r.partition_name: r.row_count for r in doris.show_partitions(spark, table=table)}
    assert shown == {"pXXX3": 1, lower: 2}
    doris.truncate(spark, table=table, partitions=[lower])  # the exact name, not pXXX3
    assert [r.str for r in spark.sql(f"SELECT str FROM {table}").collect()] == ["XXX"]


def test_dynamic_partition_properties_on_a_list_table_get_doris_message(spark, namespace):
    # fe/fe-core/src/test/java/org/apache/doris/catalog/CreateTableTest.java ("tbl19")
    with pytest.raises(InvalidTableDefinitionError) as raised:
        doris.create_table(spark, ddl=(
            f"CREATE TABLE {namespace}.tbl19 (k1 DATE NOT NULL) PARTITION BY LIST(k1) () DISTRIBUTED BY HASH(k1) "
            'PROPERTIES ("dynamic_partition.enable" = "true", "dynamic_partition.time_unit" = "MONTH", '
            '"dynamic_partition.end" = "2", "dynamic_partition.prefix" = "p", "dynamic_partition.buckets" = "2")'
        ))
    assert str(raised.value) == "Only support dynamic partition properties on range partition table"
    assert _tables(spark, namespace) == []


@pytest.mark.parametrize("partition", ["PARTITION BY LIST(k1) () ", ""], ids=["list", "unpartitioned"])
def test_dynamic_partition_properties_set_on_a_table_without_range_partitions_get_doris_alter_message(
    spark, namespace, partition
):
    # fe/fe-core/src/test/java/org/apache/doris/alter/AlterTest.java (testSetDynamicPropertiesInNormalTable):
    # Doris's ALTER TABLE ... SET wraps its input check (DynamicPartitionUtil.checkInputDynamicPartitionProperties,
    # "Dynamic partition only support single-column range partition") into this message
    # (fe/fe-core/src/main/java/org/apache/doris/alter/Alter.java).
    table = f"{namespace}.normal"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k1 DATE NOT NULL) {partition}DISTRIBUTED BY HASH(k1) BUCKETS 1")
    with pytest.raises(PartitionError) as raised:
        doris.set_properties(spark, table=table, properties={
            "dynamic_partition.enable": "true", "dynamic_partition.time_unit": "DAY", "dynamic_partition.start": "-3",
            "dynamic_partition.end": "3", "dynamic_partition.prefix": "p", "dynamic_partition.buckets": "3",
        })
    assert str(raised.value) == (
        f"Table {namespace}.normal is not a dynamic partition table. Use command `HELP ALTER TABLE` to see how to "
        "change a normal table to a dynamic partition table."
    )
    shown = {r[0] for r in spark.sql(f"SHOW TBLPROPERTIES {table}").collect()}
    assert not any("dynamic_partition" in key for key in shown)  # nothing stored
