"""The index's caches and stored entries: what this JVM holds, forgetting it, and removing the
stored entries of data files no snapshot references."""

from __future__ import annotations

from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.key_index import jvm


def cached_rows(iceberg: IcebergJava) -> int:
    """Keys cached by the key index in this (driver) JVM; in local mode, the executors' cache."""
    return int(jvm.index(iceberg).cachedRows())


def cached_bytes(iceberg: IcebergJava) -> int:
    """Bytes of keys and positions the key index caches in this (driver) JVM (sequence values not
    counted); in local mode, the executors' cache."""
    return int(jvm.index(iceberg).cachedBytes())


def clear_cache(iceberg: IcebergJava) -> None:
    """Forgets the key index entries of this (driver) JVM; their stored files stay."""
    jvm.index(iceberg).clear()


def remove_orphan_entries(iceberg: IcebergJava, table: JavaObject, table_sql: str) -> int:
    """Deletes the stored entries of data files no snapshot of the table references any more."""
    referenced = iceberg.spark.sql(f"SELECT file_path, file_size_in_bytes, record_count FROM {table_sql}.all_data_files")
    return int(jvm.index(iceberg).removeOrphanEntries(table, referenced._jdf))


def files_with_keys_from_probe(iceberg: IcebergJava) -> int:
    """Hit files read by position with their key columns taken from the probe, in this JVM (for tests)."""
    return int(jvm.index(iceberg).filesWithKeysFromProbe())


def files_read_from_pages(iceberg: IcebergJava) -> int:
    """Hit files whose values were decoded from their Parquet pages, in this JVM (for tests)."""
    return int(jvm.index(iceberg).filesReadFromPages())
