"""``DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP`` on merge-on-write UNIQUE KEY tables,
as Doris has it: an update that does not set the column sets it to the load's time.

The scenario is Doris's own regression suites
``regression-test/suites/nereids_p0/insert_into_table/update_on_current_timestamp.groovy`` (INSERT,
partial INSERT, UPDATE; its refused definitions are tests/ddl/test_on_update_current_timestamp.py) and
``regression-test/suites/unique_with_mow_p0/partial_update/test_update_on_current_timestamp.groovy``
(the same through stream loads with ``partial_columns``).
"""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from tests.procedures.test_keyed_loads import readers_agree

pytestmark = pytest.mark.spark

COLUMNS = (
    "`id` int(11) NOT NULL, `name` varchar(65533) DEFAULT \"unknown\", `score` int(11) NOT NULL, "
    "`test` int(11) NULL, `dft` int(11) DEFAULT \"4321\", "
    "`update_time` datetime(6) default current_timestamp(6) on update current_timestamp(6)"
)


def create(spark, namespace: str) -> str:
    table = f"{namespace}.stamped"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} ({COLUMNS}) UNIQUE KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 1 "
                       'PROPERTIES("replication_num" = "1", "enable_unique_key_merge_on_write" = "true")')
    return table


def stamps(spark, table: str) -> dict[int, object]:
    return {r.id: r.update_time for r in spark.sql(f"SELECT id, update_time FROM {table}").collect()}


def values(spark, table: str) -> list[tuple]:
    return [tuple(r) for r in spark.sql(f"SELECT id, name, score, test, dft FROM {table} ORDER BY id").collect()]


def test_loads_that_do_not_set_the_column_stamp_the_rows_they_update(spark, namespace, py_catalog):
    table = create(spark, namespace)
    # A whole-row load without the column: every row gets the load's time (its default).
    doris.load(spark, table=table, query="SELECT * FROM VALUES (2, 'doris2', 2000, 223, 1), (1, 'doris', 1000, 123, 1) "
               "AS t(id, name, score, test, dft)")
    first = stamps(spark, table)
    assert len(set(first.values())) == 1 and None not in first.values()

    # A partial update of keys 1 and 2 (stored) and 3 and 4 (new), not naming update_time: all
    # four rows take this load's time; the columns it does not name keep their stored values.
    doris.load(spark, table=table, query="SELECT * FROM VALUES (2, 2999), (1, 1999), (3, 3999), (4, 4999) AS t(id, score)",
               columns="id, score", partial_columns=True)
    assert values(spark, table) == [
        (1, "doris", 1999, 123, 1), (2, "doris2", 2999, 223, 1), (3, "unknown", 3999, None, 4321), (4, "unknown", 4999, None, 4321),
    ]
    second = stamps(spark, table)
    assert len(set(second.values())) == 1 and second[1] > first[1]

    # A partial update naming the column writes the given values.
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, '2000-01-01 00:00:01'), (2, '2000-01-02 00:00:01') "
               "AS t(id, update_time)", columns="id, update_time", partial_columns=True)
    third = stamps(spark, table)
    assert [str(third[1]), str(third[2])] == ["2000-01-01 00:00:01", "2000-01-02 00:00:01"]
    assert (third[3], third[4]) == (second[3], second[4])
    assert values(spark, table)[0] == (1, "doris", 1999, 123, 1)
    readers_agree(spark, py_catalog, table)


@pytest.mark.usefixtures("spark_statements")
def test_update_and_merge_stamp_the_rows_they_change(spark, namespace):
    table = create(spark, namespace)
    spark.sql(f"INSERT INTO {table} (id, name, score, test, dft) VALUES (1, 'a', 10, 1, 1), (2, 'b', 20, 2, 2), "
              "(3, 'c', 30, 3, 3), (4, 'd', 40, 4, 4)")
    inserted = stamps(spark, table)

    # UPDATE that does not set the column: the rows it changes get the statement's time.
    spark.sql(f"UPDATE {table} SET score = score * 2 WHERE id < 3")
    updated = stamps(spark, table)
    assert updated[1] == updated[2] > inserted[1]
    assert (updated[3], updated[4]) == (inserted[3], inserted[4])
    # UPDATE that sets it: the given value.
    spark.sql(f"UPDATE {table} SET update_time = '2023-10-02 00:00:00' WHERE id > 3")
    assert str(stamps(spark, table)[4]) == "2023-10-02 00:00:00"

    # MERGE INTO: a matched update that does not set the column stamps its row; one that sets it
    # writes the value; an inserted row gets the default, the statement's time.
    spark.sql(f"""
        MERGE INTO {table} t
        USING (SELECT * FROM VALUES (1, 5), (3, 7), (9, 1) AS s(id, delta)) s
        ON t.id = s.id
        WHEN MATCHED AND s.id = 3 THEN UPDATE SET score = t.score + s.delta, update_time = '2024-01-01 00:00:00'
        WHEN MATCHED THEN UPDATE SET score = t.score + s.delta
        WHEN NOT MATCHED THEN INSERT (id, score) VALUES (s.id, s.delta)
    """)
    merged = stamps(spark, table)
    assert merged[1] == merged[9] > updated[1]
    assert str(merged[3]) == "2024-01-01 00:00:00"
    assert merged[2] == updated[2]
    assert values(spark, table) == [
        (1, "a", 25, 1, 1), (2, "b", 40, 2, 2), (3, "c", 37, 3, 3), (4, "d", 40, 4, 4), (9, "unknown", 1, None, 4321),
    ]


def test_describe_shows_on_update(spark, namespace):
    # Doris's fe/fe-core/src/main/java/org/apache/doris/catalog/Column.java (toSql) writes
    # `ON UPDATE <default>` after the default; the definition is update_on_current_timestamp.groovy's
    table = create(spark, namespace)
    columns = {r[1]: r[2] for r in doris.describe(spark, table=table) if r[0] == "column"}
    assert columns["update_time"] == "DATETIME(6) NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)"
