"""NULL keys as Doris keeps them: a UNIQUE or AGGREGATE key column declared ``NULL`` holds one NULL
key, upserted, deleted, sequenced and aggregated as one key; a key column written without NULL /
NOT NULL stays NOT NULL (an Iceberg identifier field)."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from tests.support.duckdb_reader import read_rows

pytestmark = pytest.mark.spark


def _create(spark, name: str, columns: str, keys: str, model: str = "UNIQUE", properties: str = "") -> None:
    extra = f", {properties}" if properties else ""
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {name} ({columns}) {model} KEY({keys}) DISTRIBUTED BY HASH({keys.split(',')[0]}) BUCKETS 1 "
        f'PROPERTIES ("replication_num" = "1"{extra})'
    ))


def _load(spark, name: str, rows: list[tuple], schema: str, **options) -> None:
    doris.load(spark, table=name, source=spark.createDataFrame(rows, schema), **options)


def _rows(spark, name: str) -> list[tuple]:
    return sorted((tuple(r) for r in spark.table(name).collect()), key=lambda r: tuple((v is not None, v) for v in r))


def test_unique_null_key_is_one_key(spark, namespace, py_catalog):
    # data_model_p0/unique/test_unique_table.groovy: `k1` int NULL as a UNIQUE KEY, loaded
    # twice and deleted with __DORIS_DELETE_SIGN__; nereids_p0/insert_into_table/unique.groovy
    # loads NULL ids into `id` int null, UNIQUE KEY(id).
    name = f"{namespace}.uniq"
    _create(spark, name, "k INT NULL, v INT", "k")
    table = py_catalog.load_table(name)
    # Identifier fields must be required: a nullable key leaves none, the key stays in the model.
    assert table.schema().identifier_field_ids == []
    assert not table.schema().find_field("k").required
    schema = "k INT, v INT"
    _load(spark, name, [(None, 1), (2, 20)], schema)
    first = py_catalog.load_table(name).current_snapshot().snapshot_id
    _load(spark, name, [(None, 2)], schema)
    assert _rows(spark, name) == [(None, 2), (2, 20)]
    table = py_catalog.load_table(name)
    # The second load found the stored NULL-key row (its old row deleted): by the scan, null-safely.
    assert table.current_snapshot().summary["doris.key-index"] == "scan: a key column is nullable"
    assert sorted(table.scan().to_arrow().to_pylist(), key=lambda r: r["k"] is not None) == [
        {"k": None, "v": 2}, {"k": 2, "v": 20},
    ]
    assert read_rows(table.metadata_location, order_by="k NULLS FIRST") == [(None, 2), (2, 20)]
    checked = {r.check: r.status for r in doris.check(spark, table=name)}
    assert checked["repeated_keys"] == "OK"
    changed = doris.changes(spark, table=name, start_snapshot=first).collect()
    assert sorted((r.k, r.v, r._change_type) for r in changed) == [
        (None, 1, "update_preimage"), (None, 2, "update_postimage"),
    ]
    _load(spark, name, [(None, 0)], schema, merge_type="DELETE")
    assert _rows(spark, name) == [(2, 20)]


def test_composite_key_with_a_null_column(spark, namespace):
    # unique_with_mow_p0/flexible/test_flexible_partial_update_filter_missing_key.groovy declares
    # UNIQUE KEY(k1, k2) over `k1` int NULL, `k2` int null: (NULL, 1) and (NULL, 2) are two keys.
    name = f"{namespace}.composite"
    _create(spark, name, "k1 INT NULL, k2 INT NOT NULL, v STRING", "k1, k2")
    schema = "k1 INT, k2 INT, v STRING"
    _load(spark, name, [(None, 1, "a"), (None, 2, "b"), (1, 1, "c")], schema)
    _load(spark, name, [(None, 1, "d")], schema)
    assert _rows(spark, name) == [(None, 1, "d"), (None, 2, "b"), (1, 1, "c")]
    # A partial update (fixed columns) of the NULL key merges with its stored row.
    _load(spark, name, [(None, 2, "e")], schema, partial_columns=True)
    assert _rows(spark, name) == [(None, 1, "d"), (None, 2, "e"), (1, 1, "c")]


def test_sequence_column_orders_the_null_key(spark, namespace):
    # data_model_p0/unique/test_unique_table_sequence.groovy: the larger sequence value wins per
    # key across loads, here for the NULL key.
    name = f"{namespace}.seq"
    _create(spark, name, "k INT NULL, s INT, v STRING", "k", properties='"function_column.sequence_col" = "s"')
    schema = "k INT, s INT, v STRING"
    _load(spark, name, [(None, 5, "new"), (1, 5, "one")], schema)
    _load(spark, name, [(None, 3, "old")], schema)
    assert _rows(spark, name) == [(None, 5, "new"), (1, 5, "one")]
    _load(spark, name, [(None, 7, "newer")], schema)
    assert _rows(spark, name) == [(None, 7, "newer"), (1, 5, "one")]
    # A delete with a smaller sequence value loses; with a larger one it removes the NULL key.
    _load(spark, name, [(None, 6, "x")], schema, merge_type="DELETE")
    assert _rows(spark, name) == [(None, 7, "newer"), (1, 5, "one")]
    _load(spark, name, [(None, 8, "x")], schema, merge_type="DELETE")
    assert _rows(spark, name) == [(1, 5, "one")]
    assert {r.check: r.status for r in doris.check(spark, table=name)}["revived_keys"] == "OK"


def test_aggregate_null_key_sums_into_one_row(spark, namespace):
    # data_model_p0/aggregate/test_aggregate_table.groovy: AGGREGATE KEY(k) over `k int` (nullable
    # in Doris), SUM/MAX/REPLACE values merged per key across loads.
    name = f"{namespace}.agg"
    _create(spark, name, "k INT NULL, total INT SUM, top INT MAX", "k", model="AGGREGATE")
    schema = "k INT, total INT, top INT"
    _load(spark, name, [(None, 1, 1), (None, 2, 5), (3, 1, 1)], schema)
    _load(spark, name, [(None, 4, 2)], schema)
    assert _rows(spark, name) == [(None, 7, 5), (3, 1, 1)]


def test_spark_statements_on_the_null_key(spark_statements, namespace):
    # data_model_p0/unique/test_unique_table.groovy's table (`k1` int NULL, UNIQUE KEY), changed
    # by Spark's DELETE, UPDATE and MERGE INTO run as Doris operations.
    spark = spark_statements
    name = f"{namespace}.stmts"
    _create(spark, name, "k INT NULL, v INT", "k", properties='"enable_unique_key_merge_on_write" = "true"')
    _load(spark, name, [(None, 1), (2, 2)], "k INT, v INT")
    spark.sql(f"UPDATE {name} SET v = 10 WHERE k IS NULL")
    assert _rows(spark, name) == [(None, 10), (2, 2)]
    spark.sql(
        f"MERGE INTO {name} t USING (SELECT CAST(NULL AS INT) AS k, 11 AS v) s ON t.k <=> s.k "
        "WHEN MATCHED THEN UPDATE SET v = t.v + s.v WHEN NOT MATCHED THEN INSERT *"
    )
    assert _rows(spark, name) == [(None, 21), (2, 2)]
    spark.sql(f"DELETE FROM {name} WHERE k IS NULL")
    assert _rows(spark, name) == [(2, 2)]


def test_key_without_nullability_stays_an_identifier_field(spark, namespace, py_catalog):
    # Doris makes `k int` nullable (ColumnNullableType.DEFAULT; test_aggregate_table.groovy's desc);
    # iceberg-doris keeps such a key NOT NULL, an identifier field other engines find the key by.
    name = f"{namespace}.plain"
    _create(spark, name, "k INT, v INT", "k")
    schema = py_catalog.load_table(name).schema()
    assert [schema.find_field(i).name for i in schema.identifier_field_ids] == ["k"]
    assert schema.find_field("k").required
    counts = doris.load(spark, table=name, source=spark.createDataFrame([(None, 1), (1, 1)], "k INT, v INT"),
                        max_filter_ratio=0.6)[0]
    assert (counts.loaded_rows, counts.filtered_rows) == (1, 1)


def test_flexible_update_of_the_null_key_and_a_row_without_its_key(spark, namespace, tmp_path):
    # unique_with_mow_p0/flexible/test_flexible_partial_update_filter_missing_key.groovy: keys
    # declared `int NULL`; a JSON row that leaves a key out is filtered, a NULL key is one key.
    name = f"{namespace}.flex"
    _create(spark, name, "k INT NULL, v1 INT NULL, v2 INT NULL", "k",
            properties='"enable_unique_key_skip_bitmap_column" = "true"')
    _load(spark, name, [(None, 1, 1), (1, 1, 1)], "k INT, v1 INT, v2 INT")
    path = tmp_path / "rows.json"
    path.write_text('{"k": null, "v2": 20}\n{"v1": 30}\n')
    counts = doris.load(spark, table=name, path=[str(path)], format="json",
                        unique_key_update_mode="UPDATE_FLEXIBLE_COLUMNS", max_filter_ratio=0.5)[0]
    assert (counts.loaded_rows, counts.filtered_rows) == (1, 1)
    assert _rows(spark, name) == [(None, 1, 20), (1, 1, 1)]


def test_a_null_key_stored_twice_by_another_writer_is_reported_and_repaired(spark, namespace):
    # doris.check's repeated_keys and the keyed load's repair count the NULL key as one key.
    name = f"{namespace}.foreign"
    _create(spark, name, "k INT NULL, v INT", "k")
    _load(spark, name, [(None, 1), (1, 1)], "k INT, v INT")
    spark.sql(f"INSERT INTO {name} VALUES (NULL, 2)")  # a plain Iceberg append, past the model
    checked = {r.check: (r.status, r["count"]) for r in doris.check(spark, table=name)}
    assert checked["repeated_keys"] == ("VIOLATION", 1)
    _load(spark, name, [(1, 3)], "k INT, v INT")
    assert _rows(spark, name) == [(None, 2), (1, 3)]
    assert {r.check: r.status for r in doris.check(spark, table=name)}["repeated_keys"] == "OK"
