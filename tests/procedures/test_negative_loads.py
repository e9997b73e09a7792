"""``merge_type => 'NEGATIVE'`` (Doris ``DATA INFILE (...) NEGATIVE`` / stream load ``negative:
true``): the loaded rows' SUM values are negated, undoing an earlier load of the same rows on an
AGGREGATE KEY table whose values are all SUM; refused elsewhere with Doris's messages."""

from __future__ import annotations

from decimal import Decimal

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import LoadError, ProcedureArgumentError
from tests.support import duckdb_reader

pytestmark = pytest.mark.spark

FIRST = "SELECT * FROM VALUES (1, 'a', 2L, 1.50BD), (2, 'b', 5L, 2.25BD), (2, 'b', 1L, 0.25BD) AS t(k, g, n, amount)"
SECOND = "SELECT * FROM VALUES (1, 'a', 10L, 10.00BD), (3, 'c', 7L, 7.00BD) AS t(k, g, n, amount)"


def aggregate_table(spark, namespace: str) -> str:
    table = f"{namespace}.totals"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, g VARCHAR(8) NOT NULL, n BIGINT SUM, amount DECIMAL(10, 2) SUM) "
        "AGGREGATE KEY(k, g) DISTRIBUTED BY HASH(k) BUCKETS 2",
    )
    return table


def rows(spark, table: str) -> list[tuple]:
    return [tuple(r) for r in spark.sql(f"SELECT k, g, n, amount FROM {table} ORDER BY k").collect()]


def snapshots(spark, table: str) -> int:
    return spark.sql(f"SELECT count(*) FROM {table}.snapshots").collect()[0][0]


def test_a_negative_load_of_the_same_rows_undoes_an_earlier_load(spark, namespace, py_catalog):
    table = aggregate_table(spark, namespace)
    doris.load(spark, table=table, query=FIRST, label="first")
    doris.load(spark, table=table, query=SECOND, label="second")
    assert rows(spark, table) == [(1, "a", 12, Decimal("11.50")), (2, "b", 6, Decimal("2.50")), (3, "c", 7, Decimal("7.00"))]

    [undo] = spark.sql(
        f"CALL doris.load(table => '{table}', query => \"{FIRST}\", merge_type => 'NEGATIVE', label => 'undo_first')"
    ).collect()
    assert (undo.status, undo.loaded_rows, undo.deleted_rows) == ("FINISHED", 3, 0)
    # What the second load alone put in; key 2 stays with zero sums, as in Doris (a NEGATIVE load
    # subtracts, it deletes nothing).
    expected = [(1, "a", 10, Decimal("10.00")), (2, "b", 0, Decimal("0.00")), (3, "c", 7, Decimal("7.00"))]
    assert rows(spark, table) == expected
    loaded = py_catalog.load_table(table)
    assert sorted((r["k"], r["g"], r["n"], r["amount"]) for r in loaded.scan().to_arrow().to_pylist()) == expected
    assert duckdb_reader.read_rows(loaded.metadata_location, "k, g, n, amount", order_by="k") == expected
    labels = [r[0] for r in spark.sql(f"SELECT summary['doris.label'] FROM {table}.snapshots ORDER BY committed_at").collect()]
    assert labels[-1] == "undo_first"


def test_a_negative_load_of_a_key_not_stored_adds_it_with_negated_values(spark, namespace, py_catalog):
    table = aggregate_table(spark, namespace)
    doris.load(spark, table=table, query=SECOND)
    source = spark.sql("SELECT * FROM VALUES (4, 'd', 3L, CAST(NULL AS DECIMAL(10, 2))) AS t(k, g, n, amount)")
    [result] = doris.load(spark, table=table, source=source, merge_type="negative")
    assert result.loaded_rows == 1
    assert rows(spark, table) == [(1, "a", 10, Decimal("10.00")), (3, "c", 7, Decimal("7.00")), (4, "d", -3, None)]
    assert sorted((r["k"], r["n"]) for r in py_catalog.load_table(table).scan().to_arrow().to_pylist()) == [(1, 10), (3, 7), (4, -3)]


