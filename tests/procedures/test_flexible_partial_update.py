"""Doris's flexible partial update: ``unique_key_update_mode => 'UPDATE_FLEXIBLE_COLUMNS'``, each
JSON row updating the columns it names, with Doris's restrictions and messages.

Cases and expected rows are Doris's regression suites (apache/doris):
``regression-test/suites/unique_with_mow_p0/flexible/test_flexible_partial_update.groovy``,
``.../test_flexible_partial_update_delete_sign.groovy``, ``.../test_flexible_partial_update_restricts.groovy``
and ``.../test_flexible_partial_update_property.groovy``, their data and .out files under
``regression-test/data/unique_with_mow_p0/flexible/``.
"""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import DorisError

pytestmark = pytest.mark.spark

FLEXIBLE = "UPDATE_FLEXIBLE_COLUMNS"

# regression-test/data/unique_with_mow_p0/flexible/test1.json
TEST1 = """{"k": 1, "v1": 10}
{"k": 2, "v2": 20, "v5": 25}
{"k": 3, "v3": 30}
{"k": 4, "v4": 20, "v1": 43, "v3": 99}
{"k": 5, "v5": null}
{"k": 6, "v1": 999, "v3": 777}
{"k": 2, "v4": 222}
{"k": 1, "v2": 111, "v3": 111}
"""


def _table(spark, namespace: str, name: str, properties: str = '"enable_unique_key_skip_bitmap_column" = "true"') -> str:
    table = f"{namespace}.{name}"
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {table} (`k` int(11) NULL, `v1` BIGINT NULL, `v2` BIGINT NULL DEFAULT \"9876\", "
        "`v3` BIGINT NOT NULL, `v4` BIGINT NOT NULL DEFAULT \"1234\", `v5` BIGINT NULL) UNIQUE KEY(`k`) "
        f"DISTRIBUTED BY HASH(`k`) BUCKETS 1 PROPERTIES(\"replication_num\" = \"1\", {properties})"
    ))
    spark.sql(f"INSERT INTO {table} SELECT id, id, id, id, id, id FROM range(6)")
    return table


