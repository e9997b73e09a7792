"""Automatic compaction: one pass over a table, or over every Doris table of the catalog, that
rewrites the files the table's compaction policy picks (``table_model.compaction_policy``: small
files, files with many deleted rows, partitions with many delete files).

A pass is an ordinary ``compact`` of the chosen files: it carries over the deletes that loads
commit while it runs, so loads neither wait for it (it holds the commit lock only for its catalog
swap, as a load does) nor fail because of it. ``CALL doris.auto_compact(table => NULL)`` runs one
pass; the CLI runs passes on an interval (``iceberg-doris --compact-every SECONDS``), beside the
dynamic-partition scheduler. From another Python thread of the session, call ``doris.auto_compact``
(the procedure makes the session active in that thread's JVM thread, as Spark needs).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from iceberg_doris.engine.compaction.file_facts import file_facts
from iceberg_doris.engine.iceberg_java import IcebergJava
from iceberg_doris.engine.iceberg_tables import current_snapshot_id, tables_with_property
from iceberg_doris.engine.live_files import plan_live_files
from iceberg_doris.errors import DorisError
from iceberg_doris.operations.compact import repaired_first, rewrite_files
from iceberg_doris.operations.tables import open_table
from iceberg_doris.table_model.compaction_policy import CompactionPolicy, choose
from iceberg_doris.table_model.partition_predicates import TRUE
from iceberg_doris.table_model.table_properties import KEYS_MODEL

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)
KEYS_MODELS = ("UNIQUE", "AGGREGATE", "DUPLICATE")


@dataclass(frozen=True)
class AutoCompaction:
    """What one pass did to one table."""

    table: str
    chosen_files: int  # files the policy picked (0: nothing to do, or disabled)
    rewritten_data_files: int
    added_data_files: int
    snapshot_id: int | None  # the compaction's snapshot, None if it committed nothing
    error: str | None = None  # why the pass failed on this table (the others still ran)


def compact_automatically(spark: "SparkSession", table: str | None = None) -> list[AutoCompaction]:
    """One pass over ``table``, or over every Doris table whose policy is enabled. A table whose
    pass fails gets a row with its error (with ``table`` given, the error is raised)."""
    iceberg = IcebergJava(spark)
    names = [table] if table else sorted({n for model in KEYS_MODELS for n in tables_with_property(iceberg, KEYS_MODEL, model)})
    done = []
    for name in names:
        try:
            done.append(compact_table(spark, name))
        except Exception as error:  # noqa: BLE001 - one table's failure must not stop the pass
            if table:
                raise
            message = str(error) if isinstance(error, DorisError) else f"{type(error).__name__}: {error}".splitlines()[0]
            log.warning("automatic compaction of %s failed: %s", name, message)
            done.append(AutoCompaction(name, 0, 0, 0, None, message))
    return done


def compact_table(spark: "SparkSession", table: str) -> AutoCompaction:
    """Compacts what ``table``'s policy picks at its current snapshot."""
    handle = open_table(spark, table)
    policy = CompactionPolicy.from_properties(handle.name.qualified, handle.properties)
    snapshot_id = current_snapshot_id(handle.table)
    if not policy.enabled or snapshot_id is None:
        return AutoCompaction(handle.name.qualified, 0, 0, 0, None)
    repaired = repaired_first(spark, handle)
    if repaired is not handle:
        handle, snapshot_id = repaired, current_snapshot_id(repaired.table)
    plan = plan_live_files(handle.table, snapshot_id)
    choice = choose(file_facts(handle.table, plan), policy)
    if not choice:
        return AutoCompaction(handle.name.qualified, 0, 0, 0, None)
    log.info(
        "compacting %s: %d files (deleted rows %d, delete files %d, small %d)", handle.name.qualified,
        len(choice.locations), choice.deleted_rows, choice.delete_files, choice.small_files,
    )
    result = rewrite_files(spark, handle, snapshot_id, TRUE, plan, list(choice.locations))
    committed = result.snapshot_id if result.rewritten_data_files else None
    return AutoCompaction(handle.name.qualified, len(choice.locations), result.rewritten_data_files, result.added_data_files, committed)
