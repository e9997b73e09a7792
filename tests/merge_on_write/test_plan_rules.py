"""The rules of a keyed load, module by module (``merge_on_write.plan``): which version of a key a
batch keeps, whether it beats the stored one, what is written and which stored positions it
replaces. Small DataFrames on the shared session, no table: a change to a rule fails here first,
in seconds, before the end-to-end loads that use it."""

from __future__ import annotations

import pytest

from iceberg_doris.ddl import parse_create_table
from iceberg_doris.merge_on_write import plan
from iceberg_doris.merge_on_write.plan import DELETE, FILE, LIVE, LIVE_ROWS, MAX_SEQUENCE, ORDER, POSITION, SEQUENCE, WINS
from iceberg_doris.table_model.model import model_from_definition

pytestmark = pytest.mark.spark

UNIQUE_SEQ = (
    "CREATE TABLE u (k INT NOT NULL, v STRING NULL, n INT NOT NULL, s INT NULL) UNIQUE KEY(k) "
    'DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("function_column.sequence_col" = "s")'
)
UNIQUE = "CREATE TABLE u (k INT NOT NULL, v STRING NULL, w INT NULL) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
AGGREGATE = (
    "CREATE TABLE a (k INT NOT NULL, total BIGINT SUM, high INT MAX, low INT MIN, last STRING REPLACE, "
    "kept STRING REPLACE_IF_NOT_NULL) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
)


def shape(
    ddl: str, supplied: tuple[str, ...] | None = None, partial: bool = False, insert_statement: bool = False,
) -> plan.KeyedLoadShape:
    model = model_from_definition(parse_create_table(ddl))
    columns = supplied or tuple(c.name for c in model.columns)
    return plan.KeyedLoadShape(model, columns, partial=partial, insert_statement=insert_statement)


def batch(spark, columns: str, rows: list[tuple]):
    """A batch as a load hands it to the plan: the columns, then the delete flag, sequence value and order."""
    return spark.createDataFrame(rows, f"{columns}, {DELETE} BOOLEAN, {SEQUENCE} INT, {ORDER} BIGINT")


def sorted_rows(frame, *columns: str) -> list[tuple]:
    return sorted(tuple(row) for row in frame.select(*columns).collect())


# ------------------------------------------------------------------------ one version per key in a batch
def test_a_sequence_table_keeps_each_key_s_largest_sequence_value_null_smallest_ties_to_the_later_row(spark):
    rows = [
        (1, "old", 1, 5, False, 5, 0), (1, "newer", 1, 9, False, 9, 1), (1, "late-but-older", 1, 3, False, 3, 2),
        (2, "null-seq", 1, None, False, None, 0), (2, "has-seq", 1, 1, False, 1, 1),
        (3, "first", 1, 7, False, 7, 0), (3, "second", 1, 7, False, 7, 1),
    ]
    resolved = plan.resolve_batch(batch(spark, "k INT, v STRING, n INT, s INT", rows), shape(UNIQUE_SEQ))
    assert sorted_rows(resolved, "k", "v") == [(1, "newer"), (2, "has-seq"), (3, "second")]


def test_without_a_sequence_column_the_batch_s_last_row_wins(spark):
    frame = batch(spark, "k INT, v STRING", [(1, "a", False, 9, 0), (1, "b", False, 1, 1)])
    assert sorted_rows(plan.resolve_batch(frame, shape(UNIQUE)), "k", "v") == [(1, "b")]


@pytest.mark.parametrize(("insert_statement", "kept"), [(False, "a"), (True, "b")], ids=["stream-load", "insert"])
def test_a_partial_batch_keeps_the_larger_sequence_value_in_a_load_and_the_last_row_in_an_insert(spark, insert_statement, kept):
    # Doris's stream load: regression-test/suites/unique_with_mow_p0/partial_update/test_partial_update_seq_col.groovy
    # (its .out keeps (3,1500,'2022-07-20') over the later (3,2500,'2022-07-18')); its INSERT:
    # regression-test/suites/nereids_p0/insert_into_table/partial_update_seq_col.groovy (same rows, keeps 2500).
    frame = batch(spark, "k INT, v STRING, s INT", [(1, "a", 9, False, 9, 0), (1, "b", 1, False, 1, 1)])
    partial = shape(UNIQUE_SEQ, supplied=("k", "v", "s"), partial=True, insert_statement=insert_statement)
    assert sorted_rows(plan.resolve_batch(frame, partial), "k", "v") == [(1, kept)]


def test_an_aggregate_batch_is_merged_per_key_by_each_column_s_aggregation(spark):
    rows = [
        (1, 10, 3, 3, "first", "x", False, None, 0),
        (1, 5, 7, 1, "second", None, False, None, 1),
        (1, None, None, None, "third", None, False, None, 2),
    ]
    frame = batch(spark, "k INT, total BIGINT, high INT, low INT, last STRING, kept STRING", rows)
    resolved = plan.resolve_batch(frame, shape(AGGREGATE))
    assert sorted_rows(resolved, "k", "total", "high", "low", "last", "kept", DELETE) == [(1, 15, 7, 1, "third", "x", False)]


