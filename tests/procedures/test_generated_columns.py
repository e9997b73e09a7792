"""Generated columns (``col type [GENERATED ALWAYS] AS (expr)``) as Doris has them: every load
computes the column from the row, in column order, and readers see the stored values.

The scenarios and expected rows are Doris's regression suites under
``regression-test/suites/ddl_p0/test_create_table_generated_column/`` (expected rows from
``regression-test/data/ddl_p0/test_create_table_generated_column/*.out``); the definitions Doris
refuses without an engine are tests/ddl/test_generated_columns.py.
"""

from __future__ import annotations

import pytest
from pyspark.errors import IllegalArgumentException

from iceberg_doris import doris
from iceberg_doris.errors import InvalidTableDefinitionError, LoadError
from tests.procedures.test_keyed_loads import readers_agree

pytestmark = pytest.mark.spark

COMMON = "(a int, b int, c double generated always as (abs(a+b)) not null)"
REFER = "(a int, c double generated always as (abs(a+b)) not null, b int, d int generated always as (c+1))"


def create(spark, namespace: str, name: str, columns: str, tail: str = "DISTRIBUTED BY HASH(a)") -> str:
    table = f"{namespace}.{name}"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} {columns} {tail} PROPERTIES('replication_num' = '1')")
    return table


def rows(spark, table: str) -> list[tuple]:
    return sorted(tuple(r) for r in spark.table(table).collect())


def inserted(spark, table: str, *statements: str) -> list[tuple]:
    """Runs ``INSERT INTO table <statement>`` for each statement; returns the table's rows."""
    for statement in statements:
        spark.sql(f"INSERT INTO {table} {statement}")
    return rows(spark, table)


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        # fault_tolerance_nereids.groovy: gencol_has_sum, test_window_func, gencol_has_column_not_define
        ("(a int, b int, c int generated always as (sum(a)) not null)",
         "Expression of generated column 'c' contains a disallowed function:'sum'"),
        ("(a int default 10, b int default 100, c boolean as (rank() over (order by a)))",
         "Expression of generated column 'c' contains a disallowed function:'rank'"),
        ("(a int, b int, c int generated always as (abs(d)) not null)", "Unknown column 'd' in 'generated column function'"),
        # not deterministic: every load would store another value
        ("(a int, b double as (rand()))", "Expression of generated column 'b' contains a disallowed function:'rand'"),
    ],
)
def test_functions_and_columns_doris_refuses(spark, namespace, columns, message):
    with pytest.raises(InvalidTableDefinitionError) as refused:
        create(spark, namespace, "refused", columns)
    assert str(refused.value) == message


def test_an_expression_spark_cannot_evaluate_is_refused_naming_it(spark, namespace):
    # fault_tolerance_nereids.groovy: gencol_type_check (abs with 2 arguments), test_gen_col_array_func
    # (an array where a number is wanted); Spark's reason follows the column's name.
    with pytest.raises(InvalidTableDefinitionError, match=r"^In generated column 'c', .*abs.*\(expression: abs\(a\+b,3\)\)"):
        create(spark, namespace, "arity", "(a int, b int, c array<int> generated always as (abs(a+b,3)) not null)")
    with pytest.raises(InvalidTableDefinitionError, match=r"^In generated column 'c', "):
        create(spark, namespace, "cast", "(pk int, a array<int>, b array<int>, c double generated always as (array_union(a, b)) not null)",
               "DISTRIBUTED BY HASH(pk)")
    assert not spark.catalog.tableExists(f"{namespace}.arity")


def test_file_loads_compute_the_columns_and_ignore_a_given_value(spark, namespace, tmp_path, py_catalog):
    # stream_load_and_mysql_load.groovy with gen_col_data.csv (1,2 / 3,5), columns 'a,b'.
    common = create(spark, namespace, "common", COMMON)
    refer = create(spark, namespace, "refer", REFER)
    (tmp_path / "gen_col_data.csv").write_text("1,2\n3,5\n")
    for table in (common, refer):
        doris.load(spark, table=table, path=str(tmp_path / "gen_col_data.csv"), format="csv", columns="a,b", format_options={"column_separator": ","})
    # test_stream_load_common, test_stream_load_refer_gencol
    assert rows(spark, common) == [(1, 2, 3.0), (3, 5, 8.0)]
    assert rows(spark, refer) == [(1, 3.0, 2, 4), (3, 8.0, 5, 9)]
    # specify_value_for_gencol: three_column_gen_col_data.csv (2,3,4 / 1,2,2) loaded as (a,b,c):
    # the file's c is not used.
    (tmp_path / "three.csv").write_text("2,3,4\n1,2,2\n")
    doris.load(spark, table=common, path=str(tmp_path / "three.csv"), format="csv", columns="a,b,c", format_options={"column_separator": ","})
    assert rows(spark, common) == [(1, 2, 3.0), (1, 2, 3.0), (2, 3, 5.0), (3, 5, 8.0)]
    readers_agree(spark, py_catalog, common)
    readers_agree(spark, py_catalog, refer)


