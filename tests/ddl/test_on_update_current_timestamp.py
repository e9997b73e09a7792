"""``ON UPDATE CURRENT_TIMESTAMP`` definitions Doris refuses, with its words
(``regression-test/suites/nereids_p0/insert_into_table/update_on_current_timestamp.groovy``, its
four illegal cases; the checks are Doris's ``ColumnDefinition.validate``). What the column does in
loads is tests/procedures/test_on_update_current_timestamp.py."""

from __future__ import annotations

import pytest

from iceberg_doris.ddl import parse_create_table
from iceberg_doris.errors import InvalidTableDefinitionError


@pytest.mark.parametrize(
    ("column", "tail", "message"),
    [
        # illegal case 1: the default is not CURRENT_TIMESTAMP
        ('`update_time` datetime default "2020-01-01 00:00:00" on update current_timestamp', "", "You must set the default "
         "value of the column[update_time] to CURRENT_TIMESTAMP when using 'ON UPDATE CURRENT_TIMESTAMP'."),
        # illegal case 2: no default
        ("`update_time` datetime on update current_timestamp", "", "You must set the default value of the "
         "column[update_time] to CURRENT_TIMESTAMP when using 'ON UPDATE CURRENT_TIMESTAMP'."),
        # illegal case 3: another precision
        ("`update_time` datetime(6) default current_timestamp(4) on update current_timestamp(3)", "", "The precision of "
         "the default value of column[update_time] should be the same with the precision in 'ON UPDATE CURRENT_TIMESTAMP'."),
        # illegal case 4: a merge-on-read UNIQUE table, and a DUPLICATE table
        ("`update_time` datetime(6) default current_timestamp(3) on update current_timestamp(3)",
         '"enable_unique_key_merge_on_write" = "false"',
         "'ON UPDATE CURRENT_TIMESTAMP' is only supportted in unique table with merge-on-write enabled."),
        ("`update_time` datetime default current_timestamp on update current_timestamp", "DUPLICATE",
         "'ON UPDATE CURRENT_TIMESTAMP' is only supportted in unique table with merge-on-write enabled."),
    ],
)
def test_definitions_doris_refuses_are_refused_with_its_words(column, tail, message):
    keys = "DUPLICATE KEY(`id`)" if tail == "DUPLICATE" else "UNIQUE KEY(`id`)"
    properties = f"PROPERTIES({tail})" if tail and tail != "DUPLICATE" else ""
    ddl = (f"CREATE TABLE illegal (`id` int(11) NOT NULL, `score` int(11) NOT NULL, {column}) {keys} "
           f"DISTRIBUTED BY HASH(`id`) BUCKETS 1 {properties}")
    with pytest.raises(InvalidTableDefinitionError) as refused:
        parse_create_table(ddl)
    assert str(refused.value) == message


def test_the_precisions_are_kept_and_a_table_with_the_column_is_accepted():
    definition = parse_create_table(
        "CREATE TABLE ok (`id` int NOT NULL, `t` datetime(6) default current_timestamp(5) on update current_timestamp(5), "
        "`u` datetime default current_timestamp on update current_timestamp) UNIQUE KEY(`id`) DISTRIBUTED BY HASH(`id`) BUCKETS 1"
    )
    t, u = definition.columns[1], definition.columns[2]
    assert (t.on_update_current_timestamp, t.on_update_precision, t.default_precision) == (True, 5, 5)
    assert (u.on_update_current_timestamp, u.on_update_precision) == (True, None)
