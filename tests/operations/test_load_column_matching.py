"""Which source column feeds which table column in a query or table load: by name when the names
are the table's, by position when none are, and a refusal (nothing committed) when a column would
be dropped or filled by accident."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import LoadError
from tests.concurrency import snapshot_count

pytestmark = pytest.mark.spark


@pytest.fixture
def table(spark, namespace):
    name = f"{namespace}.cols"
    doris.create_table(spark, ddl=f"CREATE TABLE {name} (k INT NOT NULL, v STRING, s INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    return name


def rows(spark, table: str) -> list[tuple]:
    return [tuple(r) for r in spark.sql(f"SELECT * FROM {table} ORDER BY k").collect()]


def test_names_that_are_not_the_tables_map_by_position(spark, table):
    doris.load(spark, table=table, query="SELECT 1, 'a', 7")
    doris.load(spark, table=table, query="SELECT 2 AS id, 'b' AS name, 8 AS version")
    assert rows(spark, table) == [(1, "a", 7), (2, "b", 8)]


def test_the_tables_names_map_by_name_in_any_order(spark, table):
    doris.load(spark, table=table, query="SELECT 9 AS s, 'a' AS v, 1 AS k")
    doris.load(spark, table=table, query="SELECT 2 AS k, 'b' AS v")  # s not named: NULL
    assert rows(spark, table) == [(1, "a", 9), (2, "b", None)]


def test_a_misnamed_column_is_refused_not_stored_as_null(spark, table):
    before = snapshot_count(spark, table)
    with pytest.raises(LoadError) as raised:
        doris.load(spark, table=table, query="SELECT 1 AS k, 'a' AS value, 3 AS s")
    assert str(raised.value) == (
        "the source's column(s) value match no column of the table, and its column(s) v would get no value (NULL or "
        "their default): rename the source's columns like the table's (SELECT x AS k, ...), map them with "
        "columns => '...', or leave the unused ones out of the source"
    )
    assert snapshot_count(spark, table) == before


def test_an_extra_column_is_refused_unless_the_load_uses_it(spark, table):
    with pytest.raises(LoadError) as raised:
        doris.load(spark, table=table, query="SELECT 1 AS k, 'a' AS v, 3 AS s, 'x' AS note")
    assert str(raised.value) == (
        "the source's column(s) note match no column of the table and would be dropped: leave them out of the "
        "source, or name them in where / delete_on / sequence_col if the load needs them"
    )
    doris.load(spark, table=table, query="SELECT 1 AS k, 'a' AS v, 3 AS s")
    assert rows(spark, table) == [(1, "a", 3)]
    doris.load(spark, table=table, query="SELECT 1 AS k, 'a' AS v, 3 AS s, 'D' AS op", merge_type="MERGE", delete_on="op = 'D'")
    assert rows(spark, table) == []


def test_a_positional_source_of_the_wrong_width_is_refused(spark, table):
    with pytest.raises(LoadError) as raised:
        doris.load(spark, table=table, query="SELECT 1 AS id, 'a' AS name")
    assert str(raised.value) == (
        "Column count doesn't match value count: the source's columns (id, name) are not named like the table's and "
        "there are 2 of them, not 3 (k, v, s); name them like the table's columns (SELECT x AS k, ...) or give one "
        "per table column, in table order"
    )


def test_a_partial_update_must_name_its_columns(spark, table):
    with pytest.raises(LoadError) as raised:
        doris.load(spark, table=table, query="SELECT 1, 'b'", partial_columns=True)
    assert str(raised.value) == (
        "You must explicitly specify the columns to be updated when updating partial columns using the INSERT "
        "statement. The source's columns (1, b) are none of the table's (k, v, s): name them (SELECT 1 AS k, ...) "
        "or give a columns mapping"
    )
