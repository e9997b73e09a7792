"""Doris's ``UPDATE t SET ... FROM <relations> [WHERE ...]`` on a UNIQUE KEY table (issue 53).

Spark's grammar has no ``UPDATE ... FROM``; the session's parser takes it first
(``jvm/.../UpdateFromParser.java``) and runs it as Doris's UpdateCommand does
(``fe/fe-core/src/main/java/org/apache/doris/nereids/trees/plans/commands/UpdateCommand.java``): the
table joined to the FROM relations under the WHERE condition, each joined row the table's row with
the assignments applied, upserted by key in one load (one commit). The cases and their expected rows
are Doris's regression suites (paths at each test) with their ``.out`` files.
"""

from __future__ import annotations

import datetime

import pytest
from pyspark.errors import IllegalArgumentException, ParseException

from iceberg_doris import doris
from tests.procedures.test_keyed_loads import readers_agree
from tests.procedures.test_spark_statements import last_summary, snapshot_count

pytestmark = [
    pytest.mark.spark,
    pytest.mark.usefixtures("spark_statements"),
]

D = datetime.date


def doris_tables(spark, namespace: str, target_properties: str = "") -> tuple[str, str, str, str]:
    """The tables of regression-test/suites/update/test_update_unique.groovy ("test complex update
    syntax"): t1 and t2 UNIQUE KEY(id), t3 and t4 one id column each, with the suite's rows."""
    t1, t2, t3, t4 = (f"{namespace}.t{i}" for i in range(1, 5))
    columns = "id INT NOT NULL, c1 BIGINT, c2 STRING, c3 DOUBLE, c4 DATE"
    for table in (t1, t2):
        properties = target_properties if table == t1 else ""
        doris.create_table(spark, ddl=f"CREATE TABLE {table} ({columns}) UNIQUE KEY(id) DISTRIBUTED BY HASH(id) "
                           f"BUCKETS 2 {properties}")
    for table in (t3, t4):
        doris.create_table(spark, ddl=f"CREATE TABLE {table} (id INT NOT NULL) DUPLICATE KEY(id) "
                           "DISTRIBUTED BY HASH(id) BUCKETS 1")
    spark.sql(f"INSERT INTO {t1} VALUES (1, 1, '1', 1.0, DATE'2000-01-01'), (2, 2, '2', 2.0, DATE'2000-01-02'), "
              "(3, 3, '3', 3.0, DATE'2000-01-03')")
    spark.sql(f"INSERT INTO {t2} VALUES (1, 10, '10', 10.0, DATE'2000-01-10'), (2, 20, '20', 20.0, DATE'2000-01-20'), "
              "(3, 30, '30', 30.0, DATE'2000-01-30'), (4, 4, '4', 4.0, DATE'2000-01-04'), "
              "(5, 5, '5', 5.0, DATE'2000-01-05')")
    spark.sql(f"INSERT INTO {t3} VALUES (1), (4), (5)")
    spark.sql(f"INSERT INTO {t4} VALUES (2), (4), (5)")
    return t1, t2, t3, t4


# regression-test/data/update/test_update_unique.out
COMPLEX_UPDATE = [(1, 10, "1", 1000.0, D(2000, 1, 1)), (2, 2, "2", 2.0, D(2000, 1, 2)), (3, 3, "3", 3.0, D(2000, 1, 3))]
COMPLEX_UPDATE_BY_ALIAS = [
    (1, 10, "1", 1000.0, D(2000, 1, 1)), (2, 20, "2", 2000.0, D(2000, 1, 2)), (3, 3, "3", 3.0, D(2000, 1, 3)),
]