def test_a_computed_value_the_column_cannot_hold_makes_an_error_row(spark, namespace):
    table = create(spark, namespace, "narrow", "(a int, b int, c tinyint as (a * b))")
    result = doris.load(spark, table=table, query="SELECT * FROM VALUES (2, 3), (100, 100) AS t(a, b)", max_filter_ratio=1.0)
    assert rows(spark, table) == [(2, 3, 6)]
    assert result[0].filtered_rows == 1
    # the NOT NULL generated column of test_gen_col_common_ft: a NULL result is filtered too
    common = create(spark, namespace, "common_ft", COMMON)
    with pytest.raises(LoadError):
        doris.load(spark, table=common, query="SELECT * FROM VALUES (1, CAST(NULL AS INT)) AS t(a, b)")


@pytest.mark.usefixtures("spark_statements")
def test_insert_computes_the_columns_and_refuses_a_value_for_them(spark, namespace, py_catalog):
    # test_generated_column_nereids.groovy: gencol_refer_gencol_insert2 / insert3 (the listed columns only).
    table = create(spark, namespace, "gencol_refer_gencol", REFER)
    # test_generated_column_nereids.out, gencol_refer_gencol_select (of these two inserts)
    assert inserted(spark, table, "(a, b) VALUES (5, 6)", "(b, a) VALUES (9, 2)") == [(2, 11.0, 9, 12), (5, 11.0, 6, 12)]
    # fault_tolerance_nereids.groovy, qt_common_default_test_insert_gencol
    with pytest.raises(IllegalArgumentException, match=r"^The value specified for generated column 'c' in table 'gencol_refer_gencol' "
                                        "is not allowed."):
        spark.sql(f"INSERT INTO {table} (a, b, c) VALUES (1, 2, 3)")
    readers_agree(spark, py_catalog, table)


@pytest.mark.usefixtures("spark_statements")
def test_keys_may_be_generated_and_partial_updates_compute_them_again(spark, namespace, py_catalog):
    # test_generated_column_nereids.groovy, test_gen_col_unique_key2: a generated key column.
    keyed = create(spark, namespace, "unique_key2", "(a int, c int generated always as (abs(a+1)) not null, b int)",
                   "UNIQUE KEY(a, c) DISTRIBUTED BY HASH(a)")
    # gen_col_unique_key_select_is_key
    assert inserted(spark, keyed, "(a, b) VALUES (6, 7)", "(a, b) VALUES (6, 7)") == [(6, 7, 7)]

    # test_partial_update_generated_column.groovy: partial INSERTs recompute c and d from the new b.
    table = create(spark, namespace, "partial", "(a int, b int, c int as (a+b), d int as (c+1), e int)",
                   "UNIQUE KEY(a) DISTRIBUTED BY HASH(a)")
    spark.conf.set("spark.doris.enable_unique_key_partial_update", "true")
    try:
        updated = inserted(spark, table, "(a, b, e) VALUES (1, 2, 7)", "(a, b) SELECT 2, 3", "(a, b) SELECT 2, 4",
                           "(a, b) VALUES (1, 6), (3, 6)", "(a, b) VALUES (1, 5)")
        # test_partial_update_generated_column.out, partial_update_select
        assert updated == [(1, 5, 6, 7, 7), (2, 4, 6, 7, None), (3, 6, 9, 10, None)]
        with pytest.raises(IllegalArgumentException, match="^Partial update should include all ordinary columns referenced by generated "
                                            "columns, missing: b$"):
            spark.sql(f"INSERT INTO {table} (a) VALUES (3)")
    finally:
        spark.conf.unset("spark.doris.enable_unique_key_partial_update")
    # the same rule for a partial stream load (partial_columns)
    with pytest.raises(LoadError, match="missing: b$"):
        doris.load(spark, table=table, query="SELECT 1 AS a, 9 AS e", partial_columns=True)
    readers_agree(spark, py_catalog, table)


def test_describe_shows_the_expression(spark, namespace):
    table = create(spark, namespace, "described", REFER)
    columns = {r[1]: r[2] for r in doris.describe(spark, table=table) if r[0] == "column"}
    # fe-core catalog/Column.java toSql writes " AS (expr)" after the type, before NULL/NOT NULL
    assert columns["c"] == "DOUBLE AS (abs(a+b)) NOT NULL"
    assert columns["d"] == "INT AS (c+1) NULL"


