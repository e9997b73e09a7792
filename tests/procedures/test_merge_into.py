"""``MERGE INTO`` a UNIQUE KEY table, as Doris 4.0 runs it (issue 54, point 3).

The cases and their expected rows are Doris's own regression suite
``regression-test/suites/load_p0/merge_into/test_merge_into.groovy`` (expected output in
``regression-test/data/load_p0/merge_into/test_merge_into.out``), less its NULL-key row (our key
columns are NOT NULL), and Doris's docs (``sql-manual/.../DML/MERGE-INTO.md``): the source is
left-joined to the table, each row takes the first clause whose condition holds, and the rows the
clauses make are one load (one commit, merge-on-write), read by every engine with no merge.
"""

from __future__ import annotations

import pytest
from pyspark.errors import IllegalArgumentException, ParseException

from iceberg_doris import doris
from tests.procedures.test_keyed_loads import readers_agree
from tests.procedures.test_spark_statements import last_summary, snapshot_count

pytestmark = [
    pytest.mark.spark,
    pytest.mark.usefixtures("spark_statements"),
]

SOURCE_ROWS = "(1, '12'), (2, '22'), (3, '33')"
DORIS_MERGE = """
    MERGE INTO {target} t1
    USING {source} t2
    ON t1.c1 = t2.c1
    WHEN MATCHED AND t1.c2 = '10' THEN DELETE
    WHEN MATCHED THEN UPDATE SET c2 = '10'
    WHEN NOT MATCHED THEN INSERT {insert}
"""


def doris_tables(spark, namespace: str, target_columns: str, properties: str = "") -> tuple[str, str]:
    """Doris's suite's source table and one target table (UNIQUE KEY(c1))."""
    source, target = f"{namespace}.merge_source", f"{namespace}.merge_target"
    doris.create_table(spark, ddl=f"CREATE TABLE {source} (c1 INT NOT NULL, c2 VARCHAR(255)) DUPLICATE KEY(c1) "
                       "DISTRIBUTED BY HASH(c1) BUCKETS 1")
    spark.sql(f"INSERT INTO {source} VALUES {SOURCE_ROWS}")
    doris.create_table(spark, ddl=f"CREATE TABLE {target} ({target_columns}) UNIQUE KEY(c1) DISTRIBUTED BY HASH(c1) "
                       f"BUCKETS 2 {properties}")
    return source, target


def test_doris_base_merge_deletes_updates_and_inserts_in_one_commit(spark, namespace, py_catalog):
    source, target = doris_tables(spark, namespace, "c1 INT NOT NULL, c2 VARCHAR(255)")
    spark.sql(f"INSERT INTO {target} VALUES (1, '1'), (2, '10')")
    before = snapshot_count(spark, target)
    result = spark.sql(DORIS_MERGE.format(target=target, source=source, insert="(c1, c2) VALUES (t2.c1, t2.c2)")).collect()
    assert result[0].status == "FINISHED" and result[0].loaded_rows == 3  # one delete, one update, one insert
    assert snapshot_count(spark, target) == before + 1
    assert last_summary(spark, target)["doris.operation"] == "load"
    assert readers_agree(spark, py_catalog, target) == [(1, "10"), (3, "33")]  # Doris's base_1, less its NULL key


def test_doris_hidden_sequence_column_merge(spark, namespace, py_catalog):
    source, target = doris_tables(spark, namespace, "c1 INT NOT NULL, c2 VARCHAR(255)",
                                  "PROPERTIES (\"function_column.sequence_type\" = \"date\")")
    spark.sql(f"INSERT INTO {target} (c1, c2, __DORIS_SEQUENCE_COL__) VALUES (1, '1', DATE'2020-02-02'), "
              "(2, '10', DATE'2020-02-02')")
    spark.sql(DORIS_MERGE.format(target=target, source=source,
                                 insert="(c1, c2, __DORIS_SEQUENCE_COL__) VALUES (t2.c1, t2.c2, DATE'2025-02-02')"))
    assert spark.sql(f"SELECT c1, c2 FROM {target} ORDER BY c1").collect() == [(1, "10"), (3, "33")]  # seq_col_1
    assert [r[2].isoformat() for r in readers_agree(spark, py_catalog, target)] == ["2020-02-02", "2025-02-02"]


