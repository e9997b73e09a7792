"""``MERGE INTO`` whose ``ON`` equates the unique key: the table's side of the join is the stored
rows of the source's keys, found through the key index, not a scan of the table (issue 54, point 3).

Each case runs the same statement on twin tables: one with ``ON t.k = s.k`` (the index decides),
one with an ``ON`` that means the same but does not name the key bare (``t.k + 0 = s.k``: the whole
table is joined, today's general plan). Both must give the same rows, and the snapshot summary's
``doris.merge-target`` says which way each went. The statements are Doris's own MERGE INTO shapes
(``regression-test/suites/load_p0/merge_into/test_merge_into.groovy``: conditional delete, update,
insert, the hidden and the mapped sequence column).
"""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.engine import key_index
from tests.procedures.test_keyed_loads import readers_agree
from tests.procedures.test_spark_statements import last_summary

pytestmark = [
    pytest.mark.spark,
    pytest.mark.usefixtures("spark_statements"),
]

TARGET = "doris.merge-target"


def twins(spark, namespace: str, columns: str, keys: str, properties: str, batches: list[str]) -> tuple[str, str]:
    """Two tables with the same rows, written in several loads (several data files)."""
    names = (f"{namespace}.by_index", f"{namespace}.by_scan")
    for name in names:
        doris.create_table(spark, ddl=f"CREATE TABLE {name} ({columns}) UNIQUE KEY({keys}) DISTRIBUTED BY HASH({keys}) "
                           f"BUCKETS 2 {properties}")
        for batch in batches:
            spark.sql(f"INSERT INTO {name} VALUES {batch}")
    return names


def merge_both(spark, py_catalog, names: tuple[str, str], statement: str, on_index: str, on_scan: str) -> list[tuple]:
    """Runs ``statement`` (naming ``{target}`` and ``{on}``) on both twins; returns their rows, the
    same (``py_catalog`` None: as Spark reads them, ordered by every column)."""
    by_index, by_scan = names
    spark.sql(statement.format(target=by_index, on=on_index))
    spark.sql(statement.format(target=by_scan, on=on_scan))
    assert last_summary(spark, by_index)[TARGET].startswith("key index: probed ")
    assert last_summary(spark, by_scan)[TARGET].startswith("scan: ON does not equate every unique-key column")
    if py_catalog is None:
        def read(name: str) -> list[tuple]:
            return [tuple(r) for r in spark.sql(f"SELECT * FROM {name}").orderBy(*spark.table(name).columns).collect()]
    else:
        def read(name: str) -> list[tuple]:
            return readers_agree(spark, py_catalog, name)
    rows = read(by_index)
    assert rows == read(by_scan)
    return rows


def test_matched_delete_update_and_not_matched_insert_with_conditions(spark, namespace, py_catalog):
    names = twins(spark, namespace, "k INT NOT NULL, v STRING, n BIGINT", "k", "",
                  ["(1, 'a', 10), (2, 'b', 20), (3, 'c', 30)", "(4, 'd', 40), (5, 'e', 50)", "(2, 'b2', 21)"])
    statement = """
        MERGE INTO {target} t
        USING (SELECT * FROM VALUES (1, 'x', 1), (2, 'y', 2), (4, 'z', -1), (6, 'new', 6), (7, 'skip', -7),
                                    (CAST(NULL AS INT), 'null key', -8) AS s(k, v, add)) s
        ON {on}
        WHEN MATCHED AND s.add < 0 THEN DELETE
        WHEN MATCHED AND t.n > 20 THEN UPDATE SET v = s.v, n = t.n + s.add
        WHEN MATCHED THEN UPDATE SET n = t.n + 100
        WHEN NOT MATCHED AND s.add > 0 THEN INSERT (k, v, n) VALUES (s.k, s.v, s.add)
    """
    rows = merge_both(spark, py_catalog, names, statement, "t.k = s.k", "t.k + 0 = s.k")
    # A NULL source key matches no stored row (and takes no clause here); 7 takes none either.
    assert rows == [(1, "a", 110), (2, "y", 23), (3, "c", 30), (5, "e", 50), (6, "new", 6)]


