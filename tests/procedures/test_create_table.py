"""doris.create_table, doris.describe and doris.set_properties on real Spark and Iceberg."""

from __future__ import annotations

import pytest
from pyspark.errors import IllegalArgumentException

from iceberg_doris import doris
from iceberg_doris.errors import DdlSyntaxError, InvalidTableDefinitionError, TableStateError

pytestmark = pytest.mark.spark

UNIQUE_DDL = """
CREATE TABLE IF NOT EXISTS {db}.user_profile
(
    `user_id` LARGEINT NOT NULL COMMENT "user id",
    `username` VARCHAR(50) NOT NULL,
    `city` VARCHAR(20),
    `age` SMALLINT,
    `update_time` DATETIME
)
UNIQUE KEY(`user_id`, `username`)
DISTRIBUTED BY HASH(`user_id`) BUCKETS 4
PROPERTIES (
    "replication_num" = "1",
    "enable_unique_key_merge_on_write" = "true",
    "function_column.sequence_col" = "update_time"
);
"""


def describe(spark, table: str) -> dict[tuple[str, str], str]:
    return {(r.section, r.name): r.value for r in spark.sql(f"CALL doris.describe('{table}')").collect()}


def test_unique_table_model_lives_in_iceberg_metadata(spark, namespace, py_catalog):
    row = doris.create_table(spark, ddl=UNIQUE_DDL.format(db=namespace))[0]
    assert (row.table, row.keys_model, row.partition_spec, row.status) == (
        f"{namespace}.user_profile", "UNIQUE", "bucket(4, user_id)", "CREATED",
    )
    info = describe(spark, f"{namespace}.user_profile")
    assert info[("table", "keys_model")] == "UNIQUE"
    assert info[("table", "key_columns")] == "user_id, username"
    assert info[("table", "merge_on_write")] == "true"
    assert info[("table", "sequence_col")] == "update_time"
    assert info[("column", "user_id")] == "LARGEINT KEY NOT NULL"
    assert info[("column", "city")] == "VARCHAR(20) NULL"
    assert info[("property", "replication_num")] == "1"
    # Any engine sees the model: pyiceberg reads keys as identifier fields and the properties.
    table = py_catalog.load_table(f"{namespace}.user_profile")
    assert table.metadata.format_version == 3
    assert [table.schema().find_field(i).name for i in table.schema().identifier_field_ids] == ["user_id", "username"]
    assert table.properties["doris.keys-model"] == "UNIQUE"
    assert str(table.schema().find_field("user_id").field_type) == "decimal(38, 0)"
    assert [table.schema().find_field(f.source_id).name for f in table.sort_order().fields] == ["user_id", "username"]


def test_if_not_exists_and_duplicate_table(spark, namespace):
    ddl = f"CREATE TABLE IF NOT EXISTS {namespace}.t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS AUTO"
    assert doris.create_table(spark, ddl=ddl)[0].status == "CREATED"
    assert doris.create_table(spark, ddl=ddl)[0].status == "EXISTS"
    with pytest.raises(TableStateError, match=f"^Table 't' already exists in {namespace}$"):
        doris.create_table(spark, ddl=ddl.replace("IF NOT EXISTS ", ""))


def test_unknown_database(spark):
    with pytest.raises(TableStateError, match="^Unknown database 'nope_db': create it first with CREATE NAMESPACE nope_db$"):
        doris.create_table(spark, ddl="CREATE TABLE nope_db.t (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1")


def test_syntax_error_points_at_line_and_column_through_sql(spark, namespace):
    with pytest.raises(IllegalArgumentException) as error:
        spark.sql(f"CALL doris.create_table('CREATE TABLE {namespace}.t (\n  k INT,\n  v INT\n) UNIQUE KEY k')")
    assert "(line 4, column 14)" in str(error.value)


def test_invalid_definition_keeps_dorises_message(spark, namespace):
    with pytest.raises(InvalidTableDefinitionError, match="Cannot assign hash distribution buckets less than 1"):
        doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.t (k INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 0")
    with pytest.raises(DdlSyntaxError):
        doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.t k INT")


def test_plain_spark_table_is_a_duplicate_table(spark, namespace):
    spark.sql(f"CREATE TABLE {namespace}.plain (id bigint, ts timestamp_ntz) USING iceberg")
    info = describe(spark, f"{namespace}.plain")
    assert info[("table", "keys_model")] == "DUPLICATE"
    assert info[("table", "key_columns")] == ""
    assert info[("column", "ts")] == "DATETIME(6) NULL"  # Spark keeps microseconds: not rounded to whole seconds


def test_describe_unknown_table(spark, namespace):
    with pytest.raises(IllegalArgumentException, match=f"^Table {namespace}.missing does not exist in catalog iceberg"):
        spark.sql(f"CALL doris.describe('{namespace}.missing')")


def test_set_properties_keeps_unmodelled_and_refuses_fixed(spark, namespace):
    doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.t (k INT, v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    rows = spark.sql(f"CALL doris.set_properties('{namespace}.t', map('replication_num', '3'))").collect()
    assert [(r.property, r.old_value, r.new_value) for r in rows] == [("replication_num", None, "3")]
    assert describe(spark, f"{namespace}.t")[("property", "replication_num")] == "3"
    with pytest.raises(IllegalArgumentException, match="^Cannot set enable_unique_key_merge_on_write: merge-on-write is chosen"):
        spark.sql(f"CALL doris.set_properties('{namespace}.t', map('enable_unique_key_merge_on_write', 'false'))")
