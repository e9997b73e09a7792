"""``CALL doris.replace_table``: Doris ``ALTER TABLE t1 REPLACE WITH TABLE t2``, one catalog transaction.

Doris's cases: regression-test/suites/schema_change_p0/test_alter_table_replace.groovy (swap true,
then swap false and the second name gone), docs ALTER-TABLE-REPLACE.md (swap defaults to true; no
schema check), fe Alter.processReplaceTable / replaceTableInternal and ReplaceTableClause.
"""

from __future__ import annotations

import pytest

from iceberg_doris import doris, operations
from iceberg_doris.errors import ProcedureArgumentError, TableNotFoundError, TableStateError
from iceberg_doris.operations import ReplaceTableRequest
from tests.procedures.by_procedure import call, not_found, snapshot_count, sql_error, table_rows

pytestmark = pytest.mark.spark

SIGNATURE = "doris.replace_table(table string, with_table string, swap boolean = true)"


def unique_table(spark, table: str, rows: str) -> str:
    doris.create_table(
        spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2"
    )
    doris.load(spark, table=table, query=f"SELECT * FROM VALUES {rows} AS t(k, v)")
    return table


def keys_model(spark, table: str) -> str:
    return next(r.value for r in doris.describe(spark, table=table) if r.name == "keys_model")


def metadata_location(spark, py_catalog, table: str) -> str:
    return py_catalog.load_table(table).metadata_location


def test_positional_arguments(spark, ns, py_catalog):
    # test_alter_table_replace.groovy: after the swap each name reads the other table's rows.
    t1 = unique_table(spark, f"{ns}.t1", "(1, 'a1'), (2, 'a2')")
    t2 = unique_table(spark, f"{ns}.t2", "(1, 'b1'), (3, 'b3')")
    doris.load(spark, table=t2, query="SELECT * FROM VALUES (3, 'b3 again') AS t(k, v)")
    locations = metadata_location(spark, py_catalog, t1), metadata_location(spark, py_catalog, t2)
    snapshots = snapshot_count(spark, t1), snapshot_count(spark, t2)

    assert call(spark, f"CALL doris.replace_table('{t1}', 't2')") == [
        (t1, t2, True, locations[1], locations[0], None),
    ]
    assert table_rows(spark, t1) == [(1, "b1"), (3, "b3 again")]
    assert table_rows(spark, t2) == [(1, "a1"), (2, "a2")]
    assert (snapshot_count(spark, t1), snapshot_count(spark, t2)) == (snapshots[1], snapshots[0])  # no new snapshot
    # pyiceberg reads the same catalog rows.
    assert sorted(py_catalog.load_table(t1).scan().to_arrow().to_pylist(), key=lambda r: r["k"]) == [
        {"k": 1, "v": "b1"}, {"k": 3, "v": "b3 again"},
    ]
    assert (metadata_location(spark, py_catalog, t1), metadata_location(spark, py_catalog, t2)) == locations[::-1]

    # Keyed loads after the swap find their keys in the table each name now holds (the key index
    # lives with the table, under its location): one row per key in both.
    doris.load(spark, table=t1, query="SELECT * FROM VALUES (1, 'x'), (2, 'x') AS t(k, v)")
    doris.load(spark, table=t2, query="SELECT * FROM VALUES (2, 'y'), (4, 'y') AS t(k, v)")
    assert table_rows(spark, t1) == [(1, "x"), (2, "x"), (3, "b3 again")]
    assert table_rows(spark, t2) == [(1, "a1"), (2, "y"), (4, "y")]
    for table in (t1, t2):
        checked = {r[0]: (r[1], r[2]) for r in call(spark, f"CALL doris.check('{table}')")}
        assert checked["repeated_keys"] == ("OK", 0)


def test_named_arguments(spark, ns, py_catalog):
    # test_alter_table_replace.groovy: 'swap' = 'false' leaves only the first name, with the second
    # table's rows; reading the second name fails naming it.
    t1 = unique_table(spark, f"{ns}.n1", "(1, 'a')")
    t2 = unique_table(spark, f"{ns}.n2", "(2, 'b')")
    old_t1, old_t2 = metadata_location(spark, py_catalog, t1), metadata_location(spark, py_catalog, t2)
    cached = spark.table(t1).cache()
    assert cached.count() == 1

    rows = call(spark, f"CALL doris.replace_table(table => '{t1}', with_table => '{t2}', swap => false)")
    assert rows == [(t1, t2, False, old_t2, None, old_t1)]
    assert table_rows(spark, t1) == [(2, "b")]  # also where Spark had cached the old table
    with pytest.raises(TableNotFoundError) as raised:
        doris.describe(spark, table=t2)
    assert str(raised.value) == not_found(t2)
    assert not py_catalog.table_exists(t2)
    doris.load(spark, table=t1, query="SELECT * FROM VALUES (2, 'c'), (5, 'c') AS t(k, v)")
    assert table_rows(spark, t1) == [(2, "c"), (5, "c")]

    # The replaced table's files stay: its metadata file registers it again (Doris: RECOVER TABLE).
    py_catalog.register_table(f"{ns}.n1_recovered", old_t1)
    assert table_rows(spark, f"{ns}.n1_recovered") == [(1, "a")]
    spark.catalog.clearCache()


