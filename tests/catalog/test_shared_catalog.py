"""One catalog, seen by Spark, pyiceberg, DuckDB and other processes."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pyarrow as pa
import pytest

from tests.support import duckdb_reader

pytestmark = pytest.mark.spark


def test_db_tbl_names_resolve_in_the_default_catalog(spark, namespace):
    spark.sql(f"CREATE TABLE {namespace}.t (id bigint) USING iceberg")
    assert spark.catalog.currentCatalog() == "iceberg"
    assert spark.sql(f"SHOW TABLES IN {namespace}").collect()[0].tableName == "t"


def test_spark_table_is_v3_and_read_by_pyiceberg_with_deletion_vectors(spark, namespace, py_catalog):
    table = f"{namespace}.orders"
    spark.sql(f"CREATE TABLE {table} (id bigint, amount int) USING iceberg")
    spark.sql(f"INSERT INTO {table} VALUES (1, 10), (2, 20), (3, 30)")
    spark.sql(f"INSERT INTO {table} VALUES (4, 40)")
    spark.sql(f"DELETE FROM {table} WHERE id = 2")
    delete_kinds = {r.content for r in spark.sql(f"SELECT content FROM {table}.delete_files").collect()}
    assert delete_kinds == {1}  # position deletes, stored as a deletion vector
    loaded = py_catalog.load_table(table)
    assert loaded.metadata.format_version == 3
    assert sorted(loaded.scan().to_arrow().to_pylist(), key=lambda r: r["id"]) == [
        {"id": 1, "amount": 10}, {"id": 3, "amount": 30}, {"id": 4, "amount": 40},
    ]


def test_duckdb_reads_what_spark_wrote(spark, namespace, py_catalog):
    table = f"{namespace}.events"
    spark.sql(f"CREATE TABLE {table} (id bigint, kind string) USING iceberg")
    spark.sql(f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    spark.sql(f"DELETE FROM {table} WHERE kind = 'b'")
    spark_rows = [tuple(r) for r in spark.sql(f"SELECT id, kind FROM {table} ORDER BY id").collect()]
    metadata = py_catalog.load_table(table).metadata_location
    assert duckdb_reader.read_rows(metadata, "id, kind", order_by="id") == spark_rows == [(1, "a"), (3, "c")]


def test_pyiceberg_table_is_read_by_spark(spark, namespace, py_catalog):
    created = py_catalog.create_table(
        f"{namespace}.from_py",
        schema=pa.schema([("id", pa.int64()), ("name", pa.string())]),
        properties={"format-version": "2"},
    )
    created.append(pa.table({"id": [1, 2], "name": ["x", "y"]}))
    rows = spark.sql(f"SELECT id, name FROM {namespace}.from_py ORDER BY id").collect()
    assert [tuple(r) for r in rows] == [(1, "x"), (2, "y")]


def test_spark_sees_another_process_commit_without_restart(spark, namespace, py_catalog, lake_home):
    table = f"{namespace}.shared"
    py_catalog.create_table(table, schema=pa.schema([("id", pa.int64())]), properties={"format-version": "2"})
    assert spark.sql(f"SELECT count(*) AS n FROM {table}").collect()[0].n == 0
    writer = textwrap.dedent(
        f"""
        import pyarrow as pa, iceberg_doris
        table = iceberg_doris.catalog(home={str(lake_home)!r}).load_table({table!r})
        table.append(pa.table({{"id": pa.array([7, 8], pa.int64())}}))
        """
    )
    subprocess.run([sys.executable, "-c", writer], check=True, capture_output=True, text=True)
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {table}").collect()) == [7, 8]


def test_session_on_an_existing_catalog_sees_and_survives_other_writers(spark, namespace, lake_home):
    """A second process's session starts on a catalog that already exists (the test session made
    it). Iceberg's JdbcCatalog would leave that session's connection in a stale SQLite read: blind
    to tables created after it started, and failing its next commit with SQLITE_BUSY_SNAPSHOT."""
    script = textwrap.dedent(
        f"""
        import pyarrow as pa, iceberg_doris
        spark = iceberg_doris.session(home={str(lake_home)!r})
        spark.sql("SHOW TABLES IN {namespace}").collect()
        iceberg_doris.catalog(home={str(lake_home)!r}).create_table(
            "{namespace}.by_pyiceberg", schema=pa.schema([("id", pa.int64())]), properties={{"format-version": "2"}})
        print("seen:", sorted(r.tableName for r in spark.sql("SHOW TABLES IN {namespace}").collect()))
        spark.sql("CREATE TABLE {namespace}.by_spark (id bigint) USING iceberg")
        spark.sql("INSERT INTO {namespace}.by_pyiceberg VALUES (5)")
        print("rows:", [r.id for r in spark.sql("SELECT id FROM {namespace}.by_pyiceberg").collect()])
        spark.stop()
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "seen: ['by_pyiceberg']" in done.stdout
    assert "rows: [5]" in done.stdout
    assert sorted(r.tableName for r in spark.sql(f"SHOW TABLES IN {namespace}").collect()) == ["by_pyiceberg", "by_spark"]


def test_iceberg_plans_scans_in_the_calling_thread(spark):
    """Iceberg's parallel planning sleeps 10 ms per wait; the session turns it off (docs/sessions-and-catalogs.md)."""
    assert spark._jvm.java.lang.System.getProperty("iceberg.scan.plan-in-worker-pool") == "false"
