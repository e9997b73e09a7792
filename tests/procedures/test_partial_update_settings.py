"""Partial-column updates as Doris makes them beside ``partial_columns``: an ``INSERT`` with a
column list under the session settings ``spark.doris.enable_unique_key_partial_update`` and
``spark.doris.enable_agg_key_partial_update`` (Doris's session variables of those names), and the
partial update of an AGGREGATE KEY table, whose left-out columns are NULL, not their defaults.

The statements and expected rows are Doris's regression suites (paths under apache/doris):
``regression-test/suites/nereids_p0/insert_into_table/partial_update_seq_col.groovy``,
``regression-test/suites/unique_with_mow_p0/partial_update/test_agg_partial_update_stream_load.groovy``
and ``.../test_agg_partial_update_insert_into.groovy`` (their .out files under regression-test/data).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import LoadError
from iceberg_doris.procedures.statements import AGG_KEY_PARTIAL_UPDATE, UNIQUE_KEY_PARTIAL_UPDATE
from tests.procedures.test_keyed_loads import readers_agree

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("spark_statements")]


@pytest.fixture
def partial_settings(spark) -> Iterator[object]:
    yield spark
    for key in (UNIQUE_KEY_PARTIAL_UPDATE, AGG_KEY_PARTIAL_UPDATE):
        spark.conf.unset(key)


def rows(spark, table: str) -> list[tuple]:
    return [tuple(r) for r in spark.sql(f"SELECT * FROM {table} ORDER BY 1").collect()]


def test_a_unique_insert_listing_columns_updates_only_those_under_the_setting(spark, namespace, partial_settings):
    # nereids_p0/insert_into_table/partial_update_seq_col.groovy
    table = f"{namespace}.seq_partial"
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {table} (`id` int(11) NOT NULL, `name` varchar(65533) DEFAULT \"unknown\", "
        "`score` int(11) NOT NULL, `test` int(11) NULL, `dft` int(11) DEFAULT \"4321\", `update_time` date NULL) "
        "UNIQUE KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 1 PROPERTIES(\"replication_num\" = \"1\", "
        "\"enable_unique_key_merge_on_write\" = \"true\", \"function_column.sequence_col\" = \"update_time\")"
    ))
    spark.sql(f"INSERT INTO {table} VALUES (2, 'doris2', 2000, 223, 1, DATE'2023-01-01'), (1, 'doris', 1000, 123, 1, DATE'2023-01-01')")
    # A whole-row INSERT without the sequence column is refused, as in Doris.
    with pytest.raises(Exception, match="sequence column"):
        spark.sql(f"INSERT INTO {table} (id, score) VALUES (2, 400), (1, 200)")
    spark.conf.set(UNIQUE_KEY_PARTIAL_UPDATE, "true")
    spark.sql(f"INSERT INTO {table} (id, score) VALUES (2, 400), (1, 200)")
    assert rows(spark, table)[:2] == [
        (1, "doris", 200, 123, 1, _date("2023-01-01")), (2, "doris2", 400, 223, 1, _date("2023-01-01")),
    ]
    spark.sql(f"""INSERT INTO {table} (id, score, update_time) VALUES
        (2, 2500, DATE'2023-07-19'), (2, 2600, DATE'2023-07-20'), (1, 1300, DATE'2022-07-19'),
        (3, 1500, DATE'2022-07-20'), (3, 2500, DATE'2022-07-18')""")
    # qt_partial_update_with_seq: an INSERT keeps the last row of a key it repeats (3), whose
    # sequence value then meets the stored one (1 keeps its row).
    assert rows(spark, table) == [
        (1, "doris", 200, 123, 1, _date("2023-01-01")),
        (2, "doris2", 2600, 223, 1, _date("2023-07-20")),
        (3, "unknown", 2500, None, 4321, _date("2022-07-18")),
    ]


AGG_TABLE = (
    "(`id` int(11) NOT NULL, `name` varchar(65533) REPLACE_IF_NOT_NULL NOT NULL, `score` int(11) REPLACE_IF_NOT_NULL NOT NULL, "
    "`test` int(11) REPLACE_IF_NOT_NULL NULL, `dft` int(11) REPLACE_IF_NOT_NULL DEFAULT \"4321\") "
    "AGGREGATE KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 1 PROPERTIES(\"replication_num\" = \"1\")"
)


def test_a_partial_load_of_an_aggregate_table_leaves_out_columns_as_null(spark, namespace, py_catalog):
    # unique_with_mow_p0/partial_update/test_agg_partial_update_stream_load.groovy
    table = f"{namespace}.agg_partial"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} {AGG_TABLE}")
    spark.sql(f"INSERT INTO {table} VALUES (2, 'doris2', 2000, 223, 1)")
    spark.sql(f"INSERT INTO {table} VALUES (1, 'doris', 1000, 123, 1)")

    def partial(batch: str, columns: str, partial_columns: bool = True) -> None:
        doris.load(spark, table=table, query=f"SELECT * FROM VALUES {batch} AS t({columns})", partial_columns=partial_columns)

    partial("(1, 200), (2, 400)", "id, score")
    assert rows(spark, table) == [(1, "doris", 200, 123, 1), (2, "doris2", 400, 223, 1)]  # qt_basic: dft kept, not 4321
    partial("(1, 300), (2, 500), (1, 444), (2, 555)", "id, score")
    assert rows(spark, table) == [(1, "doris", 444, 123, 1), (2, "doris2", 555, 223, 1)]  # qt_basic_with_duplicate
    partial("(3, '\"stranger\"', 500), (4, '\"foreigner\"', 600)", "id, name, score")
    assert rows(spark, table)[2:] == [(3, '"stranger"', 500, None, None), (4, '"foreigner"', 600, None, None)]
    partial("(3, '\"stranger\"', 500), (4, '\"foreigner\"', 600)", "id, name, score", partial_columns=False)
    assert rows(spark, table)[2:] == [(3, '"stranger"', 500, None, 4321), (4, '"foreigner"', 600, None, 4321)]
    # Doris stores NULL in the NOT NULL column of a new key; an Iceberg required column cannot.
    before = rows(spark, table)
    with pytest.raises(LoadError, match="the unmentioned column `name` is NOT NULL"):
        partial("(1, 7), (9, 9)", "id, score")
    assert rows(spark, table) == before
    assert readers_agree(spark, py_catalog, table) == before


def test_an_aggregate_insert_listing_columns_is_partial_under_the_setting(spark, namespace, partial_settings):
    # unique_with_mow_p0/partial_update/test_agg_partial_update_insert_into.groovy (tableName2)
    table = f"{namespace}.agg_insert"
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {table} (k int NOT NULL, v int replace_if_not_null null, v2 int replace_if_not_null null, "
        "v3 int replace_if_not_null null) aggregate key (k) distributed by hash(k) buckets 1"
    ))
    spark.sql(f"INSERT INTO {table} VALUES (1,1,3,4), (2,2,4,5), (3,3,2,3), (4,4,1,2)")
    spark.conf.set(AGG_KEY_PARTIAL_UPDATE, "true")
    spark.sql(f"INSERT INTO {table} (k, v) SELECT v2, v3 FROM {table}")
    assert rows(spark, table) == [(1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 2, 3), (4, 5, 1, 2)]  # qt_4

    # The setting is what keeps a column's stored value over its DEFAULT.
    other = f"{namespace}.agg_default"
    doris.create_table(spark, ddl=f"CREATE TABLE {other} {AGG_TABLE}")
    spark.sql(f"INSERT INTO {other} VALUES (1, 'doris', 1000, 123, 1)")
    spark.sql(f"INSERT INTO {other} (id, score) VALUES (1, 200)")
    assert rows(spark, other) == [(1, "doris", 200, 123, 1)]
    spark.conf.unset(AGG_KEY_PARTIAL_UPDATE)
    spark.sql(f"INSERT INTO {other} (id, name, score) VALUES (1, 'doris', 300)")
    assert rows(spark, other) == [(1, "doris", 300, 123, 4321)]  # a whole row: dft takes its default


def _date(text: str):
    import datetime as dt

    return dt.date.fromisoformat(text)
