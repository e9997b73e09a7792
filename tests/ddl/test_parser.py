"""Tests of the Doris CREATE TABLE parser.

The statements are modelled on the CREATE TABLE examples of Doris's documentation
(apache/doris-website: sql-manual CREATE-TABLE, table-design data-model and data-partitioning,
data-operate update) and on the error cases of Doris's regression tests.
"""

from __future__ import annotations

import re

import pytest

from iceberg_doris.ddl import (
    MAXVALUE,
    ColumnDef,
    DistributionDesc,
    DorisType,
    KeysModel,
    PartitionDesc,
    PartitionItemDef,
    PartitionValue,
    StepPartitionDef,
    TableDefinition,
    parse_create_table,
)
from iceberg_doris.ddl.parser import parse_statement
from iceberg_doris.errors import DdlSyntaxError, InvalidTableDefinitionError


def invalid(sql: str, message: str) -> InvalidTableDefinitionError:
    with pytest.raises(InvalidTableDefinitionError) as info:
        parse_create_table(sql)
    assert message in str(info.value), str(info.value)
    return info.value


def syntax_error(sql: str) -> DdlSyntaxError:
    with pytest.raises(DdlSyntaxError) as info:
        parse_create_table(sql)
    return info.value


# ==========================================================================================
# data models
# ==========================================================================================
def test_duplicate_model_with_explicit_keys():
    t = parse_create_table(
        """
        CREATE TABLE IF NOT EXISTS example_tbl_duplicate
        (
            `timestamp` DATETIME NOT NULL COMMENT "log time",
            `type` INT NOT NULL COMMENT "log type",
            `error_code` INT COMMENT "error code",
            `error_msg` VARCHAR(1024) COMMENT "error detail message",
            `op_id` BIGINT COMMENT "operator id",
            `op_time` DATETIME COMMENT "operate time"
        )
        DUPLICATE KEY(`timestamp`, `type`, `error_code`)
        DISTRIBUTED BY HASH(`type`) BUCKETS 1
        PROPERTIES (
        "replication_allocation" = "tag.location.default: 1"
        );
        """
    )
    assert t.database is None
    assert t.table == "example_tbl_duplicate"
    assert t.if_not_exists is True
    assert t.external is False
    assert t.engine is None
    assert t.keys_model is KeysModel.DUPLICATE
    assert t.key_columns == ("timestamp", "type", "error_code")
    assert t.keys_defaulted is False
    assert t.column_names == ("timestamp", "type", "error_code", "error_msg", "op_id", "op_time")
    assert t.columns[0] == ColumnDef(
        name="timestamp",
        type=DorisType("DATETIME"),
        nullable=False,
        comment="log time",
        nullable_explicit=True,
    )
    assert t.columns[2].nullable is True
    assert t.columns[3].type == DorisType("VARCHAR", (1024,))
    assert t.columns[4].type == DorisType("BIGINT")
    assert all(c.aggregation is None and c.default is None for c in t.columns)
    assert t.partition is None
    assert t.distribution == DistributionDesc("HASH", ("type",), 1)
    assert t.properties == {"replication_allocation": "tag.location.default: 1"}
    assert t.value_columns == ("error_msg", "op_id", "op_time")
    assert t.merge_on_write is False


def test_no_key_clause_defaults_to_duplicate_with_doris_default_keys():
    # website table-design/data-model/duplicate: "the system automatically selected the first 3 columns"
    t = parse_create_table(
        """
        CREATE TABLE IF NOT EXISTS example_tbl_by_default
        (
            `timestamp` DATETIME NOT NULL COMMENT "log time",
            `type` INT NOT NULL COMMENT "log type",
            `error_code` INT COMMENT "error code",
            `error_msg` VARCHAR(1024) COMMENT "error detail message",
            `op_id` BIGINT COMMENT "operator id",
            `op_time` DATETIME COMMENT "operate time"
        )
        DISTRIBUTED BY HASH(`type`) BUCKETS 1
        PROPERTIES ("replication_allocation" = "tag.location.default: 1");
        """
    )
    assert t.keys_model is KeysModel.DUPLICATE
    assert t.key_columns == ("timestamp", "type", "error_code")
    assert t.keys_defaulted is True


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        # a VARCHAR ends the default keys (it is included)
        ("a INT, b VARCHAR(10), c INT, d INT", ("a", "b")),
        # 36 bytes of short key: LARGEINT (16) + LARGEINT (16) + INT (4) fits, nothing more
        ("a LARGEINT, b LARGEINT, c INT, d INT", ("a", "b", "c")),
        ("a LARGEINT, b LARGEINT, c BIGINT", ("a", "b")),
        # FLOAT/DOUBLE/STRING/complex stop before themselves
        ("a INT, b DOUBLE, c INT", ("a",)),
        ("a BIGINT, b STRING", ("a",)),
        ("a DATE, b ARRAY<INT>", ("a",)),
        # a first CHAR longer than 36 bytes is still the one key
        ("a CHAR(100), b INT", ("a",)),
    ],
)
def test_default_duplicate_keys_follow_doris_short_key_rule(columns, expected):
    t = parse_create_table(f"CREATE TABLE t ({columns}) DISTRIBUTED BY RANDOM")
    assert t.key_columns == expected
    assert t.keys_defaulted


def test_duplicate_without_keys_by_default():
    t = parse_create_table(
        """
        CREATE TABLE IF NOT EXISTS example_tbl_duplicate_without_keys_by_default
        (
            `timestamp` DATETIME NOT NULL COMMENT "log time",
            `type` INT NOT NULL COMMENT "log type"
        )
        DISTRIBUTED BY HASH(`type`) BUCKETS 1
        PROPERTIES (
        "replication_allocation" = "tag.location.default: 1",
        "enable_duplicate_without_keys_by_default" = "true"
        );
        """
    )
    assert t.keys_model is KeysModel.DUPLICATE
    assert t.key_columns == ()
    assert t.keys_defaulted is True


