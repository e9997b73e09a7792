"""Bloom filters of keyed tables: small files stay small, large files still carry a filter that
Iceberg's reader skips row groups with.

The filters are read back from the data files' Parquet footers with the Parquet that Iceberg's
runtime ships (shaded), and judged by Iceberg's own ``ParquetBloomRowGroupFilter``."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from iceberg_doris.engine.bloom_filters import KEY_BLOOM_FILTER_BYTES

pytestmark = pytest.mark.spark


def key_table(spark, table: str, keys: str) -> None:
    doris.create_table(
        spark,
        ddl=f"CREATE TABLE {table} (k BIGINT NOT NULL, k2 BIGINT NOT NULL, v STRING) UNIQUE KEY({keys}) "
        "DISTRIBUTED BY HASH(k) BUCKETS 1",
    )


def data_files(spark, table: str) -> list:
    return spark.sql(f"SELECT file_path, file_size_in_bytes, record_count FROM {table}.data_files").collect()


def open_parquet(spark, path: str):
    jvm = spark._jvm
    parquet = jvm.org.apache.iceberg.shaded.org.apache.parquet.hadoop
    input_file = parquet.util.HadoopInputFile.fromPath(jvm.org.apache.hadoop.fs.Path(path), spark._jsc.hadoopConfiguration())
    return parquet.ParquetFileReader.open(input_file)


def bloom_filters(spark, path: str) -> dict[str, list]:
    """Column -> its Bloom filter in each row group (None where the row group has none)."""
    reader = open_parquet(spark, path)
    try:
        found: dict[str, list] = {}
        for block in reader.getRowGroups():
            filters = reader.getBloomFilterDataReader(block)
            for column in block.getColumns():
                found.setdefault(str(column.getPath().toDotString()), []).append(filters.readBloomFilter(column))
        return found
    finally:
        reader.close()


def iceberg_reads_row_group(spark, table: str, path: str, keys: range) -> list[bool]:
    """For each key, whether Iceberg's Bloom row-group filter keeps the file's one row group for
    ``k = key`` (False: the row group is skipped)."""
    jvm = spark._jvm
    schema = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, table).schema()
    reader = open_parquet(spark, path)
    try:
        [block] = list(reader.getRowGroups())
        file_schema = reader.getFooter().getFileMetaData().getSchema()
        kept = []
        for key in keys:
            condition = jvm.org.apache.iceberg.expressions.Expressions.equal("k", key)
            row_group_filter = jvm.org.apache.iceberg.parquet.ParquetBloomRowGroupFilter(schema, condition)
            kept.append(bool(row_group_filter.shouldRead(file_schema, block, reader.getBloomFilterDataReader(block))))
        return kept
    finally:
        reader.close()


@pytest.mark.parametrize("keys", ["k", "k, k2"])
def test_a_one_row_file_of_a_keyed_table_is_small_and_filters_only_the_first_key(spark, namespace, keys):
    table = f"{namespace}.one_row"
    key_table(spark, table, keys)
    doris.load(spark, table=table, query="SELECT 1 AS k, 7 AS k2, 'a' AS v")
    [file] = data_files(spark, table)
    assert file.record_count == 1
    assert file.file_size_in_bytes < 80_000  # was 1,049,975 (one key) and 2,098,579 bytes (two keys)
    filters = bloom_filters(spark, file.file_path)
    [first] = filters["k"]
    assert first.getBitsetSize() == KEY_BLOOM_FILTER_BYTES
    assert filters["k2"] == [None] and filters["v"] == [None]


def test_a_large_file_keeps_a_bloom_filter_that_iceberg_skips_row_groups_with(spark, namespace):
    table = f"{namespace}.large"
    key_table(spark, table, "k, k2")
    doris.load(spark, table=table, query="SELECT id * 2 AS k, id AS k2, 'v' AS v FROM range(100000)")
    [file] = data_files(spark, table)
    assert file.record_count == 100_000
    [bloom] = bloom_filters(spark, file.file_path)["k"]
    assert bloom is not None and bloom.getBitsetSize() == KEY_BLOOM_FILTER_BYTES
    assert all(iceberg_reads_row_group(spark, table, file.file_path, range(0, 200_000, 997 * 2)))  # stored keys
    # Odd keys lie inside the file's min/max, so only the Bloom filter can skip the row group for them.
    kept = iceberg_reads_row_group(spark, table, file.file_path, range(1, 1_000, 2))
    print("false positive rate", sum(kept) / len(kept))
    assert sum(kept) / len(kept) < 0.3


def test_a_table_with_the_old_one_mib_filters_on_every_key_still_loads(spark, namespace):
    table = f"{namespace}.old_props"
    key_table(spark, table, "k, k2")
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('write.parquet.bloom-filter-enabled.column.k2' = 'true')")
    spark.sql(f"ALTER TABLE {table} UNSET TBLPROPERTIES ('write.parquet.bloom-filter-max-bytes')")
    doris.load(spark, table=table, query="SELECT 1 AS k, 2 AS k2, 'a' AS v")
    doris.load(spark, table=table, query="SELECT 1 AS k, 2 AS k2, 'b' AS v")
    assert [tuple(r) for r in spark.sql(f"SELECT * FROM {table}").collect()] == [(1, 2, "b")]
    sizes = [f.file_size_in_bytes for f in data_files(spark, table)]
    assert min(sizes) > 2 * 1024 * 1024  # Iceberg's default: 1 MiB on each key column
