"""``describe``: a table's Doris model, columns and properties, as stored in Iceberg (read only)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from iceberg_doris.engine.iceberg_tables import current_layout, current_snapshot_id, format_version_of
from iceberg_doris.operations.tables import open_table
from iceberg_doris.table_model import ColumnModel, DorisTableModel

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def describe(spark: "SparkSession", table: str) -> list[tuple[str, str, str | None]]:
    """(section, name, value) rows: the model ('table'), each column, each Doris property."""
    handle = open_table(spark, table)
    model = handle.model
    snapshot_id = current_snapshot_id(handle.table)
    rows: list[tuple[str, str, str | None]] = [
        ("table", "name", handle.name.qualified),
        ("table", "keys_model", model.keys_model.value),
        ("table", "key_columns", ", ".join(model.key_columns)),
        ("table", "merge_on_write", _bool(model.merge_on_write)),
        ("table", "sequence_col", model.sequence_col),
        ("table", "sequence_type", model.sequence_type),
        ("table", "partition_by", partition_by(model)),
        ("table", "partitions", str(len(model.partitions.formal)) if model.partitions else "0"),
        ("table", "temp_partitions", str(len(model.partitions.temp) if model.partitions else len(model.unpartitioned_temp))),
        ("table", "distribution", model.distribution.sql if model.distribution else None),
        ("table", "buckets", _buckets(model)),
        ("table", "iceberg_partition_spec", ", ".join(current_layout(handle.table)) or "unpartitioned"),
        ("table", "format_version", str(handle.property("format-version") or format_version_of(handle.table))),
        ("table", "current_snapshot_id", str(snapshot_id) if snapshot_id is not None else None),
    ]
    rows += [("column", c.name, column_text(c)) for c in model.columns]
    rows += [("property", key, value) for key, value in sorted(model.properties.items())]
    return rows


def partition_by(model: DorisTableModel) -> str | None:
    if model.partitions is None:
        return None
    columns = ", ".join(model.partitions.column_names)
    kind = model.partitions.kind.value
    if model.auto_partition is not None and model.auto_partition.kind == "RANGE":
        return f"AUTO RANGE(date_trunc({columns}, '{model.auto_partition.unit}'))"
    if model.auto_partition is not None:
        return f"AUTO LIST({columns})"
    return f"{kind}({columns})"


def column_text(column: ColumnModel) -> str:
    """A column as Doris's SHOW CREATE TABLE writes it (``Column.toSql``), without the name and
    comment, and with ``KEY`` after the type."""
    parts = [column.doris_type]
    if column.is_key:
        parts.append("KEY")
    if column.aggregation:
        parts.append(column.aggregation)
    if column.generated is not None:
        parts.append(f"AS ({column.generated})")
    parts.append("NULL" if column.nullable else "NOT NULL")
    if column.auto_increment:
        # Doris's Column.toSql: after NULL/NOT NULL, with the start value even when it is the default 1
        parts.append(f"AUTO_INCREMENT({column.auto_increment_start})")
    if column.default is not None:
        parts.append(f"DEFAULT {column.default}" if _is_expression_default(column.default) else f'DEFAULT "{column.default}"')
    if column.on_update and column.default is not None:
        parts.append(f"ON UPDATE {column.default}")  # Doris writes the column's default again here
    return " ".join(parts)


_EXPRESSION_DEFAULTS = re.compile(r"(CURRENT_TIMESTAMP(\(\d+\))?|CURRENT_DATE|PI|E|BITMAP_EMPTY)\Z")


def _is_expression_default(default: str) -> bool:
    # Doris quotes a literal default and writes a function default bare.
    return _EXPRESSION_DEFAULTS.match(default) is not None


def _buckets(model: DorisTableModel) -> str | None:
    if model.distribution is None:
        return None
    return str(model.distribution.buckets) if model.distribution.buckets else "AUTO"


def _bool(value: bool) -> str:
    return "true" if value else "false"
