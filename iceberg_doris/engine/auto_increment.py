"""Values of an AUTO_INCREMENT column for a load's rows: a Doris auto-increment column is an
Iceberg BIGINT column whose missing values a load fills from a block it reserves.

A load's rows may be computed more than once (counted, looked up, written), and an id must not
change between those passes. So the rows are first computed once (:mod:`.computed_once`), each
with its position (Spark's ``monotonically_increasing_id``: the partition's index in the upper
bits, the row's index within the partition in the lower 33), fixed with the cached batches. One
small job counts the rows of each partition; the load reserves that many values
(:mod:`.id_counters`), and a row's value is the block's first + the rows of the partitions before
its own + its index in its partition. A row that already has a value keeps it (Doris keeps
supplied values), so its slot of the block is a gap, as are the rows the load filters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.engine import interleaving
from iceberg_doris.engine.computed_once import ComputedOnce, computed_once
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.iceberg_tables import field_ids
from iceberg_doris.engine.id_counters import counters_for_catalog
from iceberg_doris.engine.spark_runtime import select_sql
from iceberg_doris.engine.table_names import TableName

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from iceberg_doris.table_model import ColumnModel

__all__ = ["GeneratedValues", "check_counters_available", "with_generated_values"]

_POSITION = "__doris_row_position"
_ROW_BITS = 33  # monotonically_increasing_id: the row's index within its partition


@dataclass
class GeneratedValues:
    """``frame``: the rows with the column filled; ``first``/``count``: the block reserved
    (``count`` 0: no row, nothing reserved). Call :meth:`release` when the load is done."""

    frame: "DataFrame"
    first: int
    count: int
    _kept: ComputedOnce

    def release(self) -> None:
        self._kept.release()


def check_counters_available(iceberg: IcebergJava) -> None:
    """Refuses, naming the catalog's kind, a catalog that cannot keep auto-increment counters."""
    counters_for_catalog(iceberg.spark, iceberg.catalog_name)


def with_generated_values(
    iceberg: IcebergJava, name: TableName, table: JavaObject, rows: "DataFrame", column: "ColumnModel"
) -> GeneratedValues:
    """``rows`` with ``column``'s NULLs replaced by values of a block reserved for this load."""
    from pyspark.sql import functions as F

    counters = counters_for_catalog(iceberg.spark, iceberg.catalog_name)
    positioned = select_sql(rows, ["*", f"monotonically_increasing_id() AS {_POSITION}"])
    kept = computed_once(positioned)
    try:
        per_partition = {
            int(row[0]): int(row[1])
            for row in kept.frame.groupBy(F.shiftright(F.col(_POSITION), _ROW_BITS)).count().collect()
        }
        total = sum(per_partition.values())
        first = 0
        if total:
            table_uuid = str(table.uuid().toString())
            field_id = field_ids(table.schema())[column.name]
            start = column.auto_increment_start if column.auto_increment_start is not None else 1
            first = counters.reserve(table_uuid, field_id, start, total)
            interleaving.reached(interleaving.IDS_RESERVED, name)
        frame = select_sql(kept.frame, _filled(rows.columns, column.name, first, per_partition))
    except BaseException:
        kept.release()
        raise
    return GeneratedValues(frame, first, total, kept)


def _filled(columns: list[str], target: str, first: int, per_partition: dict[int, int]) -> list[str]:
    """The projection: every column as it is, ``target`` filled where it is NULL."""
    offsets = []
    running = first
    for partition in range(max(per_partition, default=-1) + 1):
        offsets.append(running)
        running += per_partition.get(partition, 0)
    position = quote_identifier(_POSITION)
    if offsets:
        base = f"element_at(array({', '.join(f'CAST({o} AS BIGINT)' for o in offsets)}), CAST(shiftright({position}, {_ROW_BITS}) AS INT) + 1)"
        generated = f"{base} + ({position} & {(1 << _ROW_BITS) - 1})"
    else:
        generated = "CAST(NULL AS BIGINT)"
    projection = []
    for name in columns:
        quoted = quote_identifier(name)
        if name == target:
            projection.append(f"coalesce({quoted}, {generated}) AS {quoted}")
        else:
            projection.append(quoted)
    return projection
