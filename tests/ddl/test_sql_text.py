"""Names and values written into Spark SQL text: what the quoting gives, and that Spark reads it back."""

from __future__ import annotations

import pytest

from iceberg_doris.ddl.sql_text import identifier_as_written, quote_identifier, string_literal

AWKWARD = ["plain", "it's", "a\\b", "ends\\", "\\'", "''", "two\nlines", "`tick`", "标签", "", "%s {0}"]


def test_identifiers_are_backquoted_with_inner_backquotes_doubled():
    assert quote_identifier("k") == "`k`"
    assert quote_identifier("a`b") == "`a``b`"


@pytest.mark.parametrize(("name", "written"), [
    ("k", "k"), ("_k2", "_k2"), ("2k", "`2k`"), ("a b", "`a b`"), ("a$b", "`a$b`"), ("标", "`标`"), ("a`b", "`a``b`"),
])
def test_a_name_is_written_bare_only_when_it_is_a_plain_identifier(name, written):
    assert identifier_as_written(name) == written


def test_string_literals_escape_backslashes_and_quotes_with_a_backslash():
    assert string_literal("it's") == "'it\\'s'"
    assert string_literal("a\\b") == "'a\\\\b'"
    assert string_literal("ends\\") == "'ends\\\\'"


@pytest.mark.spark
def test_spark_reads_back_every_awkward_value_and_name(spark):
    for index, text in enumerate(AWKWARD):
        column = text or "empty"
        row = spark.sql(f"SELECT {string_literal(text)} AS {quote_identifier(column)}").collect()[0]
        assert row.asDict() == {column: text}, (index, text)
