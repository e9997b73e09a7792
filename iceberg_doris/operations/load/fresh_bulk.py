"""Bulk loads of fresh keys into an empty unique/aggregate table, in one pass over the rows.

A keyed load into a table that holds no row has nothing to look up: every key is new, so the
batch is written as it is, provided no key occurs twice in it and no row deletes (those need the
batch resolved per key first). The usual path learns that before writing, from a counting pass
with an exact distinct count: a shuffle of every key, and a second read of the source. This path
writes first and checks after, as Doris checks a segment's keys while it builds its primary-key
index:

1. the rows are read, checked, counted and written in one pass (``stage_and_count``), the pass
   observing whether any row deletes and the first key column's range;
2. the key-index entries of the new files are built (the next load needs them anyway): each is
   sorted, so a key repeated within a file shows as two equal neighbours; files that may share
   keys (one partition's) share none when their key ranges are disjoint (range-distributed
   writes), and are merged in key order where they overlap (a partition written by each core
   without a shuffle, see ``staged_writes``);
3. no delete and no repeated key: the files are committed as the load's new rows, with the same
   validation as any lookup-free keyed load (a concurrent writer in the key range makes the load
   look its keys up after all). Otherwise the staged files are left for ``doris.cleanup`` and the
   load takes the usual path, reading its source again: correct, only slower, and only for
   batches that repeat a key or delete.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from iceberg_doris.engine import key_index
from iceberg_doris.engine.iceberg_tables import current_snapshot_id
from iceberg_doris.loading import STATUS_COLUMN, STATUS_OK, TargetColumn
from iceberg_doris.merge_on_write.lookup import keys_not_encodable
from iceberg_doris.merge_on_write.plan import KeyedLoadShape
from iceberg_doris.operations.load.routing import RoutedRows
from iceberg_doris.operations.load.write_counted import StagedCounted, counted_by_write, stage_and_count, with_partition_column
from iceberg_doris.operations.requests import LoadRequest, MergeType
from iceberg_doris.operations.tables import DorisTable

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

DISTINCT = "distinct"


def applies(handle: DorisTable, routed: RoutedRows, request: LoadRequest, keyed: KeyedLoadShape | None) -> bool:
    """Whether a load may write first and check its keys after: a keyed (unique or aggregate),
    non-partial, appending load into main of a table that has never held a row, whose keys the key
    index encodes, with loads building their files' entries (``spark.doris.keyIndex.buildOnLoad``)."""
    return (
        keyed is not None
        and not keyed.partial
        and request.overwrite is None
        and request.merge_type is not MergeType.DELETE
        and counted_by_write(routed, request)
        and current_snapshot_id(handle.table) is None
        and key_index.enabled(handle.iceberg.spark)
        and key_index.build_on_load(handle.iceberg.spark)  # the check builds the new files' entries
        and keys_not_encodable(keyed) is None  # nothing stored is read: the entries' keys are all it needs
    )


def stage_fresh(
    handle: DorisTable, routed: RoutedRows, request: LoadRequest, label: str, targets: list[TargetColumn], keyed: KeyedLoadShape
) -> StagedCounted | None:
    """Writes and counts the rows in one pass, then checks their keys (see the module). None:
    some row deletes or a key repeats (or that could not be told): the caller loads the usual way."""
    written = stage_and_count(handle, routed, request, label, targets, keyed=keyed)
    facts = written.counts.keys
    if facts is None or facts.deletes:
        return None
    verdict = key_index.new_files_repeat_keys(handle.iceberg, handle.table, written.files, list(keyed.keys), keyed.sequence_column)
    if verdict != DISTINCT:
        return None
    counts = dataclasses.replace(written.counts, keys=dataclasses.replace(facts, distinct_keys=facts.rows))
    return dataclasses.replace(written, counts=counts)


def accepted_rows(routed: RoutedRows) -> "DataFrame":
    """The accepted rows as the usual path hands them on (read again only if a concurrent
    writer makes the load look its keys up)."""
    from pyspark.sql import functions as F

    return with_partition_column(routed).filter(F.col(STATUS_COLUMN) == STATUS_OK)
