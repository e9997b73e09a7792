"""Doris's ``columns`` grammar (pure Python, no Spark)."""

from __future__ import annotations

import pytest

from iceberg_doris.errors import LoadError
from iceberg_doris.loading import ColumnMapping, parse_column_mapping


def test_plain_names_and_derived_columns() -> None:
    mapping = parse_column_mapping("k1, k2, tmpk3, k3 = tmpk3 * 100")
    assert mapping == ColumnMapping(("k1", "k2", "tmpk3"), (("k3", "tmpk3 * 100"),))
    assert mapping.names() == ("k1", "k2", "tmpk3", "k3")


def test_commas_and_equals_inside_expressions_stay_in_the_item() -> None:
    spec = (
        "tmpk1, k2, tmpk3, `my col`, k1 = ifnull(tmpk1, 0), "
        "k3 = case tmpk3 when \"beijing\" then 1 when 'a,b' then 2 else null end, "
        "k4 = concat(k2, ',', `my col`), flag = k2 == 'x' or k2 >= 'y' or k2 <=> null or k2 != 'z', "
        "arr = array(1, 2)[0], m = map('k', 'v=1')"
    )
    mapping = parse_column_mapping(spec)
    assert mapping.source_columns == ("tmpk1", "k2", "tmpk3", "my col")
    assert dict(mapping.derived) == {
        "k1": "ifnull(tmpk1, 0)",
        "k3": "case tmpk3 when \"beijing\" then 1 when 'a,b' then 2 else null end",
        "k4": "concat(k2, ',', `my col`)",
        "flag": "k2 == 'x' or k2 >= 'y' or k2 <=> null or k2 != 'z'",
        "arr": "array(1, 2)[0]",
        "m": "map('k', 'v=1')",
    }


def test_broker_load_parentheses_escaped_quotes_and_spacing() -> None:
    assert parse_column_mapping(" (k1 , k2,tmp) ").source_columns == ("k1", "k2", "tmp")
    assert parse_column_mapping("k1, v = concat('it\\'s', 'a''b')").derived == (("v", "concat('it\\'s', 'a''b')"),)
    # parentheses that do not wrap the whole list are part of an item
    assert parse_column_mapping("a, v = (a) + 1").derived == (("v", "(a) + 1"),)
    assert str(parse_column_mapping("a,`b c`,v=a+1")) == "a, `b c`, v = a+1"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "columns is empty"),
        ("k1, , k2", "columns item 2 is empty"),
        ("k1, k2,", "columns item 3 is empty"),
        ("k1, k 2", "columns item 2 (k 2) is not a column name"),
        ("k1, = k1 + 1", "columns item 2 (= k1 + 1): the column name before '=' is missing"),
        ("k1, v =", "columns item 2 (v =): the expression after '=' is missing"),
        ("k1, 1v = k1", "columns item 2 (1v = k1): '1v' is not a column name"),
        ("k1, K1", "columns item 2 (K1): column K1 is named twice"),
        ("k1, k1 = k1 + 1", "columns item 2 (k1 = k1 + 1): column k1 is named twice"),
        ("k1, v = concat('a, k2", "unterminated ' quote"),
        ("k1, v = f(k1", "missing ')'"),
        ("k1, v = f(k1))", "unbalanced ')'"),
        ("k1, `oops", "unterminated ` quote"),
    ],
)
def test_errors_name_the_item(spec: str, message: str) -> None:
    with pytest.raises(LoadError) as caught:
        parse_column_mapping(spec)
    assert message in str(caught.value)


def test_non_string_is_refused() -> None:
    with pytest.raises(LoadError, match="columns must be a string"):
        parse_column_mapping(["k1"])  # type: ignore[arg-type]
