"""Generated column definitions Doris refuses before looking at the expression's functions, with its
words (``regression-test/suites/ddl_p0/test_create_table_generated_column/fault_tolerance_nereids.groovy``
and ``test_generated_column_nereids.groovy``). The checks that need Spark (unknown columns, aggregate
and window functions) and the loads are tests/procedures/test_generated_columns.py."""

from __future__ import annotations

import re

import pytest

from iceberg_doris.ddl import parse_create_table
from iceberg_doris.errors import InvalidTableDefinitionError


@pytest.mark.parametrize(
    ("ddl", "message"),
    [
        # gencol_refer_gencol_after
        ("create table t(a int,c double generated always as (abs(a+d)) not null,b int, d int generated always as(c+1)) "
         "DISTRIBUTED BY HASH(a)", "Generated column can refer only to generated columns defined prior to it."),
        # gencol_has_var, and a variable as a function's argument
        ("create table t(a varchar(10),c double generated always as (abs(a+b+@myvar)) not null,b int) DISTRIBUTED BY HASH(a)",
         "Generated column expression cannot contain variable."),
        ("create table t(a int, c int generated always as (abs(@myvar)) not null) DISTRIBUTED BY HASH(a)",
         "Generated column expression cannot contain variable."),
        # test_gen_col_subquery
        ("create table t(a int,b int, c int generated always as (a+(select 1)) not null) DISTRIBUTED BY HASH(a)",
         "Generated column does not support subquery."),
        # test_gen_col_array_func_lambda
        ("create table t(pk int,a array<int>,b array<int>, c array<int> generated always as (array_count(x->(x%2=0),b)) "
         "not null) DISTRIBUTED BY HASH(pk)", "Generated column does not support lambda."),
        # test_gen_col_aggregate_value, and agg_gen_col_replace's refused SUM column
        ("create table t(a int,b int,c int sum generated always as (abs(a+1)) not null) aggregate key(a,b) "
         "DISTRIBUTED BY HASH(a)",
         "The generated columns can be key columns, or value columns of replace and replace_if_not_null aggregation type."),
        ("create table t(a int,b int, c int as (a+b), d int sum as (c+1)) aggregate key(a,b,c) DISTRIBUTED BY HASH(a)",
         "The generated columns can be key columns, or value columns of replace and replace_if_not_null aggregation type."),
        # test_gen_col_auto_increment
        ("create table t(a bigint not null auto_increment, b int, c int as (a*b)) distributed by hash(a)",
         "Generated column 'c' cannot refer to auto-increment column."),
        # test_gen_col_increment
        ("create table t(a int,b int,c int generated always as (abs(a+1)) not null auto_increment) aggregate key(a,b,c) "
         "DISTRIBUTED BY HASH(a)", "Generated columns cannot be auto_increment."),
        # test_gen_col_default, test_gen_col_on_update
        ("create table t(a int,b int,c int generated always as (abs(a+1)) not null default 10) aggregate key(a,b,c) "
         "DISTRIBUTED BY HASH(a)", "Generated columns cannot have default value."),
        ("create table t(a int,b int,c datetimev2 generated always as (CURRENT_TIMESTAMP) not null default CURRENT_TIMESTAMP "
         "ON UPDATE CURRENT_TIMESTAMP) aggregate key(a,b,c) DISTRIBUTED BY HASH(a)",
         "Generated columns cannot have default value."),
    ],
)
def test_definitions_doris_refuses_are_refused_with_its_words(ddl, message):
    with pytest.raises(InvalidTableDefinitionError, match=f"^{re.escape(message)}$"):
        parse_create_table(ddl)


def test_the_tables_doris_accepts_keep_each_expression():
    # test_generated_column_nereids.groovy: without GENERATED ALWAYS, referring to a later ordinary
    # column and to an earlier generated one, a key of a UNIQUE table, REPLACE values of an AGGREGATE one.
    refer = parse_create_table(
        "create table gencol_refer_gencol(a int,c double generated always as (abs(a+b)) not null,b int, "
        "d int generated always as(c+1)) DISTRIBUTED BY HASH(a)"
    )
    assert [c.generated for c in refer.columns] == [None, "abs(a+b)", None, "c+1"]
    key = parse_create_table(
        "create table k(a int,c int generated always as (abs(a+1)) not null,b int) unique key(a,c) DISTRIBUTED BY HASH(a)"
    )
    assert tuple(key.key_columns) == ("a", "c") and key.columns[1].generated == "abs(a+1)"
    aggregate = parse_create_table(
        "create table g(a int,b int, c int as (a+b), d int REPLACE_IF_NOT_NULL as (c+1), f int sum default 10) "
        "aggregate key(a,b,c) DISTRIBUTED BY HASH(a)"
    )
    assert [c.generated for c in aggregate.columns] == [None, None, "a+b", "c+1", None]
