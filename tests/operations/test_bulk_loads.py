"""Bulk loads do only the work their rows need: a duplicate-key load counts from its write (counts
equal the rows written; error rows only when there are any), and a keyed load whose keys no live
file can hold (empty table or partition, keys outside every file's key range) looks nothing up,
with the same rows as the lookup would give."""

from __future__ import annotations

from pathlib import Path

import pytest

from iceberg_doris import doris
from iceberg_doris.engine import interleaving
from iceberg_doris.errors import LoadError
from iceberg_doris.loading import read_error_rows
from tests.concurrency import once_for, readers_agree, snapshot_summary, unique_table, values

pytestmark = pytest.mark.spark

NO_LOOKUP = "none: no live data file can hold the batch's keys"
KEY_LOOKUP = "doris.key-lookup"


def summary_of(spark, table: str, snapshot_id: int) -> dict[str, str]:
    row = spark.sql(f"SELECT summary FROM {table}.snapshots WHERE snapshot_id = {snapshot_id}").collect()[0]
    return dict(row.summary)


def error_dirs(lake_home: Path, namespace: str) -> list[Path]:
    return sorted((lake_home / "warehouse" / "_doris_load_errors").glob(f"{namespace}/*/*"))


def duplicate_table(spark, namespace: str) -> str:
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {namespace}.d (k INT NOT NULL, v STRING, s INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2",
    )
    return f"{namespace}.d"


def test_duplicate_load_counts_equal_the_rows_written_and_no_error_rows_without_errors(spark, namespace, lake_home):
    table = duplicate_table(spark, namespace)
    result = doris.load(spark, table=table, query="SELECT id AS k, CAST(id AS STRING) AS v, 1 AS s FROM range(500)")[0]
    assert (result.loaded_rows, result.filtered_rows, result.unselected_rows) == (500, 0, 0)
    assert result.error_rows_path is None
    assert error_dirs(lake_home, namespace) == []
    summary = summary_of(spark, table, result.snapshot_id)
    assert summary["added-records"] == "500" and summary["doris.loaded-rows"] == "500"
    assert spark.table(table).count() == 500


def test_duplicate_load_counts_filtered_and_unselected_rows_exactly(spark, namespace, lake_home):
    table = duplicate_table(spark, namespace)
    rows = values(["(1,'a',1)", "(NULL,'null key',2)", "(3,'c',3)", "(4,'d',40)", "(NULL,'again',5)"])
    result = doris.load(spark, table=table, query=rows, where="s < 10", max_filter_ratio=0.5)[0]
    assert (result.loaded_rows, result.filtered_rows, result.unselected_rows) == (2, 2, 1)
    assert sorted(r["row"]["v"] for r in read_error_rows(result.error_rows_path)) == ["again", "null key"]
    assert [Path(result.error_rows_path.removeprefix("file:"))] == [
        p for p in error_dirs(lake_home, namespace) if p.name == result.label
    ]
    summary = summary_of(spark, table, result.snapshot_id)
    assert (summary["doris.loaded-rows"], summary["doris.filtered-rows"], summary["doris.unselected-rows"]) == ("2", "2", "1")
    assert summary["added-records"] == "2"
    assert sorted(tuple(r) for r in spark.table(table).collect()) == [(1, "a", 1), (3, "c", 3)]


def test_duplicate_load_with_too_many_errors_commits_nothing(spark, namespace):
    table = duplicate_table(spark, namespace)
    with pytest.raises(LoadError, match=r"too many filtered rows: 2 of 3 rows were filtered"):
        doris.load(spark, table=table, query=values(["(1,'a',1)", "(NULL,'x',2)", "(NULL,'y',3)"]))
    assert spark.sql(f"SELECT count(*) FROM {table}.snapshots").collect()[0][0] == 0


def test_unique_load_into_an_empty_table_looks_nothing_up(spark, namespace, py_catalog):
    table = unique_table(spark, namespace)
    result = doris.load(spark, table=table, query=values(["(3,'c',1)", "(1,'a',1)", "(2,'b',1)"]))[0]
    assert result.loaded_rows == 3
    summary = summary_of(spark, table, result.snapshot_id)
    assert summary[KEY_LOOKUP] == NO_LOOKUP
    assert summary["added-records"] == "3" and summary["doris.deleted-rows"] == "0"
    assert readers_agree(spark, py_catalog, table) == [(1, "a", 1), (2, "b", 1), (3, "c", 1)]


def test_unique_load_of_keys_outside_every_files_range_looks_nothing_up(spark, namespace, py_catalog):
    table = unique_table(spark, namespace)
    doris.load(spark, table=table, query=values(["(1,'a',1)", "(2,'b',1)"]))
    result = doris.load(spark, table=table, query=values(["(10,'x',1)", "(11,'y',1)"]))[0]
    assert summary_of(spark, table, result.snapshot_id)[KEY_LOOKUP] == NO_LOOKUP
    assert spark.sql(f"SELECT count(*) FROM {table}.delete_files").collect()[0][0] == 0
    # Keys inside a file's range are looked up: the stored row is replaced.
    inside = doris.load(spark, table=table, query=values(["(2,'b2',2)", "(5,'e',1)"]))[0]
    assert KEY_LOOKUP not in summary_of(spark, table, inside.snapshot_id)
    assert readers_agree(spark, py_catalog, table) == [(1, "a", 1), (2, "b2", 2), (5, "e", 1), (10, "x", 1), (11, "y", 1)]