def test_aggregate_model():
    # website table-design/data-model/aggregate.md (note the trailing comma in the column list)
    t = parse_create_table(
        """
        CREATE TABLE IF NOT EXISTS example_tbl_agg
        (
            user_id             LARGEINT    NOT NULL,
            load_dt             DATE        NOT NULL,
            city                VARCHAR(20),
            last_visit_dt       DATETIME    REPLACE DEFAULT "1970-01-01 00:00:00",
            cost                BIGINT      SUM DEFAULT "0",
            max_dwell           INT         MAX DEFAULT "0",
            min_dwell           INT         MIN DEFAULT "99999",
            last_city           VARCHAR(20) REPLACE_IF_NOT_NULL
        )
        AGGREGATE KEY(user_id, load_dt, city)
        DISTRIBUTED BY HASH(user_id) BUCKETS 10;
        """
    )
    assert t.keys_model is KeysModel.AGGREGATE
    assert t.key_columns == ("user_id", "load_dt", "city")
    aggs = {c.name: c.aggregation for c in t.columns}
    assert aggs == {
        "user_id": None,
        "load_dt": None,
        "city": None,
        "last_visit_dt": "REPLACE",
        "cost": "SUM",
        "max_dwell": "MAX",
        "min_dwell": "MIN",
        "last_city": "REPLACE_IF_NOT_NULL",
    }
    last_visit = t.column("last_visit_dt")
    assert last_visit.default == "1970-01-01 00:00:00"
    assert last_visit.default_kind == "literal"
    assert t.column("cost").default == "0"
    assert t.column("user_id").type == DorisType("LARGEINT")
    assert t.distribution == DistributionDesc("HASH", ("user_id",), 10)


def test_aggregate_model_inferred_from_aggregate_columns_with_range_partitions_and_properties():
    # website CREATE-TABLE "storage_policy" example: no KEY clause, one REPLACE column,
    # per-partition properties
    t = parse_create_table(
        """
        CREATE TABLE create_table_partion_use_created_policy
        (
            k1 DATE,
            k2 INT,
            V1 VARCHAR(2048) REPLACE
        ) PARTITION BY RANGE (k1) (
            PARTITION p1 VALUES LESS THAN ("2022-01-01") ("storage_policy" = "policy_1" ,"replication_num"="1"),
            PARTITION p2 VALUES LESS THAN ("2022-02-01") ("storage_policy" = "policy_2" ,"replication_num"="1")
        ) DISTRIBUTED BY HASH(k2) BUCKETS 1;
        """
    )
    assert t.keys_model is KeysModel.AGGREGATE
    assert t.key_columns == ("k1", "k2")
    assert t.keys_defaulted is True
    assert t.partition == PartitionDesc(
        kind="RANGE",
        columns=("k1",),
        items=(
            PartitionItemDef(
                "p1",
                "less_than",
                less_than=PartitionValue(("2022-01-01",)),
                properties={"storage_policy": "policy_1", "replication_num": "1"},
            ),
            PartitionItemDef(
                "p2",
                "less_than",
                less_than=PartitionValue(("2022-02-01",)),
                properties={"storage_policy": "policy_2", "replication_num": "1"},
            ),
        ),
    )


def test_unique_merge_on_write():
    # website table-design/data-model/unique.md
    t = parse_create_table(
        """
        CREATE TABLE IF NOT EXISTS example_tbl_unique_merge_on_write
        (
            user_id         LARGEINT        NOT NULL,
            user_name       VARCHAR(50)     NOT NULL,
            city            VARCHAR(20),
            age             SMALLINT,
            sex             TINYINT
        )
        UNIQUE KEY(user_id, user_name)
        DISTRIBUTED BY HASH(user_id) BUCKETS 10
        PROPERTIES (
            "enable_unique_key_merge_on_write" = "true"
        );
        """
    )
    assert t.keys_model is KeysModel.UNIQUE
    assert t.key_columns == ("user_id", "user_name")
    assert t.merge_on_write is True
    assert t.get_property("ENABLE_UNIQUE_KEY_MERGE_ON_WRITE") == "true"
    assert t.sequence_col is None and t.sequence_type is None


