"""A plain Spark ``ALTER TABLE ... RENAME COLUMN`` of the sequence column or of a key column of a
sequence table: later loads still find the stored sequence values (data files written before the
rename hold the old column name; they are matched by Iceberg field id), so an older sequence value
never wins. Run with the key index on (the default) and off (the scan of the stored rows)."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.engine.key_index import ENABLED_CONF
from tests.support import duckdb_reader

pytestmark = pytest.mark.spark


@pytest.fixture(params=["index", "scan"])
def lookup_path(request, spark):
    spark.conf.set(ENABLED_CONF, "true" if request.param == "index" else "false")
    yield request.param
    spark.conf.unset(ENABLED_CONF)


def sequence_table(spark, namespace: str) -> str:
    table = f"{namespace}.seq"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING, s INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
        'PROPERTIES ("enable_unique_key_merge_on_write" = "true", "function_column.sequence_col" = "s")',
    )
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'v1', 10), (2, 'v2', 10) AS t(k, v, s)")
    return table


def rows(spark, table: str, columns: str) -> list[tuple]:
    return [tuple(r) for r in spark.sql(f"SELECT {columns} FROM {table} ORDER BY 1").collect()]


def pyiceberg_rows(py_catalog, table: str, columns: list[str]) -> list[tuple]:
    loaded = py_catalog.load_table(table)
    return sorted(tuple(r[c] for c in columns) for r in loaded.scan().to_arrow().to_pylist())


def test_renamed_sequence_column_keeps_the_newer_row(spark, namespace, py_catalog, lookup_path):
    table = sequence_table(spark, namespace)
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN s TO version")
    # Key 1: sequence 5 is older than the stored 10 and must lose; key 2: 11 wins; key 3 is new.
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'stale', 5), (2, 'newer', 11), (3, 'v3', 1) AS t(k, v, version)")
    expected = [(1, "v1", 10), (2, "newer", 11), (3, "v3", 1)]
    assert rows(spark, table, "k, v, version") == expected
    # A second load after the rename reads files written under both names.
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'still stale', 9), (2, 'stale', 10), (3, 'v3b', 2) AS t(k, v, version)")
    expected = [(1, "v1", 10), (2, "newer", 11), (3, "v3b", 2)]
    assert rows(spark, table, "k, v, version") == expected
    assert pyiceberg_rows(py_catalog, table, ["k", "v", "version"]) == expected
    metadata = py_catalog.load_table(table).metadata_location
    assert duckdb_reader.read_rows(metadata, "k, v, version", order_by="k") == expected
    described = {(r.section, r.name): r.value for r in doris.describe(spark, table=table)}
    assert described[("table", "sequence_col")] == "version"


def test_renamed_key_column_keeps_the_newer_row(spark, namespace, py_catalog, lookup_path):
    table = sequence_table(spark, namespace)
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN k TO id")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'stale', 5), (2, 'newer', 11) AS t(id, v, s)")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (2, 'stale', 10), (4, 'v4', 1) AS t(id, v, s)")
    expected = [(1, "v1", 10), (2, "newer", 11), (4, "v4", 1)]
    assert rows(spark, table, "id, v, s") == expected
    assert pyiceberg_rows(py_catalog, table, ["id", "v", "s"]) == expected


def test_delete_tombstone_written_before_a_rename_still_holds_back_an_older_row(spark, namespace, py_catalog, lookup_path):
    table = sequence_table(spark, namespace)
    # Key 1 deleted at sequence 20: a tombstone (a stored, deleted version) keeps its sequence.
    doris.load(spark, table=table, query="SELECT 1 AS k, 'gone' AS v, 20 AS s", merge_type="DELETE")
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN s TO version")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'late', 15), (2, 'v2b', 12) AS t(k, v, version)")
    expected = [(2, "v2b", 12)]
    assert rows(spark, table, "k, v, version") == expected
    assert pyiceberg_rows(py_catalog, table, ["k", "v", "version"]) == expected
