"""Tables made with ``PROPERTIES ("format-version" = ...)``: v2 keyed loads write position-delete
files, v3 deletion vectors, and every reader sees one row per key."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import ProcedureArgumentError
from tests.concurrency import readers_agree

pytestmark = pytest.mark.spark


@pytest.mark.parametrize(("version", "delete_format"), [("2", "PARQUET"), ("3", "PUFFIN")])
def test_a_keyed_load_on_each_format_version(spark, namespace, py_catalog, version, delete_format):
    table = f"{namespace}.v{version}"
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
        f'PROPERTIES ("format-version" = "{version}")',
    )
    stored = spark.sql(f"SHOW TBLPROPERTIES {table} ('format-version')").collect()[0].value
    assert stored == version
    doris.load(spark, table=table, query="SELECT * FROM VALUES (1, 'a'), (2, 'a') AS t(k, v)")
    doris.load(spark, table=table, query="SELECT * FROM VALUES (2, 'b'), (3, 'b') AS t(k, v)")
    assert readers_agree(spark, py_catalog, table) == [(1, "a"), (2, "b"), (3, "b")]
    deletes = spark.sql(f"SELECT content, file_format, record_count FROM {table}.delete_files").collect()
    assert [(d.content, d.file_format, d.record_count) for d in deletes] == [(1, delete_format, 1)]
    described = {(r[1]): r[2] for r in doris.describe(spark, table=table) if r[0] == "table"}
    assert described["format_version"] == version


def test_the_format_version_cannot_be_changed_by_set_properties(spark, namespace):
    table = f"{namespace}.fixed"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    with pytest.raises(ProcedureArgumentError, match="Cannot set format-version: the Iceberg format version is chosen"):
        doris.set_properties(spark, table=table, properties={"format-version": "2"})
