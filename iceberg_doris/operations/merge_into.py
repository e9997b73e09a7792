"""``MERGE INTO`` a UNIQUE KEY table: the statement's rows, one ``load``.

The session extension builds the statement's rows (``jvm/.../MergeStatement.java``: the source
LEFT OUTER JOINed to the table, each row taking the first clause whose condition holds) and runs
them as a load. When ``ON`` equates every unique-key column with a value of the source, the table's
side of that join need only be the stored rows of the source's keys: those are found through the
key index (:mod:`iceberg_doris.merge_on_write.stored_rows`) holding the table's lock, as the load
reads them, and the source is joined to them instead of a scan of the table. Where the index
cannot tell, the whole table is joined, as for any other ``ON``. The snapshot summary's
``doris.merge-target`` says which, and why.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from iceberg_doris.engine.merge_rows import MergeRows
from iceberg_doris.merge_on_write.stored_rows import StoredRowsOfKeys, stored_rows_of_keys
from iceberg_doris.operations.load import load_into
from iceberg_doris.operations.requests import LoadRequest, LoadResult
from iceberg_doris.operations.tables import DorisTable, open_table
from iceberg_doris.table_model import snapshot_summary

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

NOT_KEYED = "ON does not equate every unique-key column with a value of the source"


def merge_into(spark: "SparkSession", table: str, request: LoadRequest, rows: MergeRows | None) -> LoadResult:
    """Loads a ``MERGE INTO``'s rows (``request``: its load, reading the rows joined to the whole
    table) into ``table`` as one commit; ``rows``: the statement's rows to join to the stored rows
    of its keys instead, or None when its ``ON`` does not allow it."""
    handle = open_table(spark, table)
    if rows is None:
        return load_into(spark, handle, _with_target(request, f"scan: {NOT_KEYED}"))
    found: list[StoredRowsOfKeys] = []

    def keyed_request(current: DorisTable) -> LoadRequest:
        # Called holding the table's lock, on the table as it now is (again if the load runs again).
        stored = stored_rows_of_keys(
            current.iceberg, current.table, current.model, spark.table(current.name.sql).columns, rows.source_keys(),
        )
        if isinstance(stored, str):
            return _with_target(request, f"scan: {stored}")
        found.append(stored)
        return dataclasses.replace(
            _with_target(request, f"key index: {stored.summary}"), source=rows.joined_to(stored.frame),
        )

    try:
        return load_into(spark, handle, request, reread=keyed_request)
    finally:
        for stored in found:
            stored.release()


def _with_target(request: LoadRequest, how: str) -> LoadRequest:
    origin = request.origin
    summary = (*origin.summary, (snapshot_summary.MERGE_TARGET, how))
    return dataclasses.replace(request, origin=dataclasses.replace(origin, summary=summary))
