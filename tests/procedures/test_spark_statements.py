"""Spark's own statements on Doris tables run as the Doris operation (issue 39, point 1).

``INSERT INTO`` / ``df.writeTo(t).append()`` is ``doris.load``, ``INSERT OVERWRITE`` is
``doris.insert_overwrite``, ``DELETE FROM`` / ``UPDATE`` follow Doris on UNIQUE KEY tables, and
``MERGE INTO`` an AGGREGATE KEY table is refused with the load that does it (``MERGE INTO`` a UNIQUE
KEY table: tests/procedures/test_merge_into.py). Each statement is checked
against ``doris.load`` doing the same work on a twin table: the rows Spark, pyiceberg and DuckDB
read, and one commit per statement.
"""

from __future__ import annotations

import pytest
from pyspark.errors import IllegalArgumentException

from iceberg_doris import doris
from iceberg_doris.procedures.statements import ENABLE_INSERT_STRICT, INSERT_LABEL, INSERT_MAX_FILTER_RATIO
from tests.procedures.test_keyed_loads import readers_agree, values

pytestmark = [
    pytest.mark.spark,
    pytest.mark.usefixtures("spark_statements"),
]


def twin_tables(spark, namespace: str, ddl_tail: str, columns: str = "k INT NOT NULL, v STRING, s INT") -> tuple[str, str]:
    """Two Doris tables of the same definition: one for the statement, one for doris.load."""
    names = []
    for name in ("by_statement", "by_load"):
        doris.create_table(spark, ddl=f"CREATE TABLE {namespace}.{name} ({columns}) {ddl_tail}")
        names.append(f"{namespace}.{name}")
    return names[0], names[1]


def snapshot_count(spark, table: str) -> int:
    return spark.sql(f"SELECT count(*) FROM {table}.snapshots").collect()[0][0]


def last_summary(spark, table: str) -> dict[str, str]:
    return spark.sql(f"SELECT summary FROM {table}.snapshots ORDER BY committed_at DESC LIMIT 1").collect()[0][0]