def _json(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _rows(spark, table: str) -> list[tuple]:
    return [tuple(r) for r in spark.sql(f"SELECT * FROM {table} ORDER BY k").collect()]


def _load(spark, table: str, path: str, **options):
    return doris.load(spark, table=table, path=[path], format="json", unique_key_update_mode=FLEXIBLE, **options)


def test_each_row_updates_the_columns_it_names(spark, namespace, tmp_path):
    # test_flexible_partial_update.groovy with test1.json: k 1 and 2 twice (merged in order), k 6 new
    table = _table(spark, namespace, "flex_basic")
    _load(spark, table, _json(tmp_path, "test1.json", TEST1), format_options={"read_json_by_line": "true"})
    assert _rows(spark, table) == [
        (0, 0, 0, 0, 0, 0),
        (1, 10, 111, 111, 1, 1),
        (2, 2, 20, 2, 222, 25),
        (3, 3, 3, 30, 3, 3),
        (4, 43, 4, 99, 20, 4),
        (5, 5, 5, 5, 5, None),
        (6, 999, 9876, 777, 1234, None),
    ]
    assert len(spark.sql(f"SELECT * FROM {table}.snapshots").collect()) == 2


def test_a_delete_sign_per_row(spark, namespace, tmp_path):
    # test_flexible_partial_update_delete_sign.groovy, delete1.json -> qt no_seq_col_2
    table = _table(spark, namespace, "flex_delete")
    delete1 = """{"k": 1, "__DORIS_DELETE_SIGN__": 1}
{"k": 2, "v2": 20, "v5": 25}
{"k": 3, "__DORIS_DELETE_SIGN__": 1}
{"k": 4, "v4": 20, "v1": 43, "v3": 99}
{"k": 5, "v5": null}
{"k": 6, "v1": 999, "v3": 777}
{"k": 7, "__DORIS_DELETE_SIGN__": 1}
"""
    _load(spark, table, _json(tmp_path, "delete1.json", delete1))
    assert _rows(spark, table) == [
        (0, 0, 0, 0, 0, 0),
        (2, 2, 20, 2, 2, 25),
        (4, 43, 4, 99, 20, 4),
        (5, 5, 5, 5, 5, None),
        (6, 999, 9876, 777, 1234, None),
    ]


def test_rows_after_a_delete_in_the_same_load_build_a_new_row(spark, namespace, tmp_path):
    # test_flexible_partial_update_delete_sign.groovy, delete3.json -> qt insert_after_delete_3_1
    # (k 1 is left out: Doris fills its unnamed NOT NULL v3 with 0, see the module's report)
    table = _table(spark, namespace, "flex_delete_insert")
    spark.sql(f"INSERT INTO {table} SELECT id, id, id, id, id, id FROM range(6, 10)")
    delete3 = """{"k":2,"__DORIS_DELETE_SIGN__":1}
{"k":2,"__DORIS_DELETE_SIGN__":1}
{"k":2,"v1":22222}
{"k":2,"v2":33333,"v5":44444}
{"k":2,"__DORIS_DELETE_SIGN__":1}
{"k":2,"v3":22222,"__DORIS_DELETE_SIGN__":1}
{"k":3,"v1":3333,"v3":44444}
{"k":3,"__DORIS_DELETE_SIGN__":1}
{"k":3,"__DORIS_DELETE_SIGN__":1}
{"k":4,"__DORIS_DELETE_SIGN__":1}
{"k":5,"v1":5555,"v2":5555}
{"k":5,"__DORIS_DELETE_SIGN__":1}
{"k":5,"v1":6666,"v3":77777}
{"k":6,"v1":5555,"v2":5555}
{"k":6,"__DORIS_DELETE_SIGN__":1}
{"k":6,"v1":6666,"v3":77777}
{"k":6,"v3":66666,"__DORIS_DELETE_SIGN__":1}
"""
    _load(spark, table, _json(tmp_path, "delete3.json", delete3))
    assert _rows(spark, table) == [
        (0, 0, 0, 0, 0, 0),
        (1, 1, 1, 1, 1, 1),
        (5, 6666, 9876, 77777, 1234, None),
        (7, 7, 7, 7, 7, 7),
        (8, 8, 8, 8, 8, 8),
        (9, 9, 9, 9, 9, 9),
    ]


def test_a_new_key_must_name_its_not_null_columns_without_default(spark, namespace, tmp_path):
    table = _table(spark, namespace, "flex_new_key")
    with pytest.raises(DorisError, match="the unmentioned column `v3` should have default value or be nullable"):
        _load(spark, table, _json(tmp_path, "new.json", '{"k": 9, "v1": 1}\n'))
    assert len(_rows(spark, table)) == 6


@pytest.mark.parametrize(("options", "message"), [
    # test_flexible_partial_update_restricts.groovy and stream_load.cpp's header checks
    ({"format_options": {"fuzzy_parse": "true"}}, "Don't support flexible partial update when 'fuzzy_parse' is enabled"),
    ({"columns": "k,v1,v3,v5"}, "Don't support flexible partial update when 'columns' is specified"),
    ({"format_options": {"jsonpaths": '["$.k"]'}}, "Don't support flexible partial update when 'jsonpaths' is specified"),
    ({"merge_type": "MERGE", "delete_on": "v1 > 1"}, "Don't support flexible partial update when 'merge_type' is specified"),
    ({"where": "v2 > 5"}, "Don't support flexible partial update when 'where' is specified"),
    ({"sequence_col": "v1"}, "Don't support flexible partial update when 'function_column.sequence_col' is specified"),
    ({"partial_columns": True}, "partial_columns => true contradicts unique_key_update_mode"),
])
def test_refused_options(spark, namespace, tmp_path, options, message):
    table = _table(spark, namespace, "flex_refused")
    with pytest.raises(DorisError, match=message.replace("(", r"\(").replace("[", r"\[")):
        _load(spark, table, _json(tmp_path, "test1.json", TEST1), **options)


def test_refused_formats_tables_and_modes(spark, namespace, tmp_path):
    # test_flexible_partial_update_restricts.groovy
    table = _table(spark, namespace, "flex_csv")
    csv = tmp_path / "test1.csv"
    csv.write_text("1\t10\n")
    with pytest.raises(DorisError, match="flexible partial update only support json format as input file currently"):
        doris.load(spark, table=table, path=[str(csv)], format="csv", unique_key_update_mode=FLEXIBLE)
    with pytest.raises(DorisError, match=r"\[INVALID_ARGUMENT\]Invalid unique_key_partial_mode update, must be one of"):
        doris.load(spark, table=table, path=[str(csv)], unique_key_update_mode="update")
    without = _table(spark, namespace, "flex_without", '"enable_unique_key_skip_bitmap_column" = "false"')
    with pytest.raises(DorisError, match="Flexible partial update can only support table with skip bitmap hidden column."):
        _load(spark, without, _json(tmp_path, "test1.json", TEST1))
    mor = _table(spark, namespace, "flex_mor", '"enable_unique_key_merge_on_write" = "false"')
    with pytest.raises(DorisError, match="Only unique key merge on write support partial update"):
        _load(spark, mor, _json(tmp_path, "test1.json", TEST1))


def test_enable_feature_records_the_property(spark, namespace, tmp_path):
    # test_flexible_partial_update_property.groovy
    table = _table(spark, namespace, "flex_enable", '"enable_unique_key_merge_on_write" = "true"')
    with pytest.raises(DorisError, match="skip bitmap hidden column"):
        _load(spark, table, _json(tmp_path, "test1.json", TEST1))
    with pytest.raises(DorisError, match="Cannot set enable_unique_key_skip_bitmap_column: .*UPDATE_FLEXIBLE_COLUMNS"):
        doris.set_properties(spark, table=table, properties={"enable_unique_key_skip_bitmap_column": "true"})
    snapshots = len(spark.sql(f"SELECT * FROM {table}.snapshots").collect())
    doris.enable_feature(spark, table=table, feature=FLEXIBLE)
    # One commit recording the property, shown as Doris's SHOW CREATE TABLE shows it.
    assert len(spark.sql(f"SELECT * FROM {table}.snapshots").collect()) == snapshots  # metadata only
    described = {(r[0], r[1]): r[2] for r in doris.describe(spark, table=table)}
    assert described[("property", "enable_unique_key_skip_bitmap_column")] == "true"
    name = table.split(".")[-1]
    with pytest.raises(DorisError, match=f"table {name} has enabled update flexible columns feature already."):
        doris.enable_feature(spark, table=table, feature=FLEXIBLE)
    _load(spark, table, _json(tmp_path, "test1.json", TEST1))
    assert _rows(spark, table)[1] == (1, 10, 111, 111, 1, 1)


def test_update_modes_upsert_and_fixed_columns(spark, namespace, tmp_path):
    table = _table(spark, namespace, "flex_modes")
    doris.load(spark, table=table, query="SELECT 1 AS k, 77 AS v1", unique_key_update_mode="UPDATE_FIXED_COLUMNS")
    assert _rows(spark, table)[1] == (1, 77, 1, 1, 1, 1)
    doris.load(spark, table=table, query="SELECT 1 AS k, 5 AS v1, 6 AS v2, 7 AS v3, 8 AS v4, 9 AS v5", unique_key_update_mode="UPSERT")
    assert _rows(spark, table)[1] == (1, 5, 6, 7, 8, 9)


# regression-test/data/unique_with_mow_p0/flexible/test2.json
TEST2 = """{"k": 1, "v1": 111, "v5": 9}
{"k": 2, "v2": 222, "v5": 25}
{"k": 3, "v3": 333}
{"k": 4, "v4": 444, "v5": 50, "v1": 411, "v3": 433, "v2": null}
{"k": 5, "v5": null}
{"k": 6, "v1": 611, "v3": 633}
{"k": 7, "v3": 733, "v5": 300}
"""


def _sequence_table(spark, namespace: str, name: str, v5: str) -> str:
    table = f"{namespace}.{name}"
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {table} (`k` int(11) NULL, `v1` BIGINT NULL, `v2` BIGINT NULL DEFAULT \"9876\", "
        f"`v3` BIGINT NOT NULL, `v4` BIGINT NOT NULL DEFAULT \"1234\", `v5` BIGINT NULL {v5}) UNIQUE KEY(`k`) "
        "DISTRIBUTED BY HASH(`k`) BUCKETS 1 PROPERTIES(\"enable_unique_key_skip_bitmap_column\" = \"true\", "
        "\"function_column.sequence_col\" = \"v5\")"
    ))
    spark.sql(f"INSERT INTO {table} SELECT id, id, id, id, id, id * 10 FROM range(6)")
    return table


