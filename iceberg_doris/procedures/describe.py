"""``doris.describe``: a table's Doris model, columns and properties, as stored in Iceberg."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris.engine.iceberg_tables import current_layout
from iceberg_doris.procedures.parameter_types import STRING
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register
from iceberg_doris.procedures.table_access import open_table
from iceberg_doris.table_model import ColumnModel, DorisTableModel

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@register
class DescribeProcedure(Procedure):
    name = "describe"
    summary = "Shows a table's Doris model: keys, sequence column, partitioning, buckets, columns, properties."
    details = (
        "Rows of section 'table' describe the model, 'column' rows each column (type, key, aggregate, NULL, "
        "default), 'property' rows the Doris PROPERTIES. A table created outside iceberg-doris is a DUPLICATE "
        "KEY table without keys."
    )
    parameters = (Parameter("table", STRING, required=True, description="db.tbl"),)
    output = (
        OutputColumn("section", "string", "table, column or property."),
        OutputColumn("name", "string"),
        OutputColumn("value", "string"),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        handle = open_table(spark, args["table"])
        model, table = handle.model, handle.table
        snapshot = table.currentSnapshot()
        rows: list[tuple[str, str, str | None]] = [
            ("table", "name", handle.name.qualified),
            ("table", "keys_model", model.keys_model.value),
            ("table", "key_columns", ", ".join(model.key_columns)),
            ("table", "merge_on_write", _bool(model.merge_on_write)),
            ("table", "sequence_col", model.sequence_col),
            ("table", "sequence_type", model.sequence_type),
            ("table", "partition_by", partition_by(model)),
            ("table", "partitions", str(len(model.partitions.formal)) if model.partitions else "0"),
            ("table", "temp_partitions", str(len(model.partitions.temp)) if model.partitions else "0"),
            ("table", "distribution", model.distribution.sql if model.distribution else None),
            ("table", "buckets", _buckets(model)),
            ("table", "iceberg_partition_spec", ", ".join(current_layout(table)) or "unpartitioned"),
            ("table", "format_version", str(table.properties().get("format-version") or _format_version(table))),
            ("table", "current_snapshot_id", str(snapshot.snapshotId()) if snapshot is not None else None),
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
    parts = [column.doris_type]
    if column.is_key:
        parts.append("KEY")
    if column.aggregation:
        parts.append(column.aggregation)
    parts.append("NULL" if column.nullable else "NOT NULL")
    if column.default is not None:
        parts.append(f"DEFAULT '{column.default}'")
    return " ".join(parts)


def _buckets(model: DorisTableModel) -> str | None:
    if model.distribution is None:
        return None
    return str(model.distribution.buckets) if model.distribution.buckets else "AUTO"


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _format_version(table: Any) -> int:
    return int(table.operations().current().formatVersion())