def test_a_negative_load_with_a_columns_mapping_negates_the_mapped_values(spark, namespace):
    table = aggregate_table(spark, namespace)
    doris.load(spark, table=table, query=SECOND)
    doris.load(
        spark, table=table, query="SELECT 1 AS id, 'a' AS grp, 2L AS x", columns="id, grp, x, k = id, g = grp, n = x * 2, amount = 1.25",
        merge_type="NEGATIVE",
    )
    assert rows(spark, table) == [(1, "a", 6, Decimal("8.75")), (3, "c", 7, Decimal("7.00"))]


@pytest.mark.parametrize(
    ("ddl", "message"),
    [
        (
            "(k INT NOT NULL, v BIGINT) DUPLICATE KEY(k)",
            "Load for AGG_KEYS table should not specify NEGATIVE: merge_type NEGATIVE negates the SUM columns of an "
            "AGGREGATE KEY table, and this table has DUPLICATE keys",
        ),
        (
            "(k INT NOT NULL, v BIGINT) UNIQUE KEY(k)",
            "Load for AGG_KEYS table should not specify NEGATIVE: merge_type NEGATIVE negates the SUM columns of an "
            "AGGREGATE KEY table, and this table has UNIQUE keys",
        ),
        ("(k INT NOT NULL, v BIGINT SUM, top BIGINT MAX) AGGREGATE KEY(k)", "Column is not SUM AggregateType. column:top"),
        ("(k INT NOT NULL, v BIGINT SUM, last BIGINT REPLACE) AGGREGATE KEY(k)", "Column is not SUM AggregateType. column:last"),
    ],
)
def test_negative_is_refused_where_doris_refuses_it_and_nothing_is_committed(spark, namespace, ddl, message):
    table = f"{namespace}.other"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} {ddl} DISTRIBUTED BY HASH(k) BUCKETS 1")
    query = "SELECT 1 AS k, 2L AS v" + (", 3L AS top" if "top" in ddl else ", 3L AS last" if "last" in ddl else "")
    doris.load(spark, table=table, query=query)
    before = snapshots(spark, table)
    with pytest.raises(LoadError) as raised:
        doris.load(spark, table=table, query=query, merge_type="NEGATIVE")
    assert str(raised.value) == message
    assert snapshots(spark, table) == before
    assert spark.sql(f"SELECT v FROM {table}").collect()[0][0] == 2


def test_negative_with_overwrite_or_delete_on_is_refused(spark, namespace):
    table = aggregate_table(spark, namespace)
    doris.load(spark, table=table, query=SECOND)
    before = snapshots(spark, table)
    with pytest.raises(LoadError) as raised:
        doris.load(spark, table=table, query=SECOND, merge_type="NEGATIVE", overwrite=True)
    assert str(raised.value) == (
        "merge_type NEGATIVE cannot be combined with overwrite: the overwrite replaces the partitions' rows, so there "
        "is no earlier load left to undo; load the rows to keep with merge_type APPEND"
    )
    with pytest.raises(LoadError) as raised:
        doris.load(spark, table=table, query=SECOND, merge_type="NEGATIVE", delete_on="k = 1")
    assert str(raised.value) == "not support DELETE ON clause when merge type is not MERGE."
    with pytest.raises(ProcedureArgumentError) as raised:
        doris.load(spark, table=table, query=SECOND, merge_type="NEGATIV")
    assert str(raised.value) == "[INVALID_ARGUMENT]Invalid merge type NEGATIV: use APPEND, MERGE, DELETE or NEGATIVE"
    assert snapshots(spark, table) == before
    assert rows(spark, table) == [(1, "a", 10, Decimal("10.00")), (3, "c", 7, Decimal("7.00"))]
