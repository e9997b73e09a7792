"""``insert_overwrite``: Doris ``INSERT OVERWRITE TABLE t [PARTITION (...) | PARTITION (*)] query``.

One overwrite snapshot on main: the whole table, the named partitions, or (``("*",)``) the
partitions the query's rows land in are replaced by the query's rows; data files are removed, not
rewritten, and time travel to the snapshot before reads the old rows. As Doris's strict INSERT, a row
that cannot be converted or fits none of the target partitions fails the statement and nothing
changes. ``auto_create`` is Doris's ``enable_auto_create_when_overwrite``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from iceberg_doris.errors import LoadError
from iceberg_doris.loading import read_source
from iceberg_doris.operations.load import load_into
from iceberg_doris.operations.requests import InsertOverwriteRequest, LoadOrigin, LoadRequest, LoadResult, OverwriteMode
from iceberg_doris.operations.tables import DorisTable, open_table

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

STRICT_INSERT_MESSAGE = "Insert has filtered data in strict mode"
EVERY_TOUCHED_PARTITION = ("*",)


def insert_overwrite(spark: "SparkSession", table: str, request: InsertOverwriteRequest) -> LoadResult:
    """Replaces the whole table, the named partitions or (``("*",)``) the touched ones by the
    query's rows (a SELECT or a DataFrame), in one snapshot."""
    handle = open_table(spark, table)
    partitions = request.partitions
    if partitions is not None and handle.model.partitions is None:
        raise LoadError(f"Table {handle.name.qualified} is not partitioned: overwrite it without partitions")
    named: tuple[str, ...] | None = None
    if partitions is None:
        mode = OverwriteMode.ALL
    elif tuple(partitions) == EVERY_TOUCHED_PARTITION:
        mode = OverwriteMode.TOUCHED
    else:
        mode, named = OverwriteMode.NAMED, handle.stored_partition_names(partitions)  # P1 names p1, as in Doris
        for name in partitions:
            if handle.model.partitions is not None and handle.model.partitions.get(name) is None:
                raise LoadError(f"Partition[{name}] does not exist in {handle.name.qualified}")
    load = LoadRequest(
        source=positional_frame(spark, handle, request.query),
        partitions=named,
        label=request.label,
        max_filter_ratio=0.0,
        strict_mode=True,
        overwrite=mode,
        auto_create=request.auto_create,
        origin=LoadOrigin(operation="insert_overwrite", filtered_message=STRICT_INSERT_MESSAGE),
    )
    return load_into(spark, handle, load)


def positional_frame(spark: "SparkSession", handle: DorisTable, query: Any) -> Any:
    """INSERT maps the query's (a SELECT's or a DataFrame's) columns to the table's by position,
    whatever their names."""
    frame = read_source(spark, query=query) if isinstance(query, str) else read_source(spark, source=query)
    names = [c.name for c in handle.model.columns]
    if len(frame.columns) != len(names):
        raise LoadError(
            f"Column count doesn't match value count: the query gives {len(frame.columns)} columns, "
            f"{handle.name.qualified} has {len(names)} ({', '.join(names)})"
        )
    return frame.toDF(*names)
