"""Layouts Doris accepts that Iceberg cannot mirror one to one: HASH distribution on columns Iceberg's
bucket transform cannot hash, and dynamic-partition properties refused without PARTITION BY."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import InvalidTableDefinitionError
from tests.support import duckdb_reader

pytestmark = pytest.mark.spark


@pytest.mark.parametrize(
    ("column_type", "hash_columns", "rows", "spec"),
    [
        ("BOOLEAN", "x", "(1, true), (2, false)", "unpartitioned"),
        ("BOOLEAN", "x, v", "(1, true), (2, false)", "bucket(4, v)"),  # the next hash column Iceberg can bucket
    ],
)
def test_hash_on_columns_iceberg_cannot_bucket_still_creates_the_table(spark, namespace, py_catalog, column_type, hash_columns, rows, spec):
    table = f"{namespace}.h"
    [created] = doris.create_table(
        spark, ddl=f"CREATE TABLE {table} (v INT, x {column_type}) DUPLICATE KEY(v) DISTRIBUTED BY HASH({hash_columns}) BUCKETS 4"
    )
    assert created.partition_spec == spec
    doris.load(spark, table=table, query=f"SELECT * FROM VALUES {rows} AS t(v, x)")
    assert sorted(r.v for r in spark.sql(f"SELECT v FROM {table}").collect()) == [1, 2]
    loaded = py_catalog.load_table(table)
    assert sorted(r["v"] for r in loaded.scan().to_arrow().to_pylist()) == [1, 2]
    assert duckdb_reader.read_rows(loaded.metadata_location, "v", order_by="v") == [(1,), (2,)]
    described = {r.name: r.value for r in doris.describe(spark, table=table) if r.section == "table"}
    assert described["distribution"] == f"HASH({hash_columns}) BUCKETS 4"


@pytest.mark.parametrize("column_type", ["FLOAT", "DOUBLE"])
def test_floating_point_distribution_is_refused_as_doris_refuses_it(spark, namespace, column_type):
    with pytest.raises(InvalidTableDefinitionError) as raised:
        doris.create_table(
            spark, ddl=f"CREATE TABLE {namespace}.f (v INT, x {column_type}) DUPLICATE KEY(v) DISTRIBUTED BY HASH(x) BUCKETS 4"
        )
    assert str(raised.value) == "Floating point type should not be used in distribution column[x]."
    assert spark.sql(f"SHOW TABLES IN {namespace}").collect() == []


def test_dynamic_partition_properties_need_partition_by(spark, namespace):
    with pytest.raises(InvalidTableDefinitionError) as raised:
        doris.create_table(
            spark,
            ddl=f"CREATE TABLE {namespace}.dyn (k INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 "
            'PROPERTIES ("dynamic_partition.enable" = "true", "dynamic_partition.time_unit" = "DAY", '
            '"dynamic_partition.end" = "3", "dynamic_partition.prefix" = "p")',
        )
    # Doris's CREATE TABLE message (InternalCatalog.createOlapTable; DynamicPartitionTableTest)
    assert str(raised.value) == "Only support dynamic partition properties on range partition table"
    assert spark.sql(f"SHOW TABLES IN {namespace}").collect() == []  # nothing was created
