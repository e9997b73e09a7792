"""``doris.load``: Doris stream/broker load and INSERT into an Iceberg table, as one commit.

Binds the arguments into a :class:`~iceberg_doris.operations.LoadRequest` and runs
:func:`iceberg_doris.operations.load` (read top-down from there: checks, read/map/convert, route,
count, publish or merge-on-write).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from iceberg_doris import operations
from iceberg_doris.operations import LoadRequest, LoadResult, MergeType, OverwriteMode, UniqueKeyUpdateMode, progress
from iceberg_doris.procedures.parameter_types import (
    BOOLEAN,
    LABEL,
    RATIO,
    SOURCE,
    STRING,
    STRING_ARRAY,
    STRING_MAP,
    EnumType,
)
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Doris's header (stream_load.cpp), its message kept: the mode names are case-sensitive there too.
UPDATE_MODE = EnumType(
    UniqueKeyUpdateMode,
    "[INVALID_ARGUMENT]Invalid unique_key_partial_mode {value}, must be one of 'UPSERT', 'UPDATE_FIXED_COLUMNS' or "
    "'UPDATE_FLEXIBLE_COLUMNS'",
    case_sensitive=True,
)
MERGE_TYPE = EnumType(MergeType, "[INVALID_ARGUMENT]Invalid merge type {value}: use APPEND, MERGE, DELETE or NEGATIVE")


@register
class LoadProcedure(Procedure):
    name = "load"
    summary = "Loads rows from a table/view, a query or files into a table, as one commit (Doris stream/broker load)."
    details = (
        "Give one of source, query or path (with format csv/json/parquet; CSV defaults to Doris's tab separator, "
        "see format_options). columns maps and computes columns (Doris syntax: 'k1, tmp, v = tmp * 2'); where "
        "filters after mapping (unselected rows). Rows that cannot be converted (strict_mode), violate NOT NULL or "
        "fit no partition are filtered; the load fails when filtered/(filtered+loaded) > max_filter_ratio. "
        "Rejected rows and reasons go to error_rows_path. A label can be used once per table. Auto-partition "
        "tables create missing partitions, named as Doris names them."
    )
    parameters = (
        Parameter("table", STRING, required=True, description="db.tbl"),
        Parameter("source", SOURCE, description="Table or view name (Python: also a DataFrame)."),
        Parameter("query", STRING, description="A SELECT statement."),
        Parameter("path", STRING_ARRAY, description="File path(s) or glob(s)."),
        Parameter("format", STRING, description="csv, json or parquet (default: from the file extension)."),
        Parameter("format_options", STRING_MAP, description="e.g. map('column_separator', ',', 'header', 'true')."),
        Parameter("merge_type", MERGE_TYPE, default=MergeType.APPEND, description="APPEND, MERGE or DELETE (unique tables); NEGATIVE (aggregate tables, all values SUM) negates the values to undo an earlier load."),
        Parameter("delete_on", STRING, description="MERGE: rows where this is true delete their key."),
        Parameter("sequence_col", STRING, description="Source column that feeds a hidden sequence column."),
        Parameter("columns", STRING, description="Column mapping, Doris syntax."),
        Parameter("where", STRING, description="Filter on the mapped rows."),
        Parameter("partitions", STRING_ARRAY, description="Only these partitions; other rows are filtered."),
        Parameter("temporary_partitions", STRING_ARRAY, description="Load into these temp partitions."),
        Parameter("partial_columns", BOOLEAN, default=False, description="Update only the named columns (MoW)."),
        Parameter(
            "unique_key_update_mode", UPDATE_MODE,
            description="UPSERT, UPDATE_FIXED_COLUMNS (as partial_columns) or UPDATE_FLEXIBLE_COLUMNS (JSON lines: each "
            "row updates the columns it names; MoW tables with enable_unique_key_skip_bitmap_column).",
        ),
        Parameter("overwrite", BOOLEAN, default=False, description="Replace the partitions the rows land in."),
        Parameter("label", LABEL, description="Exactly-once label: letters, digits, '-', '_', ':' (default: generated)."),
        Parameter("max_filter_ratio", RATIO, default=0.0, description="Tolerated share of filtered rows, 0 to 1."),
        Parameter("strict_mode", BOOLEAN, default=False, description="Conversion failures filter the row."),
        Parameter(
            "progress", BOOLEAN,
            description="Show this load's phase lines on stderr (true) or not (false); default: the session's setting.",
        ),
    )
    output = (
        OutputColumn("label", "string"),
        OutputColumn("status", "string", "FINISHED"),
        OutputColumn("snapshot_id", "bigint", "The snapshot the load committed."),
        OutputColumn("loaded_rows", "bigint"),
        OutputColumn("filtered_rows", "bigint", "Rejected rows (see error_rows_path)."),
        OutputColumn("unselected_rows", "bigint", "Rows the where filter left out."),
        OutputColumn("deleted_rows", "bigint", "Rows deleted by MERGE/DELETE loads."),
        OutputColumn("elapsed_ms", "bigint"),
        OutputColumn("error_rows_path", "string", "Where rejected rows and reasons were written; NULL if none."),
        OutputColumn(
            "repaired_keys", "bigint",
            "Keys writers outside iceberg-doris had given a second live row, repaired in a commit before the load.",
        ),
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        with progress.shown(args["progress"]):
            return [load_row(operations.load(spark, args["table"], load_request(args)))]


# The options that say where a load's rows come from and which load it is. A stream's micro-batch is
# its source and the batch names its load, so a stream takes the others: the one list of the options
# ``doris.stream_to`` and ``format("doris")`` take (tests hold both, and the docs, to it).
_SOURCE_AND_IDENTITY = frozenset({"source", "query", "path", "format", "format_options", "label", "progress"})


# A micro-batch is a DataFrame, not JSON lines, so UPDATE_FLEXIBLE_COLUMNS cannot apply to it, and
# partial_columns already says UPSERT or UPDATE_FIXED_COLUMNS.
_FILE_LOADS_ONLY = frozenset({"unique_key_update_mode"})


def per_batch_parameters() -> tuple[Parameter, ...]:
    """``doris.load``'s parameters a stream gives each micro-batch's load: all but the source
    (``source``, ``query``, ``path``, ``format``, ``format_options``), ``label``, ``progress`` and
    ``unique_key_update_mode`` (partial_columns says the modes a DataFrame can take)."""
    return tuple(p for p in LoadProcedure.parameters if p.name not in _SOURCE_AND_IDENTITY | _FILE_LOADS_ONLY)


def load_request(args: Arguments) -> LoadRequest:
    """The load the bound arguments of ``doris.load`` ask for (also the per-batch load of
    ``doris.stream_to``, whose options bind as ``doris.load``'s)."""
    overwrite = None
    if args["overwrite"]:
        overwrite = OverwriteMode.NAMED if args["partitions"] else OverwriteMode.TOUCHED
    return LoadRequest(
        source=args["source"],
        query=args["query"],
        path=_tuple(args["path"]),
        format=args["format"],
        format_options=args["format_options"],
        columns=args["columns"],
        where=args["where"],
        partitions=_tuple(args["partitions"]),
        temporary_partitions=_tuple(args["temporary_partitions"]),
        label=args["label"],
        max_filter_ratio=args["max_filter_ratio"],
        strict_mode=args["strict_mode"],
        merge_type=args["merge_type"],
        delete_on=args["delete_on"],
        sequence_col=args["sequence_col"],
        partial_columns=args["partial_columns"],
        unique_key_update_mode=args["unique_key_update_mode"],
        overwrite=overwrite,
    )


def load_row(result: LoadResult) -> tuple[Any, ...]:
    """A load's result as the procedures' output row (doris.load and doris.insert_overwrite)."""
    return (
        result.label, result.status, result.snapshot_id, result.loaded_rows, result.filtered_rows,
        result.unselected_rows, result.deleted_rows, result.elapsed_ms, result.error_rows_path, result.repaired_keys,
    )


def _tuple(values: list[str] | None) -> tuple[str, ...] | None:
    return tuple(values) if values is not None else None
