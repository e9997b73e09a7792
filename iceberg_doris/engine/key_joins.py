"""Matching rows by a Doris key: one home for every keyed join, so a NULL key is one key.

Doris keeps NULL as one key value of a nullable UNIQUE or AGGREGATE key column: a NULL key is
upserted, deleted, sequenced and aggregated as one key (data_model_p0/unique/test_unique_table.groovy
declares ``k1 int NULL`` a unique key). Spark's ``=`` never matches NULL, so a join on a nullable key
uses ``<=>`` (``eqNullSafe``); a table whose key columns are all NOT NULL keeps the plain
using-join, whose plan is unchanged. Grouping and windows (``groupBy``, ``PARTITION BY``) already
put NULLs in one group.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from iceberg_doris.ddl.sql_text import quote_identifier

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

_HOWS = ("inner", "left", "left_semi", "left_anti")
_RIGHT_KEY = "__doris_right_key_"


def join_on_keys(
    left: "DataFrame", right: "DataFrame", keys: Sequence[str], how: str = "inner", *, null_safe: bool,
) -> "DataFrame":
    """``left.join(right, keys, how)`` with NULL equal to NULL when ``null_safe``: the output has
    the columns the using-join gives (one copy of each key column first, the left's values, then
    the left's and the right's other columns)."""
    keys = list(keys)
    if not null_safe:
        return left.join(right, keys, how)
    assert how in _HOWS, f"join_on_keys: a {how!r} join would need both sides' keys coalesced"
    from pyspark.sql import functions as F

    renamed = [f"{_RIGHT_KEY}{i}" for i in range(len(keys))]
    others = [c for c in right.columns if c not in keys]
    right = right.select(
        *[F.col(quote_identifier(k)).alias(r) for k, r in zip(keys, renamed)],
        *[F.col(quote_identifier(c)) for c in others],
    )
    condition = _null_safe_equal(keys, renamed)
    joined = left.join(right, condition, how)
    if how in ("left_semi", "left_anti"):
        return joined
    left_others = [c for c in left.columns if c not in keys]
    return joined.select(*[F.col(quote_identifier(c)) for c in [*keys, *left_others, *others]])


def _null_safe_equal(keys: list[str], renamed: list[str]) -> "Column":
    from pyspark.sql import functions as F

    condition = None
    for key, other in zip(keys, renamed):
        term = F.col(quote_identifier(key)).eqNullSafe(F.col(other))
        condition = term if condition is None else condition & term
    assert condition is not None, "a key has at least one column"
    return condition
