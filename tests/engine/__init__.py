"""Tests of the engine corner; helpers shared by its test modules (real Spark, no mocks)."""

from __future__ import annotations

from typing import Any

from pyroaring import BitMap64

from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from tests.support.duckdb_reader import read_rows


def row_positions(spark: Any, table: str, where: str) -> dict[str, BitMap64]:
    """Data file location -> row positions of the rows matching ``where`` (Spark's _file/_pos)."""
    found: dict[str, BitMap64] = {}
    for row in spark.sql(f"SELECT _file, _pos FROM {table} WHERE {where}").collect():
        found.setdefault(row._file, BitMap64()).add(row._pos)
    return found


def commit_row_delta(table: JavaObject, added: list[JavaObject], removed: list[JavaObject] = ()) -> None:
    """One RowDelta commit adding and removing delete files, as the merge-on-write load will.

    ``table`` must be the object the deletes were planned from: its current snapshot is where the
    commit validates from. Without validateFromSnapshot, Iceberg checks the whole history and takes
    the DV being replaced for a concurrently added one ("Found concurrently added DV for ...")."""
    base = table.currentSnapshot()
    transaction = table.newTransaction()
    delta = transaction.newRowDelta()
    if base is not None:
        delta.validateFromSnapshot(base.snapshotId())
    for delete_file in added:
        delta.addDeletes(delete_file)
    for delete_file in removed:
        delta.removeDeletes(delete_file)
    delta.commit()
    transaction.commitTransaction()


def ids_by_every_reader(spark: Any, py_catalog: Any, table: str) -> tuple[list[int], list[int], list[int]]:
    """The sorted ``id`` column as Spark, pyiceberg and DuckDB read the table's current snapshot."""
    by_spark = sorted(row.id for row in spark.sql(f"SELECT id FROM {table}").collect())
    loaded = py_catalog.load_table(table)
    by_pyiceberg = sorted(loaded.scan().to_arrow().column("id").to_pylist())
    by_duckdb = [row[0] for row in read_rows(loaded.metadata_location, "id", order_by="id")]
    return by_spark, by_pyiceberg, by_duckdb


def load(spark: Any, table: str) -> tuple[IcebergJava, JavaObject]:
    iceberg = IcebergJava(spark)
    return iceberg, iceberg.load_table(iceberg.name(table))


def live_delete_files(spark: Any, table: str) -> list[Any]:
    """Rows of the table's live delete files (current snapshot)."""
    frame = spark.table(f"{table}.delete_files")
    wanted = ["content", "file_format", "file_path", "partition", "record_count", "referenced_data_file",
              "content_offset", "content_size_in_bytes"]
    return frame.select(*[c for c in wanted if c in frame.columns]).collect()  # no partition if unpartitioned
