"""CREATE TABLE statements as Doris's documentation writes them create the right Iceberg tables."""

from __future__ import annotations

import pytest

from iceberg_doris import doris

pytestmark = pytest.mark.spark

DOCUMENTED = {
    "duplicate": (
        """CREATE TABLE IF NOT EXISTS {db}.example_tbl_duplicate
        (
            `timestamp` DATETIME NOT NULL COMMENT "日志时间",
            `type` INT NOT NULL COMMENT "日志类型",
            `error_code` INT COMMENT "错误码",
            `error_msg` VARCHAR(1024) COMMENT "错误详细信息",
            `op_id` BIGINT COMMENT "负责人id",
            `op_time` DATETIME COMMENT "处理时间"
        )
        DUPLICATE KEY(`timestamp`, `type`, `error_code`)
        DISTRIBUTED BY HASH(`type`) BUCKETS 1
        PROPERTIES ("replication_allocation" = "tag.location.default: 1");""",
        "DUPLICATE", [], "bucket(1, type)", 0,
    ),
    "unique_mow": (
        """CREATE TABLE IF NOT EXISTS {db}.example_tbl_unique_merge_on_write
        (
            `user_id` LARGEINT NOT NULL COMMENT "用户id",
            `username` VARCHAR(50) NOT NULL COMMENT "用户昵称",
            `city` VARCHAR(20) COMMENT "用户所在城市",
            `age` SMALLINT COMMENT "用户年龄",
            `sex` TINYINT COMMENT "用户性别",
            `phone` LARGEINT COMMENT "用户电话",
            `address` VARCHAR(500) COMMENT "用户地址",
            `register_time` DATETIME COMMENT "用户注册时间"
        )
        UNIQUE KEY(`user_id`, `username`)
        DISTRIBUTED BY HASH(`user_id`) BUCKETS 10
        PROPERTIES (
            "replication_allocation" = "tag.location.default: 1",
            "enable_unique_key_merge_on_write" = "true"
        );""",
        "UNIQUE", ["user_id", "username"], "bucket(10, user_id)", 0,
    ),
    "list": (
        """CREATE TABLE IF NOT EXISTS {db}.example_list_tbl
        (
            `user_id` LARGEINT NOT NULL COMMENT "用户id",
            `date` DATE NOT NULL COMMENT "数据灌入日期时间",
            `timestamp` DATETIME NOT NULL COMMENT "数据灌入的时间戳",
            `city` VARCHAR(20) NOT NULL COMMENT "用户所在城市",
            `age` SMALLINT NOT NULL COMMENT "用户年龄",
            `sex` TINYINT NOT NULL COMMENT "用户性别",
            `last_visit_date` DATETIME REPLACE DEFAULT "1970-01-01 00:00:00" COMMENT "用户最后一次访问时间",
            `cost` BIGINT SUM DEFAULT "0" COMMENT "用户总消费",
            `max_dwell_time` INT MAX DEFAULT "0" COMMENT "用户最大停留时间",
            `min_dwell_time` INT MIN DEFAULT "99999" COMMENT "用户最小停留时间"
        )
        ENGINE=olap
        AGGREGATE KEY(`user_id`, `date`, `timestamp`, `city`, `age`, `sex`)
        PARTITION BY LIST(`city`)
        (
            PARTITION `p_cn` VALUES IN ("Beijing", "Shanghai", "Hong Kong"),
            PARTITION `p_usa` VALUES IN ("New York", "San Francisco"),
            PARTITION `p_jp` VALUES IN ("Tokyo")
        )
        DISTRIBUTED BY HASH(`user_id`) BUCKETS 16
        PROPERTIES ("replication_num" = "1");""",
        "AGGREGATE", ["user_id", "date", "timestamp", "city", "age", "sex"], "city, bucket(16, user_id)", 3,
    ),
    "auto_range": (
        """CREATE TABLE {db}.date_table (
            `TIME_STAMP` datev2 NOT NULL COMMENT '采集日期'
        ) ENGINE=OLAP
        DUPLICATE KEY(`TIME_STAMP`)
        AUTO PARTITION BY RANGE (date_trunc(`TIME_STAMP`, 'month'))
        ()
        DISTRIBUTED BY HASH(`TIME_STAMP`) BUCKETS 10
        PROPERTIES ("replication_allocation" = "tag.location.default: 1");""",
        "DUPLICATE", [], "month(TIME_STAMP), bucket(10, TIME_STAMP)", 0,
    ),
    "auto_list": (
        """CREATE TABLE {db}.str_table (
            `str` varchar not null
        ) ENGINE=OLAP
        DUPLICATE KEY(`str`)
        AUTO PARTITION BY LIST (`str`)
        ()
        DISTRIBUTED BY HASH(`str`) BUCKETS 10
        PROPERTIES ("replication_allocation" = "tag.location.default: 1");""",
        "DUPLICATE", [], "str, bucket(10, str)", 0,
    ),
    "sequence_type": (
        """CREATE TABLE {db}.test_table
        (
            user_id bigint,
            date date,
            group_id bigint,
            modify_date date,
            keyword VARCHAR(128)
        )
        UNIQUE KEY(user_id, date, group_id)
        DISTRIBUTED BY HASH (user_id) BUCKETS 32
        PROPERTIES(
            "function_column.sequence_type" = 'Date',
            "replication_num" = "1"
        );""",
        "UNIQUE", ["user_id", "date", "group_id"], "bucket(32, user_id)", 0,
    ),
    "batch_range": (
        """CREATE TABLE {db}.batch_tbl (
            `date` DATE NOT NULL,
            `k2` INT
        )
        DUPLICATE KEY(`date`)
        PARTITION BY RANGE(`date`)
        (
            FROM ("2000-11-14") TO ("2021-11-14") INTERVAL 2 YEAR
        )
        DISTRIBUTED BY HASH(`k2`) BUCKETS AUTO;""",
        "DUPLICATE", [], "day(date)", 11,
    ),
}


@pytest.mark.parametrize("case", sorted(DOCUMENTED))
def test_documented_create_table(spark, namespace, py_catalog, case):
    ddl, model, keys, spec, partition_count = DOCUMENTED[case]
    row = spark.sql("CALL doris.create_table(ddl => '" + ddl.format(db=namespace).replace("'", "\\'") + "')").collect()[0]
    assert (row.status, row.keys_model, row.partition_spec, row.partitions) == ("CREATED", model, spec, partition_count)
    table = py_catalog.load_table(row.table)
    assert [table.schema().find_field(i).name for i in sorted(table.schema().identifier_field_ids)] == keys
    shown = spark.sql(f"CALL doris.show_partitions('{row.table}')").collect()
    assert len(shown) == (partition_count or (0 if "auto" in case else 1))
    assert doris.describe(spark, table=row.table)[1].value == model
