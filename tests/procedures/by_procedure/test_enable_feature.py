"""``CALL doris.enable_feature``: Doris ``ALTER TABLE ... ENABLE FEATURE "<name>" [WITH PROPERTIES (...)]``.

Messages are Doris's: EnableFeatureOp.validate (feature name, properties), AlterTableCommand's
rewriteAlterOpForOlapTable (table model, sequence type) and SchemaChangeHandler's
addColumnInternal (already supported), all under fe/fe-core/src/main/java/org/apache/doris/.
"""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import ProcedureArgumentError, TableNotFoundError, TableStateError
from tests.procedures.by_procedure import call, not_found, snapshot_count, sql_error

pytestmark = pytest.mark.spark

SIGNATURE = "doris.enable_feature(table string, feature string, properties map<string,string> = NULL)"
SEQUENCE_TYPE = "function_column.sequence_type"


@pytest.fixture(scope="module")
def tables(spark, ns):
    def unique(name: str, properties: str = "") -> str:
        doris.create_table(
            spark,
            ddl=f"CREATE TABLE {ns}.{name} (k INT NOT NULL, v STRING, s INT) UNIQUE KEY(k) "
            f"DISTRIBUTED BY HASH(k) BUCKETS 1 {properties}",
        )
        doris.load(spark, table=f"{ns}.{name}", query="SELECT 1 AS k, 'a' AS v, 1 AS s")
        return f"{ns}.{name}"

    doris.create_table(spark, ddl=f"CREATE TABLE {ns}.dup (k INT NOT NULL, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    return {
        "positional": unique("positional"),
        "named": unique("named"),
        "mapped": unique("mapped", 'PROPERTIES ("function_column.sequence_col" = "s")'),
        "plain": unique("plain"),
        "mor": unique("mor", 'PROPERTIES ("enable_unique_key_merge_on_write" = "false")'),
        "dup": f"{ns}.dup",
    }


def test_positional_arguments(spark, tables):
    table = tables["positional"]
    assert call(spark, f"CALL doris.enable_feature('{table}', 'SEQUENCE_LOAD', map('{SEQUENCE_TYPE}', 'bigint'))") == [
        ("SEQUENCE_LOAD", "__DORIS_SEQUENCE_COL__", "BIGINT"),
    ]
    assert call(spark, f"SELECT k, v, s, __DORIS_SEQUENCE_COL__ FROM {table}") == [(1, "a", 1, None)]


def test_named_arguments(spark, tables):
    table = tables["named"]
    assert call(
        spark,
        f"CALL doris.enable_feature(table => '{table}', feature => 'sequence_load', properties => map('{SEQUENCE_TYPE}', 'Date'))",
    ) == [("SEQUENCE_LOAD", "__DORIS_SEQUENCE_COL__", "DATE")]
    assert ("table", "sequence_type", "DATE") in call(spark, f"CALL doris.describe('{table}')")


def test_invalid_state(spark, ns, tables):
    sequence = {SEQUENCE_TYPE: "int"}
    with pytest.raises(TableNotFoundError) as raised:
        doris.enable_feature(spark, table=f"{ns}.nope", feature="SEQUENCE_LOAD", properties=sequence)
    assert str(raised.value) == not_found(f"{ns}.nope")
    before = {name: snapshot_count(spark, table) for name, table in tables.items()}
    refusals = [
        ("dup", "SEQUENCE_LOAD", sequence, "Sequence load only supported in unique tables."),
        ("mapped", "SEQUENCE_LOAD", sequence, "Can not enable sequence column support, already supported sequence column."),
        ("dup", "BATCH_DELETE", None, "Batch delete only supported in unique tables."),
        # Every UNIQUE KEY table here takes __DORIS_DELETE_SIGN__ from its creation on.
        ("plain", "BATCH_DELETE", None, "Can not enable batch delete support, already supported batch delete."),
        ("mor", "UPDATE_FLEXIBLE_COLUMNS", None,
         "Update flexible columns feature is only supported on merge-on-write unique tables."),
    ]
    for name, feature, properties, message in refusals:
        with pytest.raises(TableStateError) as raised:
            doris.enable_feature(spark, table=tables[name], feature=feature, properties=properties)
        assert str(raised.value) == message, (name, feature)
    doris.enable_feature(spark, table=tables["plain"], feature="SEQUENCE_LOAD", properties=sequence)
    with pytest.raises(TableStateError) as raised:  # a second time
        doris.enable_feature(spark, table=tables["plain"], feature="SEQUENCE_LOAD", properties={SEQUENCE_TYPE: "bigint"})
    assert str(raised.value) == "Can not enable sequence column support, already supported sequence column."
    assert {name: snapshot_count(spark, table) for name, table in tables.items()} == before


def test_invalid_arguments(spark, tables):
    table = tables["mor"]
    assert sql_error(spark, f"CALL doris.enable_feature('{table}', 'SEQUENCE_LOAD', 'int')") == (
        "Wrong arg type for properties: cannot cast string to map<string,string>"
    )
    assert sql_error(spark, f"CALL doris.enable_feature(table => '{table}', feature => 'BATCH_DELETE', force => true)") == (
        f"Unknown argument: force. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, f"CALL doris.enable_feature(table => '{table}')") == (
        f"Missing required parameters: [feature]. Usage: {SIGNATURE}"
    )
    refusals = [
        ("LIGHT_SCHEMA_CHANGE", None, "unknown feature name: LIGHT_SCHEMA_CHANGE"),
        ("SEQUENCE_LOAD", None, "Properties is not set"),
        ("SEQUENCE_LOAD", {}, "Properties is not set"),
        ("SEQUENCE_LOAD", {"function_column.sequence_col": "s"}, "unknown sequence column type"),
        ("SEQUENCE_LOAD", {SEQUENCE_TYPE: "int", "function_column.sequence_col": "s"},
         'ENABLE FEATURE "SEQUENCE_LOAD" takes only function_column.sequence_type; refused: function_column.sequence_col'),
        ("BATCH_DELETE", {"replication_num": "1"}, 'ENABLE FEATURE "BATCH_DELETE" takes no properties; refused: replication_num'),
        ("SEQUENCE_LOAD", {SEQUENCE_TYPE: "varchar(10)"}, "sequence type only support integer types and date types"),
        ("SEQUENCE_LOAD", {SEQUENCE_TYPE: "no_such_type"}, "sequence type only support integer types and date types"),
    ]
    for feature, properties, message in refusals:
        with pytest.raises(ProcedureArgumentError) as raised:
            doris.enable_feature(spark, table=table, feature=feature, properties=properties)
        assert str(raised.value) == message, (feature, properties)
    assert call(spark, f"SELECT * FROM {table}") == [(1, "a", 1)]  # nothing was added
