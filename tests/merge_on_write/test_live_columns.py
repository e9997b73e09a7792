"""Which stored values a keyed load reads (``plan.live_columns_needed``): only those its merge uses."""

from __future__ import annotations

import pytest

from iceberg_doris.ddl import parse_create_table
from iceberg_doris.merge_on_write import plan
from iceberg_doris.table_model.model import model_from_definition

AGGREGATE = (
    "CREATE TABLE t (k INT NOT NULL, total BIGINT SUM, high INT MAX, low INT MIN, last STRING REPLACE, "
    "kept STRING REPLACE_IF_NOT_NULL, ver INT REPLACE) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
)


def needed(ddl: str, supplied: tuple[str, ...] | None = None, partial: bool = False) -> list[str]:
    model = model_from_definition(parse_create_table(ddl))
    return plan.live_columns_needed(plan.KeyedLoadShape(model, supplied or tuple(c.name for c in model.columns), partial=partial))


def test_an_aggregate_load_reads_every_column_but_its_replace_columns():
    # A REPLACE column takes the batch's value whatever is stored: reading it was a third of a
    # 10M-row aggregate load's read by position when it was a string.
    assert needed(AGGREGATE) == ["total", "high", "low", "kept"]


def test_a_replace_version_column_makes_the_replace_columns_needed():
    versioned = AGGREGATE + ' PROPERTIES ("replace_version_column" = "ver")'
    assert needed(versioned) == ["total", "high", "low", "last", "kept", "ver"]


@pytest.mark.parametrize("supplied, expected", [(("k", "a"), ["b", "c"]), (("k", "b", "c"), ["a"])])
def test_a_partial_update_reads_the_columns_it_does_not_supply(supplied, expected):
    ddl = "CREATE TABLE u (k INT NOT NULL, a INT, b STRING, c INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
    assert needed(ddl, supplied, partial=True) == expected
