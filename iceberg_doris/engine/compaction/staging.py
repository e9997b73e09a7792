"""One commit attempt of a compaction: the rewrite, with the deletes committed since its start
carried over onto the new files."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from iceberg_doris.engine.compaction.carry_over import ReplacedFiles, carry_over
from iceberg_doris.engine.compaction.ordered_rewrite import SegmentMap
from iceberg_doris.engine.compaction.rowid_map import RowidMap
from iceberg_doris.engine.file_sets import FileSet, stage_replacement
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.iceberg_tables import current_snapshot_id
from iceberg_doris.engine.live_files import plan_live_files
from iceberg_doris.engine.row_deletes import write_row_deletes
from iceberg_doris.errors import CommitConflictError
from iceberg_doris.table_model import snapshot_summary

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def stage_compaction(
    spark: "SparkSession",
    iceberg: IcebergJava,
    table: JavaObject,
    transaction: JavaObject,
    *,
    replaced: ReplacedFiles,
    added: Sequence[JavaObject],
    mapping: RowidMap | SegmentMap,
    row_filter: JavaObject | None,
    table_name: str,
    summary: Mapping[str, str],
) -> int:
    """Stages on ``transaction`` (started on ``table`` at head H) the snapshot that replaces
    ``replaced`` by ``added``: the replaced files' delete files at H go, and the rows deleted in
    them after the compaction's start are deleted in the new files (deletion vectors on v3,
    position deletes on v2). Returns how many rows were so carried over.

    Validated from H only: the catalog swap fails if the table moved past H, and the next attempt
    reads it again, so no delete committed meanwhile can be missed."""
    head = current_snapshot_id(table)
    if head is None:
        raise CommitConflictError(
            f"Cannot compact {table_name}: a concurrent commit emptied the table; nothing was committed. Run it again."
        )
    found = carry_over(iceberg, table, plan_live_files(table, head, row_filter), replaced, table_name=table_name)
    converted = mapping.convert(spark, found.deleted_since)
    new_files = {str(f.location()): f for f in added}
    added_deletes, _ = write_row_deletes(iceberg, table, converted, data_files=new_files) if converted else ([], [])
    carried = sum(len(p) for p in converted.values())
    stage_replacement(
        transaction,
        FileSet(list(replaced.data_files.values()), found.delete_files),
        FileSet(list(added), added_deletes),
        summary=dict(summary) | {snapshot_summary.CARRIED_DELETES: str(carried)},
    )
    return carried

