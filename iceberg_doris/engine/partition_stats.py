"""Counts and sizes per Doris partition, from Iceberg metadata only (manifests, never data files)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.table_names import TableName

EPOCH_DATE = dt.date(1970, 1, 1)
EPOCH = dt.datetime(1970, 1, 1)


@dataclass
class PartitionStats:
    """Live rows, files and bytes of one group of files, and the last snapshot that changed it."""

    records: int = 0
    deleted_records: int = 0
    data_files: int = 0
    delete_files: int = 0
    data_size: int = 0
    snapshot_id: int | None = None
    updated_at: dt.datetime | None = None

    @property
    def row_count(self) -> int:
        return self.records - self.deleted_records

    def add(self, other: "PartitionStats") -> None:
        self.records += other.records
        self.deleted_records += other.deleted_records
        self.data_files += other.data_files
        self.delete_files += other.delete_files
        self.data_size += other.data_size
        if other.updated_at is not None and (self.updated_at is None or other.updated_at > self.updated_at):
            self.updated_at, self.snapshot_id = other.updated_at, other.snapshot_id


def snapshot_totals(snapshot: JavaObject | None) -> PartitionStats:
    """Totals of a whole snapshot from its summary (what a branch holds)."""
    if snapshot is None:
        return PartitionStats()
    summary = snapshot.summary()

    def number(key: str) -> int:
        value = summary.get(key)
        return int(value) if value is not None else 0

    return PartitionStats(
        records=number("total-records"),
        deleted_records=number("total-position-deletes") + number("total-equality-deletes"),
        data_files=number("total-data-files"),
        delete_files=number("total-delete-files"),
        data_size=number("total-files-size"),
        snapshot_id=int(snapshot.snapshotId()),
        updated_at=EPOCH + dt.timedelta(milliseconds=int(snapshot.timestampMillis())),
    )


def stats_by_partition_key(
    iceberg: IcebergJava, table: JavaObject, name: TableName, partition_columns: tuple[str, ...]
) -> list[tuple[tuple[Any, ...], PartitionStats]]:
    """Stats per Iceberg partition of ``main``, keyed by a representative value of each Doris
    partition column (the lowest value the Iceberg partition can hold)."""
    fields = _partition_fields(table)
    rows = iceberg.spark.sql(
        "SELECT partition, record_count, file_count, total_data_file_size_in_bytes, "
        "position_delete_record_count, position_delete_file_count, equality_delete_record_count, "
        f"equality_delete_file_count, last_updated_at, last_updated_snapshot_id FROM {name.sql}.partitions"
    ).collect()
    result = []
    for row in rows:
        values = row.partition.asDict() if row.partition is not None else {}
        key = tuple(_representative(fields, values, column) for column in partition_columns)
        stats = PartitionStats(
            records=row.record_count or 0,
            deleted_records=(row.position_delete_record_count or 0) + (row.equality_delete_record_count or 0),
            data_files=row.file_count or 0,
            delete_files=(row.position_delete_file_count or 0) + (row.equality_delete_file_count or 0),
            data_size=row.total_data_file_size_in_bytes or 0,
            snapshot_id=row.last_updated_snapshot_id,
            updated_at=row.last_updated_at,
        )
        result.append((key, stats))
    return result


def _partition_fields(table: JavaObject) -> dict[str, tuple[str, str]]:
    """Partition field name -> (transform, source column), over every spec the table had."""
    schema = table.schema()
    fields = {}
    for spec in table.specs().values():
        for field in spec.fields():
            source = schema.findColumnName(field.sourceId())
            if source is not None:
                fields[str(field.name())] = (str(field.transform().toString()), str(source))
    return fields


def _representative(fields: dict[str, tuple[str, str]], values: dict[str, Any], column: str) -> Any:
    for field_name, (transform, source) in fields.items():
        if source != column or transform.startswith(("bucket", "void")):
            continue
        value = values.get(field_name)
        if value is None:
            continue
        return transform_lower_bound(transform, value)
    return None


def transform_lower_bound(transform: str, value: Any) -> Any:
    """The lowest source value an Iceberg partition value stands for."""
    if transform == "year":
        return dt.date(1970 + int(value), 1, 1)
    if transform == "month":
        months = int(value)
        return dt.date(1970 + months // 12, months % 12 + 1, 1)
    if transform == "day":
        return value if isinstance(value, dt.date) else EPOCH_DATE + dt.timedelta(days=int(value))
    if transform == "hour":
        return EPOCH + dt.timedelta(hours=int(value))
    return value  # identity and truncate[W] hold a value of the source type