def test_tables_of_any_model(spark, ns):
    # Doris does not compare the two tables (ALTER-TABLE-REPLACE.md: "does not check whether the
    # table structure of the two tables is consistent"): a table made by plain Spark SQL (a
    # duplicate table here) swaps with a unique-key table, each keeping its model.
    keyed = unique_table(spark, f"{ns}.keyed", "(1, 'a')")
    spark.sql(f"CREATE TABLE {ns}.plain (id BIGINT, note STRING) USING iceberg")
    spark.sql(f"INSERT INTO {ns}.plain VALUES (7, 'p'), (7, 'p')")
    doris.replace_table(spark, table=keyed, with_table="plain")
    assert table_rows(spark, keyed) == [(7, "p"), (7, "p")]
    assert (keys_model(spark, keyed), keys_model(spark, f"{ns}.plain")) == ("DUPLICATE", "UNIQUE")
    doris.load(spark, table=f"{ns}.plain", query="SELECT * FROM VALUES (1, 'b') AS t(k, v)")
    assert table_rows(spark, f"{ns}.plain") == [(1, "b")]


def test_invalid_state(spark, ns):
    t1 = unique_table(spark, f"{ns}.s1", "(1, 'a')")
    t2 = unique_table(spark, f"{ns}.s2", "(2, 'b')")
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {ns}_other")
    unique_table(spark, f"{ns}_other.s2", "(3, 'c')")
    cases = [
        (dict(table=t1, with_table="s1"), TableStateError,
         "New name conflicts with rollup index name: s1 (a table cannot be replaced with itself: name another "
         "table in with_table)"),
        (dict(table=t1, with_table="nope"), TableNotFoundError, not_found(f"{ns}.nope")),
        (dict(table=f"{ns}.nope", with_table="s2"), TableNotFoundError, not_found(f"{ns}.nope")),
        (dict(table=t1, with_table=f"{ns}_other.s2"), ProcedureArgumentError,
         f"Table {ns}_other.s2 is not in database {ns}: REPLACE WITH TABLE swaps two tables of one database; "
         f"load the rows into a table of {ns} first"),
    ]
    for arguments, error, message in cases:
        with pytest.raises(error) as raised:
            doris.replace_table(spark, **arguments)
        assert str(raised.value) == message
    assert (table_rows(spark, t1), table_rows(spark, t2)) == ([(1, "a")], [(2, "b")])


def test_a_catalog_that_cannot_swap_in_one_transaction_is_refused(spark, ns, tmp_path):
    # Two renames are not one swap: any catalog but iceberg-doris's JDBC catalog is refused by name.
    catalog = "hadoop_swap"
    spark.conf.set(f"spark.sql.catalog.{catalog}", "org.apache.iceberg.spark.SparkCatalog")
    spark.conf.set(f"spark.sql.catalog.{catalog}.type", "hadoop")
    spark.conf.set(f"spark.sql.catalog.{catalog}.warehouse", str(tmp_path))
    spark.conf.set(f"spark.sql.catalog.{catalog}.cache-enabled", "false")
    for name in ("h1", "h2"):
        spark.sql(f"CREATE TABLE {catalog}.db.{name} (k INT) USING iceberg")
    default = spark.conf.get("spark.sql.defaultCatalog")
    spark.conf.set("spark.sql.defaultCatalog", catalog)
    try:
        with pytest.raises(TableStateError) as raised:
            operations.replace_table(spark, "db.h1", ReplaceTableRequest("h2"))
    finally:
        spark.conf.set("spark.sql.defaultCatalog", default)
    assert str(raised.value) == (
        f"Cannot replace db.h1 with db.h2: catalog {catalog} is a org.apache.iceberg.hadoop.HadoopCatalog, where two "
        "tables cannot change names in one commit (iceberg-doris swaps them in one transaction of its JDBC catalog, "
        "iceberg_doris.session()'s SQLite or PostgreSQL catalog). Nothing was changed."
    )


def test_invalid_arguments(spark, ns):
    assert sql_error(spark, f"CALL doris.replace_table(table => '{ns}.s1', with => 's2')") == (
        f"Unknown argument: with. Usage: {SIGNATURE}"
    )
    assert sql_error(spark, f"CALL doris.replace_table(table => '{ns}.s1')") == (
        f"Missing required parameters: [with_table]. Usage: {SIGNATURE}"
    )
    assert "swap" in sql_error(spark, f"CALL doris.replace_table('{ns}.s1', 's2', 'yes')")