def test_doris_complex_update_and_update_by_alias(spark, namespace, py_catalog):
    # regression-test/suites/update/test_update_unique.groovy: complex_update, complex_update_by_alias
    t1, t2, t3, t4 = doris_tables(spark, namespace)
    before = snapshot_count(spark, t1)
    result = spark.sql(f"""
        update {t1} set {t1}.c1 = {t2}.c1, {t1}.c3 = {t2}.c3 * 100 from {t2} inner join {t3} on {t2}.id = {t3}.id
        where {t1}.id = {t2}.id;
    """).collect()[0]
    assert result.status == "FINISHED" and result.loaded_rows == 1
    assert snapshot_count(spark, t1) == before + 1
    assert last_summary(spark, t1)["doris.operation"] == "load"
    assert readers_agree(spark, py_catalog, t1) == COMPLEX_UPDATE

    spark.sql(f"update {t1} t1a set t1a.c1 = {t2}.c1, t1a.c3 = {t2}.c3 * 100 from {t2} inner join {t4} "
              f"on {t2}.id = {t4}.id where t1a.id = {t2}.id")
    assert readers_agree(spark, py_catalog, t1) == COMPLEX_UPDATE_BY_ALIAS


def test_doris_nereids_update_on_a_sequence_table(spark, namespace, py_catalog):
    # regression-test/suites/nereids_p0/update/load.groovy (the tables) and update_unique_table.groovy,
    # expected rows in regression-test/data/nereids_p0/update/update_unique_table.out.
    t1, t2, t3 = (f"{namespace}.{name}" for name in ("t1", "t2", "t3"))
    doris.create_table(spark, ddl=f"CREATE TABLE {t1} (id INT NOT NULL, id1 INT NOT NULL, c1 BIGINT, c2 STRING, "
                       "c3 DOUBLE, c4 DATE) UNIQUE KEY(id, id1) DISTRIBUTED BY HASH(id, id1) BUCKETS 2 "
                       "PROPERTIES (\"function_column.sequence_col\" = \"c4\")")
    doris.create_table(spark, ddl=f"CREATE TABLE {t2} (id INT NOT NULL, c1 BIGINT, c2 STRING, c3 DOUBLE, c4 DATE) "
                       "UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2")
    doris.create_table(spark, ddl=f"CREATE TABLE {t3} (id INT NOT NULL) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) "
                       "BUCKETS 1")
    spark.sql(f"INSERT INTO {t1} VALUES (1, 10, 1, '1', 1.0, DATE'2000-01-01'), (2, 20, 2, '2', 2.0, DATE'2000-01-02'), "
              "(3, 30, 3, '3', 3.0, DATE'2000-01-03')")
    spark.sql(f"INSERT INTO {t2} VALUES (1, 10, '10', 10.0, DATE'2000-01-10'), (2, 20, '20', 20.0, DATE'2000-01-20'), "
              "(3, 30, '30', 30.0, DATE'2000-01-30'), (4, 4, '4', 4.0, DATE'2000-01-04'), "
              "(5, 5, '5', 5.0, DATE'2000-01-05')")
    spark.sql(f"INSERT INTO {t3} VALUES (1), (4), (5)")

    spark.sql(f"update {t1} set c1 = 5 where id = 3")
    spark.sql(f"update {t1} set c1 = c1 + 1, c3 = c2 * 2 where id = 1")
    assert readers_agree(spark, py_catalog, t1) == [
        (1, 10, 2, "1", 2.0, D(2000, 1, 1)), (2, 20, 2, "2", 2.0, D(2000, 1, 2)), (3, 30, 5, "3", 3.0, D(2000, 1, 3)),
    ]
    spark.sql(f"""
        update {t1}
        set {t1}.c1 = {t2}.c1, {t1}.c3 = {t2}.c3 * 100
        from {t2} inner join {t3} on {t2}.id = {t3}.id
        where {t1}.id = {t2}.id;
    """)
    assert readers_agree(spark, py_catalog, t1) == [
        (1, 10, 10, "1", 1000.0, D(2000, 1, 1)), (2, 20, 2, "2", 2.0, D(2000, 1, 2)),
        (3, 30, 5, "3", 3.0, D(2000, 1, 3)),
    ]