def test_unique_merge_on_read_and_default_merge_on_write():
    mor = parse_create_table(
        """
        CREATE TABLE t (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1
        PROPERTIES ("enable_unique_key_merge_on_write" = "false")
        """
    )
    assert mor.merge_on_write is False
    default = parse_create_table("CREATE TABLE t (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    assert default.merge_on_write is True  # Doris >= 2.1 default


def test_unique_with_sequence_col():
    # website data-operate/update/unique-update-concurrent-control.md
    t = parse_create_table(
        """
        CREATE TABLE test.test_table
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
            "function_column.sequence_col" = 'modify_date',
            "replication_num" = "1",
            "in_memory" = "false"
        );
        """
    )
    assert t.database == "test" and t.table == "test_table"
    assert t.qualified_name == "test.test_table"
    assert t.key_columns == ("user_id", "date", "group_id")
    assert t.column("date").type == DorisType("DATE")
    assert t.properties["function_column.sequence_col"] == "modify_date"
    assert t.sequence_col == "modify_date"
    assert t.sequence_type == DorisType("DATE")


def test_unique_with_sequence_type():
    t = parse_create_table(
        """
        CREATE TABLE example_db.seq_type_tbl (
            k1 INT NOT NULL,
            v1 VARCHAR(20)
        )
        UNIQUE KEY(k1)
        DISTRIBUTED BY HASH(k1) BUCKETS 3
        PROPERTIES ("function_column.sequence_type" = 'Date', "replication_num" = "1");
        """
    )
    assert t.sequence_col is None
    assert t.sequence_type == DorisType("DATE")


# ==========================================================================================
# partitioning
# ==========================================================================================
def test_range_less_than_partitions_on_aggregate_table():
    # website CREATE-TABLE (older version) "table2" example
    t = parse_create_table(
        """
        CREATE TABLE table2
        (
            event_day DATE,
            siteid INT DEFAULT '10',
            citycode SMALLINT,
            username VARCHAR(32) DEFAULT '',
            pv BIGINT SUM DEFAULT '0'
        )
        AGGREGATE KEY(event_day, siteid, citycode, username)
        PARTITION BY RANGE(event_day)
        (
            PARTITION p201706 VALUES LESS THAN ('2017-07-01'),
            PARTITION p201707 VALUES LESS THAN ('2017-08-01'),
            PARTITION p201708 VALUES LESS THAN ('2017-09-01')
        )
        DISTRIBUTED BY HASH(siteid) BUCKETS 10
        PROPERTIES ("replication_num" = "1");
        """
    )
    assert t.column("siteid").default == "10"
    assert t.column("username").default == ""
    assert t.partition.kind == "RANGE"
    assert t.partition.columns == ("event_day",)
    assert t.partition.auto is False
    assert [i.name for i in t.partition.items] == ["p201706", "p201707", "p201708"]
    assert [i.less_than.values for i in t.partition.items] == [("2017-07-01",), ("2017-08-01",), ("2017-09-01",)]
    assert all(i.kind == "less_than" and i.lower is None and i.values_in == () for i in t.partition.items)


def test_range_fixed_partitions():
    # website table-design/data-partitioning/auto-partitioning.md (the manual version)
    t = parse_create_table(
        """
        CREATE TABLE `DAILY_TRADE_VALUE`
        (
            `TRADE_DATE`              datev2 NOT NULL COMMENT 'Trade date',
            `TRADE_ID`                varchar(40) NOT NULL COMMENT 'Trade ID'
        )
        UNIQUE KEY(`TRADE_DATE`, `TRADE_ID`)
        PARTITION BY RANGE(`TRADE_DATE`)
        (
            PARTITION p_2000 VALUES [('2000-01-01'), ('2001-01-01')),
            PARTITION p_2001 VALUES [('2001-01-01'), ('2002-01-01')),
            PARTITION p_2002 VALUES [('2002-01-01'), ('2003-01-01'))
        )
        DISTRIBUTED BY HASH(`TRADE_DATE`) BUCKETS 10
        PROPERTIES (
          "replication_num" = "1"
        );
        """
    )
    assert t.column("TRADE_DATE").type == DorisType("DATE")
    assert t.column("TRADE_ID").type == DorisType("VARCHAR", (40,))
    assert t.partition.items[0] == PartitionItemDef(
        "p_2000", "fixed_range", lower=PartitionValue(("2000-01-01",)), upper=PartitionValue(("2001-01-01",))
    )
    assert [(i.lower.values, i.upper.values) for i in t.partition.items][2] == (("2002-01-01",), ("2003-01-01",))


def test_range_multi_column_and_maxvalue():
    t = parse_create_table(
        """
        CREATE TABLE example_db.table_range
        (
            k1 DATE,
            k2 INT,
            k3 SMALLINT,
            v1 VARCHAR(2048),
            v2 DATETIME DEFAULT "2014-02-04 15:36:00"
        )
        ENGINE=olap
        DUPLICATE KEY(k1, k2, k3)
        PARTITION BY RANGE (k1, k2)
        (
            PARTITION p1 VALUES LESS THAN ("2014-01-01", "10"),
            PARTITION p2 VALUES LESS THAN ("2014-06-01", MAXVALUE),
            PARTITION p3 VALUES LESS THAN ("2015-01-01"),
            PARTITION p4 VALUES [("2015-01-01", "-5"), ("2016-01-01", MAXVALUE)),
            PARTITION p5 VALUES LESS THAN MAXVALUE
        )
        DISTRIBUTED BY HASH(k2) BUCKETS 32
        """
    )
    items = {i.name: i for i in t.partition.items}
    assert t.engine == "olap"
    assert t.partition.columns == ("k1", "k2")
    assert items["p1"].less_than == PartitionValue(("2014-01-01", "10"))
    assert items["p2"].less_than == PartitionValue(("2014-06-01", MAXVALUE))
    assert items["p3"].less_than == PartitionValue(("2015-01-01",))  # shorter than the columns: as written
    assert items["p4"].lower == PartitionValue(("2015-01-01", "-5"))
    assert items["p4"].upper.values == ("2016-01-01", "MAXVALUE")
    assert items["p5"].less_than == PartitionValue((MAXVALUE, MAXVALUE))
    assert items["p5"].less_than.is_max and not items["p2"].less_than.is_max
    assert t.column("v2").default == "2014-02-04 15:36:00"


def test_range_maxvalue_in_parentheses_and_bare_numbers():
    # website manual-partitioning.md "NULL partitioning"
    t = parse_create_table(
        """
        create table null_range(
            k0 int null
        )
        partition by range (k0)
        (
            PARTITION p10 values less than (10),
            PARTITION p100 values less than (100),
            PARTITION pMAX values less than (maxvalue)
        )
        DISTRIBUTED BY HASH(`k0`) BUCKETS 1
        properties("replication_num" = "1");
        """
    )
    assert [i.less_than.values for i in t.partition.items] == [("10",), ("100",), (MAXVALUE,)]
    assert t.column("k0").nullable is True and t.column("k0").nullable_explicit is True


def test_batch_range_partitions_from_to_interval():
    # website manual-partitioning.md "MULTI RANGE"
    t = parse_create_table(
        """
        CREATE TABLE multi_range (
            `date` DATE NOT NULL,
            id INT
        )
        DUPLICATE KEY(`date`)
        PARTITION BY RANGE(`date`)
        (
           FROM ("2000-11-14") TO ("2021-11-14") INTERVAL 1 YEAR,
           FROM ("2021-11-14") TO ("2022-11-14") INTERVAL 1 MONTH,
           FROM ("2022-11-14") TO ("2023-01-03") INTERVAL 1 WEEK,
           FROM ("2023-01-03") TO ("2023-01-14") INTERVAL 1 DAY,
           PARTITION p_20230114 VALUES [('2023-01-14'), ('2023-01-15'))
        )
        DISTRIBUTED BY HASH(id) BUCKETS 1
        """
    )
    assert t.partition.steps == (
        StepPartitionDef("2000-11-14", "2021-11-14", 1, "YEAR"),
        StepPartitionDef("2021-11-14", "2022-11-14", 1, "MONTH"),
        StepPartitionDef("2022-11-14", "2023-01-03", 1, "WEEK"),
        StepPartitionDef("2023-01-03", "2023-01-14", 1, "DAY"),
    )
    assert [i.name for i in t.partition.items] == ["p_20230114"]


def test_batch_range_partitions_integer_step():
    t = parse_create_table(
        """
        CREATE TABLE ages (age INT NOT NULL, name VARCHAR(20))
        DUPLICATE KEY(age)
        PARTITION BY RANGE(age) ( FROM (1) TO (100) INTERVAL 10 )
        DISTRIBUTED BY HASH(age) BUCKETS 1
        """
    )
    assert t.partition.steps == (StepPartitionDef("1", "100", 10, None),)


def test_batch_range_partition_two_years():
    t = parse_create_table(
        """
        CREATE TABLE t (`date` DATE NOT NULL, v INT) DUPLICATE KEY(`date`)
        PARTITION BY RANGE(`date`) ( FROM ("2000-11-14") TO ("2021-11-14") INTERVAL 2 YEAR )
        DISTRIBUTED BY HASH(`date`) BUCKETS 1
        """
    )
    assert t.partition.steps == (StepPartitionDef("2000-11-14", "2021-11-14", 2, "YEAR"),)


def test_list_partitions_single_column():
    t = parse_create_table(
        """
        CREATE TABLE example_list_tbl (
            id INT NOT NULL,
            city VARCHAR(20) NOT NULL,
            pv BIGINT
        )
        DUPLICATE KEY(id, city)
        PARTITION BY LIST(city)
        (
            PARTITION `p_cn` VALUES IN ("Beijing", "Shanghai", "Hong Kong"),
            PARTITION `p_usa` VALUES IN ("New York", "San Francisco"),
            PARTITION `p_jp` VALUES IN ("Tokyo")
        )
        DISTRIBUTED BY HASH(id) BUCKETS 16
        """
    )
    assert t.partition.kind == "LIST"
    assert t.partition.columns == ("city",)
    assert t.partition.items[0] == PartitionItemDef(
        "p_cn",
        "in",
        values_in=(PartitionValue(("Beijing",)), PartitionValue(("Shanghai",)), PartitionValue(("Hong Kong",))),
    )
    assert t.partition.items[2].values_in == (PartitionValue(("Tokyo",)),)


def test_list_partitions_multi_column():
    t = parse_create_table(
        """
        CREATE TABLE example_list_tbl2 (
            id INT NOT NULL,
            city VARCHAR(20) NOT NULL,
            pv BIGINT
        )
        DUPLICATE KEY(id, city)
        PARTITION BY LIST(id, city)
        (
            PARTITION p1_city VALUES IN (("1", "Beijing"), ("1", "Shanghai")),
            PARTITION p2_city VALUES IN (("2", "Beijing"), ("2", "Shanghai")),
            PARTITION p3_city VALUES IN (("3", "Beijing"), ("3", "Shanghai"))
        )
        DISTRIBUTED BY HASH(id) BUCKETS 16
        """
    )
    assert t.partition.columns == ("id", "city")
    assert t.partition.items[1].values_in == (
        PartitionValue(("2", "Beijing")),
        PartitionValue(("2", "Shanghai")),
    )


def test_list_partition_null_value():
    # website manual-partitioning.md "NULL partitioning" (LIST)
    t = parse_create_table(
        """
        create table null_list(
            k0 varchar null
        )
        partition by list (k0)
        (
            PARTITION pX values in ((NULL))
        )
        DISTRIBUTED BY HASH(`k0`) BUCKETS 1
        properties("replication_num" = "1");
        """
    )
    assert t.column("k0").type == DorisType("VARCHAR", (65533,))  # Doris's default VARCHAR length
    assert t.key_columns == ("k0",)
    assert t.partition.items == (PartitionItemDef("pX", "in", values_in=(PartitionValue((None,)),)),)


def test_list_partition_date_tuples():
    # website CREATE-TABLE "t9"
    t = parse_create_table(
        """
        CREATE TABLE t9
        (
          c1 INT,
          c2 DATE NOT NULL
        )
        DUPLICATE KEY(c1)
        PARTITION BY LIST(c2) (
          PARTITION p1 VALUES IN (('2020-01-01'),('2020-01-02'))
        )
        DISTRIBUTED BY RANDOM
        PROPERTIES (
          'replication_num' = '1'
        );
        """
    )
    # a DUPLICATE table may partition on a non-key column
    assert t.key_columns == ("c1",)
    assert t.partition.items[0].values_in == (PartitionValue(("2020-01-01",)), PartitionValue(("2020-01-02",)))
    assert t.distribution == DistributionDesc("RANDOM", (), None)


@pytest.mark.parametrize("unit", ["year", "quarter", "month", "week", "day", "hour", "minute", "second"])
def test_auto_range_partition_units(unit):
    t = parse_create_table(
        f"""
        CREATE TABLE `date_table` (
            `TIME_STAMP` datev2 NOT NULL
        ) ENGINE=OLAP
        DUPLICATE KEY(`TIME_STAMP`)
        AUTO PARTITION BY RANGE (date_trunc(`TIME_STAMP`, '{unit}'))
        (
        )
        DISTRIBUTED BY HASH(`TIME_STAMP`) BUCKETS 10
        PROPERTIES (
            "replication_allocation" = "tag.location.default: 1"
        );
        """
    )
    assert t.partition == PartitionDesc(
        kind="RANGE", columns=("TIME_STAMP",), auto=True, auto_function="date_trunc", auto_unit=unit
    )


def test_auto_range_unit_is_lowercased_and_not_validated():
    t = parse_create_table(
        """
        CREATE TABLE t (k0 DATETIME NOT NULL) AUTO PARTITION BY RANGE (date_trunc(k0, 'YEEAR')) ()
        DISTRIBUTED BY HASH(k0) BUCKETS 1
        """
    )
    assert t.partition.auto_unit == "yeear"  # Doris accepts it at CREATE and fails at INSERT


def test_auto_range_with_predefined_partitions_and_unique_key():
    # website auto-partitioning.md DAILY_TRADE_VALUE
    t = parse_create_table(
        """
        CREATE TABLE `DAILY_TRADE_VALUE`
        (
            `TRADE_DATE`              datev2 NOT NULL,
            `TRADE_ID`                varchar(40) NOT NULL
        )
        UNIQUE KEY(`TRADE_DATE`, `TRADE_ID`)
        AUTO PARTITION BY RANGE (date_trunc(`TRADE_DATE`, 'year'))
        (
            PARTITION p_2000 VALUES [('2000-01-01'), ('2001-01-01'))
        )
        DISTRIBUTED BY HASH(`TRADE_DATE`) BUCKETS 10
        PROPERTIES ("replication_num" = "1");
        """
    )
    assert t.partition.auto and t.partition.auto_unit == "year"
    assert t.partition.items[0].name == "p_2000"


def test_range_with_date_trunc_without_auto_keyword_is_auto():
    # website CREATE-TABLE "t7" and auto-partitioning.md: the AUTO keyword may be omitted
    t = parse_create_table(
        """
        CREATE TABLE auto_recycle(
            k0 datetime(6) not null
        )
        PARTITION BY RANGE (date_trunc(k0, 'day')) ()
        DISTRIBUTED BY HASH(`k0`) BUCKETS 1
        properties(
            "replication_num" = "1"
        );
        """
    )
    assert t.column("k0").type == DorisType("DATETIME", (6,))
    assert t.partition.auto is True
    assert t.partition.auto_function == "date_trunc"
    assert t.partition.columns == ("k0",)


def test_auto_range_old_syntax_without_parentheses():
    t = parse_create_table(
        """
        CREATE TABLE `date_table` (`TIME_STAMP` datetimev2 NOT NULL) ENGINE=OLAP
        DUPLICATE KEY(`TIME_STAMP`)
        AUTO PARTITION BY RANGE date_trunc(`TIME_STAMP`, 'month') ()
        DISTRIBUTED BY HASH(`TIME_STAMP`) BUCKETS 10
        """
    )
    assert t.partition.auto_unit == "month"


def test_auto_list_partition():
    # website auto-partitioning.md
    t = parse_create_table(
        """
        CREATE TABLE `str_table` (
            `str` varchar not null
        ) ENGINE=OLAP
        DUPLICATE KEY(`str`)
        AUTO PARTITION BY LIST (`str`)
        ()
        DISTRIBUTED BY HASH(`str`) BUCKETS 10
        PROPERTIES (
            "replication_allocation" = "tag.location.default: 1"
        );
        """
    )
    assert t.partition == PartitionDesc(kind="LIST", columns=("str",), auto=True)


def test_auto_list_partition_multi_column_nullable_with_predefined_partition():
    t = parse_create_table(
        """
        create table auto_null_list(
            k0 varchar null,
            k1 int null
        )
        auto partition by list (k0, k1)
        (
            PARTITION p1 VALUES IN (("a", "1"))
        )
        DISTRIBUTED BY HASH(`k0`) BUCKETS 1
        properties("replication_num" = "1");
        """
    )
    assert t.partition.auto and t.partition.auto_function is None and t.partition.auto_unit is None
    assert t.partition.columns == ("k0", "k1")
    assert t.partition.items[0].values_in == (PartitionValue(("a", "1")),)


def test_dynamic_partition_properties_are_kept():
    # website dynamic-partitioning.md
    t = parse_create_table(
        """
        CREATE TABLE test_dynamic_partition(
            order_id    BIGINT,
            create_dt   DATE,
            username    VARCHAR(20)
        )
        DUPLICATE KEY(order_id)
        PARTITION BY RANGE(create_dt) ()
        DISTRIBUTED BY HASH(order_id) BUCKETS 10
        PROPERTIES(
            "dynamic_partition.enable" = "true",
            "dynamic_partition.time_unit" = "DAY",
            "dynamic_partition.start" = "-1",
            "dynamic_partition.end" = "2",
            "dynamic_partition.prefix" = "p",
            "dynamic_partition.create_history_partition" = "true"
        );
        """
    )
    assert t.partition == PartitionDesc(kind="RANGE", columns=("create_dt",))
    assert t.properties == {
        "dynamic_partition.enable": "true",
        "dynamic_partition.time_unit": "DAY",
        "dynamic_partition.start": "-1",
        "dynamic_partition.end": "2",
        "dynamic_partition.prefix": "p",
        "dynamic_partition.create_history_partition": "true",
    }
    assert t.get_property("Dynamic_Partition.Time_Unit") == "DAY"
    assert t.get_property("dynamic_partition.buckets") is None
    assert t.get_property("dynamic_partition.buckets", "10") == "10"


# ==========================================================================================
# distribution, clauses, lexical details
# ==========================================================================================
def test_buckets_auto():
    t = parse_create_table(
        """
        CREATE TABLE tbl_auto_bucket (k DATE NOT NULL, v INT)
        DUPLICATE KEY(k)
        AUTO PARTITION BY RANGE (date_trunc(k, 'day')) ()
        DISTRIBUTED BY HASH(k) BUCKETS AUTO
        PROPERTIES ("estimate_partition_size" = "10G")
        """
    )
    assert t.distribution == DistributionDesc("HASH", ("k",), None, auto_buckets=True)


def test_random_distribution_with_buckets():
    t = parse_create_table("CREATE TABLE t6 (c1 INT, c2 INT) DUPLICATE KEY(c1) DISTRIBUTED BY RANDOM BUCKETS 8")
    assert t.distribution == DistributionDesc("RANDOM", (), 8)


def test_hash_distribution_without_buckets_and_no_distribution():
    t = parse_create_table("CREATE TABLE t1 (c1 INT, c2 STRING) DUPLICATE KEY(c1) DISTRIBUTED BY HASH(c1)")
    assert t.distribution == DistributionDesc("HASH", ("c1",), None, auto_buckets=False)
    assert parse_create_table("CREATE TABLE t (c1 INT)").distribution is None


def test_comments_semicolon_backquotes_and_case_insensitive_keywords():
    sql = """-- leading comment
    /* a block
       comment */
    create table if not exists `my db`.`my-table` (   -- trailing comment
        `K1` date not null comment 'it''s a \\"key\\"',
        `select` int sum default "1"   /* reserved word as a column */
    ) engine = OLAP
    aggregate key (`k1`)
    comment "the table"
    distributed by hash(K1) buckets 4
    properties ("replication_num" = "1") ;
    """
    t = parse_create_table(sql)
    assert t.database == "my db"
    assert t.table == "my-table"
    assert t.if_not_exists
    assert t.engine == "olap"
    assert t.comment == "the table"
    assert t.column("K1").comment == 'it\'s a "key"'
    assert t.column("select").aggregation == "SUM"
    # references are resolved to the declared names
    assert t.key_columns == ("K1",)
    assert t.distribution.columns == ("K1",)


def test_column_attributes():
    # parsed as written; create_table refuses AUTO_INCREMENT, ON UPDATE and AS (expr) (tests/ddl/test_features.py)
    t = parse_statement(
        """
        CREATE TABLE example_db.attrs (
            id BIGINT NOT NULL AUTO_INCREMENT(100),
            name VARCHAR(20) KEY NOT NULL DEFAULT '',
            score DECIMAL(10, 2) DEFAULT "10.5",
            delta INT DEFAULT -3,
            pi_value DOUBLE DEFAULT PI,
            created DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3),
            updated DATETIME DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
            day DATE DEFAULT CURRENT_DATE,
            nothing INT NULL DEFAULT NULL,
            doubled INT GENERATED ALWAYS AS (delta * 2) COMMENT 'generated',
            INDEX idx_name (name) USING INVERTED PROPERTIES("parser" = "english") COMMENT 'inverted index'
        )
        UNIQUE KEY(id, name)
        DISTRIBUTED BY HASH(id) BUCKETS 1
        """
    )
    c = {col.name: col for col in t.columns}
    assert c["id"].auto_increment and c["id"].auto_increment_start == 100 and not c["id"].nullable
    assert c["name"].key and c["name"].default == "" and c["name"].default_kind == "literal"
    assert c["score"].default == "10.5"
    assert c["delta"].default == "-3"
    assert (c["pi_value"].default, c["pi_value"].default_kind) == ("PI", "pi")
    assert c["created"].default == "CURRENT_TIMESTAMP"
    assert c["created"].default_kind == "current_timestamp" and c["created"].default_precision == 3
    assert c["updated"].on_update_current_timestamp
    assert (c["day"].default, c["day"].default_kind) == ("CURRENT_DATE", "current_date")
    assert c["nothing"].default is None and c["nothing"].default_kind == "null"
    assert c["doubled"].generated == "delta * 2" and c["doubled"].comment == "generated"
    assert t.indexes == [
        "INDEX idx_name (name) USING INVERTED PROPERTIES(\"parser\" = \"english\") COMMENT 'inverted index'",
    ]


def test_complex_types():
    t = parse_create_table(
        """
        CREATE TABLE complex (
            id INT,
            tags ARRAY<VARCHAR(20)>,
            nested ARRAY<ARRAY<INT NOT NULL>>,
            attrs MAP<STRING, DECIMAL(10, 2)>,
            person STRUCT<name:VARCHAR(20), age:INT COMMENT 'years', `home town`:STRING>,
            doc JSON,
            v VARIANT<'a.b': INT, PROPERTIES("variant_max_subcolumns_count" = "10")>,
            ip IPV6
        )
        DUPLICATE KEY(id)
        DISTRIBUTED BY HASH(id) BUCKETS 1
        """
    )
    assert t.column("tags").type.sql == "ARRAY<VARCHAR(20)>"
    assert t.column("nested").type == DorisType("ARRAY", children=(DorisType("ARRAY", children=(DorisType("INT"),)),))
    assert t.column("attrs").type.sql == "MAP<STRING,DECIMAL(10,2)>"
    person = t.column("person").type
    assert person.field_names == ("name", "age", "home town")
    assert person.sql == "STRUCT<name:VARCHAR(20),age:INT,`home town`:STRING>"
    assert t.column("doc").type == DorisType("JSON")
    assert t.column("v").type == DorisType("VARIANT")
    assert t.column("ip").type == DorisType("IPV6")


def test_cluster_by_and_order_by_cluster_keys():
    sql = """
        CREATE TABLE t (k INT, v1 INT, v2 DATE)
        UNIQUE KEY(k) {clause} (v2, `V1`)
        DISTRIBUTED BY HASH(k) BUCKETS 1
        PROPERTIES ("enable_unique_key_merge_on_write" = "true")
    """
    for clause in ("CLUSTER BY", "ORDER BY"):
        assert parse_create_table(sql.format(clause=clause)).cluster_by == ("v2", "v1")


def test_rollups_are_kept_raw():
    t = parse_create_table(
        """
        CREATE TABLE example_db.rolltbl (
            event_day DATE,
            siteid INT,
            citycode SMALLINT,
            pv BIGINT SUM
        )
        AGGREGATE KEY(event_day, siteid, citycode)
        DISTRIBUTED BY HASH(siteid) BUCKETS 10
        ROLLUP (
            r1(event_day, siteid),
            r2(event_day, citycode) PROPERTIES ("replication_num" = "1")
        )
        PROPERTIES ("replication_num" = "1")
        """
    )
    assert t.rollups == ("r1(event_day, siteid)", 'r2(event_day, citycode) PROPERTIES ("replication_num" = "1")')


def test_properties_keep_their_spelling_and_accept_trailing_comma():
    t = parse_create_table(
        """
        CREATE TABLE t (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1
        PROPERTIES ('Function_Column.Sequence_Col' = 'v', replication_num = 1,)
        """
    )
    assert t.properties == {"Function_Column.Sequence_Col": "v", "replication_num": "1"}
    assert t.sequence_col == "v"
    assert t.sequence_type == DorisType("INT")


def test_three_part_name_and_temporary():
    t = parse_statement("CREATE TEMPORARY TABLE internal.db1.t (k INT)")  # parsed; create_table refuses TEMPORARY
    assert (t.catalog, t.database, t.table, t.temporary) == ("internal", "db1", "t", True)
    t = parse_create_table("CREATE TABLE internal.db1.t (k INT)")
    assert (t.catalog, t.database, t.table, t.temporary) == ("internal", "db1", "t", False)


def test_definition_is_frozen():
    t = parse_create_table("CREATE TABLE t (k INT)")
    assert isinstance(t, TableDefinition)
    with pytest.raises(AttributeError):
        t.table = "other"  # type: ignore[misc]


# ==========================================================================================
# semantic errors
# ==========================================================================================
def test_key_column_must_exist():
    invalid(
        "CREATE TABLE t (k1 INT, v INT) DUPLICATE KEY(k1, nope) DISTRIBUTED BY HASH(k1) BUCKETS 1",
        "Key column[nope] doesn't exist.",
    )


def test_key_columns_must_be_an_ordered_prefix():
    invalid(
        "CREATE TABLE t (k1 INT, k2 INT, v INT) UNIQUE KEY(k2, k1) DISTRIBUTED BY HASH(k1) BUCKETS 1",
        "Key columns should be a ordered prefix of the schema. KeyColumns[0] (starts from zero) is k2, "
        "but corresponding column is k1 in the previous columns declaration.",
    )


def test_aggregation_only_on_aggregate_tables():
    invalid(
        "CREATE TABLE t (k INT, v INT SUM) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
        "DUP_KEYS table should not specify aggregate type for non-key column[v]",
    )
    invalid(
        "CREATE TABLE t (k INT, v INT REPLACE) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
        "UNIQUE_KEYS table should not specify aggregate type for non-key column[v]",
    )


def test_aggregate_value_columns_need_an_aggregation_and_keys_none():
    invalid(
        "CREATE TABLE t (k INT, v1 INT SUM, v2 INT) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
        "AGG_KEYS table should specify aggregate type for non-key column[v2]",
    )
    invalid(
        "CREATE TABLE t (k INT MAX, v1 INT SUM) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
        "Key column[k] should not specify aggregate type.",
    )


@pytest.mark.parametrize("aggregation", ["HLL_UNION", "BITMAP_UNION", "QUANTILE_UNION", "GENERIC"])
def test_unsupported_aggregations(aggregation):
    error = invalid(
        f"CREATE TABLE t (k INT, v BIGINT {aggregation}) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
        f"Aggregate type {aggregation} (column v) is not supported on Iceberg tables by iceberg-doris",
    )
    assert "SUM, MAX, MIN, REPLACE, REPLACE_IF_NOT_NULL" in str(error)


@pytest.mark.parametrize(
    ("type_sql", "name"),
    [("HLL", "HLL"), ("BITMAP", "BITMAP"), ("QUANTILE_STATE", "QUANTILE_STATE"), ("agg_state<max_by(int, int)>", "AGG_STATE")],
)
def test_unsupported_types(type_sql, name):
    invalid(
        f"CREATE TABLE t (k INT, v {type_sql}) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1",
        f"Type {name} (column v) is not supported on Iceberg tables by iceberg-doris",
    )


def test_decimal_wider_than_iceberg_is_refused():
    invalid(
        "CREATE TABLE t (k INT, v DECIMAL(76, 2))",
        "Column v: DECIMAL(76,2) is not supported on Iceberg tables by iceberg-doris",
    )


def test_duplicate_column_names():
    invalid("CREATE TABLE t (k INT, K BIGINT)", "Duplicate column name 'K'")


def test_first_column_cannot_be_a_default_key():
    invalid(
        "CREATE TABLE t (d DOUBLE, k INT) DISTRIBUTED BY RANDOM",
        "The olap table first column could not be float, double, string or array, struct, map, "
        "please use decimal or varchar instead.",
    )


def test_unknown_partition_column():
    invalid(
        "CREATE TABLE t (k INT, v INT) DUPLICATE KEY(k) PARTITION BY RANGE(nope) () DISTRIBUTED BY HASH(k) BUCKETS 1",
        "partition key nope is not exists",
    )


def test_partition_column_must_not_be_aggregated():
    invalid(
        """CREATE TABLE t (k INT, d DATE REPLACE) AGGREGATE KEY(k)
           PARTITION BY RANGE(d) () DISTRIBUTED BY HASH(k) BUCKETS 1""",
        "The partition column could not be aggregated column",
    )
    invalid(
        """CREATE TABLE t (k INT, d DATE) UNIQUE KEY(k)
           PARTITION BY RANGE(d) () DISTRIBUTED BY HASH(k) BUCKETS 1""",
        "The partition column could not be aggregated column",
    )


def test_unknown_distribution_column():
    invalid(
        "CREATE TABLE t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(`nope`) BUCKETS 1",
        "Distribution column(nope) doesn't exist.",
    )


def test_distribution_column_must_be_a_key_of_unique_and_aggregate_tables():
    invalid(
        "CREATE TABLE t (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(v) BUCKETS 1",
        "Distribution column[v] is not key column",
    )


def test_buckets_zero():
    invalid(
        "CREATE TABLE t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 0",
        "Cannot assign hash distribution buckets less than 1",
    )


def test_random_distribution_refused_for_unique_tables():
    invalid(
        "CREATE TABLE t (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY RANDOM BUCKETS 1",
        "Should not be distributed by random when keys type is unique",
    )


_UNIQUE = "CREATE TABLE t (k INT, v INT, s VARCHAR(10), d DATETIME) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "


def test_sequence_col_must_exist():
    invalid(_UNIQUE + "PROPERTIES ('function_column.sequence_col' = 'v3')", "The specified sequence column[v3] not exists")


def test_sequence_col_must_be_a_value_column():
    invalid(_UNIQUE + "PROPERTIES ('function_column.sequence_col' = 'k')", "must be a value column, not a key column")


def test_sequence_col_type():
    invalid(
        _UNIQUE + "PROPERTIES ('function_column.sequence_col' = 's')",
        "Sequence type only support integer types and date types",
    )
    t = parse_create_table(_UNIQUE + "PROPERTIES ('function_column.sequence_col' = 'd')")
    assert t.sequence_type == DorisType("DATETIME")


@pytest.mark.parametrize("bad", ["double", "varchar(10)", "string", "not a type"])
def test_sequence_type_must_be_integer_or_date(bad):
    invalid(
        _UNIQUE + f"PROPERTIES ('function_column.sequence_type' = '{bad}')",
        "sequence type only support integer types and date types",
    )


@pytest.mark.parametrize("good", ["int", "bigint", "largeint", "date", "datetime", "Date", "DATETIMEV2"])
def test_sequence_type_accepted(good):
    parse_create_table(_UNIQUE + f"PROPERTIES ('function_column.sequence_type' = '{good}')")


@pytest.mark.parametrize("key", ["function_column.sequence_col", "function_column.sequence_type"])
def test_sequence_only_on_unique_tables(key):
    invalid(
        f"CREATE TABLE t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('{key}' = 'v')",
        "sequence column only support UNIQUE_KEYS",
    )


def test_sequence_col_and_type_together():
    invalid(
        _UNIQUE + "PROPERTIES ('function_column.sequence_type' = 'int', 'function_column.sequence_col' = 'v')",
        "The sequence_col and sequence_type cannot be set at the same time",
    )


def test_merge_on_write_only_on_unique_tables():
    invalid(
        "CREATE TABLE t (k INT) DUPLICATE KEY(k) PROPERTIES ('enable_unique_key_merge_on_write' = 'true')",
        "enable_unique_key_merge_on_write property only support unique key table",
    )


_AUTO = "CREATE TABLE awh_test_range_auto (DATE_ID {type} NOT NULL, LAST_UPLOAD_TIME DATETIME) "


def test_auto_range_needs_a_function_call():
    invalid(
        _AUTO.format(type="DATETIME") + "AUTO PARTITION BY RANGE (DATE_ID)() DISTRIBUTED BY HASH(DATE_ID) BUCKETS AUTO",
        "Auto Range Partition need FunctionCallExpr",
    )


def test_auto_range_only_date_trunc():
    invalid(
        _AUTO.format(type="DATETIME") + "AUTO PARTITION BY RANGE (date(DATE_ID))() DISTRIBUTED BY HASH(DATE_ID) BUCKETS AUTO",
        "auto create partition only support function call expr is date_trunc",
    )


def test_auto_range_date_trunc_with_one_argument():
    invalid(
        _AUTO.format(type="DATETIME") + "AUTO PARTITION BY RANGE (date_trunc(DATE_ID))() DISTRIBUTED BY HASH(DATE_ID)",
        "partition expr date_trunc is illegal!",
    )


def test_auto_range_date_trunc_on_bigint():
    invalid(
        _AUTO.format(type="BIGINT")
        + "AUTO PARTITION BY RANGE (date_trunc(DATE_ID, 'year'))() DISTRIBUTED BY HASH(DATE_ID) BUCKETS AUTO",
        "partition expr date_trunc is illegal!",
    )


def test_auto_range_two_column_references():
    invalid(
        """CREATE TABLE t (k0 DATETIME NOT NULL, k1 DATETIME NOT NULL)
           AUTO PARTITION BY RANGE (date_trunc(k0, k1, 'hour')) () DISTRIBUTED BY HASH(k0) BUCKETS 1""",
        "auto create partition only support one slotRef in function expr",
    )


def test_auto_range_nullable_column():
    # website auto-partitioning.md range_table_nullable
    invalid(
        """
        CREATE TABLE `range_table_nullable` (
            `k1` INT,
            `k2` DATETIMEV2(3),
            `k3` DATETIMEV2(6)
        ) ENGINE=OLAP
        DUPLICATE KEY(`k1`)
        AUTO PARTITION BY RANGE (date_trunc(`k2`, 'day'))
        ()
        DISTRIBUTED BY HASH(`k1`) BUCKETS 16
        PROPERTIES (
            "replication_allocation" = "tag.location.default: 1"
        );
        """,
        "AUTO RANGE PARTITION doesn't support NULL column",
    )


def test_maxvalue_not_allowed_in_list_partitions():
    invalid(
        """CREATE TABLE t (k INT NOT NULL, v INT) DUPLICATE KEY(k)
           PARTITION BY LIST(k) (PARTITION p1 VALUES IN ("1"), PARTITION p2 VALUES IN (MAXVALUE))
           DISTRIBUTED BY HASH(k) BUCKETS 1""",
        "MAXVALUE is not allowed in LIST partition",
    )


def test_partition_kinds_cannot_mix():
    invalid(
        """CREATE TABLE t (k INT NOT NULL) DUPLICATE KEY(k)
           PARTITION BY LIST(k) (PARTITION p1 VALUES LESS THAN ("1"))""",
        "partitions types is invalid, expected FIXED or LESS in range partitions and IN in list partitions",
    )


def test_duplicate_partition_names_and_too_many_values():
    invalid(
        """CREATE TABLE t (k INT NOT NULL) DUPLICATE KEY(k)
           PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN ("1"), PARTITION P1 VALUES LESS THAN ("2"))""",
        "Duplicated named partition: P1",
    )
    invalid(
        """CREATE TABLE t (k INT NOT NULL) DUPLICATE KEY(k)
           PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN ("1", "2"))""",
        "Partition p1 has 2 value(s)",
    )


def test_create_table_like_and_ctas_are_refused_with_a_pointer():
    error = syntax_error("CREATE TABLE t11 LIKE t10")
    assert "LIKE is not supported" in str(error) and (error.line, error.column) == (1, 18)
    error = syntax_error("CREATE TABLE t10 (a INT) AS SELECT * FROM t1")
    assert "AS SELECT is not supported" in str(error)


def test_external_and_other_engines_are_refused():
    invalid("CREATE EXTERNAL TABLE t (k INT)", "Do not support external table with engine name = olap")
    invalid("CREATE TABLE t (k INT) ENGINE = mysql", "Do not support table with engine name = mysql")


# ==========================================================================================
# syntax errors
# ==========================================================================================
def test_syntax_error_names_expected_and_found_with_position():
    sql = "CREATE TABLE t (\n  a INT,\n  b INT\nPARTITION BY RANGE(a) ()\nDISTRIBUTED BY HASH(a) BUCKETS 1"
    error = syntax_error(sql)
    assert (error.line, error.column) == (4, 1)
    assert str(error).startswith("Expected ',' or ')' but found 'PARTITION' (line 4, column 1)")
    assert error.statement == sql
    # the caret pointer renders under the offending token
    assert str(error).endswith("\n  PARTITION BY RANGE(a) ()\n  ^")


def test_syntax_error_missing_closing_parenthesis_of_a_partition_list():
    sql = """CREATE TABLE t (k DATE NOT NULL) DUPLICATE KEY(k)
PARTITION BY RANGE(k) (
    PARTITION p1 VALUES LESS THAN ("2020-01-01")
DISTRIBUTED BY HASH(k) BUCKETS 1"""
    error = syntax_error(sql)
    assert "Expected ')' but found 'DISTRIBUTED'" in str(error)
    assert (error.line, error.column) == (4, 1)


def test_syntax_error_missing_comma_between_partitions():
    sql = 'CREATE TABLE t (k INT) PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN ("1") PARTITION p2 VALUES LESS THAN ("2"))'
    error = syntax_error(sql)
    assert "Expected ')' but found 'PARTITION'" in str(error)
    assert (error.line, error.column) == (1, sql.index("PARTITION p2") + 1)


def test_syntax_error_unknown_type():
    error = syntax_error("CREATE TABLE t (\n  a INT,\n  b TIMESTAMP\n)")
    assert str(error).startswith("Unknown data type 'TIMESTAMP' (line 3, column 5)")


def test_syntax_error_unterminated_string():
    error = syntax_error("CREATE TABLE t (a INT COMMENT 'oops)")
    assert "Unterminated string literal" in str(error)
    assert (error.line, error.column) == (1, 31)


def test_syntax_error_unterminated_comment():
    error = syntax_error("CREATE TABLE t (a INT) /* never closed")
    assert "Unterminated comment" in str(error)
    assert (error.line, error.column) == (1, 24)


def test_syntax_error_bad_bucket_count():
    error = syntax_error("CREATE TABLE t (a INT) DISTRIBUTED BY HASH(a) BUCKETS many")
    assert "Expected a bucket count or AUTO but found 'many'" in str(error)
    assert (error.line, error.column) == (1, 55)


def test_syntax_error_clause_out_of_order():
    error = syntax_error("CREATE TABLE t (a INT) DISTRIBUTED BY HASH(a) BUCKETS 1 PARTITION BY RANGE(a) ()")
    assert re.match(r"Expected ROLLUP, PROPERTIES or end of statement but found 'PARTITION'", str(error))


def test_syntax_error_after_semicolon_and_on_empty_input():
    error = syntax_error("CREATE TABLE t (a INT); DROP TABLE t")
    assert "Expected end of statement" in str(error) and (error.line, error.column) == (1, 25)
    error = syntax_error("   ")
    assert str(error).startswith("Expected 'CREATE' but found end of input")


def test_syntax_error_string_where_a_type_is_expected():
    error = syntax_error("CREATE TABLE t (a 'INT')")
    assert "Expected a data type but found string 'INT'" in str(error)


def test_syntax_error_duplicate_column_attribute():
    error = syntax_error("CREATE TABLE t (a INT NOT NULL NULL)")
    assert "Duplicate NULL/NOT NULL for column a" in str(error)
    assert (error.line, error.column) == (1, 32)