def test_insert_into_a_unique_table_upserts_as_doris_load_does(spark, namespace, py_catalog):
    statement, load = twin_tables(spark, namespace, "UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    batches = [["(1,'a',1)", "(2,'b',1)"], ["(2,'b2',2)", "(3,'c',1)", "(3,'c2',2)"]]
    for batch in batches:
        before = snapshot_count(spark, statement)
        result = spark.sql(f"INSERT INTO {statement} {values(batch)}").collect()
        assert result[0].status == "FINISHED" and result[0].loaded_rows == len(batch)
        assert snapshot_count(spark, statement) == before + 1
        assert last_summary(spark, statement)["doris.operation"] == "load"
        doris.load(spark, table=load, query=values(batch))
    expected = [(1, "a", 1), (2, "b2", 2), (3, "c2", 2)]
    assert readers_agree(spark, py_catalog, statement) == readers_agree(spark, py_catalog, load) == expected


@pytest.mark.parametrize("model", ["UNIQUE", "DUPLICATE", "AGGREGATE"])
def test_insert_listing_its_columns_gives_the_others_their_defaults(spark, namespace, py_catalog, model):
    # Doris's INSERT INTO t (c1, ...): a column not listed takes its DEFAULT, or NULL (Doris's docs,
    # sql-manual/sql-statements/data-modification/DML/INSERT.md; the default columns of
    # regression-test/suites/nereids_p0/insert_into_table/update_on_current_timestamp.groovy).
    aggregate = " REPLACE" if model == "AGGREGATE" else ""
    columns = (f"k INT NOT NULL, v STRING{aggregate}, dft INT{aggregate} DEFAULT '4321', "
               f"ts DATETIME(6){aggregate} DEFAULT CURRENT_TIMESTAMP, n INT{aggregate}")
    statement, load = twin_tables(spark, namespace, f"{model} KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1", columns)
    spark.sql(f"INSERT INTO {statement} (v, k) VALUES ('a', 1), ('b', 2)")  # listed out of table order
    doris.load(spark, table=load, query="SELECT * FROM VALUES ('a', 1), ('b', 2) AS t(v, k)")
    rows = spark.sql(f"SELECT k, v, dft, ts IS NOT NULL AS stamped, n FROM {statement} ORDER BY k").collect()
    assert [tuple(r) for r in rows] == [(1, "a", 4321, True, None), (2, "b", 4321, True, None)]
    without_time = [[r[:3] + r[4:] for r in readers_agree(spark, py_catalog, t)] for t in (statement, load)]
    assert without_time[0] == without_time[1]
    assert last_summary(spark, statement)["doris.operation"] == "load"


def test_default_in_values_is_refused_by_name(spark, namespace):
    # Doris fills a column's DEFAULT for the keyword DEFAULT in VALUES (insert into alter_column_gen_col
    # values(1,2,default,default,5) in regression-test/suites/ddl_p0/test_create_table_generated_column/
    # alter_column_test_generated_column.groovy); Spark resolves it without the Doris default (NULL, or
    # an unresolved column), so it is refused, naming the statement that gives Doris's result.
    columns = "k INT NOT NULL, v STRING, dft INT DEFAULT '4321'"
    statement, _ = twin_tables(spark, namespace, "UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1", columns)
    for insert in (f"INSERT INTO {statement} VALUES (1, 'a', DEFAULT)",
                   f"INSERT INTO {statement} (k, v, dft) VALUES (1, 'a', 5), (2, 'b', default)"):
        with pytest.raises(IllegalArgumentException, match=r"VALUES \(\.\.\., DEFAULT\) is not supported on a Doris "
                                                           r"table: .*Leave the column out of the INSERT's column list"):
            spark.sql(insert)
    assert spark.table(statement).count() == 0


def test_sequence_column_decides_as_in_a_load(spark, namespace, py_catalog):
    statement, load = twin_tables(
        spark, namespace,
        "UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES (\"function_column.sequence_col\" = \"s\")",
    )
    for batch in (["(1,'new',5)"], ["(1,'old',3)"], ["(2,'x',1)"]):
        spark.sql(f"INSERT INTO {statement} {values(batch)}")
        doris.load(spark, table=load, query=values(batch))
    assert readers_agree(spark, py_catalog, statement) == readers_agree(spark, py_catalog, load) == [
        (1, "new", 5), (2, "x", 1)
    ]


def test_write_to_append_aggregates_an_aggregate_table(spark, namespace, py_catalog):
    statement, load = twin_tables(
        spark, namespace, "AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2",
        columns="k INT NOT NULL, total BIGINT SUM DEFAULT \"0\", top INT MAX",
    )
    for batch in ([(1, 10, 3), (2, 5, 1)], [(1, 7, 9), (1, 1, 2)]):
        frame = spark.createDataFrame(batch, "k int, total bigint, top int")
        before = snapshot_count(spark, statement)
        frame.writeTo(statement).append()
        assert snapshot_count(spark, statement) == before + 1
        doris.load(spark, table=load, source=frame)
    assert readers_agree(spark, py_catalog, statement) == readers_agree(spark, py_catalog, load) == [
        (1, 18, 9), (2, 5, 1)
    ]


def test_insert_into_a_duplicate_table_routes_rows_to_doris_partitions(spark, namespace, py_catalog):
    statement, load = twin_tables(
        spark, namespace,
        "DUPLICATE KEY(k) PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN (\"10\")) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    batch = ["(1,'a',1)", "(1,'a',1)", "(5,'b',2)"]
    spark.sql(f"INSERT INTO {statement} {values(batch)}")
    doris.load(spark, table=load, query=values(batch))
    assert readers_agree(spark, py_catalog, statement) == readers_agree(spark, py_catalog, load) == [
        (1, "a", 1), (1, "a", 1), (5, "b", 2)
    ]
    # A row no partition holds fails the statement: Doris's INSERT is strict by default.
    before = snapshot_count(spark, statement)
    with pytest.raises(IllegalArgumentException, match="^Insert has filtered data in strict mode"):
        spark.sql(f"INSERT INTO {statement} {values(['(50,' + repr('z') + ',1)'])}")
    assert snapshot_count(spark, statement) == before


def test_insert_overwrite_is_doris_insert_overwrite(spark, namespace, py_catalog):
    statement, load = twin_tables(spark, namespace, "UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    for table in (statement, load):
        doris.load(spark, table=table, query=values(["(1,'a',1)", "(2,'b',1)"]))
    before = snapshot_count(spark, statement)
    result = spark.sql(f"INSERT OVERWRITE {statement} {values(['(3,' + repr('c') + ',1)'])}").collect()
    assert result[0].loaded_rows == 1
    assert snapshot_count(spark, statement) == before + 1
    assert last_summary(spark, statement)["doris.operation"] == "insert_overwrite"
    doris.insert_overwrite(spark, table=load, query=values(["(3,'c',1)"]))
    assert readers_agree(spark, py_catalog, statement) == readers_agree(spark, py_catalog, load) == [(3, "c", 1)]


def test_delete_and_update_on_a_unique_table_follow_doris(spark, namespace, py_catalog):
    statement, load = twin_tables(spark, namespace, "UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2")
    start = ["(1,'a',1)", "(2,'b',1)", "(3,'c',1)"]
    for table in (statement, load):
        doris.load(spark, table=table, query=values(start))

    before = snapshot_count(spark, statement)
    deleted = spark.sql(f"DELETE FROM {statement} WHERE k = 2").collect()[0]
    assert deleted.deleted_rows == 1
    before_update = snapshot_count(spark, statement)
    assert before_update == before + 1
    updated = spark.sql(f"UPDATE {statement} SET v = upper(v), s = s + 10 WHERE k >= 3").collect()[0]
    assert updated.loaded_rows == 1
    assert snapshot_count(spark, statement) == before_update + 1

    # The same work as loads: the deleted key with the delete sign, the updated row upserted.
    doris.load(spark, table=load, query="SELECT 2 AS k", merge_type="DELETE")
    doris.load(spark, table=load, query=values(["(3,'C',11)"]))
    assert readers_agree(spark, py_catalog, statement) == readers_agree(spark, py_catalog, load) == [
        (1, "a", 1), (3, "C", 11)
    ]

    with pytest.raises(IllegalArgumentException, match="cannot set k: Only value columns of unique table could be updated"):
        spark.sql(f"UPDATE {statement} SET k = 9 WHERE k = 1")


def test_update_and_merge_are_refused_where_doris_refuses_them(spark, namespace):
    doris.create_table(
        spark, ddl=f"CREATE TABLE {namespace}.agg (k INT NOT NULL, n BIGINT SUM) AGGREGATE KEY(k) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    table = f"{namespace}.agg"
    with pytest.raises(IllegalArgumentException, match="Only unique table could be updated"):
        spark.sql(f"UPDATE {table} SET n = 1")
    with pytest.raises(IllegalArgumentException, match="merge_type => 'MERGE', delete_on =>"):
        spark.sql(
            f"MERGE INTO {table} t USING (SELECT 1 AS k, 2L AS n) s ON t.k = s.k "
            "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
        )
    assert snapshot_count(spark, table) == 0


def test_delete_on_a_duplicate_table_is_doris_delete(spark, namespace, py_catalog):
    statement, load = twin_tables(spark, namespace, "DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    for table in (statement, load):
        doris.load(spark, table=table, query=values(["(1,'a',1)", "(1,'a',1)", "(2,'b',1)"]))
    result = spark.sql(f"DELETE FROM {statement} AS t WHERE t.k = 1").collect()[0]
    assert result.deleted_rows == 2
    assert last_summary(spark, statement)["doris.operation"] == "delete"
    doris.delete(spark, table=load, where="k = 1")
    assert readers_agree(spark, py_catalog, statement) == readers_agree(spark, py_catalog, load) == [(2, "b", 1)]


def test_explain_names_the_doris_operation_table_and_model(spark, namespace):
    statement, _ = twin_tables(spark, namespace, "UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    plan = spark.sql(f"EXPLAIN INSERT INTO {statement} {values(['(1,' + repr('a') + ',1)'])}").collect()[0][0]
    assert f"DorisStatement INSERT INTO as doris.load `iceberg`.`{namespace}`.`by_statement` (UNIQUE KEY)" in plan
    assert snapshot_count(spark, statement) == 0  # EXPLAIN runs nothing


def test_plain_iceberg_tables_are_untouched(spark, namespace):
    table = f"{namespace}.plain"
    spark.sql(f"CREATE TABLE {table} (k INT, v STRING) USING iceberg")
    spark.sql(f"INSERT INTO {table} VALUES (1, 'a'), (1, 'a')")
    spark.sql(f"UPDATE {table} SET v = 'b' WHERE k = 1")
    assert [tuple(r) for r in spark.sql(f"SELECT * FROM {table}").collect()] == [(1, "b"), (1, "b")]
    assert "doris.operation" not in last_summary(spark, table)
    assert "DorisStatement" not in spark.sql(f"EXPLAIN INSERT INTO {table} VALUES (2, 'c')").collect()[0][0]


def test_the_session_setting_turns_the_statements_into_plain_iceberg_writes(spark, namespace):
    table, _ = twin_tables(spark, namespace, "UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    spark.sql(f"INSERT INTO {table} VALUES (1, 'a', 1)")
    spark.conf.set("spark.doris.sparkStatements.enabled", "false")
    try:
        spark.sql(f"INSERT INTO {table} VALUES (1, 'b', 2)")  # a plain append: the key is stored twice
    finally:
        spark.conf.set("spark.doris.sparkStatements.enabled", "true")
    assert "doris.operation" not in last_summary(spark, table)
    assert sorted(tuple(r) for r in spark.sql(f"SELECT k, v FROM {table}").collect()) == [(1, "a"), (1, "b")]


def partitioned_duplicate_table(spark, namespace: str) -> str:
    """A DUPLICATE KEY table whose one partition holds k < 10: other rows are filtered."""
    doris.create_table(
        spark, ddl=f"CREATE TABLE {namespace}.ranged (k INT NOT NULL, v STRING, s INT) DUPLICATE KEY(k) "
        "PARTITION BY RANGE(k) (PARTITION p1 VALUES LESS THAN (\"10\")) DISTRIBUTED BY HASH(k) BUCKETS 1",
    )
    return f"{namespace}.ranged"


@pytest.fixture
def insert_settings(spark):
    """Doris's INSERT settings set by a test, unset after it."""
    yield spark.conf
    for key in (ENABLE_INSERT_STRICT, INSERT_MAX_FILTER_RATIO, INSERT_LABEL):
        spark.conf.unset(key)


def test_insert_max_filter_ratio_applies_with_strict_mode_off_as_in_doris(spark, namespace, insert_settings):
    table = partitioned_duplicate_table(spark, namespace)
    three = values(["(1,'a',1)", "(2,'b',1)", "(50,'z',1)"])  # 50 fits no partition: filtered
    insert_settings.set(ENABLE_INSERT_STRICT, "false")

    # Doris's default ratio with strict mode off is 1.0: the filtered row is counted, the rest loaded.
    result = spark.sql(f"INSERT INTO {table} {three}").collect()[0]
    assert (result.loaded_rows, result.filtered_rows) == (2, 1)
    assert sorted(tuple(r) for r in spark.sql(f"SELECT k FROM {table}").collect()) == [(1,), (2,)]

    # 1 of 3 rows filtered is more than 0.2: Doris's message, nothing committed.
    insert_settings.set(INSERT_MAX_FILTER_RATIO, "0.2")
    before = snapshot_count(spark, table)
    with pytest.raises(
        IllegalArgumentException, match=r"^Insert has too many filtered data 1/3 insert_max_filter_ratio is 0\.200000"
    ):
        spark.sql(f"INSERT INTO {table} {three}")
    assert snapshot_count(spark, table) == before

    # Strict mode (Doris's default) refuses any filtered row, whatever the ratio.
    insert_settings.set(INSERT_MAX_FILTER_RATIO, "1.0")
    insert_settings.set(ENABLE_INSERT_STRICT, "true")
    with pytest.raises(IllegalArgumentException, match="^Insert has filtered data in strict mode"):
        spark.createDataFrame([(7, "x", 1), (70, "y", 1)], "k int, v string, s int").writeTo(table).append()
    assert snapshot_count(spark, table) == before

    insert_settings.set(INSERT_MAX_FILTER_RATIO, "2")
    with pytest.raises(IllegalArgumentException, match="insert_max_filter_ratio must be between 0.0 and 1.0, got '2'"):
        spark.sql(f"INSERT INTO {table} {three}")


def test_insert_label_names_the_next_insert_only(spark, namespace, insert_settings):
    table, _ = twin_tables(spark, namespace, "UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    spark.sql(f"SET {INSERT_LABEL}=orders_1")
    assert spark.sql(f"INSERT INTO {table} VALUES (1, 'a', 1)").collect()[0].label == "orders_1"
    assert spark.conf.get(INSERT_LABEL, None) is None  # used by that statement: unset
    second = spark.sql(f"INSERT INTO {table} VALUES (2, 'b', 1)").collect()[0].label
    assert second != "orders_1"

    # As in Doris, a label loads once: the statement that reuses it is refused, nothing committed.
    before = snapshot_count(spark, table)
    spark.sql(f"SET {INSERT_LABEL}=orders_1")
    with pytest.raises(IllegalArgumentException, match=r"Label \[orders_1\] has already been used"):
        spark.sql(f"INSERT INTO {table} VALUES (3, 'c', 1)")
    assert snapshot_count(spark, table) == before
    assert spark.conf.get(INSERT_LABEL, None) is None

    # INSERT OVERWRITE takes the label too.
    spark.sql(f"SET {INSERT_LABEL}=replace_1")
    assert spark.sql(f"INSERT OVERWRITE {table} VALUES (9, 'z', 1)").collect()[0].label == "replace_1"
    assert last_summary(spark, table)["doris.operation"] == "insert_overwrite"