def test_a_cte_before_update_feeds_its_from_clause(spark, namespace, py_catalog):
    # Doris's grammar: `explain? cte? UPDATE ... fromClause? whereClause?` (DorisParser.g4); the CTE
    # over t3 as regression-test/suites/nereids_p0/update/update_cte.groovy writes it, here under UPDATE.
    t1, t2, t3, _ = doris_tables(spark, namespace)
    spark.sql(f"""
        WITH cte AS (SELECT * FROM {t3})
        UPDATE {t1} SET c1 = {t2}.c1, c3 = {t2}.c3 * 100
        FROM {t2} JOIN cte ON {t2}.id = cte.id
        WHERE {t1}.id = {t2}.id
    """)
    assert readers_agree(spark, py_catalog, t1) == COMPLEX_UPDATE


def test_a_cte_before_a_plain_update_runs_it_as_doris_does(spark, namespace, py_catalog):
    # Doris's grammar takes `cte? UPDATE` without FROM too; Spark 3.5 would run it as a plain Iceberg
    # UPDATE (the WITH hides it from the rule), so the parser takes it on every line.
    t1, _, t3, _ = doris_tables(spark, namespace)
    before = snapshot_count(spark, t1)
    spark.sql(f"WITH picked AS (SELECT id FROM {t3}) UPDATE {t1} SET c2 = 'picked' WHERE id IN (SELECT id FROM picked)")
    assert snapshot_count(spark, t1) == before + 1
    assert last_summary(spark, t1)["doris.operation"] == "load"
    assert [row[2] for row in readers_agree(spark, py_catalog, t1)] == ["picked", "2", "3"]


def test_several_from_rows_for_one_row_are_one_load_decided_by_the_sequence_column(spark, namespace, py_catalog):
    # Doris runs UPDATE ... FROM as an INSERT of the joined rows (UpdateCommand), so two rows for one
    # key are two rows of one load: the larger sequence value wins; a smaller one than stored loses.
    t1, _, _, _ = doris_tables(spark, namespace, target_properties='PROPERTIES ("function_column.sequence_col" = "c4")')
    spark.sql(f"""
        UPDATE {t1} AS t SET c2 = s.note, c4 = s.day
        FROM (SELECT * FROM VALUES (1, 'later', DATE'2001-01-05'), (1, 'earlier', DATE'2001-01-02'),
                                   (2, 'older than stored', DATE'1999-01-01') AS v(id, note, day)) s
        WHERE t.id = s.id
    """)
    assert readers_agree(spark, py_catalog, t1) == [
        (1, 1, "later", 1.0, D(2001, 1, 5)), (2, 2, "2", 2.0, D(2000, 1, 2)), (3, 3, "3", 3.0, D(2000, 1, 3)),
    ]


def test_from_relations_separated_by_commas_and_no_where(spark, namespace, py_catalog):
    # Doris's fromClause is `FROM relations` (comma-separated, cross-joined); the WHERE clause is optional.
    t1, t2, t3, _ = doris_tables(spark, namespace)
    spark.sql(f"UPDATE {t1} SET c2 = 'seen' FROM (SELECT max(id) AS top FROM {t3}) m, (SELECT 1 AS one) o")
    assert [row[2] for row in readers_agree(spark, py_catalog, t1)] == ["seen", "seen", "seen"]
    spark.sql(f"UPDATE {t1} SET c1 = {t2}.c1 + {t3}.id FROM {t2}, {t3} WHERE {t1}.id = {t2}.id AND {t2}.id = {t3}.id")
    assert readers_agree(spark, py_catalog, t1)[0] == (1, 11, "seen", 1.0, D(2000, 1, 1))


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        # UpdateCommand.completeQueryPlan / checkAssignmentColumn (Doris's texts).
        ("UPDATE {t1} SET id = {t2}.id FROM {t2} WHERE {t1}.c1 = {t2}.c1",
         "cannot set id: Only value columns of unique table could be updated"),
        ("UPDATE {t1} SET {t2}.c1 = 9 FROM {t2} WHERE {t1}.id = {t2}.id",
         r"column in assignment list is invalid, .*t2\.c1"),
        ("UPDATE {t1} AS a SET {t1}.c1 = 9 FROM {t2} WHERE a.id = {t2}.id",
         r"column in assignment list is invalid, .*t1\.c1"),
        ("UPDATE {t1} SET nosuch = 9 FROM {t2} WHERE {t1}.id = {t2}.id", "unknown column in assignment list: nosuch"),
        ("UPDATE {t3} SET id = 9 FROM {t2} WHERE {t3}.id = {t2}.id", "Only unique table could be updated"),
        ("UPDATE {t1} SET c1 = {t2}.c1 FROM {t2} LIMIT 1", "FROM takes tables, subqueries and joins"),
        # Plain UPDATE goes through the same checks.
        ("UPDATE {t1} SET nosuch = 9 WHERE id = 1", "unknown column in assignment list: nosuch"),
        ("UPDATE {t1} SET {t2}.c1 = 9 WHERE id = 1", r"column in assignment list is invalid"),
    ],
)
def test_refusals_name_doris_rule_and_commit_nothing(spark, namespace, statement, message):
    t1, t2, t3, _ = doris_tables(spark, namespace)
    before = {table: snapshot_count(spark, table) for table in (t1, t3)}
    with pytest.raises(IllegalArgumentException, match=message):
        spark.sql(statement.format(t1=t1, t2=t2, t3=t3))
    assert {table: snapshot_count(spark, table) for table in (t1, t3)} == before