@pytest.mark.usefixtures("spark_statements")
def test_update_and_merge_compute_the_columns_again_and_refuse_a_value_for_them(spark, namespace, py_catalog):
    # test_update_generated_column.groovy, test_gen_col_update_unique; the expected rows are
    # test_update_generated_column.out (update_select, update_use_expr_select).
    table = create(spark, namespace, "test_gen_col_update_unique", REFER, "UNIQUE KEY(a) DISTRIBUTED BY HASH(a)")
    spark.sql(f"INSERT INTO {table} (a, b) VALUES (3, 5)")
    spark.sql(f"INSERT INTO {table} (a, b) VALUES (4, 5)")
    spark.sql(f"UPDATE {table} SET b = 10")
    assert rows(spark, table) == [(3, 13.0, 10, 14), (4, 14.0, 10, 15)]
    spark.sql(f"UPDATE {table} SET b = a + 100 WHERE a = 3")
    assert rows(spark, table) == [(3, 106.0, 103, 107), (4, 14.0, 10, 15)]
    with pytest.raises(IllegalArgumentException, match="^The value specified for generated column 'c' in table "
                                                       "'test_gen_col_update_unique' is not allowed."):
        spark.sql(f"UPDATE {table} SET c = 100")

    # MERGE INTO (merge-on-write UNIQUE KEY): an update and an insert that do not name c and d
    # compute them; naming one is refused as UPDATE refuses it.
    spark.sql(f"""
        MERGE INTO {table} t USING (SELECT * FROM VALUES (4, 1), (7, 2) AS s(a, b)) s ON t.a = s.a
        WHEN MATCHED THEN UPDATE SET b = s.b
        WHEN NOT MATCHED THEN INSERT (a, b) VALUES (s.a, s.b)
    """)
    assert rows(spark, table) == [(3, 106.0, 103, 107), (4, 5.0, 1, 6), (7, 9.0, 2, 10)]
    with pytest.raises(IllegalArgumentException, match="^The value specified for generated column 'd'"):
        spark.sql(f"MERGE INTO {table} t USING (SELECT 8 AS a) s ON t.a = s.a "
                  "WHEN NOT MATCHED THEN INSERT (a, b, d) VALUES (s.a, 1, 2)")
    readers_agree(spark, py_catalog, table)


@pytest.mark.usefixtures("spark_statements")
def test_aggregate_tables_aggregate_the_computed_values(spark, namespace, py_catalog):
    # test_generated_column_nereids.groovy: agg_gen_col_key (a generated key column) and
    # agg_gen_col_replace_if_not_null (a REPLACE_IF_NOT_NULL generated value); the expected rows
    # are test_generated_column_nereids.out, test_agg_key and agg_replace_null.
    key = create(spark, namespace, "agg_gen_col_key", "(a int, b int, c int as (a+b), d int sum)",
                 "AGGREGATE KEY(a, b, c) DISTRIBUTED BY HASH(a)")
    assert inserted(spark, key, "(a, b) VALUES (1, 2)", "(a, b, d) VALUES (1, 2, 6)") == [(1, 2, 3, 6)]
    replace = create(
        spark, namespace, "agg_gen_col_replace_if_not_null",
        "(a int, b int, c int as (a+b), d int REPLACE_IF_NOT_NULL as (c+1), f int sum default 10)",
        "AGGREGATE KEY(a, b, c) DISTRIBUTED BY HASH(a)",
    )
    assert inserted(spark, replace, "(a, b, f) VALUES (1, 2, 3)", "(a, b) VALUES (1, 2)") == [(1, 2, 3, 4, 13)]
    readers_agree(spark, py_catalog, replace)


@pytest.mark.usefixtures("spark_statements")
def test_alter_table_that_would_break_a_generated_column_is_refused(spark, namespace):
    # regression-test/suites/ddl_p0/test_create_table_generated_column/test_create_table_generated_column_legacy.groovy
    # (drop dependency) and .../alter_column_test_generated_column.groovy (modify, rename)
    table = create(spark, namespace, "gencol_refer_gencol", REFER)
    spark.sql(f"INSERT INTO {table} (a, b) VALUES (3, 4)")
    with pytest.raises(IllegalArgumentException, match=r"^Column 'a' has a generated column dependency on :\[c\]$"):
        spark.sql(f"ALTER TABLE {table} DROP COLUMN a")
    with pytest.raises(IllegalArgumentException, match=r"^Column 'c' has a generated column dependency on :\[d\]$"):
        spark.sql(f"ALTER TABLE {table} DROP COLUMN c")
    with pytest.raises(IllegalArgumentException, match=r"^Cannot rename column, because column 'c' has a generated "
                                                       r"column dependency on :\[d\]$"):
        spark.sql(f"ALTER TABLE {table} RENAME COLUMN c TO c1")
    with pytest.raises(IllegalArgumentException, match=r"^Cannot rename column, because column 'b' has a generated "
                                                       r"column dependency on :\[c\]$"):
        spark.sql(f"ALTER TABLE {table} RENAME COLUMN b TO b1")
    with pytest.raises(IllegalArgumentException, match=r"^Not supporting alter table modify generated columns\.$"):
        spark.sql(f"ALTER TABLE {table} ALTER COLUMN d TYPE BIGINT")
    # Doris renames a generated column no other reads, then drops d, c and b in that order
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN d TO d1")
    spark.sql(f"INSERT INTO {table} (a, b) VALUES (5, 6)")
    assert rows(spark, table) == [(3, 7.0, 4, 8), (5, 11.0, 6, 12)]
    spark.sql(f"ALTER TABLE {table} DROP COLUMN d1")
    spark.sql(f"ALTER TABLE {table} DROP COLUMN c")
    spark.sql(f"ALTER TABLE {table} DROP COLUMN b")
    assert rows(spark, table) == [(3,), (5,)]