def test_repeated_keys_and_deletes_in_an_empty_table_keep_doris_rules(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, properties='"function_column.sequence_col" = "s"')
    result = doris.load(spark, table=table, query=values(["(1,'late',5)", "(1,'early',2)", "(2,'b',1)"]))[0]
    assert KEY_LOOKUP not in summary_of(spark, table, result.snapshot_id)  # a repeated key: the usual path
    assert readers_agree(spark, py_catalog, table) == [(1, "late", 5), (2, "b", 1)]
    other = unique_table(spark, namespace, name="u2", properties='"function_column.sequence_col" = "s"')
    doris.load(spark, table=other, query=values(["(7,'gone',3)", "(8,'kept',1)"]), merge_type="MERGE", delete_on="v = 'gone'")
    doris.load(spark, table=other, query=values(["(7,'old',1)"]))  # older than the delete: stays deleted
    assert readers_agree(spark, py_catalog, other) == [(8, "kept", 1)]


def test_aggregate_load_into_an_empty_partition_looks_nothing_up(spark, namespace, py_catalog):
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {namespace}.a (d DATE NOT NULL, k INT NOT NULL, n BIGINT SUM, m INT MAX) AGGREGATE KEY(d, k) "
        "PARTITION BY RANGE(d) (PARTITION p1 VALUES LESS THAN ('2024-02-01'), PARTITION p2 VALUES LESS THAN ('2024-03-01')) "
        "DISTRIBUTED BY HASH(k) BUCKETS 2",
    )
    table = f"{namespace}.a"
    rows = "SELECT * FROM VALUES (date'2024-01-05', 1, 10, 1), (date'2024-01-06', 2, 5, 7) AS t(d, k, n, m)"
    first = doris.load(spark, table=table, query=rows)[0]
    assert summary_of(spark, table, first.snapshot_id)[KEY_LOOKUP] == NO_LOOKUP
    feb = "SELECT * FROM VALUES (date'2024-02-05', 1, 3, 3) AS t(d, k, n, m)"
    second = doris.load(spark, table=table, query=feb)[0]
    assert summary_of(spark, table, second.snapshot_id)[KEY_LOOKUP] == NO_LOOKUP
    again = doris.load(spark, table=table, query="SELECT * FROM VALUES (date'2024-01-05', 1, 4, 0) AS t(d, k, n, m)")[0]
    assert KEY_LOOKUP not in summary_of(spark, table, again.snapshot_id)
    assert [tuple(r) for r in spark.sql(f"SELECT d, k, n, m FROM {table} ORDER BY d, k").collect()] == [
        (first_day(1, 5), 1, 14, 1), (first_day(1, 6), 2, 5, 7), (first_day(2, 5), 1, 3, 3),
    ]


def first_day(month: int, day: int):
    import datetime as dt

    return dt.date(2024, month, day)


def test_rows_committed_between_a_skipped_lookup_and_its_commit_are_looked_up(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, properties='"function_column.sequence_col" = "s"')

    def competitor() -> None:
        doris.load(spark, table=table, query=values(["(1,'inner',9)", "(3,'inner',1)"]), label="inner")

    with interleaving.inject(interleaving.LOOKED_UP, once_for(table, competitor)):
        doris.load(spark, table=table, query=values(["(1,'outer',5)", "(2,'outer',5)", "(3,'outer',5)"]), label="outer")
    assert readers_agree(spark, py_catalog, table) == [(1, "inner", 9), (2, "outer", 5), (3, "outer", 5)]
    outer = snapshot_summary(spark, table, "outer")
    assert outer["doris.lookups"] == "2" and KEY_LOOKUP not in outer
    assert snapshot_summary(spark, table, "inner")[KEY_LOOKUP] == NO_LOOKUP


def test_a_constant_row_that_fits_no_partition_is_counted_as_filtered(spark, namespace):
    # Spark folds a constant query's routing while planning: the count must not depend on the write.
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {namespace}.m (dt DATE NOT NULL, id INT) DUPLICATE KEY(dt) "
        "PARTITION BY RANGE(dt) (PARTITION p1 VALUES LESS THAN ('2024-02-01')) DISTRIBUTED BY HASH(id) BUCKETS 1",
    )
    table = f"{namespace}.m"
    with pytest.raises(LoadError, match=r"too many filtered rows: 1 of 1 rows were filtered"):
        doris.load(spark, table=table, query="SELECT date'2024-09-09' AS dt, 1 AS id")
    result = doris.load(spark, table=table, query="SELECT date'2024-09-09' AS dt, 1 AS id", max_filter_ratio=1.0)[0]
    assert (result.loaded_rows, result.filtered_rows) == (0, 1)
    assert [r["reason"] for r in read_error_rows(result.error_rows_path)] == ["no partition for this tuple"]
