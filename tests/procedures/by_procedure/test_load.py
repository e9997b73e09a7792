"""``CALL doris.load``: rows from a table, a query or files, as one commit."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import LoadError, ProcedureArgumentError, TableNotFoundError
from tests.procedures.by_procedure import call, not_found, sql_error, table_rows

pytestmark = pytest.mark.spark

SIGNATURE = (
    "doris.load(table string, source string = NULL, query string = NULL, path array<string> = NULL, "
    "format string = NULL, format_options map<string,string> = NULL, merge_type string = 'APPEND', "
    "delete_on string = NULL, sequence_col string = NULL, columns string = NULL, where string = NULL, "
    "partitions array<string> = NULL, temporary_partitions array<string> = NULL, partial_columns boolean = false, "
    "unique_key_update_mode string = NULL, overwrite boolean = false, label string = NULL, max_filter_ratio double = 0.0, strict_mode boolean = false, "
    "progress boolean = NULL)"
)


@pytest.fixture(scope="module")
def tables(spark, ns):
    doris.create_table(spark, ddl=f"CREATE TABLE {ns}.d (k INT NOT NULL, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.create_table(spark, ddl=f"CREATE TABLE {ns}.u (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    spark.sql(f"CREATE TABLE {ns}.src (k INT, v STRING)")
    spark.sql(f"INSERT INTO {ns}.src VALUES (1, 'a'), (2, 'b')")
    return f"{ns}.d", f"{ns}.u"


def test_positional_arguments(spark, ns, tables):
    table = tables[0]
    [row] = call(spark, f"CALL doris.load('{table}', '{ns}.src')")  # table, source
    label, status, snapshot_id, loaded, filtered, unselected, deleted, _elapsed, errors, repaired = row
    assert (status, loaded, filtered, unselected, deleted, errors, repaired) == ("FINISHED", 2, 0, 0, 0, None, 0)
    assert label.startswith("load_")
    assert spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0][0] == snapshot_id
    assert sorted(table_rows(spark, table)) == [(1, "a"), (2, "b")]


def test_named_arguments(spark, tables):
    table = tables[1]
    call(spark, f"CALL doris.load(table => '{table}', query => 'SELECT 1 AS k, \\'a\\' AS v UNION ALL SELECT 2, \\'b\\'')")
    [row] = call(
        spark,
        f"CALL doris.load(table => '{table}', query => 'SELECT 1 AS k, \\'x\\' AS v UNION ALL SELECT 2, \\'x\\'', "
        "merge_type => 'MERGE', delete_on => 'k = 2', label => 'named_1')",
    )
    assert (row[0], row[1], row[3], row[6]) == ("named_1", "FINISHED", 2, 1)
    assert table_rows(spark, table) == [(1, "x")]
    summary = spark.sql(f"SELECT summary FROM {table}.snapshots WHERE snapshot_id = {row[2]}").collect()[0][0]
    assert summary["doris.label"] == "named_1"


def test_invalid_state(spark, ns, tables):
    table = tables[0]
    first = doris.load(spark, table=table, query="SELECT 9 AS k, 'z' AS v", label="once")[0]
    with pytest.raises(LoadError) as raised:
        doris.load(spark, table=table, query="SELECT 9 AS k, 'z' AS v", label="once")
    assert str(raised.value) == (
        f"Label [once] has already been used on {table} (snapshot {first.snapshot_id}); a label loads once: choose a new one"
    )
    with pytest.raises(LoadError) as raised:
        doris.load(spark, table=table, query="SELECT 9 AS k, 'z' AS v", merge_type="DELETE")
    assert str(raised.value) == "load by MERGE or DELETE is only supported in unique tables."
    with pytest.raises(TableNotFoundError) as raised:
        doris.load(spark, table=f"{ns}.nope", query="SELECT 1 AS k")
    assert str(raised.value) == not_found(f"{ns}.nope")
    assert table_rows(spark, table).count((9, "z")) == 1


def test_invalid_arguments(spark, tables):
    table = tables[0]
    assert sql_error(spark, f"CALL doris.load(table => '{table}', query => 'SELECT 2 AS k', max_filter_ratio => 'lots')") == (
        "Wrong arg type for max_filter_ratio: cannot cast string to double"
    )
    assert sql_error(spark, f"CALL doris.load(table => '{table}', query => 'SELECT 2 AS k', bogus => 1)") == (
        f"Unknown argument: bogus. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, "CALL doris.load(query => 'SELECT 2 AS k')") == (
        f"Missing required parameters: [table]. Usage: {SIGNATURE}"
    )
    with pytest.raises(ProcedureArgumentError) as raised:
        doris.load(spark, table=table)
    assert str(raised.value) == "Give exactly one of source, query or path"
