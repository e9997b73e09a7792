"""``partial_columns`` (Doris's ``enable_unique_key_partial_update``) has no effect on AGGREGATE,
DUPLICATE and merge-on-read UNIQUE tables: the load proceeds as a whole-row load, the columns it
leaves out taking their defaults or NULL (Doris suite test_partial_update_native_insert_stmt,
"session variable enable_unique_key_partial_update will only affect unique tables")."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import LoadError
from tests.concurrency import readers_agree

pytestmark = pytest.mark.spark


def test_merge_on_read_unique_table_replaces_whole_rows(spark, namespace, py_catalog):
    table = f"{namespace}.mor"
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {table} (k INT NOT NULL, v STRING, w INT DEFAULT '7') UNIQUE KEY(k) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ('enable_unique_key_merge_on_write' = 'false')"
    ))
    doris.load(spark, table=table, query="SELECT 1 AS k, 'a' AS v, 1 AS w")
    [row] = doris.load(spark, table=table, query="SELECT 1 AS k, 'b' AS v UNION ALL SELECT 2, 'c'", partial_columns=True)
    assert (row.loaded_rows, row.filtered_rows) == (2, 0)
    assert readers_agree(spark, py_catalog, table) == [(1, "b", 7), (2, "c", 7)]


def test_aggregate_table_aggregates_defaults_for_left_out_columns(spark, namespace, py_catalog):
    table = f"{namespace}.aggp"
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {table} (k INT NOT NULL, total BIGINT SUM DEFAULT '0', hi INT MAX DEFAULT '0', "
        "last STRING REPLACE) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
    ))
    doris.load(spark, table=table, query="SELECT 1 AS k, 5L AS total, 9 AS hi, 'x' AS last")
    doris.load(spark, table=table, query="SELECT 1 AS k, 2L AS total", partial_columns=True)
    # hi takes its default 0 (MAX keeps 9); last takes NULL, which REPLACE stores.
    assert readers_agree(spark, py_catalog, table) == [(1, 7, 9, None)]


def test_duplicate_table_appends_with_defaults(spark, namespace, py_catalog):
    table = f"{namespace}.dupp"
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {table} (k INT NOT NULL, v STRING, n INT NOT NULL DEFAULT '3') DUPLICATE KEY(k) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1"
    ))
    doris.load(spark, table=table, query="SELECT 1 AS k, 'a' AS v, 1 AS n")
    doris.load(spark, table=table, query="SELECT 2 AS k, 'b' AS v", partial_columns=True)
    assert readers_agree(spark, py_catalog, table) == [(1, "a", 1), (2, "b", 3)]


def test_a_left_out_not_null_column_without_default_still_fails(spark, namespace):
    table = f"{namespace}.dupn"
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {table} (k INT NOT NULL, v STRING, n INT NOT NULL) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"
    ))
    with pytest.raises(LoadError, match=r"^column n is NOT NULL and has no default value"):
        doris.load(spark, table=table, query="SELECT 1 AS k, 'b' AS v", partial_columns=True)
