"""``AUTO_INCREMENT`` columns as Doris has them: a load that leaves the column out, or gives it
NULL, gets values unique in the table; supplied values are kept; a partial update keeps the value
of a key that exists.

The scenarios and their expected rows are Doris's regression suites (each test cites its case):
``regression-test/suites/data_model_p0/unique/test_unique_table_auto_inc.groovy`` (its data files
and ``regression-test/data/data_model_p0/unique/test_unique_table_auto_inc.out``),
``regression-test/suites/data_model_p0/duplicate/storage/test_dup_tab_auto_inc_start_value_basic.groovy``
and ``regression-test/suites/unique_with_mow_p0/partial_update/test_partial_update_auto_inc.groovy``.
The refused definitions are tests/ddl/test_auto_increment.py; concurrent loads are
tests/concurrency/test_auto_increment_loads.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import DorisError
from tests.procedures.test_keyed_loads import readers_agree

pytestmark = pytest.mark.spark

CSV = {"column_separator": ","}
# regression-test/data/data_model_p0/unique/auto_inc_basic.csv and its siblings
BASIC = "Bob, 100\nAlice, 200\nTom, 300\nTest, 400\nCarter, 500\nSmith, 600\nBeata, 700\nDoris, 800\nNereids, 900"
WITH_NULL = (
    "null, Bob, 100\nnull, Alice, 200\nnull, Tom, 300\nnull, Test, 400\n4, Carter, 500\n5, Smith, 600\n"
    "6, Beata, 700\n7, Doris, 800\n8, Nereids, 900"
)
UPDATE_INPLACE = (
    "null, Bob, 100\nnull, Alice, 200\nnull, Tom, 300\nnull, Test, 400\n0, Carter, 500\n1, Smith, 600\n"
    "2, Beata, 700\n3, Doris, 800\n4, Nereids, 900"
)
PARTIAL_UPDATE1 = "1, 123\n3, 323\n5, 523\n7, 723\n9, 923"
PARTIAL_UPDATE2 = "Bob, 9990\nTom, 9992\nCarter, 9994\nBeata, 9996\nNereids, 9998"
PARTIAL_UPDATE3 = "BBob, 9990\nTTom, 9992\nCCarter, 9994\nBBeata, 9996\nNNereids, 9998"

BASIC_ROWS = [(1, "Bob", 100), (2, "Alice", 200), (3, "Tom", 300), (4, "Test", 400), (5, "Carter", 500),
              (6, "Smith", 600), (7, "Beata", 700), (8, "Doris", 800), (9, "Nereids", 900)]
MOW = 'PROPERTIES ("replication_allocation" = "tag.location.default: 1", "enable_unique_key_merge_on_write" = "true")'


def csv_file(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def create(spark, namespace: str, name: str, columns: str, keys: str, model: str = "UNIQUE", props: str = MOW) -> str:
    table = f"{namespace}.{name}"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} ({columns}) {model} KEY({keys}) "
                       f"DISTRIBUTED BY HASH({keys.split(',')[0]}) BUCKETS 1 {props}")
    return table


def stream_load(spark, table: str, path: str, columns: str, **options) -> None:
    doris.load(spark, table=table, path=path, format="csv", format_options=CSV, columns=columns, **options)


def rows(spark, query: str) -> list[tuple]:
    return [tuple(r) for r in spark.sql(query).collect()]


KEY_COLUMNS = "`id` BIGINT NOT NULL AUTO_INCREMENT, `name` varchar(65533) NOT NULL, `value` int(11) NOT NULL"
VALUE_COLUMNS = "`name` varchar(65533) NOT NULL, `value` int(11) NOT NULL, `id` BIGINT NOT NULL AUTO_INCREMENT"


def test_a_load_without_the_key_column_generates_it_and_supplied_keys_are_kept(spark, namespace, tmp_path, py_catalog):
    # test_unique_table_auto_inc.groovy, table1 ("auto-increment column is key"): a stream load of
    # name, value, then an INSERT with ids 0, 2, 4 (2 and 4 replace the generated keys).
    table = create(spark, namespace, "auto_key", KEY_COLUMNS, "`id`")
    stream_load(spark, table, csv_file(tmp_path, "basic.csv", BASIC), "name, value")
    assert readers_agree(spark, py_catalog, table) == BASIC_ROWS
    doris.load(spark, table=table, query="SELECT * FROM VALUES (0, 'Bob', 123), (2, 'Tom', 323), (4, 'Carter', 523) "
               "AS t(id, name, value)")
    assert readers_agree(spark, py_catalog, table) == [
        (0, "Bob", 123), (1, "Bob", 100), (2, "Tom", 323), (3, "Tom", 300), (4, "Carter", 523), (5, "Carter", 500),
        (6, "Smith", 600), (7, "Beata", 700), (8, "Doris", 800), (9, "Nereids", 900),
    ]


def test_a_value_column_is_generated_and_supplied_values_are_kept(spark, namespace, tmp_path):
    # test_unique_table_auto_inc.groovy, table2 ("auto-increment column is value")
    table = create(spark, namespace, "auto_value", VALUE_COLUMNS, "`name`, `value`")
    stream_load(spark, table, csv_file(tmp_path, "basic.csv", BASIC), "name, value")
    assert rows(spark, f"SELECT id, name, value FROM {table} ORDER BY id") == BASIC_ROWS
    doris.load(spark, table=table, query="SELECT * FROM VALUES ('Bob', 100, 1230), ('Tom', 300, 1232), "
               "('Carter', 500, 1234) AS t(name, value, id)")
    assert rows(spark, f"SELECT id, name, value FROM {table} ORDER BY id") == [
        (2, "Alice", 200), (4, "Test", 400), (6, "Smith", 600), (7, "Beata", 700), (8, "Doris", 800),
        (9, "Nereids", 900), (1230, "Bob", 100), (1232, "Tom", 300), (1234, "Carter", 500),
    ]


def test_null_in_the_column_gets_a_generated_value(spark, namespace, tmp_path):
    # test_unique_table_auto_inc.groovy, table3 ("auto inc key with null values") and table4
    # ("update rows in one batch": the supplied ids 1..4 replace the rows whose ids were generated).
    table = create(spark, namespace, "with_null", KEY_COLUMNS, "`id`")
    stream_load(spark, table, csv_file(tmp_path, "with_null.csv", WITH_NULL), "id, name, value")
    assert rows(spark, f"SELECT * FROM {table} ORDER BY id") == [
        (1, " Bob", 100), (2, " Alice", 200), (3, " Tom", 300), (4, " Carter", 500), (5, " Smith", 600),
        (6, " Beata", 700), (7, " Doris", 800), (8, " Nereids", 900),
    ]
    inplace = create(spark, namespace, "inplace", KEY_COLUMNS, "`id`")
    stream_load(spark, inplace, csv_file(tmp_path, "inplace.csv", UPDATE_INPLACE), "id, name, value")
    assert rows(spark, f"SELECT * FROM {inplace} ORDER BY id") == [
        (0, " Carter", 500), (1, " Smith", 600), (2, " Beata", 700), (3, " Doris", 800), (4, " Nereids", 900),
    ]


def test_partial_updates_keep_the_stored_value_and_generate_for_new_keys(spark, namespace, tmp_path):
    # test_unique_table_auto_inc.groovy, table5: a partial update of (id, value) on the generated keys
    key_table = create(spark, namespace, "partial_key", KEY_COLUMNS, "`id`")
    stream_load(spark, key_table, csv_file(tmp_path, "basic.csv", BASIC), "name, value")
    stream_load(spark, key_table, csv_file(tmp_path, "p1.csv", PARTIAL_UPDATE1), "id, value", partial_columns=True)
    assert rows(spark, f"SELECT * FROM {key_table} ORDER BY id") == [
        (1, "Bob", 123), (2, "Alice", 200), (3, "Tom", 323), (4, "Test", 400), (5, "Carter", 523), (6, "Smith", 600),
        (7, "Beata", 723), (8, "Doris", 800), (9, "Nereids", 923),
    ]
    # table6: a partial update of (name, id) sets the value column to the supplied ids
    value_table = create(spark, namespace, "partial_value", VALUE_COLUMNS, "`name`")
    stream_load(spark, value_table, csv_file(tmp_path, "basic.csv", BASIC), "name, value")
    stream_load(spark, value_table, csv_file(tmp_path, "p2.csv", PARTIAL_UPDATE2), "name, id", partial_columns=True)
    assert rows(spark, f"SELECT * FROM {value_table} ORDER BY id") == [
        ("Alice", 200, 2), ("Test", 400, 4), ("Smith", 600, 6), ("Doris", 800, 8), ("Bob", 100, 9990),
        ("Tom", 300, 9992), ("Carter", 500, 9994), ("Beata", 700, 9996), ("Nereids", 900, 9998),
    ]
    # table7: partial updates of (name, value) leave the stored ids alone and give new names new ids
    other = create(spark, namespace, "partial_other", VALUE_COLUMNS, "`name`")
    stream_load(spark, other, csv_file(tmp_path, "basic.csv", BASIC), "name, value")
    before = dict(rows(spark, f"SELECT name, id FROM {other}"))
    stream_load(spark, other, csv_file(tmp_path, "p2.csv", PARTIAL_UPDATE2), "name, value", partial_columns=True)
    stream_load(spark, other, csv_file(tmp_path, "p3.csv", PARTIAL_UPDATE3), "name, value", partial_columns=True)
    after = dict(rows(spark, f"SELECT name, id FROM {other}"))
    assert {name: after[name] for name in before} == before
    assert rows(spark, f"SELECT name, value FROM {other} ORDER BY value, name") == [
        ("Alice", 200), ("Test", 400), ("Smith", 600), ("Doris", 800), ("BBob", 9990), ("Bob", 9990),
        ("TTom", 9992), ("Tom", 9992), ("CCarter", 9994), ("Carter", 9994), ("BBeata", 9996), ("Beata", 9996),
        ("NNereids", 9998), ("Nereids", 9998),
    ]
    # qt_partial_update_value2: no id twice
    assert rows(spark, f"SELECT id, count(*) FROM {other} GROUP BY id HAVING count(*) > 1") == []


def test_a_partial_update_without_the_auto_increment_key_adds_rows(spark, namespace):
    # test_partial_update_auto_inc.groovy, test_primary_key_partial_update_auto_inc: loads that name
    # only `name` (partial or not) add rows with new ids
    table = create(spark, namespace, "pk_auto", "`id` BIGINT NOT NULL AUTO_INCREMENT, `name` varchar(65533) NOT NULL", "`id`",
                   props='PROPERTIES("replication_num" = "1", "enable_unique_key_merge_on_write" = "true")')
    doris.load(spark, table=table, query="SELECT 'doris1' AS name", partial_columns=True)
    doris.load(spark, table=table, query="SELECT 'doris2' AS name")
    doris.load(spark, table=table, query="SELECT * FROM VALUES ('doris3'), ('doris4') AS t(name)", partial_columns=True)
    assert rows(spark, f"SELECT name FROM {table} ORDER BY name") == [("doris1",), ("doris2",), ("doris3",), ("doris4",)]
    assert rows(spark, f"SELECT count(DISTINCT id) FROM {table}") == [(4,)]
    # test_primary_key_partial_update_auto_inc2: a partial update without the value column keeps it
    second = create(spark, namespace, "pk_auto2", "`id` BIGINT NOT NULL, `c1` int, `c2` int, `cid` BIGINT NOT NULL AUTO_INCREMENT",
                    "`id`", props='PROPERTIES("replication_num" = "1", "enable_unique_key_merge_on_write" = "true")')
    doris.load(spark, table=second, query="SELECT * FROM VALUES (1,10,10,10),(2,20,20,20),(3,30,30,30),(4,40,40,40) "
               "AS t(id, c1, c2, cid)")
    doris.load(spark, table=second, query="SELECT * FROM VALUES (1,99,99),(2,99,99) AS t(id, c1, c2)", partial_columns=True)
    assert rows(spark, f"SELECT * FROM {second} ORDER BY id") == [
        (1, 99, 99, 10), (2, 99, 99, 20), (3, 30, 30, 30), (4, 40, 40, 40),
    ]


def test_a_duplicate_table_starts_at_the_start_value(spark, namespace, tmp_path):
    # regression-test/suites/data_model_p0/duplicate/storage/test_dup_tab_auto_inc_start_value_basic.groovy:
    # AUTO_INCREMENT(10000) on the key, then on a value column
    key_table = create(spark, namespace, "dup_key", "`id` BIGINT NOT NULL AUTO_INCREMENT(10000), `name` varchar(65533) NOT NULL, "
                       "`value` int(11) NOT NULL", "`id`", model="DUPLICATE", props="")
    stream_load(spark, key_table, csv_file(tmp_path, "basic.csv", BASIC), "name, value")
    assert rows(spark, f"SELECT * FROM {key_table} ORDER BY id") == [(i + 9999, n, v) for i, n, v in BASIC_ROWS]
    value_table = create(spark, namespace, "dup_value", "`name` varchar(65533) NOT NULL, `value` int(11) NOT NULL, "
                         "`id` BIGINT NOT NULL AUTO_INCREMENT(10000)", "`name`, `value`", model="DUPLICATE", props="")
    stream_load(spark, value_table, csv_file(tmp_path, "basic.csv", BASIC), "name, value")
    stream_load(spark, value_table, csv_file(tmp_path, "basic.csv", BASIC), "name, value")
    ids = [r[0] for r in rows(spark, f"SELECT id FROM {value_table}")]
    assert len(ids) == len(set(ids)) == 18 and min(ids) == 10000


def test_a_catalog_without_a_shared_database_is_refused_by_name(spark, namespace):
    catalog = spark.conf.get("spark.sql.defaultCatalog")
    key = f"spark.sql.catalog.{catalog}.uri"
    uri = spark.conf.get(key)
    spark.conf.set(key, "jdbc:sqlite::memory:")
    try:
        with pytest.raises(DorisError, match="AUTO_INCREMENT is not supported on catalog .*in-memory SQLite"):
            create(spark, namespace, "nowhere", KEY_COLUMNS, "`id`")
    finally:
        spark.conf.set(key, uri)


def test_spark_statements_on_an_auto_increment_table(spark_statements, namespace):
    spark = spark_statements
    # test_unique_table_auto_inc.groovy, table8 and table9: INSERT with a column list leaving id out
    names = create(spark, namespace, "names", "`id` BIGINT NOT NULL AUTO_INCREMENT, `name` varchar(65533) NOT NULL", "`id`")
    spark.sql(f"INSERT INTO {names} (name) VALUES ('a'), ('b'), ('c')")
    assert rows(spark, f"SELECT * FROM {names} ORDER BY id, name") == [(1, "a"), (2, "b"), (3, "c")]
    # table11: UPDATE of another column keeps the ids; table12: INSERT ... SELECT of a stored id replaces its row
    region = create(spark, namespace, "region", "`r_regionkey` bigint(20) NOT NULL AUTO_INCREMENT, "
                    "`r_name` varchar(25) NOT NULL, `r_comment` varchar(152) NULL", "`r_regionkey`",
                    props='PROPERTIES ("replication_allocation" = "tag.location.default: 1")')
    spark.sql(f"INSERT INTO {region} VALUES (0, 'AFRICA', 'a'), (1, 'AMERICA', 'b'), (2, 'ASIA', 'c'), "
              "(3, 'EUROPE', 'd'), (4, 'MIDDLE EAST', 'e')")
    spark.sql(f"UPDATE {region} SET r_comment = 'foobar' WHERE r_regionkey <= 10")
    assert rows(spark, f"SELECT * FROM {region} ORDER BY r_regionkey") == [
        (0, "AFRICA", "foobar"), (1, "AMERICA", "foobar"), (2, "ASIA", "foobar"), (3, "EUROPE", "foobar"),
        (4, "MIDDLE EAST", "foobar"),
    ]
    spark.sql(f"INSERT INTO {region} SELECT r_regionkey, 'test1', 'test2' FROM {region} WHERE r_regionkey = 3")
    assert rows(spark, f"SELECT * FROM {region} WHERE r_regionkey = 3") == [(3, "test1", "test2")]
    assert rows(spark, f"SELECT count(*) FROM {region}") == [(5,)]


def test_describe_shows_the_column_as_doris_show_create_table_does(spark, namespace):
    # Doris's fe/fe-core/src/main/java/org/apache/doris/catalog/Column.java (toSql) writes
    # `AUTO_INCREMENT(start)` after NULL/NOT NULL; the definitions are those of
    # regression-test/suites/data_model_p0/duplicate/storage/test_dup_tab_auto_inc_start_value_basic.groovy
    key_table = create(spark, namespace, "described_key", "`id` BIGINT NOT NULL AUTO_INCREMENT(10000), "
                       "`name` varchar(65533) NOT NULL", "`id`", model="DUPLICATE", props="")
    value_table = create(spark, namespace, "described_value", VALUE_COLUMNS, "`name`")
    assert described(spark, key_table)["id"] == "BIGINT KEY NOT NULL AUTO_INCREMENT(10000)"
    assert described(spark, value_table)["id"] == "BIGINT NOT NULL AUTO_INCREMENT(1)"


def described(spark, table: str) -> dict[str, str]:
    return {r[1]: r[2] for r in doris.describe(spark, table=table) if r[0] == "column"}