def test_a_mapped_sequence_column_decides_as_with_the_whole_table(spark, namespace, py_catalog):
    names = twins(spark, namespace, "k INT NOT NULL, v STRING, s INT", "k",
                  "PROPERTIES (\"function_column.sequence_col\" = \"s\")",
                  ["(1, 'one', 5), (2, 'two', 5)", "(3, 'three', 5)"])
    statement = """
        MERGE INTO {target} t
        USING (SELECT * FROM VALUES (1, 'older', 4), (2, 'newer', 6), (3, 'gone', 9), (4, 'four', 1) AS m(k, v, s)) m
        ON {on}
        WHEN MATCHED AND m.v = 'gone' THEN DELETE
        WHEN MATCHED THEN UPDATE SET v = m.v, s = m.s
        WHEN NOT MATCHED THEN INSERT (k, v, s) VALUES (m.k, m.v, m.s)
    """
    rows = merge_both(spark, py_catalog, names, statement, "t.k = m.k", "t.k + 0 = m.k")
    assert rows == [(1, "one", 5), (2, "newer", 6), (4, "four", 1)]  # 1's older sequence loses, as in Doris


def test_a_hidden_sequence_column_and_a_two_column_key_named_in_any_order(spark, namespace):
    names = twins(spark, namespace, "a INT NOT NULL, b VARCHAR(10) NOT NULL, v STRING", "a, b",
                  "PROPERTIES (\"function_column.sequence_type\" = \"int\")",
                  ["(1, 'x', 'one-x', 1), (1, 'y', 'one-y', 1)", "(2, 'x', 'two-x', 1)"])
    statement = """
        MERGE INTO {target} t
        USING (SELECT * FROM VALUES (1, 'x', 'new', true), (2, 'x', 'gone', true), (3, 'z', 'three', true),
                                    (1, 'y', 'ignored', false) AS s(a, b, v, keep)) s
        ON {on}
        WHEN MATCHED AND s.v = 'gone' THEN DELETE
        WHEN MATCHED THEN UPDATE SET v = s.v, __DORIS_SEQUENCE_COL__ = 2
        WHEN NOT MATCHED AND s.keep THEN INSERT (a, b, v, __DORIS_SEQUENCE_COL__) VALUES (s.a, s.b, s.v, 1)
    """
    # Conjuncts beyond the key (here one on the source only) keep the index: they are part of the join.
    # (readers_agree orders by the first key column only: Spark's reading, ordered, stands for it here.)
    rows = merge_both(spark, None, names, statement, "s.b = t.b AND s.keep AND t.a = s.a",
                      "s.b = t.b AND s.keep AND t.a + 0 = s.a")
    assert [r[:3] for r in rows] == [(1, "x", "new"), (1, "y", "one-y"), (3, "z", "three")]


def test_the_whole_table_is_joined_where_the_index_cannot_tell(spark, namespace, py_catalog):
    target = f"{namespace}.plain"
    doris.create_table(spark, ddl=f"CREATE TABLE {target} (k INT NOT NULL, v STRING) UNIQUE KEY(k) "
                       "DISTRIBUTED BY HASH(k) BUCKETS 1")
    spark.sql(f"INSERT INTO {target} VALUES (1, 'a'), (2, 'b')")
    # A source value of another type than the key's: "=" compares after a cast the index does not make.
    spark.sql(f"MERGE INTO {target} t USING (SELECT 1L AS k, 'wide' AS v) s ON t.k = s.k "
              "WHEN MATCHED THEN UPDATE SET v = s.v")
    assert last_summary(spark, target)[TARGET].startswith("scan: ON does not equate")
    spark.conf.set(key_index.ENABLED_CONF, "false")
    try:
        spark.sql(f"MERGE INTO {target} t USING (SELECT 2 AS k, 'off' AS v) s ON t.k = s.k "
                  "WHEN MATCHED THEN UPDATE SET v = s.v")
    finally:
        spark.conf.unset(key_index.ENABLED_CONF)
    assert last_summary(spark, target)[TARGET] == f"scan: the key index is off ({key_index.ENABLED_CONF})"
    spark.sql(f"MERGE INTO {target} t USING (SELECT 3 AS k, 'c' AS v WHERE false) s ON t.k = s.k "
              "WHEN NOT MATCHED THEN INSERT *")  # no source rows: nothing to look up
    assert readers_agree(spark, py_catalog, target) == [(1, "wide"), (2, "off")]
