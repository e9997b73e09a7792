"""The lookup's rules that need no table (``merge_on_write.lookup``, pure): when the key index can
decide a load, which stored values a load reads by position, when a partial update checks its new
keys, and which filter plans the candidate files from the keys the index collected."""

from __future__ import annotations

import datetime as dt

import pytest

from iceberg_doris.ddl import parse_create_table
from iceberg_doris.engine import key_index
from iceberg_doris.engine.key_index import wire
from iceberg_doris.merge_on_write import lookup, plan
from iceberg_doris.table_model.model import model_from_definition
from iceberg_doris.table_model.partition_predicates import TRUE, to_sql


def shape(ddl: str, supplied: tuple[str, ...] | None = None, partial: bool = False, strict: bool = False) -> plan.KeyedLoadShape:
    model = model_from_definition(parse_create_table(ddl))
    return plan.KeyedLoadShape(model, supplied or tuple(c.name for c in model.columns), partial=partial, strict=strict)


def unique(columns: str, keys: str = "k", properties: str = "") -> str:
    return f"CREATE TABLE t ({columns}) UNIQUE KEY({keys}) DISTRIBUTED BY HASH(k) BUCKETS 1 {properties}"


def collected(first_values: list, *, count: int | None = None) -> key_index.BatchKeys:
    """Keys as the index describes them after collecting a batch (the JVM's answer, already read)."""
    count = len(first_values) if count is None else count
    values_range = [min(first_values), max(first_values)] if first_values else []
    summary = wire.BatchSummary(count, False, values_range, first_values if count <= lookup.KEY_LIST_LIMIT else None)
    return key_index.BatchKeys(java=None, spark=None, _summaries={0: summary, count: summary})  # type: ignore[arg-type]


@pytest.mark.parametrize(("columns", "why"), [
    ("k INT NOT NULL, v STRING", None),
    ("k VARCHAR(10) NOT NULL, v STRING", None),
    ("k DECIMAL(9, 2) NOT NULL, v STRING", None),
    ("k DATE NOT NULL, v STRING", None),
])
def test_the_index_decides_loads_on_the_key_types_it_encodes(columns, why):
    assert lookup.keys_not_encodable(shape(unique(columns))) == why


@pytest.mark.parametrize("sequence_type", ["BIGINT", "INT", "DATE", "DATETIME"])
def test_the_index_keeps_every_sequence_type_doris_allows(sequence_type):
    ddl = unique(f"k INT NOT NULL, v STRING, s {sequence_type}", properties='PROPERTIES ("function_column.sequence_col" = "s")')
    assert lookup.keys_not_encodable(shape(ddl)) is None


def test_which_loads_read_the_stored_rows_by_position():
    full = shape(unique("k INT NOT NULL, v STRING, w INT"))
    assert not lookup.merges_stored_rows(full)  # a full-row upsert only marks positions
    assert lookup.merges_stored_rows(shape(unique("k INT NOT NULL, v STRING, w INT"), ("k", "v"), partial=True))
    sequenced_not_null = unique("k INT NOT NULL, v STRING NOT NULL, s INT", properties='PROPERTIES ("function_column.sequence_col" = "s")')
    assert lookup.merges_stored_rows(shape(sequenced_not_null))  # a tombstone copies the NOT NULL value
    aggregate = "CREATE TABLE a (k INT NOT NULL, n BIGINT SUM) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
    assert lookup.merges_stored_rows(shape(aggregate))


def test_a_partial_update_checks_its_new_keys_only_when_they_could_not_be_filled_or_in_strict_mode():
    ddl = unique("k INT NOT NULL, a INT NULL, b INT NOT NULL DEFAULT '0', c INT NOT NULL")
    assert lookup.partial_check_needed(shape(ddl, ("k", "a"), partial=True))  # c: NOT NULL, no default
    assert not lookup.partial_check_needed(shape(ddl, ("k", "c"), partial=True))  # a nullable, b has a default
    assert lookup.partial_check_needed(shape(ddl, ("k", "c"), partial=True, strict=True))
    assert not lookup.partial_check_needed(shape(ddl))  # not a partial update


def test_few_collected_keys_plan_the_candidate_files_by_their_values_many_by_their_range():
    s = shape(unique("k INT NOT NULL, v STRING"))
    few = lookup.indexed_keys(s, collected([7, 3, 7, 5]))
    assert to_sql(few.keys.predicate) == "`k` IN (3, 5, 7)" and few.keys.broadcast
    assert to_sql(few.key_range) == "(`k` >= 3 AND `k` <= 7)"
    many = lookup.indexed_keys(s, collected([1, 9_000], count=lookup.KEY_LIST_LIMIT + 1))
    assert to_sql(many.keys.predicate) == "(`k` >= 1 AND `k` <= 9000)" and many.keys.broadcast
    huge = lookup.indexed_keys(s, collected([1, 9], count=lookup.BROADCAST_KEY_LIMIT + 1))
    assert not huge.keys.broadcast
    assert lookup.indexed_keys(s, collected([])).keys.predicate is TRUE


def test_date_and_datetime_keys_come_back_from_iso_text():
    dated = lookup.indexed_keys(shape(unique("k DATE NOT NULL, v STRING")), collected(["2024-01-02", "2024-03-04"]))
    assert to_sql(dated.keys.predicate) == "`k` IN (DATE'2024-01-02', DATE'2024-03-04')"
    timed = lookup.indexed_keys(shape(unique("k DATETIME NOT NULL, v STRING")), collected(["2024-01-02T03:04:05"]))
    assert timed.keys.predicate.values == (dt.datetime(2024, 1, 2, 3, 4, 5),)


def test_a_value_that_cannot_be_read_back_weakens_the_filter_to_the_range_never_narrows_it():
    s = shape(unique("k DATE NOT NULL, v STRING"))
    assert lookup._first_key_value(s, "not a date") is None
    unreadable = lookup.indexed_keys(s, collected(["2024-01-02", "not a date"]))
    assert unreadable.keys.predicate is TRUE and unreadable.key_range is TRUE


def test_a_key_declared_null_is_nullable_and_one_without_nullability_is_not():
    # Doris: data_model_p0/unique/test_unique_table.groovy (`k1` int NULL, UNIQUE KEY(k1)).
    declared = shape(unique("k INT NULL, v STRING"))
    assert declared.model.column("k").nullable and declared.null_safe
    unwritten = shape(unique("k INT, v STRING"))
    assert not unwritten.model.column("k").nullable and not unwritten.null_safe
    duplicate = model_from_definition(parse_create_table("CREATE TABLE d (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"))
    assert duplicate.column("k").nullable and not duplicate.null_safe_keys


def test_a_nullable_key_is_looked_up_by_the_scan_with_its_null_in_the_file_filter():
    s = shape(unique("k INT NULL, v STRING"))
    assert lookup.keys_not_encodable(s) == "a key column is nullable"
    # The batch's keys, NULL among them: IN misses NULL, so IS NULL is added.
    assert to_sql(lookup._first_key_filter(s, [3, None, 1])) == "(`k` IN (1, 3) OR `k` IS NULL)"
    assert to_sql(lookup._first_key_filter(s, [None])) == "`k` IS NULL"
    assert to_sql(lookup._first_key_filter(s, [2])) == "`k` IN (2)"
    # A range from MIN/MAX skips NULL: it is always added; no bounds but rows: only NULL keys.
    assert to_sql(lookup._first_key_filter(s, None, 1, 9)) == "((`k` >= 1 AND `k` <= 9) OR `k` IS NULL)"
    assert to_sql(lookup._first_key_filter(s, None, None, None)) == "`k` IS NULL"
