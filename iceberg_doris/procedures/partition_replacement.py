"""Replacing formal partitions with temporary ones: the data-file moves behind
``doris.swap_temp_partition`` and ``doris.replace_partition``.

One commit: on main, one snapshot removes the replaced partitions' data files (with their deletion
vectors) and adds the temp partitions' files (with theirs); no data file is rewritten. For a swap,
the replaced rows move onto temp-partition branches in the same commit. Unlike Iceberg's
``fast_forward`` (which moves main to a branch's snapshot: all or nothing, and only if main did not
diverge) or ``cherrypick`` (which replays one snapshot's changes), this replaces exactly the named
partitions of main as main is at commit time, whatever else happened on main meanwhile.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from iceberg_doris.engine.file_sets import FileSet, all_files, committed_head, files_matching, stage_replacement
from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.partitioning import ReplaceResult, replace_partitions, swap_partitions
from iceberg_doris.procedures.parameter_types import BOOLEAN, STRING, STRING_ARRAY
from iceberg_doris.procedures.partition_changes import commit_model_change
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure
from iceberg_doris.procedures.table_access import DorisTable, open_table
from iceberg_doris.procedures.temp_partitions import branch_name, stage_drop, stage_empty_branch
from iceberg_doris.table_model import DorisTableModel
from iceberg_doris.table_model.partition_predicates import partition_predicate

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

PARAMETERS = (
    Parameter("table", STRING, required=True, description="db.tbl"),
    Parameter("partitions", STRING_ARRAY, required=True, description="Formal partitions to replace."),
    Parameter("temp_partitions", STRING_ARRAY, required=True, description="Temp partitions that replace them."),
    Parameter("strict_range", BOOLEAN, default=True, description="Ranges (or lists) must match exactly."),
    Parameter(
        "use_temp_partition_name",
        BOOLEAN,
        default=False,
        description="Keep the temp names (else, for lists of equal length, take the formal names by position).",
    ),
)
OUTPUT = (
    OutputColumn("partition_name", "string", "A formal partition after the operation."),
    OutputColumn("from_temp_partition", "string", "The temp partition whose rows it now holds."),
    OutputColumn("row_count", "bigint", "Rows moved in (records minus deleted records)."),
    OutputColumn("data_files", "bigint", "Data files moved, not rewritten."),
    OutputColumn("delete_files", "bigint", "Deletion vectors / position deletes moved with them."),
    OutputColumn("replaced_by_temp", "string", "Swap only: the temp partition now holding the replaced rows."),
    OutputColumn("snapshot_id", "bigint", "The snapshot on main."),
)


def replace_with_temp(
    spark: object,
    table: str,
    partitions: Sequence[str],
    temp_partitions: Sequence[str],
    *,
    strict_range: bool,
    use_temp_partition_name: bool,
    swap: bool,
) -> list[tuple[object, ...]]:
    handle = open_table(spark, table)
    operation = "swap_temp_partition" if swap else "replace_partition"

    def change(fresh: DorisTable, transaction: JavaObject) -> tuple[DorisTableModel, list[tuple[object, ...]]]:
        ps = fresh.require_partitions()
        rule = swap_partitions if swap else replace_partitions
        result: ReplaceResult = rule(
            ps, partitions, temp_partitions, strict_range=strict_range, use_temp_partition_name=use_temp_partition_name
        )
        old_by_partition = {n: files_matching(fresh.iceberg, fresh.table, partition_predicate(ps, ps.get(n))) for n in partitions}
        new_by_temp = {t: all_files(fresh.table, ref=branch_name(t)) for t in temp_partitions}
        removed = _union(old_by_partition.values())
        added = _union(new_by_temp.values())
        stage_replacement(
            transaction,
            removed,
            added,
            summary={
                "doris.operation": operation,
                "doris.partitions": ",".join(partitions),
                "doris.temp-partitions": ",".join(temp_partitions),
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
                stage_replacement(transaction, previous, old_by_partition[formal], branch=branch, summary={"doris.operation": operation})
        for temp_name in temp_partitions:
            if temp_name not in kept_branches:
                stage_drop(fresh, transaction, temp_name)
        snapshot_id = committed_head(transaction)
        rows = []
        for temp_name in temp_partitions:
            moved, formal_name = new_by_temp[temp_name], result.renames[temp_name]
            replaced_by = result.swapped_to_temp.get(formal_name)
            rows.append((formal_name, temp_name, _rows(moved), len(moved.data_files), len(moved.delete_files), replaced_by, snapshot_id))
        return fresh.model.with_partitions(result.partition_set), rows

    return commit_model_change(handle, change, operation=operation.replace("_", " ") + " of")


def _union(sets: object) -> FileSet:
    result = FileSet()
    for file_set in sets:  # type: ignore[attr-defined]
        result.data_files += file_set.data_files
        result.delete_files += file_set.delete_files
    return result


def _rows(files: FileSet) -> int:
    records = sum(int(f.recordCount()) for f in files.data_files)
    deleted = sum(int(f.recordCount()) for f in files.delete_files)
    return records - deleted


class TempReplacementProcedure(Procedure):
    """Shared by doris.swap_temp_partition (``swap = True``) and doris.replace_partition."""

    swap: ClassVar[bool]
    parameters = PARAMETERS
    output = OUTPUT

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        return replace_with_temp(
            spark,
            args["table"],
            args["partitions"],
            args["temp_partitions"],
            strict_range=args["strict_range"],
            use_temp_partition_name=args["use_temp_partition_name"],
            swap=self.swap,
        )