def test_update_from_is_refused_on_a_plain_iceberg_table_and_with_the_statements_off(spark, namespace):
    t1, t2, _, _ = doris_tables(spark, namespace)
    plain = f"{namespace}.plain"
    spark.sql(f"CREATE TABLE {plain} (id INT, c1 BIGINT) USING iceberg")
    with pytest.raises(IllegalArgumentException, match=r"runs on Doris tables; .*plain is not one. Write MERGE INTO"):
        spark.sql(f"UPDATE {plain} SET c1 = {t2}.c1 FROM {t2} WHERE {plain}.id = {t2}.id")
    spark.sql(f"INSERT INTO {plain} VALUES (1, 1), (2, 2)")
    spark.sql(f"WITH c AS (SELECT 2 AS id) UPDATE {plain} SET c1 = 20 WHERE id IN (SELECT id FROM c)")  # Spark's own
    assert [tuple(row) for row in spark.sql(f"SELECT * FROM {plain} ORDER BY id").collect()] == [(1, 1), (2, 20)]
    spark.conf.set("spark.doris.sparkStatements.enabled", "false")
    with pytest.raises(IllegalArgumentException, match="spark.doris.sparkStatements.enabled = false"):
        spark.sql(f"UPDATE {t1} SET c1 = {t2}.c1 FROM {t2} WHERE {t1}.id = {t2}.id")


def test_explain_and_parse_errors_point_at_the_statement(spark, namespace):
    t1, t2, _, _ = doris_tables(spark, namespace)
    plan = spark.sql(f"EXPLAIN UPDATE {t1} SET c1 = {t2}.c1 FROM {t2} WHERE {t1}.id = {t2}.id").collect()[0][0]
    assert "DorisStatement UPDATE as doris.load" in plan and "(UNIQUE KEY)" in plan
    with pytest.raises(ParseException) as error:
        spark.sql(f"UPDATE {t1} SET c1 = {t2}.c1\nFROM {t2} ,,\nWHERE {t1}.id = {t2}.id")
    assert "line 2" in str(error.value) and f"FROM {t2} ,," in str(error.value)


def test_other_statements_reach_spark_untouched(spark, namespace, py_catalog):
    t1, t2, _, _ = doris_tables(spark, namespace)
    assert spark.sql("SELECT :x AS x", args={"x": 7}).collect()[0].x == 7  # Spark 4.1 parses these with their parameters
    assert spark.sql(f"SELECT count(*) AS n FROM {t1} /* UPDATE x SET y = 1 FROM z */").collect()[0].n == 3
    spark.sql(f"UPDATE {t1} SET c2 = 'plain' WHERE id = 3")
    spark.sql(f"MERGE INTO {t1} t USING {t2} s ON t.id = s.id WHEN MATCHED AND s.id = 2 THEN UPDATE SET c2 = s.c2")
    assert spark.sql("CALL doris.help()").collect()  # CALL doris.* still parses
    assert [row[2] for row in readers_agree(spark, py_catalog, t1)] == ["1", "20", "plain"]
