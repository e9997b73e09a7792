"""Replacing formal partitions with temporary ones: the data-file moves behind
``swap_temp_partition`` and ``replace_partition``.

One commit: on main, one snapshot removes the replaced partitions' data files (with their deletion
vectors) and adds the temp partitions' files (with theirs); no data file is rewritten. For a swap,
the replaced rows move onto temp-partition branches in the same commit. Unlike Iceberg's
``fast_forward`` (which moves main to a branch's snapshot: all or nothing, and only if main did not
diverge) or ``cherrypick`` (which replays one snapshot's changes), this replaces exactly the named
partitions of main as main is at commit time, whatever else happened on main meanwhile.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from iceberg_doris.engine.file_sets import FileSet, all_files, files_matching, stage_replacement
from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.operations import unpartitioned_temp
from iceberg_doris.operations.partition_changes import commit_model_change
from iceberg_doris.operations.requests import MovedPartition, PartitionReplacementRequest
from iceberg_doris.operations.tables import DorisTable, open_table
from iceberg_doris.operations.temp_partitions import branch_name, stage_drop, stage_empty_branch
from iceberg_doris.partitioning import ReplaceResult, replace_partitions, swap_partitions
from iceberg_doris.table_model import DorisTableModel, snapshot_summary
from iceberg_doris.table_model.partition_predicates import partition_predicate
from iceberg_doris.engine.file_sets import live_row_count

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def swap_temp_partition(spark: "SparkSession", table: str, request: PartitionReplacementRequest) -> list[MovedPartition]:
    """The seed design's swap: the temp partitions' rows replace the formal ones in one commit on
    main, and the replaced rows become temp partitions (names trade places when the temp
    partitions take the formal names)."""
    return _replace_with_temp(spark, table, request, swap=True)


def replace_partition(spark: "SparkSession", table: str, request: PartitionReplacementRequest) -> list[MovedPartition]:
    """Doris REPLACE PARTITION WITH TEMPORARY PARTITION: one commit on main; the replaced rows are
    dropped (reachable by time travel only) and the temp partitions become formal."""
    return _replace_with_temp(spark, table, request, swap=False)


def _replace_with_temp(
    spark: "SparkSession", table: str, request: PartitionReplacementRequest, *, swap: bool
) -> list[MovedPartition]:
    handle = open_table(spark, table)
    operation = "swap_temp_partition" if swap else "replace_partition"
    def change(fresh: DorisTable, transaction: JavaObject) -> tuple[DorisTableModel, list[tuple[str, str, FileSet, str | None]]]:
        # As the table spells them: Doris looks partition names up case-insensitively.
        partitions = list(fresh.stored_partition_names(request.partitions) or ())
        temp_partitions = list(fresh.stored_partition_names(request.temp_partitions, temporary=True) or ())
        if unpartitioned_temp.applies(fresh):
            return _replace_whole_table(fresh, transaction, partitions, temp_partitions, swap=swap, operation=operation)
        ps = fresh.require_partitions()
        rule = swap_partitions if swap else replace_partitions
        result: ReplaceResult = rule(
            ps, partitions, temp_partitions,
            strict_range=request.strict_range, use_temp_partition_name=request.use_temp_partition_name,
        )
        old_by_partition = {n: files_matching(fresh.iceberg, fresh.table, partition_predicate(ps, ps.get(n))) for n in partitions}
        new_by_temp = {t: all_files(fresh.table, ref=branch_name(t)) for t in temp_partitions}
        stage_replacement(
            transaction,
            _union(old_by_partition.values()),
            _union(new_by_temp.values()),
            summary={
                snapshot_summary.OPERATION: operation,
                snapshot_summary.PARTITIONS: ",".join(partitions),
                snapshot_summary.TEMP_PARTITIONS: ",".join(temp_partitions),
            },
        )
        kept_branches = set()
        if swap:
            for formal, temp_name in result.swapped_to_temp.items():
                branch = branch_name(temp_name)
                kept_branches.add(temp_name)
                if temp_name in new_by_temp:
                    previous = new_by_temp[temp_name]
                else:
                    stage_empty_branch(fresh, transaction, branch)
                    previous = FileSet()
                stage_replacement(
                    transaction, previous, old_by_partition[formal], branch=branch,
                    summary={snapshot_summary.OPERATION: operation},
                )
        for temp_name in temp_partitions:
            if temp_name not in kept_branches:
                stage_drop(transaction, temp_name)
        moves = []
        for temp_name in temp_partitions:
            formal_name = result.renames[temp_name]
            moves.append((formal_name, temp_name, new_by_temp[temp_name], result.swapped_to_temp.get(formal_name)))
        return fresh.model.with_partitions(result.partition_set), moves

    committed = commit_model_change(handle, change, operation=operation.replace("_", " ") + " of")
    snapshot_id = committed.snapshot_id()
    return [
        MovedPartition(formal, temp, live_row_count(moved), len(moved.data_files), len(moved.delete_files), replaced_by, snapshot_id)
        for formal, temp, moved, replaced_by in committed.result
    ]


def _replace_whole_table(
    fresh: DorisTable, transaction: JavaObject, partitions: list[str], temps: list[str], *, swap: bool, operation: str
) -> tuple[DorisTableModel, list[tuple[str, str, FileSet, str | None]]]:
    """An unpartitioned table: its one partition (all of main) and one temp partition trade rows
    (swap) or the temp partition's rows replace main's and the temp partition goes (replace)."""
    unpartitioned_temp.check_replacement(fresh, partitions, temps)
    [formal], [temp] = partitions, temps
    old, new = all_files(fresh.table), all_files(fresh.table, ref=branch_name(temp))
    summary = {
        snapshot_summary.OPERATION: operation,
        snapshot_summary.PARTITIONS: formal,
        snapshot_summary.TEMP_PARTITIONS: temp,
    }
    stage_replacement(transaction, old, new, summary=summary)
    if swap:
        stage_replacement(transaction, new, old, branch=branch_name(temp), summary={snapshot_summary.OPERATION: operation})
        return fresh.model, [(formal, temp, new, temp)]
    stage_drop(transaction, temp)
    remaining = tuple(n for n in fresh.model.unpartitioned_temp if n != temp)
    return fresh.model.with_unpartitioned_temp(remaining), [(formal, temp, new, None)]


def _union(sets: Iterable[FileSet]) -> FileSet:
    result = FileSet()
    for file_set in sets:
        result.data_files += file_set.data_files
        result.delete_files += file_set.delete_files
    return result