def test_doris_sequence_column_mapped_to_a_column(spark, namespace, py_catalog):
    source, target = doris_tables(spark, namespace, "c1 INT NOT NULL, c2 VARCHAR(255), c3 DATE",
                                  "PROPERTIES (\"function_column.sequence_col\" = \"c3\")")
    spark.sql(f"INSERT INTO {target} VALUES (1, '1', DATE'2020-02-02'), (2, '10', DATE'2020-02-02')")
    spark.sql(DORIS_MERGE.format(target=target, source=source,
                                 insert="(c1, c2, c3) VALUES (t2.c1, t2.c2, DATE'2025-02-02')"))
    assert [(k, v, d.isoformat()) for k, v, d in readers_agree(spark, py_catalog, target)] == [
        (1, "10", "2020-02-02"), (3, "33", "2025-02-02")  # Doris's seq_map_1, less its NULL key
    ]


@pytest.mark.parametrize(
    ("clauses", "message"),
    [
        # Doris: "target has seq col but insert without seq col"
        ("WHEN MATCHED THEN UPDATE SET c2 = '10' WHEN NOT MATCHED THEN INSERT (c1, c2) VALUES (t2.c1, t2.c2)",
         "has sequence column, need to specify the sequence column"),
        # Doris: "update key column"
        ("WHEN MATCHED THEN UPDATE SET c1 = 10 WHEN NOT MATCHED THEN INSERT (c1, c2, __DORIS_SEQUENCE_COL__) "
         "VALUES (t2.c1, t2.c2, DATE'2025-02-02')", "Only value columns of unique table could be updated"),
        # Doris: "update not exist column"
        ("WHEN MATCHED THEN UPDATE SET c4 = 10", "unknown column in assignment list: c4"),
        # Doris: "insert not exist column"
        ("WHEN NOT MATCHED THEN INSERT (c1, c2, c4, __DORIS_SEQUENCE_COL__) VALUES (t2.c1, t2.c2, 1, DATE'2025-02-02')",
         "unknown column in target table: c4"),
    ],
)
def test_doris_refusals_commit_nothing(spark, namespace, clauses, message):
    source, target = doris_tables(spark, namespace, "c1 INT NOT NULL, c2 VARCHAR(255)",
                                  "PROPERTIES (\"function_column.sequence_type\" = \"date\")")
    spark.sql(f"INSERT INTO {target} (c1, c2, __DORIS_SEQUENCE_COL__) VALUES (1, '1', DATE'2020-02-02')")
    before = snapshot_count(spark, target)
    with pytest.raises(IllegalArgumentException, match=message):
        spark.sql(f"MERGE INTO {target} t1 USING {source} t2 ON t1.c1 = t2.c1 {clauses}")
    assert snapshot_count(spark, target) == before


def test_an_unconditional_clause_before_a_conditional_one_is_refused(spark, namespace):
    """Doris: "Only the last matched clause could without case predicate"; Spark's parser refuses it first."""
    source, target = doris_tables(spark, namespace, "c1 INT NOT NULL, c2 VARCHAR(255)")
    spark.sql(f"INSERT INTO {target} VALUES (1, '1')")
    before = snapshot_count(spark, target)
    with pytest.raises((ParseException, IllegalArgumentException), match="(?i)last|condition"):
        spark.sql(f"MERGE INTO {target} t1 USING {source} t2 ON t1.c1 = t2.c1 "
                  "WHEN MATCHED THEN UPDATE SET c2 = '10' WHEN MATCHED AND t1.c2 = '10' THEN DELETE")
    assert snapshot_count(spark, target) == before


