"""Name rules, table-name parsing and path segments (pure Python)."""

from __future__ import annotations

import pytest

from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.engine.safe_paths import MAX_SEGMENT, child_location, path_segment
from iceberg_doris.engine.table_names import TableName, parse_table_name
from iceberg_doris.errors import ProcedureArgumentError
from iceberg_doris.names.rules import check_label, name_problem, shown

HOSTILE = ["..", ".", "../../x", "/tmp/x", "a/b", "a\\b", "a\x00b", "a:b", "%2e%2e", "a b", "标签", "*", "[a]", "~", "x" * 1000, ":" * 128]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_name_is_exactly_one_harmless_path_segment(name):
    segment = path_segment(name)
    assert "/" not in segment and "\\" not in segment and "\x00" not in segment
    assert segment not in (".", "..") and not segment.startswith(".")
    assert len(segment.encode()) <= MAX_SEGMENT
    assert set(segment) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_%")
    assert path_segment(name) == segment  # a retry finds the same folder


def test_segments_keep_plain_names_and_tell_names_apart():
    assert path_segment("orders_2024-05") == "orders_2024-05"
    assert path_segment("a.b") == "a%2Eb" and path_segment("a%2Eb") == "a%252Eb"
    assert path_segment("标") == "%E6%A0%87"
    assert path_segment("x" * 1000) != path_segment("x" * 999)
    with pytest.raises(ValueError):
        path_segment("")


def test_child_location_stays_inside_its_base():
    assert child_location("file:///wh/", "_doris_load_errors", "db", "../..", "/tmp/x") == (
        "file:///wh/_doris_load_errors/db/%2E%2E%2F%2E%2E/%2Ftmp%2Fx"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("db.t", ("db", "t")),
        ("iceberg.db.t", ("db", "t")),
        (" db . t ", ("db", "t")),
        ("`db`.`a``b`", ("db", "a`b")),
        ("db.`a.b`", ("db", "a.b")),
        ("db.`my table` ", ("db", "my table")),
        ("`ICEBERG`.db.t", ("db", "t")),
    ],
)
def test_table_names_parse_backquoted_parts(text, expected):
    name = parse_table_name(text, "iceberg")
    assert (name.namespace, name.name) == expected
    assert parse_table_name(name.qualified, "iceberg") == name  # messages print names that parse back


@pytest.mark.parametrize("text", ["t", "a.b.c.d", "`db.t`", "db.t`x", "db.`x", "db.", ".t", "", "db.t\x00", "db.`a`b"])
def test_malformed_table_names_are_refused(text):
    with pytest.raises(ProcedureArgumentError, match=r"^Table name .*(db\.tbl|backquote|control character)"):
        parse_table_name(text, "iceberg")


def test_sql_quoting_escapes_backquotes():
    assert quote_identifier("a`b") == "`a``b`"
    assert TableName("db", "x` OR 1=1 --").sql == "`db`.`x`` OR 1=1 --`"


def test_label_rule_is_doris_rule():
    for label in ["a", "orders_2024-05", "a:b", "x" * 128, "L-1_b:c"]:
        assert check_label(label) == label
    for label in ["", "x" * 129, "a.b", "a b", "../x", "标签", "a\x00b", "a/b"]:
        with pytest.raises(ProcedureArgumentError, match=r"^Label format error\. regex: \^\[-_A-Za-z0-9:\]\{1,128\}\$, label: "):
            check_label(label)


def test_table_name_problems():
    assert name_problem("orders-2024_x") is None and name_problem("表格") is None
    assert name_problem("1x") == "it does not start with a letter"
    assert name_problem("a.b") == "it contains the character '.'"
    assert name_problem("a\u200bb") == "it contains the control character \\u200b"  # invisible: names that look alike
    assert name_problem("x" * 65) == "it is 65 characters long, more than 64"


def test_shown_names_cannot_garble_a_message():
    assert shown("a\x00b\nc") == "'a\\x00b\\nc'"
    assert shown("x" * 100).endswith("... (100 characters)") and len(shown("x" * 100)) < 100
