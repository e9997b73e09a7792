"""``AUTO_INCREMENT`` definitions: Doris's checks, in its order, with its words, and the start
value a table keeps. What the column does in loads is tests/procedures/test_auto_increment.py."""

from __future__ import annotations

import pytest

from iceberg_doris.ddl import parse_create_table
from iceberg_doris.errors import InvalidTableDefinitionError
from iceberg_doris.table_model import model_from_definition
from iceberg_doris.table_model.table_properties import model_from_properties, model_to_properties

TAIL = "DUPLICATE KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 1"


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        # regression-test/suites/data_model_p0/duplicate/storage/test_dup_tab_auto_inc_col.groovy: two INT
        # columns; the table's count is checked before each column's type
        ("`id` int(11) NOT NULL AUTO_INCREMENT, `value` int(11) NOT NULL AUTO_INCREMENT",
         "there can be at most one auto increment column in OlapTable."),
        # regression-test/suites/data_model_p0/duplicate/storage/test_dup_tab_auto_inc_start_value_col.groovy
        ("`id` BIGINT NOT NULL AUTO_INCREMENT(10000), `value` BIGINT NOT NULL AUTO_INCREMENT(10000)",
         "there can be at most one auto increment column in OlapTable."),
        # test_dup_tab_auto_inc_col.groovy: a nullable INT column says NOT NULL first
        ("`id` int(11) AUTO_INCREMENT, `value` int(11) NOT NULL", "the auto increment column should be NOT NULL."),
        ("`id` BIGINT AUTO_INCREMENT(10000), `value` int(11) NOT NULL", "the auto increment column should be NOT NULL."),
        ("`id` VARCHAR NOT NULL AUTO_INCREMENT, `value` int(11) NOT NULL", "the auto increment must be BIGINT type."),
        ("`id` int(11) NOT NULL AUTO_INCREMENT, `value` int(11) NOT NULL", "the auto increment must be BIGINT type."),
        ('`id` BIGINT NOT NULL AUTO_INCREMENT DEFAULT "0", `value` int(11) NOT NULL',
         "the auto increment column can't have default value."),
        # test_dup_tab_auto_inc_start_value_col.groovy
        ("`id` BIGINT NOT NULL AUTO_INCREMENT(-1), `value` int(11) NOT NULL",
         "AUTO_INCREMENT start value can not be negative."),
    ],
)
def test_doris_refuses_these_definitions_with_its_words(columns, message):
    with pytest.raises(InvalidTableDefinitionError) as raised:
        parse_create_table(f"CREATE TABLE t ({columns}) {TAIL}")
    assert str(raised.value) == message


def test_an_aggregate_table_has_no_auto_increment_column():
    with pytest.raises(InvalidTableDefinitionError, match=r"AUTO_INCREMENT \(column id\) is supported on DUPLICATE KEY"):
        parse_create_table(
            "CREATE TABLE t (k INT NOT NULL, id BIGINT NOT NULL AUTO_INCREMENT REPLACE) AGGREGATE KEY(k) "
            "DISTRIBUTED BY HASH(k) BUCKETS 1"
        )


@pytest.mark.parametrize(
    ("attribute", "start"),
    [("AUTO_INCREMENT", 1), ("AUTO_INCREMENT(10000)", 10000), ("AUTO_INCREMENT(0)", 0)],
)
def test_the_start_value_is_kept_in_the_table_model(attribute, start):
    # regression-test/suites/data_model_p0/duplicate/storage/test_dup_tab_auto_inc_start_value_col.groovy: a key
    # column, a value column, and a column named AUTO_INCREMENT (no exception)
    for sql in (
        f"CREATE TABLE t (`id` BIGINT NOT NULL {attribute}, `value` int(11) NOT NULL) {TAIL}",
        f"CREATE TABLE t (`id` int(11) NOT NULL, `value` BIGINT NOT NULL {attribute}) {TAIL}",
    ):
        model = model_from_definition(parse_create_table(sql))
        column = model.auto_increment_column
        assert column is not None and column.auto_increment_start == start
        stored = model_from_properties(model_to_properties(model), list(model.columns))
        assert stored.auto_increment_column == column
    named = parse_create_table(
        f"CREATE TABLE t (AUTO_INCREMENT BIGINT NOT NULL {attribute}, VALUE int(11) NOT NULL) "
        "DUPLICATE KEY(AUTO_INCREMENT) DISTRIBUTED BY HASH(AUTO_INCREMENT) BUCKETS 1"
    )
    assert model_from_definition(named).auto_increment_column.name == "AUTO_INCREMENT"
