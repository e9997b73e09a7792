"""``doris.load``: Doris stream/broker load and INSERT into an Iceberg table, as one commit.

Rows are read (a table or view, a query, files, or a DataFrame), mapped (``columns``), converted
to the table's types (``strict_mode``), filtered (``where``), routed to partitions (auto partitions
created on the way), and checked against ``max_filter_ratio``. Rejected rows and their reasons are
written to ``error_rows_path``. The accepted rows are staged as data files and published in one
commit together with any new partitions and the load's label, which a later load cannot reuse.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iceberg_doris.ddl import KeysModel
from iceberg_doris.engine.commit import commit_atomically
from iceberg_doris.engine.file_sets import FileSet, all_files, committed_head, files_matching, stage_replacement
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.iceberg_tables import stage_model
from iceberg_doris.engine.name_rules import check_label, shown
from iceberg_doris.engine.safe_paths import child_location
from iceberg_doris.engine.staged_writes import stage_data_files
from iceberg_doris.engine.table_names import TableName, quote_identifier
from iceberg_doris.errors import CommitConflictError, LoadError, ProcedureArgumentError
from iceberg_doris.faults import crash_point
from iceberg_doris.loading import (
    REASON_COLUMN,
    STATUS_COLUMN,
    TargetColumn,
    loaded_columns,
    parse_column_mapping,
    prepare_rows,
    read_source,
    write_error_rows,
)
from iceberg_doris.partitioning import PartitionSet, plan_auto_partitions
from iceberg_doris.procedures.parameter_types import (
    BOOLEAN,
    LABEL,
    RATIO,
    STRING,
    STRING_ARRAY,
    STRING_MAP,
    ParamType,
    _Mismatch,
)
from iceberg_doris.procedures.registry import Arguments, OutputColumn, Parameter, Procedure, register
from iceberg_doris.procedures.table_access import DorisTable, open_table, reopen
from iceberg_doris.table_model import ColumnModel, DorisTableModel
from iceberg_doris.procedures.keyed_load_commit import apply_keyed_load, touched_predicate
from iceberg_doris.procedures.keyed_load_plan import DELETE, ORDER, SEQUENCE, KeyedLoadShape
from iceberg_doris.procedures.temp_partitions import branch_name
from iceberg_doris.table_model.partition_predicates import partition_predicate, routing_sql, union

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

PARTITION_COLUMN = "__doris_partition"
# Auto-partition loads: the partition key of a row no partition holds yet (NULL for the others).
AUTO_KEY_COLUMN = "__doris_auto_key"
NO_PARTITION = "no partition for this tuple"
LABEL_KEY = "doris.label"
MERGE_TYPES = ("APPEND", "MERGE", "DELETE")
ERROR_ROWS_DIR = "_doris_load_errors"


class SourceType(ParamType):
    """A table or view name; the Python form also takes a DataFrame."""

    name = "string"

    def _convert(self, value: Any) -> Any:
        from pyspark.sql import DataFrame

        if isinstance(value, (str, DataFrame)):
            return value
        raise _Mismatch()


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
        Parameter("source", SourceType(), description="Table or view name (Python: also a DataFrame)."),
        Parameter("query", STRING, description="A SELECT statement."),
        Parameter("path", STRING_ARRAY, description="File path(s) or glob(s)."),
        Parameter("format", STRING, description="csv, json or parquet (default: from the file extension)."),
        Parameter("format_options", STRING_MAP, description="e.g. map('column_separator', ',', 'header', 'true')."),
        Parameter("merge_type", STRING, default="APPEND", description="APPEND, MERGE or DELETE (unique tables)."),
        Parameter("delete_on", STRING, description="MERGE: rows where this is true delete their key."),
        Parameter("sequence_col", STRING, description="Source column that feeds a hidden sequence column."),
        Parameter("columns", STRING, description="Column mapping, Doris syntax."),
        Parameter("where", STRING, description="Filter on the mapped rows."),
        Parameter("partitions", STRING_ARRAY, description="Only these partitions; other rows are filtered."),
        Parameter("temporary_partitions", STRING_ARRAY, description="Load into these temp partitions."),
        Parameter("partial_columns", BOOLEAN, default=False, description="Update only the named columns (MoW)."),
        Parameter("overwrite", BOOLEAN, default=False, description="Replace the partitions the rows land in."),
        Parameter("label", LABEL, description="Exactly-once label: letters, digits, '-', '_', ':' (default: generated)."),
        Parameter("max_filter_ratio", RATIO, default=0.0, description="Tolerated share of filtered rows, 0 to 1."),
        Parameter("strict_mode", BOOLEAN, default=False, description="Conversion failures filter the row."),
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
    )

    def run(self, spark: "SparkSession", args: Arguments) -> Iterable[Sequence[Any]]:
        handle = open_table(spark, args["table"])
        check_load_arguments(handle, args)
        if args["overwrite"]:
            mode = "named" if args["partitions"] else "touched"
        else:
            mode = None
        request = LoadRequest(
            source=args["source"],
            query=args["query"],
            path=args["path"],
            format=args["format"],
            format_options=args["format_options"],
            columns=args["columns"],
            where=args["where"],
            partitions=args["partitions"],
            temporary_partitions=args["temporary_partitions"],
            label=args["label"],
            max_filter_ratio=args["max_filter_ratio"],
            strict_mode=args["strict_mode"],
            merge_type=str(args["merge_type"]).upper(),
            delete_on=args["delete_on"],
            sequence_col=args["sequence_col"],
            partial_columns=args["partial_columns"],
            overwrite=mode,
            auto_create=True,
        )
        return [execute_load(spark, handle, request)]


@dataclass(frozen=True)
class LoadRequest:
    """What to load and how; shared by doris.load and doris.insert_overwrite."""

    source: Any = None
    query: str | None = None
    path: list[str] | None = None
    format: str | None = None
    format_options: dict[str, str] | None = None
    columns: str | None = None
    where: str | None = None
    partitions: list[str] | None = None
    temporary_partitions: list[str] | None = None
    label: str | None = None
    max_filter_ratio: float = 0.0
    strict_mode: bool = False
    merge_type: str = "APPEND"
    delete_on: str | None = None
    sequence_col: str | None = None
    partial_columns: bool = False
    overwrite: str | None = None  # None (append), "touched", "named" or "all"
    auto_create: bool = True  # auto-partition tables create the partitions rows need
    operation: str = "load"
    filtered_message: str | None = None  # replaces "too many filtered rows" (INSERT's strict message)


def execute_load(spark: "SparkSession", handle: DorisTable, request: LoadRequest) -> tuple[Any, ...]:
    started = time.monotonic()
    label = check_label(request.label) if request.label is not None else f"{request.operation}_{uuid.uuid4().hex}"
    check_label_unused(handle.iceberg, handle.table, handle.name, label)
    frame = read_source(
        spark,
        source=request.source,
        query=request.query,
        path=request.path,
        format=request.format,
        options=request.format_options,
    )
    mapping = parse_column_mapping(request.columns) if request.columns else None
    model = handle.model
    targets = [target_column(c) for c in model.loadable_columns]
    keyed = None
    extra = None
    if model.keys_model is not KeysModel.DUPLICATE:
        given = loaded_columns(frame, targets, mapping)
        supplied = given if request.partial_columns else tuple(t.name for t in targets)
        keyed = KeyedLoadShape(model, tuple(supplied), request.partial_columns, request.strict_mode)
        check_keys_supplied(model, request, given)
        check_sequence_supplied(handle, request, given)
        check_sequence_source(request, frame, mapping, targets)
        extra = keyed_extras(model, request)
    prepared = prepare_rows(
        frame, targets, mapping=mapping, where=request.where, strict_mode=request.strict_mode,
        extra=extra, required_present=not request.partial_columns,
    )
    routed = route_rows(prepared, handle, request)
    result = publish(handle, routed, targets, request, label=label, keyed=keyed)
    elapsed = int((time.monotonic() - started) * 1000)
    return (
        label, "FINISHED", result.snapshot_id, result.loaded, result.filtered, result.unselected,
        result.deleted, elapsed, result.error_rows_path,
    )


def keyed_extras(model: DorisTableModel, request: LoadRequest) -> dict[str, str]:
    """The delete flag, sequence value and batch order each row of a keyed load carries."""
    if request.merge_type == "DELETE":
        delete = "true"
    elif request.merge_type == "MERGE":
        delete = f"coalesce(({request.delete_on}), false)"
    else:
        delete = "false"
    if request.sequence_col:
        sequence = quote_identifier(request.sequence_col)
    elif model.sequence_col:
        sequence = quote_identifier(model.sequence_col)
    else:
        sequence = "CAST(NULL AS INT)"
    return {DELETE: delete, SEQUENCE: sequence, ORDER: "monotonically_increasing_id()"}


def check_sequence_supplied(handle: DorisTable, request: LoadRequest, supplied: Sequence[str]) -> None:
    """A load into a sequence table must give each row a sequence value (Doris's rule): the source
    (or the columns mapping) has to supply the sequence column; ``supplied`` are the table columns
    the load supplies."""
    model = handle.model
    if not model.sequence_col or request.partial_columns or request.sequence_col:
        return
    column = model.column(model.sequence_col)
    default = (column.default or "").upper()
    if model.sequence_col.lower() not in {name.lower() for name in supplied} and not default.startswith("CURRENT_TIMESTAMP"):
        raise LoadError(
            f"Table {handle.name.name} has sequence column, need to specify the sequence column: the load must "
            f"supply column {model.sequence_col} (in the source or the columns mapping)"
        )


def check_keys_supplied(model: DorisTableModel, request: LoadRequest, supplied: Sequence[str]) -> None:
    """A partial update names every key column (Doris's rule and message)."""
    if not request.partial_columns:
        return
    given = {name.lower() for name in supplied}
    missing = [key for key in model.key_columns if key.lower() not in given]
    if missing:
        raise LoadError(
            f"Partial update should include all key columns, missing: {missing[0]}; name every key column "
            f"({', '.join(model.key_columns)}) in the source or the columns mapping"
        )


def check_sequence_source(request: LoadRequest, frame: "DataFrame", mapping: Any, targets: list[TargetColumn]) -> None:
    """``sequence_col`` names a column of the load (a source column, a mapped or a table column)."""
    if not request.sequence_col:
        return
    known = list(frame.columns) + list(mapping.names() if mapping is not None else ()) + [t.name for t in targets]
    if request.sequence_col.lower() not in {name.lower() for name in known}:
        raise LoadError(
            f"sequence_col {shown(request.sequence_col)} is not a column of the load: name a column of the source "
            "or of the columns mapping"
        )


def check_load_arguments(handle: DorisTable, args: Arguments) -> None:
    """Doris's rules for load options, with Doris's messages."""
    model = handle.model
    merge_type = str(args["merge_type"]).upper()
    if merge_type not in MERGE_TYPES:
        raise ProcedureArgumentError(f"[INVALID_ARGUMENT]Invalid merge type {args['merge_type']}: use APPEND, MERGE or DELETE")
    if merge_type != "APPEND" and model.keys_model is not KeysModel.UNIQUE:
        raise LoadError("load by MERGE or DELETE is only supported in unique tables.")
    if args["delete_on"] and merge_type != "MERGE":
        raise LoadError("not support DELETE ON clause when merge type is not MERGE.")
    if merge_type == "MERGE" and not args["delete_on"]:
        raise LoadError("Excepted DELETE ON clause when merge type is MERGE.")
    if args["sequence_col"] and not (model.sequence_col or model.sequence_type):
        raise LoadError(f"There is no sequence column in the table {handle.name.name}")
    if args["partial_columns"] and not model.merge_on_write:
        raise LoadError("Only unique key merge on write support partial update")
    if args["partitions"] and args["temporary_partitions"]:
        raise ProcedureArgumentError("Give partitions or temporary_partitions, not both")
    if args["partitions"] and model.partitions is None:
        raise LoadError(f"Table {handle.name.qualified} is not partitioned: remove the partitions argument")
    sources = [k for k in ("source", "query", "path") if args[k] is not None]
    if len(sources) != 1:
        raise ProcedureArgumentError("Give exactly one of source, query or path")
    if model.sequence_type and not model.sequence_col and not args["sequence_col"] and not args["partial_columns"]:
        raise LoadError(f"Table {handle.name.name} has sequence column, need to specify the sequence column")
    if args["temporary_partitions"] and model.partitions is None:
        raise LoadError(f"Table {handle.name.qualified} is not partitioned, so it has no temporary partitions")


def target_column(column: ColumnModel) -> TargetColumn:
    """What a loaded value must satisfy for a column (Doris type limits included)."""
    doris = column.doris_type.upper()
    length = None
    if doris.startswith(("VARCHAR(", "CHAR(")):
        length = int(doris[doris.index("(") + 1 : doris.index(")")])
    bounds = {"TINYINT": (-128, 127), "SMALLINT": (-32768, 32767), "LARGEINT": (-(2**127), 2**127 - 1)}
    low, high = bounds.get(doris, (None, None))
    return TargetColumn(
        name=column.name,
        spark_type=column.spark_type,
        nullable=column.nullable,
        doris_type=column.doris_type,
        max_length=length,
        min_value=low,
        max_value=high,
        default=column.default,
    )


def check_label_unused(iceberg: IcebergJava, table: JavaObject, name: TableName, label: str) -> None:
    snapshot_id = int(iceberg.helpers.SnapshotHistory.findBySummary(table, LABEL_KEY, label))
    if snapshot_id != -1:
        raise LoadError(
            f"Label [{label}] has already been used on {name.qualified} (snapshot {snapshot_id}); "
            "a label loads once: choose a new one"
        )


@dataclass
class RoutedRows:
    """Prepared rows with their target partition, and the partition set they were routed against."""

    frame: "DataFrame"
    partitions: PartitionSet | None
    temporary: bool = False
    created: tuple[Any, ...] = ()
    # Rows no partition holds carry AUTO_KEY_COLUMN; publish plans their partitions from its counts.
    auto_keys: bool = False


def route_rows(prepared: "DataFrame", handle: DorisTable, request: LoadRequest) -> RoutedRows:
    """Adds the partition of each accepted row; rows that fit none become error rows, except in
    auto-partition tables, where they carry the key of the partition to create (planned, with
    Doris's names, from the same pass that counts the rows: no extra read of the source)."""
    from pyspark.sql import functions as F

    partitions = handle.model.partitions
    if partitions is None:
        return RoutedRows(prepared, None)
    model = handle.model
    temporary = bool(request.temporary_partitions)
    named = request.temporary_partitions or request.partitions
    if model.auto_partition is not None and named is None and request.auto_create:
        routed = _with_partition(prepared, partitions, list(partitions.formal))
        homeless = (F.col(STATUS_COLUMN) == "ok") & F.col(PARTITION_COLUMN).isNull()
        routed = routed.withColumn(AUTO_KEY_COLUMN, F.when(homeless, _auto_partition_key(model, partitions)))
        return RoutedRows(routed, partitions, temporary, auto_keys=True)
    if named is not None:
        group = []
        for name in named:
            partition = partitions.get(name, temporary)
            if partition is None:
                kind = "Temp partition" if temporary else "Partition"
                raise LoadError(f"{kind}[{name}] does not exist in {handle.name.qualified}")
            group.append(partition)
    else:
        group = list(partitions.formal)
    return RoutedRows(_unrouted_rows_rejected(_with_partition(prepared, partitions, group)), partitions, temporary)


def _with_partition(frame: "DataFrame", partitions: PartitionSet, group: list[Any]) -> "DataFrame":
    """``frame`` with the name of the partition of ``group`` each row belongs to (NULL: none)."""
    from pyspark.sql import functions as F

    return frame.withColumn(PARTITION_COLUMN, F.expr(routing_sql(partitions, group)))


def _auto_partition_key(model: DorisTableModel, partitions: PartitionSet) -> "Column":
    """The key an auto partition is made for: ``date_trunc(unit, column)`` (RANGE) or the
    partition columns' values (LIST), as a struct (a NULL value is a key too)."""
    from pyspark.sql import functions as F

    from iceberg_doris.partitioning import validate_date_trunc_unit

    auto = model.auto_partition
    assert auto is not None
    columns = [F.col(quote_identifier(c)) for c in partitions.column_names]
    if auto.kind == "RANGE":
        return F.struct(F.date_trunc(validate_date_trunc_unit(auto.unit or ""), columns[0]))
    return F.struct(*columns)


def with_auto_partitions(routed: RoutedRows, model: DorisTableModel, keys: list[tuple[Any, ...]]) -> tuple[RoutedRows, bool]:
    """``routed`` with the partitions the rows' auto-partition ``keys`` need added (Doris's names
    and limits; the load commits them with its data), and whether every key got one. A key can
    miss out when it falls inside an existing partition that does not hold the row itself (a
    hand-made range starting mid-day); its rows then fit no partition."""
    from dataclasses import replace

    auto = model.auto_partition
    assert auto is not None and routed.partitions is not None
    if not keys:
        return replace(routed, auto_keys=False), True
    simple = (model.property("use_simple_auto_partition_name") or "false").lower() == "true"
    plan = plan_auto_partitions(routed.partitions, keys, unit=auto.unit, simple_names=simple)
    created = {p.name for p in plan.created}
    route = plan.partition_set.router()
    placed = all(route(key) in created for key in keys)
    return replace(routed, partitions=plan.partition_set, created=plan.created, auto_keys=False), placed


def reroute(routed: RoutedRows) -> RoutedRows:
    """``routed`` routed again over all its formal partitions; rows that fit none become error rows."""
    from dataclasses import replace

    assert routed.partitions is not None
    frame = _with_partition(routed.frame.drop(AUTO_KEY_COLUMN), routed.partitions, list(routed.partitions.formal))
    return replace(routed, frame=_unrouted_rows_rejected(frame), auto_keys=False)


def _unrouted_rows_rejected(routed: "DataFrame") -> "DataFrame":
    from pyspark.sql import functions as F

    unrouted = (F.col(STATUS_COLUMN) == "ok") & F.col(PARTITION_COLUMN).isNull()
    routed = routed.withColumn(REASON_COLUMN, F.when(unrouted, F.lit(NO_PARTITION)).otherwise(F.col(REASON_COLUMN)))
    return routed.withColumn(STATUS_COLUMN, F.when(unrouted, F.lit("error")).otherwise(F.col(STATUS_COLUMN)))


@dataclass
class RowCounts:
    """What one pass over the routed rows found."""

    routed: RoutedRows  # with the auto partitions the rows need, if any
    loaded: int
    filtered: int
    unselected: int
    touched: list[str]  # partitions that receive rows
    placed: bool = True  # False: some rows fit no partition even with the new auto partitions


def count_rows(frame: "DataFrame", routed: RoutedRows, model: DorisTableModel) -> RowCounts:
    """Counts ``frame`` (the routed rows, persisted) by status and partition in one Spark job,
    planning auto partitions from the same pass."""
    grouping = [STATUS_COLUMN, PARTITION_COLUMN] + ([AUTO_KEY_COLUMN] if routed.auto_keys else [])
    grouped = frame.groupBy(*grouping).count().collect()
    counts: dict[str, int] = {}
    for row in grouped:
        counts[row[STATUS_COLUMN]] = counts.get(row[STATUS_COLUMN], 0) + row["count"]
    ok = [row for row in grouped if row[STATUS_COLUMN] == "ok"]
    touched = {row[PARTITION_COLUMN] for row in ok if row[PARTITION_COLUMN] is not None}
    if routed.auto_keys:
        keys = [tuple(row[AUTO_KEY_COLUMN]) for row in ok if row[AUTO_KEY_COLUMN] is not None]
        routed, placed = with_auto_partitions(routed, model, keys)
        if not placed:
            return RowCounts(routed, 0, 0, 0, [], placed=False)
        # Each key was outside every existing partition, so each has a new partition of its own.
        touched |= {p.name for p in routed.created}
    return RowCounts(routed, counts.get("ok", 0), counts.get("error", 0), counts.get("unselected", 0), sorted(touched))


@dataclass
class Published:
    snapshot_id: int | None
    loaded: int
    filtered: int
    unselected: int
    error_rows_path: str | None
    deleted: int = 0


def publish_keyed(
    handle: DorisTable, routed: RoutedRows, accepted: "DataFrame", shape: KeyedLoadShape, commit: "LoadCommit"
) -> tuple[int | None, int]:
    """Unique/aggregate loads: merge-on-write into main, or into each touched temp partition."""
    from pyspark.sql import functions as F

    if commit.request.overwrite is not None:
        raise LoadError("overwrite loads into UNIQUE or AGGREGATE KEY tables are not supported: use insert_overwrite on a DUPLICATE KEY table, or delete then load")

    def stage_partitions(fresh: DorisTable, transaction: JavaObject) -> None:
        check_label_unused(fresh.iceberg, fresh.table, fresh.name, commit.label)
        if routed.partitions is not None:
            merged = merge_partitions(fresh, routed)
            if merged is not fresh.model.partitions:
                stage_model(transaction, fresh.properties, fresh.model.with_partitions(merged))

    if routed.temporary:
        snapshot_id, deleted = None, 0
        for name in commit.touched:
            rows = accepted.filter(F.col(PARTITION_COLUMN) == name)
            outcome = apply_keyed_load(
                handle, rows, shape, touched=touched_predicate(routed.partitions, [name], True),
                branch=branch_name(name), summary=commit.summary(), stage_extra=stage_partitions, label=commit.label,
            )
            snapshot_id, deleted = outcome.snapshot_id, deleted + outcome.deleted_rows
        return snapshot_id, deleted
    outcome = apply_keyed_load(
        handle, accepted, shape, touched=touched_predicate(routed.partitions, commit.touched, False),
        branch=None, summary=commit.summary(), stage_extra=stage_partitions, label=commit.label,
    )
    return outcome.snapshot_id, outcome.deleted_rows


def publish(
    handle: DorisTable,
    routed: RoutedRows,
    targets: list[TargetColumn],
    request: LoadRequest,
    *,
    label: str,
    keyed: KeyedLoadShape | None = None,
) -> Published:
    """Counts, enforces max_filter_ratio, writes error rows, stages data files, commits once."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    partition = F.col(PARTITION_COLUMN) if routed.partitions is not None else F.lit(None).cast("string")
    frame = routed.frame.withColumn(PARTITION_COLUMN, partition).persist(StorageLevel.MEMORY_AND_DISK)
    try:
        counted = count_rows(frame, routed, handle.model)
        if not counted.placed:
            # Rare: route once more over the new partitions; rows that still fit none are rejected.
            frame.unpersist()
            rerouted = reroute(counted.routed)
            frame = rerouted.frame.persist(StorageLevel.MEMORY_AND_DISK)
            counted = count_rows(frame, rerouted, handle.model)
        routed = counted.routed
        touched = counted.touched
        loaded, filtered, unselected = counted.loaded, counted.filtered, counted.unselected
        error_path = None
        if filtered:
            rejected = frame.filter(F.col(STATUS_COLUMN) == "error").drop(PARTITION_COLUMN, AUTO_KEY_COLUMN)
            error_path = write_error_rows(rejected, error_location(handle, label))
        total = loaded + filtered
        if filtered and filtered / total > request.max_filter_ratio:
            reason = request.filtered_message or (
                f"too many filtered rows: {filtered} of {total} rows were filtered, more than max_filter_ratio "
                f"{request.max_filter_ratio}"
            )
            raise LoadError(
                f"{reason}; nothing was committed to {handle.name.qualified}. The rejected rows and their reasons "
                f"are in {error_path}"
            )
        accepted = frame.filter(F.col(STATUS_COLUMN) == "ok")
        crash_point(request.operation, "rows-counted")
        if keyed is not None:
            commit = LoadCommit(label=label, request=request, staged={}, touched=touched, counts=(loaded, filtered, unselected))
            snapshot_id, deleted = publish_keyed(handle, routed, accepted, keyed, commit)
            return Published(snapshot_id, loaded, filtered, unselected, error_path, deleted)
        columns = [F.col(quote_identifier(t.name)) for t in targets]
        staged: dict[str | None, list[JavaObject]] = {}
        if routed.temporary:
            for name in touched:
                rows = accepted.filter(F.col(PARTITION_COLUMN) == name).select(*columns)
                staged[name] = stage_data_files(handle.iceberg, handle.name, rows)
        elif loaded:
            staged[None] = stage_data_files(handle.iceberg, handle.name, accepted.select(*columns))
        crash_point(request.operation, "files-staged")
        commit = LoadCommit(label=label, request=request, staged=staged, touched=touched, counts=(loaded, filtered, unselected))
        snapshot_id = commit_load(handle, routed, commit)
        return Published(snapshot_id, loaded, filtered, unselected, error_path)
    finally:
        frame.unpersist()


@dataclass
class LoadCommit:
    label: str
    request: LoadRequest
    staged: dict[str | None, list[JavaObject]]  # None: main; else a temp partition name
    touched: list[str]
    counts: tuple[int, int, int]

    def summary(self) -> dict[str, str]:
        loaded, filtered, unselected = self.counts
        return {
            LABEL_KEY: self.label,
            "doris.operation": self.request.operation,
            "doris.loaded-rows": str(loaded),
            "doris.filtered-rows": str(filtered),
            "doris.unselected-rows": str(unselected),
        }


def commit_load(handle: DorisTable, routed: RoutedRows, commit: LoadCommit) -> int | None:
    request = commit.request

    def build(table: JavaObject, transaction: JavaObject) -> int | None:
        fresh = reopen(handle, table)
        check_label_unused(handle.iceberg, table, handle.name, commit.label)
        partitions = fresh.model.partitions
        if routed.partitions is not None:
            partitions = merge_partitions(fresh, routed)
            if partitions is not fresh.model.partitions:
                stage_model(transaction, fresh.properties, fresh.model.with_partitions(partitions))
        if routed.temporary:
            names = request.temporary_partitions or []
            for name in names if request.overwrite else commit.touched:
                added = FileSet(commit.staged.get(name, []))
                removed = all_files(table, ref=branch_name(name)) if request.overwrite else FileSet()
                stage_replacement(transaction, removed, added, branch=branch_name(name), summary=commit.summary())
            return committed_head(transaction)
        added = FileSet(commit.staged.get(None, []))
        if request.overwrite is None:
            append = transaction.newAppend()
            for data_file in added.data_files:
                append.appendFile(data_file)
            for key, value in commit.summary().items():
                append.set(key, value)
            append.commit()
            return committed_head(transaction)
        removed = overwritten_files(fresh, partitions, request, commit.touched)
        summary = commit.summary() | {"doris.overwritten-partitions": _overwritten_text(request, commit.touched)}
        if not removed.data_files and not added.data_files:
            transaction.newAppend().set(LABEL_KEY, commit.label).set("doris.operation", request.operation).commit()
        else:
            stage_replacement(transaction, removed, added, summary=summary)
        return committed_head(transaction)

    return commit_atomically(handle.iceberg, handle.name, build, operation=f"{commit.request.operation} into", label=commit.label)


def overwritten_files(fresh: DorisTable, partitions: PartitionSet | None, request: LoadRequest, touched: list[str]) -> FileSet:
    """What an overwrite replaces, as main holds it at commit time."""
    if partitions is None or request.overwrite == "all":
        return all_files(fresh.table)
    names = request.partitions if request.overwrite == "named" else touched
    chosen = [partitions.get(n) for n in names or []]
    if not chosen:
        return FileSet()
    return files_matching(fresh.iceberg, fresh.table, union([partition_predicate(partitions, p) for p in chosen if p is not None]))


def _overwritten_text(request: LoadRequest, touched: list[str]) -> str:
    if request.overwrite == "all":
        return "*all*"
    return ",".join((request.partitions or []) if request.overwrite == "named" else touched)


def merge_partitions(fresh: DorisTable, routed: RoutedRows) -> PartitionSet | None:
    """The table's partitions with this load's new auto partitions; refuses if a partition the rows
    were routed to was changed by a concurrent commit."""
    current = fresh.model.partitions
    assert current is not None and routed.partitions is not None
    for partition in routed.partitions.temp if routed.temporary else ():
        if current.get(partition.name, True) != partition:
            raise CommitConflictError(
                f"Cannot load into {fresh.name.qualified}: temp partition {partition.name} changed while the load "
                "ran; nothing was committed. Run the load again."
            )
    for partition in routed.partitions.formal:
        if partition in routed.created:
            continue
        if current.get(partition.name) != partition:
            raise CommitConflictError(
                f"Cannot load into {fresh.name.qualified}: partition {partition.name} changed while the load ran; "
                "nothing was committed. Run the load again."
            )
    merged = current
    for partition in routed.created:
        existing = current.get(partition.name)
        if existing is None:
            merged = merged.add(partition)
        elif existing != partition:
            raise CommitConflictError(
                f"Cannot load into {fresh.name.qualified}: another commit created partition {partition.name} "
                "with a different range; nothing was committed."
            )
    return merged


def error_location(handle: DorisTable, label: str) -> str:
    """``<warehouse>/_doris_load_errors/<db>/<table>/<label>``: outside every table's folder, so
    Iceberg's orphan-file cleanup never removes it. Each name is exactly one folder level
    (:func:`child_location` encodes whatever it holds), so the location is always a folder of
    ``<warehouse>/_doris_load_errors/<db>/<table>/`` and writing it (which replaces it) cannot touch
    anything else."""
    spark = handle.iceberg.spark
    warehouse = spark.conf.get(f"spark.sql.catalog.{handle.iceberg.catalog_name}.warehouse", None)
    base = warehouse.rstrip("/") if warehouse else str(handle.table.location()).rsplit("/", 2)[0]
    return child_location(base, ERROR_ROWS_DIR, handle.name.namespace, handle.name.name, label)