def test_update_set_star_and_insert_star_take_the_source_columns_by_name(spark, namespace, py_catalog):
    target = f"{namespace}.users"
    doris.create_table(spark, ddl=f"CREATE TABLE {target} (id BIGINT NOT NULL, name STRING, visits INT DEFAULT \"0\") "
                       "UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2")
    spark.sql(f"INSERT INTO {target} VALUES (1, 'ann', 5), (2, 'bob', 7)")
    spark.sql(
        f"MERGE INTO {target} t USING (SELECT 2L AS id, 'bobby' AS name UNION ALL SELECT 3L, 'cy') s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    )
    # SET * keeps the stored visits (the source has none); INSERT * gives visits its default.
    assert readers_agree(spark, py_catalog, target) == [(1, "ann", 5), (2, "bobby", 7), (3, "cy", 0)]


def test_an_insert_that_leaves_out_a_not_null_column_without_default_is_refused(spark, namespace):
    target = f"{namespace}.strict"
    doris.create_table(spark, ddl=f"CREATE TABLE {target} (id BIGINT NOT NULL, name STRING NOT NULL) "
                       "UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1")
    with pytest.raises(IllegalArgumentException, match="Column has no default value, column=name"):
        spark.sql(f"MERGE INTO {target} t USING (SELECT 1L AS id) s ON t.id = s.id "
                  "WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id)")
    assert snapshot_count(spark, target) == 0


def test_rows_of_one_key_are_decided_by_the_sequence_column_as_in_doris(spark, namespace, py_catalog):
    """Doris: duplicate join rows behave like an INSERT of them: the sequence column decides."""
    target = f"{namespace}.seq"
    doris.create_table(spark, ddl=f"CREATE TABLE {target} (k INT NOT NULL, v STRING, s INT) UNIQUE KEY(k) "
                       "DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES (\"function_column.sequence_col\" = \"s\")")
    spark.sql(f"INSERT INTO {target} VALUES (1, 'stored', 5)")
    spark.sql(
        f"MERGE INTO {target} t USING (SELECT 1 AS k, 'high' AS v, 9 AS s UNION ALL SELECT 1, 'low', 7 "
        "UNION ALL SELECT 2, 'older', 1 UNION ALL SELECT 2, 'newer', 2) m ON t.k = m.k "
        "WHEN MATCHED THEN UPDATE SET v = m.v, s = m.s WHEN NOT MATCHED THEN INSERT (k, v, s) VALUES (m.k, m.v, m.s)"
    )
    assert readers_agree(spark, py_catalog, target) == [(1, "high", 9), (2, "newer", 2)]


def test_a_clause_condition_and_the_stored_row_in_an_update(spark, namespace, py_catalog):
    target = f"{namespace}.counter"
    doris.create_table(spark, ddl=f"CREATE TABLE {target} (k INT NOT NULL, n BIGINT, note STRING) UNIQUE KEY(k) "
                       "DISTRIBUTED BY HASH(k) BUCKETS 2")
    spark.sql(f"INSERT INTO {target} VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')")
    spark.sql(
        f"MERGE INTO {target} t USING (SELECT * FROM VALUES (1, 5), (2, -1), (3, 0), (4, 7) AS s(k, add)) s "
        "ON t.k = s.k "
        "WHEN MATCHED AND s.add < 0 THEN DELETE "
        "WHEN MATCHED AND s.add = 0 THEN UPDATE SET note = 'untouched' "
        "WHEN MATCHED THEN UPDATE SET n = t.n + s.add "
        "WHEN NOT MATCHED AND s.add > 100 THEN INSERT (k, n) VALUES (s.k, 0) "
        "WHEN NOT MATCHED THEN INSERT (k, n, note) VALUES (s.k, s.add, 'new')"
    )
    assert readers_agree(spark, py_catalog, target) == [(1, 15, "a"), (3, 30, "untouched"), (4, 7, "new")]


def test_what_doris_has_no_clause_or_model_for_is_refused_by_name(spark, namespace):
    target = f"{namespace}.u"
    doris.create_table(spark, ddl=f"CREATE TABLE {target} (k INT NOT NULL, v STRING) UNIQUE KEY(k) "
                       "DISTRIBUTED BY HASH(k) BUCKETS 1")
    with pytest.raises(IllegalArgumentException, match="WHEN NOT MATCHED BY SOURCE is refused"):
        spark.sql(f"MERGE INTO {target} t USING (SELECT 1 AS k, 'x' AS v) s ON t.k = s.k "
                  "WHEN NOT MATCHED BY SOURCE THEN DELETE")
    duplicate = f"{namespace}.d"
    doris.create_table(spark, ddl=f"CREATE TABLE {duplicate} (k INT NOT NULL, v STRING) DUPLICATE KEY(k) "
                       "DISTRIBUTED BY HASH(k) BUCKETS 1")
    with pytest.raises(IllegalArgumentException, match="Doris runs MERGE INTO on UNIQUE KEY tables only"):
        spark.sql(f"MERGE INTO {duplicate} t USING (SELECT 1 AS k, 'x' AS v) s ON t.k = s.k "
                  "WHEN NOT MATCHED THEN INSERT *")
    assert snapshot_count(spark, target) == snapshot_count(spark, duplicate) == 0