@pytest.mark.parametrize(("v5", "new_key_v5"), [("", None), ('DEFAULT "31"', 31)])
def test_a_sequence_column_decides_each_row(spark, namespace, tmp_path, v5, new_key_v5):
    # test_flexible_partial_update_seq_col.groovy 1.1 and 1.2 (test2.json): qt seq_map_no_default_val2 and
    # seq_map_has_default_val2. A row without v5 takes the stored value; a lower (or NULL) v5 loses.
    table = _sequence_table(spark, namespace, f"flex_seq_{'d' if v5 else 'n'}", v5)
    _load(spark, table, _json(tmp_path, "test2.json", TEST2))
    assert _rows(spark, table) == [
        (0, 0, 0, 0, 0, 0),
        (1, 1, 1, 1, 1, 10),
        (2, 2, 222, 2, 2, 25),
        (3, 3, 3, 333, 3, 30),
        (4, 411, None, 433, 444, 50),
        (5, 5, 5, 5, 5, 50),
        (6, 611, 9876, 633, 1234, new_key_v5),
        (7, None, 9876, 733, 1234, 300),
    ]


def test_a_hidden_sequence_column_named_per_row(spark, namespace, tmp_path):
    # test_flexible_partial_update_seq_col.groovy 1.3 (test3.json): qt seq_type_col2
    table = f"{namespace}.flex_seq_type"
    doris.create_table(spark, ddl=(
        f"CREATE TABLE {table} (`k` int(11) NULL, `v1` BIGINT NULL, `v2` BIGINT NULL DEFAULT \"9876\", "
        "`v3` BIGINT NOT NULL, `v4` BIGINT NOT NULL DEFAULT \"1234\", `v5` BIGINT NULL) UNIQUE KEY(`k`) "
        "DISTRIBUTED BY HASH(`k`) BUCKETS 1 PROPERTIES(\"enable_unique_key_skip_bitmap_column\" = \"true\", "
        "\"function_column.sequence_type\" = \"int\")"
    ))
    doris.load(spark, table=table, query="SELECT id AS k, id AS v1, id AS v2, id AS v3, id AS v4, id AS v5, id * 10 AS s FROM range(6)", sequence_col="s")
    test3 = """{"k": 1, "v1": 111, "v5": 9, "__DORIS_SEQUENCE_COL__": 9}
{"k": 2, "v2": 222, "v5": 25, "__DORIS_SEQUENCE_COL__": 25}
{"k": 3, "v3": 333}
{"k": 4, "v4": 444, "v5": 50, "v1": 411, "v3": 433, "v2": null, "__DORIS_SEQUENCE_COL__": 50}
{"k": 5, "v5": null, "__DORIS_SEQUENCE_COL__": null}
{"k": 6, "v1": 611, "v3": 633}
{"k": 7, "v3": 733, "v5": 300, "__DORIS_SEQUENCE_COL__": 300}
"""
    _load(spark, table, _json(tmp_path, "test3.json", test3))
    assert [tuple(r) for r in spark.sql(f"SELECT k, v1, v2, v3, v4, v5, __DORIS_SEQUENCE_COL__ FROM {table} ORDER BY k").collect()] == [
        (0, 0, 0, 0, 0, 0, 0),
        (1, 1, 1, 1, 1, 1, 10),
        (2, 2, 222, 2, 2, 25, 25),
        (3, 3, 3, 333, 3, 3, 30),
        (4, 411, None, 433, 444, 50, 50),
        (5, 5, 5, 5, 5, 5, 50),
        (6, 611, 9876, 633, 1234, None, None),
        (7, None, 9876, 733, 1234, 300, 300),
    ]


def test_a_key_repeated_on_a_sequence_table_is_refused(spark, namespace, tmp_path):
    # test_flexible_partial_update_seq_col.groovy 2.x merges such rows against the stored sequence value
    table = _sequence_table(spark, namespace, "flex_seq_repeat", "")
    rows = '{"k": 1, "v1": 999}\n{"k": 1, "v1": 888, "v5": 15}\n'
    with pytest.raises(DorisError, match=r"gives key \(k=1\) more than one row, on a table with a sequence column"):
        _load(spark, table, _json(tmp_path, "test6.json", rows))
    assert _rows(spark, table)[1] == (1, 1, 1, 1, 1, 10)
