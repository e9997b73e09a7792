"""``CALL doris.set_properties``: Doris ``ALTER TABLE ... SET (...)``."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import PartitionError, ProcedureArgumentError, TableNotFoundError
from tests.procedures.by_procedure import call, not_found, sql_error

pytestmark = pytest.mark.spark

SIGNATURE = "doris.set_properties(table string, properties map<string,string>)"


@pytest.fixture(scope="module")
def table(spark, ns):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {ns}.d (k INT NOT NULL, v STRING) DUPLICATE KEY(k) "
        "PARTITION BY RANGE(k) (PARTITION p0 VALUES LESS THAN (10)) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    doris.create_table(spark, ddl=f"CREATE TABLE {ns}.flat (k INT NOT NULL) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    return f"{ns}.d"


def stored(spark, table: str) -> dict[str, str]:
    return {r[0]: r[1] for r in spark.sql(f"SHOW TBLPROPERTIES {table}").collect()}


def test_positional_arguments(spark, table):
    assert call(spark, f"CALL doris.set_properties('{table}', map('replication_num', '1', 'storage_medium', 'SSD'))") == [
        ("replication_num", None, "1"), ("storage_medium", None, "SSD"),
    ]
    assert stored(spark, table)["doris.property.replication_num"] == "1"


def test_named_arguments(spark, table):
    call(spark, f"CALL doris.set_properties(table => '{table}', properties => map('bloom_filter_columns', 'k'))")
    assert call(spark, f"CALL doris.set_properties(table => '{table}', properties => map('bloom_filter_columns', 'v'))") == [
        ("bloom_filter_columns", "k", "v"),
    ]
    assert stored(spark, table)["doris.property.bloom_filter_columns"] == "v"
    assert ("property", "bloom_filter_columns", "v") in call(spark, f"CALL doris.describe('{table}')")


def test_invalid_state(spark, ns):
    with pytest.raises(TableNotFoundError) as raised:
        doris.set_properties(spark, table=f"{ns}.nope", properties={"replication_num": "1"})
    assert str(raised.value) == not_found(f"{ns}.nope")
    with pytest.raises(PartitionError) as raised:
        doris.set_properties(spark, table=f"{ns}.flat", properties={"dynamic_partition.enable": "true"})
    # Doris's ALTER TABLE message (fe/fe-core/src/test/java/org/apache/doris/alter/AlterTest.java)
    assert str(raised.value) == (
        f"Table {ns}.flat is not a dynamic partition table. Use command `HELP ALTER TABLE` to see how to change a "
        "normal table to a dynamic partition table."
    )
    assert "doris.property.dynamic_partition.enable" not in stored(spark, f"{ns}.flat")


def test_invalid_arguments(spark, table):
    assert sql_error(spark, f"CALL doris.set_properties('{table}', 'a=b')") == (
        "Wrong arg type for properties: cannot cast string to map<string,string>"
    )
    assert sql_error(spark, f"CALL doris.set_properties(table => '{table}', properties => map('a', 'b'), force => true)") == (
        f"Unknown argument: force. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, f"CALL doris.set_properties(table => '{table}')") == (
        f"Missing required parameters: [properties]. Usage: {SIGNATURE}"
    )
    with pytest.raises(ProcedureArgumentError) as raised:
        doris.set_properties(spark, table=table, properties={})
    assert str(raised.value) == "properties is empty: give map('key', 'value', ...)"
    with pytest.raises(ProcedureArgumentError) as raised:
        doris.set_properties(spark, table=table, properties={"enable_unique_key_merge_on_write": "true"})
    assert str(raised.value) == (
        "Cannot set enable_unique_key_merge_on_write: merge-on-write is chosen when the table is created"
    )
    with pytest.raises(ProcedureArgumentError) as raised:
        doris.set_properties(spark, table=table, properties={"function_column.sequence_type": "int"})
    assert str(raised.value) == (
        "Cannot set function_column.sequence_type: the sequence column is chosen when the table is created; give a "
        "UNIQUE KEY table a hidden one with doris.enable_feature(table, 'SEQUENCE_LOAD', "
        "map('function_column.sequence_type', '<type>'))"
    )