# ------------------------------------------------------------------------ the batch's version against the table
def test_a_version_wins_unless_the_stored_sequence_value_is_larger_and_null_loses_to_a_stored_value(spark):
    s = shape(UNIQUE_SEQ)
    rows = [(1, "equal", 1, 5, False, 5, 0), (2, "older", 1, 4, False, 4, 1), (3, "null", 1, None, False, None, 2),
            (4, "nothing-stored", 1, None, False, None, 3)]
    frame = batch(spark, "k INT, v STRING, n INT, s INT", rows)
    live = spark.createDataFrame([], f"k INT, {LIVE}n INT, {LIVE}s INT, {FILE} STRING, {POSITION} BIGINT")
    stored = spark.createDataFrame([(1, 5), (2, 5), (3, 5)], f"k INT, {MAX_SEQUENCE} INT")
    decided = plan.decide(frame, live, stored, s)
    assert sorted_rows(decided, "k", WINS) == [(1, True), (2, False), (3, False), (4, True)]


def test_a_partial_update_keeps_the_stored_values_of_the_columns_it_does_not_supply(spark):
    s = shape(UNIQUE, supplied=("k", "v"), partial=True)
    frame = batch(spark, "k INT, v STRING, w INT", [(1, "new", None, False, None, 0), (2, "fresh", None, False, None, 1)])
    live = spark.createDataFrame([(1, 42, "f1", 0)], f"k INT, {LIVE}w INT, {FILE} STRING, {POSITION} BIGINT")
    written = plan.new_rows(plan.decide(frame, live, None, s), s)
    assert sorted_rows(written, "k", "v", "w") == [(1, "new", 42), (2, "fresh", None)]


def test_an_aggregate_load_merges_into_the_stored_row(spark):
    s = shape(AGGREGATE)
    frame = batch(spark, "k INT, total BIGINT, high INT, low INT, last STRING, kept STRING",
                  [(1, 5, 2, 2, "incoming", None, False, None, 0)])
    live = spark.createDataFrame(
        [(1, 10, 9, 4, "kept-value", "f1", 3)],
        f"k INT, {LIVE}total BIGINT, {LIVE}high INT, {LIVE}low INT, {LIVE}kept STRING, {FILE} STRING, {POSITION} BIGINT",
    )
    written = plan.new_rows(plan.decide(plan.resolve_batch(frame, s), live, None, s), s)
    assert sorted_rows(written, "k", "total", "high", "low", "last", "kept") == [(1, 15, 9, 2, "incoming", "kept-value")]


# ------------------------------------------------------------------------ what is written and what is replaced
def test_a_winning_delete_replaces_the_live_row_and_leaves_a_tombstone_filled_from_it(spark):
    s = shape(UNIQUE_SEQ)
    frame = batch(spark, "k INT, v STRING, n INT, s INT",
                  [(1, None, None, 8, True, 8, 0), (2, "up", 5, 8, False, 8, 1), (3, None, None, 8, True, 8, 2)])
    live = spark.createDataFrame(
        [(1, 7, 1, "f1", 4), (2, 9, 1, "f2", 0)], f"k INT, {LIVE}n INT, {LIVE}s INT, {FILE} STRING, {POSITION} BIGINT",
    )
    stored = spark.createDataFrame([(1, 1), (2, 1)], f"k INT, {MAX_SEQUENCE} INT")
    decided = plan.decide(frame, live, stored, s)
    # Key 3 has no live row: its delete writes a tombstone but replaces nothing.
    assert sorted_rows(plan.tombstones(decided, s), "k", "n", "s") == [(1, 7, 8), (3, None, 8)]
    assert sorted_rows(plan.new_rows(decided, s), "k", "v", "n") == [(2, "up", 5)]
    replaced = plan.replaced_positions(decided)
    assert {f: list(p) for f, p in replaced.by_file.items()} == {"f1": [4], "f2": [0]}
    assert (replaced.deleted_rows, replaced.any_delete_wins) == (1, True)


def test_several_live_rows_of_a_key_are_all_replaced_and_the_newest_gives_the_kept_values(spark):
    # A plain INSERT wrote key 1 twice: the later file (larger data sequence number) holds the newest row.
    s = shape(UNIQUE, supplied=("k", "v"), partial=True)
    live = spark.createDataFrame(
        [(1, 100, "old.parquet", 0), (1, 200, "new.parquet", 3)], f"k INT, {LIVE}w INT, {FILE} STRING, {POSITION} BIGINT",
    )
    from pyspark.sql import functions as F

    order = F.when(F.col(FILE) == "new.parquet", 2).otherwise(1)
    per_key = plan.one_per_key(live, s, file_order=order).collect()
    assert len(per_key) == 1 and per_key[0][f"{LIVE}w"] == 200
    assert sorted((r[FILE], r[POSITION]) for r in per_key[0][LIVE_ROWS]) == [("new.parquet", 3), ("old.parquet", 0)]
    frame = batch(spark, "k INT, v STRING, w INT", [(1, "x", None, False, None, 0)])
    decided = plan.decide(frame, live, None, s, file_order=order)
    assert sorted_rows(plan.new_rows(decided, s), "k", "v", "w") == [(1, "x", 200)]
    assert {f: list(p) for f, p in plan.replaced_positions(decided).by_file.items()} == {"old.parquet": [0], "new.parquet": [3]}


def test_an_overwrite_writes_each_key_s_winner_and_leaves_out_keys_whose_winner_is_a_delete(spark):
    frame = batch(spark, "k INT, v STRING, n INT, s INT",
                  [(1, "a", 1, 1, False, 1, 0), (1, "b", 1, 2, False, 2, 1), (2, "gone", 1, 3, True, 3, 2)])
    assert sorted_rows(plan.overwrite_rows(frame, shape(UNIQUE_SEQ)), "k", "v") == [(1, "b")]
