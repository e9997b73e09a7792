"""Every ``CALL doris.<name>(...)`` procedure as a Python function ``doris.<name>(spark, ...)``.

The functions take the same named arguments as the SQL form (keyword-only) and return the same
rows, as a list of :class:`pyspark.sql.Row` (``changes``, whose columns are the table's, returns a
DataFrame). Errors are raised as :mod:`iceberg_doris.errors`
exceptions. ``help(doris.<name>)`` shows the parameters.

Beside them, Python-only: ``doris.stream_to(table, ...)``, a Structured Streaming sink
(``df.writeStream.foreachBatch(doris.stream_to(...))``) that loads each micro-batch exactly once.

Example:
    >>> from iceberg_doris import doris
    >>> rows = doris.help(spark, procedure="help")               # doctest: +SKIP
    >>> rows[0].procedure                                         # doctest: +SKIP
    'help'

Written by ``python -m iceberg_doris.procedures.render_python_api`` from the procedure registry
(:mod:`iceberg_doris.procedures.registry`): do not edit by hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from iceberg_doris import procedures as _procedures
from iceberg_doris.procedures.python_api import call_frame as _frame
from iceberg_doris.procedures.python_api import call_procedure as _call
from iceberg_doris.procedures.python_api import entry_point as _entry_point
from iceberg_doris.procedures.python_api import procedure_function as _procedure
from iceberg_doris.streaming import stream_to

if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Callable, Mapping, Sequence
    from decimal import Decimal

    from pyspark.sql import DataFrame, Row, SparkSession

__all__ = [
    "add_partition",
    "add_temp_partition",
    "auto_compact",
    "changes",
    "check",
    "cleanup",
    "compact",
    "create_table",
    "delete",
    "describe",
    "drop_partition",
    "drop_temp_partition",
    "enable_feature",
    "help",
    "insert_overwrite",
    "load",
    "recover_partition",
    "rename_partition",
    "replace_partition",
    "replace_table",
    "run_dynamic_partition",
    "set_properties",
    "show_partitions",
    "swap_temp_partition",
    "truncate",
    "stream_to",
]


@_procedure
def add_partition(
    spark: SparkSession,
    /,
    *,
    table: str,
    partition: str,
    values_less_than: str | int | float | Decimal | Sequence[str | int | float | Decimal] | None = None,
    values_range: Sequence[str | int | float | Decimal] | Sequence[Sequence[str | int | float | Decimal] | str | int | float | Decimal] | None = None,
    values_in: Sequence[str | int | float | Decimal | None] | str | int | float | Decimal | Sequence[Sequence[str | int | float | Decimal | None] | str | int | float | Decimal | None] | None = None,
    temporary: bool = False,
) -> list[Row]:
    """Adds a RANGE or LIST partition (or a temporary partition) to a partitioned table.

    Give exactly one of values_less_than, values_range or values_in. Overlapping ranges or lists are refused naming the conflicting partition. Refused on tables with dynamic_partition.enable=true (as Doris). temporary => true adds a temp partition: an Iceberg branch named doris_temp_<name>.

    SQL: CALL doris.add_partition(table string, partition string, values_less_than string|array<string> = NULL, values_range array<string>|array<array<string>> = NULL, values_in array<string>|array<array<string>> = NULL, temporary boolean = false)

    Args:
        table (string, required): db.tbl
        partition (string, required): New partition name (letters, digits, '_', '-').
        values_less_than (string|array<string>, default NULL): Upper bound: a value, an array (multi-column) or 'MAXVALUE'.
        values_range (array<string>|array<array<string>>, default NULL): array(lower, upper) meaning [lower, upper); arrays for multi-column.
        values_in (array<string>|array<array<string>>, default NULL): LIST values: array('a', 'b'), or array(array(1, 'x'), ...) for multi-column; NULL holds the rows whose column is NULL.
        temporary (boolean, default false): Add a temporary partition.

    Returns rows with: partition_name (string), range (string), is_temp (boolean), branch (string), partition_spec (string)
    """
    return _call(spark, "add_partition", {
        "table": table,
        "partition": partition,
        "values_less_than": values_less_than,
        "values_range": values_range,
        "values_in": values_in,
        "temporary": temporary,
    })


@_procedure
def add_temp_partition(
    spark: SparkSession,
    /,
    *,
    table: str,
    partition: str,
    values_less_than: str | int | float | Decimal | Sequence[str | int | float | Decimal] | None = None,
    values_range: Sequence[str | int | float | Decimal] | Sequence[Sequence[str | int | float | Decimal] | str | int | float | Decimal] | None = None,
    values_in: Sequence[str | int | float | Decimal | None] | str | int | float | Decimal | Sequence[Sequence[str | int | float | Decimal | None] | str | int | float | Decimal | None] | None = None,
) -> list[Row]:
    """Adds a temporary partition: an Iceberg branch doris_temp_<name> that loads can fill and swaps can move in.

    Same as add_partition with temporary => true. On a RANGE or LIST table give exactly one of values_less_than, values_range or values_in; temp partitions may overlap formal partitions but not each other (VALUES LESS THAN starts at the previous temp partition's upper bound). On an unpartitioned table give no values: the temp partition stages rows for the whole table, and swap_temp_partition / replace_partition with partitions => array('<table name>') replace all of it.

    SQL: CALL doris.add_temp_partition(table string, partition string, values_less_than string|array<string> = NULL, values_range array<string>|array<array<string>> = NULL, values_in array<string>|array<array<string>> = NULL)

    Args:
        table (string, required): db.tbl
        partition (string, required): New temp partition name (letters, digits, '_', '-').
        values_less_than (string|array<string>, default NULL): Upper bound: a value, an array (multi-column) or 'MAXVALUE'.
        values_range (array<string>|array<array<string>>, default NULL): array(lower, upper) meaning [lower, upper); arrays for multi-column.
        values_in (array<string>|array<array<string>>, default NULL): LIST values: array('a', 'b'), or array(array(1, 'x'), ...) for multi-column; NULL holds the rows whose column is NULL.

    Returns rows with: partition_name (string), range (string), is_temp (boolean), branch (string), partition_spec (string)
    """
    return _call(spark, "add_temp_partition", {
        "table": table,
        "partition": partition,
        "values_less_than": values_less_than,
        "values_range": values_range,
        "values_in": values_in,
    })


@_procedure
def auto_compact(
    spark: SparkSession,
    /,
    *,
    table: str | None = None,
) -> list[Row]:
    """One automatic compaction pass over one table or every Doris table, as each table's policy picks files.

    Rewrites small files, files with many deleted rows and the files of partitions with many delete files (table properties doris.compaction.*; doris.compaction.enabled = 'false' skips a table). Loads may commit meanwhile: their deletes are carried over. One row per table; ERROR rows for tables the pass could not compact (the others still get their pass).

    SQL: CALL doris.auto_compact(table string = NULL)

    Args:
        table (string, default NULL): db.tbl; NULL for every Doris table

    Returns rows with: table (string), chosen_files (bigint), rewritten_data_files (bigint), added_data_files (bigint), snapshot_id (bigint), error (string)
    """
    return _call(spark, "auto_compact", {"table": table})


@_procedure
def changes(
    spark: SparkSession,
    /,
    *,
    table: str,
    start_snapshot: int | None = None,
    end_snapshot: int | None = None,
    net: bool = False,
    temp_partition: str | None = None,
) -> DataFrame:
    """Every row change after start_snapshot up to and including end_snapshot: the table's columns plus the change columns.

    Read from the commits in between: a merge-on-write load's delete bitmaps say which rows it replaced, so only the files each commit touched are read. _change_type is insert, delete, update_preimage or update_postimage (a key a commit replaced, on UNIQUE and AGGREGATE KEY tables); overwrites, truncates and swapped, replaced or dropped partitions delete every old row and insert every new one; compaction changes nothing. start_snapshot NULL reads from the table's first snapshot; end_snapshot NULL is the current one. net => true gives one change per key over the range (its first pre-image and last post-image, nothing where they are equal). temp_partition reads a temporary partition's branch. Snapshots expired by doris.cleanup are refused. The Python function returns a DataFrame; CALL returns the rows (Spark 4).

    SQL: CALL doris.changes(table string, start_snapshot bigint = NULL, end_snapshot bigint = NULL, net boolean = false, temp_partition string = NULL)

    Args:
        table (string, required): db.tbl
        start_snapshot (bigint, default NULL): Changes after this snapshot (NULL: from the first).
        end_snapshot (bigint, default NULL): Changes up to and including this snapshot (NULL: current).
        net (boolean, default false): One change per key over the whole range.
        temp_partition (string, default NULL): Read this temporary partition's branch instead of main.

    Returns a DataFrame: the table's columns, then _change_type (string), _commit_snapshot_id (bigint), _commit_timestamp (timestamp)
    """
    return _frame(spark, "changes", {
        "table": table,
        "start_snapshot": start_snapshot,
        "end_snapshot": end_snapshot,
        "net": net,
        "temp_partition": temp_partition,
    })


@_procedure
def check(
    spark: SparkSession,
    /,
    *,
    table: str,
) -> list[Row]:
    """Reports keys with more than one live row, keys brought back past a tombstone, unchecked commits of other writers and lost tombstones; changes nothing.

    One row per check: repeated_keys (unique/aggregate keys with more than one live row, e.g. from a plain Spark INSERT or a pyiceberg append; the next doris.load repairs them by Doris's rule), unchecked_commits (commits not made by iceberg-doris since the last keyed load), revived_keys (on a sequence table, keys whose live row has a smaller sequence value than a deleted version of the key, e.g. a tombstone, so a deleted key is back; PENDING when the next keyed load marks those rows deleted, VIOLATION when no load will: delete the key again with a sequence value at least the deleted one's), dropped_tombstones (a sequence table's rewrites by other writers, e.g. Iceberg's rewrite_data_files, that dropped deleted rows). Status is OK, VIOLATION, PENDING (the next keyed load handles it) or NOT APPLICABLE.

    SQL: CALL doris.check(table string)

    Args:
        table (string, required): db.tbl

    Returns rows with: check (string), status (string), count (bigint), detail (string)
    """
    return _call(spark, "check", {"table": table})


@_procedure
def cleanup(
    spark: SparkSession,
    /,
    *,
    table: str,
    older_than: str | dt.datetime | dt.date | None = None,
    retain_last: int = 1,
) -> list[Row]:
    """Expires snapshots older than older_than (keeping retain_last) and deletes unreferenced files.

    older_than is a timestamp ('2024-05-01 00:00:00', a date, or an expression such as current_timestamp() - INTERVAL 7 DAYS); default 24 hours ago. Time travel to expired snapshots is no longer possible afterwards. Use a recent older_than only when no write is running. Snapshots the recycle bin still needs (partitions dropped, truncated or overwritten less than catalog_trash_expire_second ago) are kept whatever older_than says.

    SQL: CALL doris.cleanup(table string, older_than timestamp = NULL, retain_last bigint = 1)

    Args:
        table (string, required): db.tbl
        older_than (timestamp, default NULL): Timestamp or date; default: 24 hours ago.
        retain_last (bigint, default 1): Snapshots to keep whatever their age (at least 1).

    Returns rows with: expired_snapshots (bigint), deleted_data_files (bigint), deleted_delete_files (bigint), deleted_orphan_files (bigint)
    """
    return _call(spark, "cleanup", {"table": table, "older_than": older_than, "retain_last": retain_last})


@_procedure
def compact(
    spark: SparkSession,
    /,
    *,
    table: str,
    partitions: Sequence[str] | str | None = None,
) -> list[Row]:
    """Rewrites files with deleted rows into files of live rows, in one commit no reader notices.

    Drops deleted rows and their deletion vectors / position deletes; keeps tombstone files younger than the table property doris.tombstone-retention-hours (default 168) on tables with a sequence column (elsewhere fully deleted files are dropped at once). partitions limits it to some partitions. Loads may commit meanwhile: rows they delete in the files being rewritten are deleted in the new ones.

    SQL: CALL doris.compact(table string, partitions array<string> = NULL)

    Args:
        table (string, required): db.tbl
        partitions (array<string>, default NULL): Only these partitions (default: all).

    Returns rows with: rewritten_data_files (bigint), removed_delete_files (bigint), added_data_files (bigint), dropped_tombstone_files (bigint), kept_tombstone_files (bigint), snapshot_id (bigint)
    """
    return _call(spark, "compact", {"table": table, "partitions": partitions})


@_procedure
def create_table(
    spark: SparkSession,
    /,
    *,
    ddl: str,
) -> list[Row]:
    """Creates an Iceberg table from a Doris CREATE TABLE statement (models, partitions, properties).

    Accepts DUPLICATE/UNIQUE/AGGREGATE KEY models, RANGE/LIST/AUTO partitions, DISTRIBUTED BY, and PROPERTIES (dynamic_partition.*, function_column.sequence_col/type, enable_unique_key_merge_on_write, ...). Nothing is accepted and ignored: each clause, column attribute and property is implemented as Doris has it, kept as a storage setting with no effect on rows (replication_num, storage_medium, ...), or refused by name (TEMPORARY, unknown properties); docs/doris-features.md lists them. partition.retention_count keeps the newest N history partitions of an AUTO RANGE table (doris.run_dynamic_partition drops the others). The table name is db.tbl (or the current namespace); table and database names follow Doris's rule (a letter, then letters, digits, '-' or '_'; at most 64 characters). IF NOT EXISTS returns status EXISTS for an existing table.

    SQL: CALL doris.create_table(ddl string)

    Args:
        ddl (string, required): A Doris CREATE TABLE statement.

    Returns rows with: table (string), keys_model (string), partition_spec (string), partitions (bigint), status (string)
    """
    return _call(spark, "create_table", {"ddl": ddl})


@_procedure
def delete(
    spark: SparkSession,
    /,
    *,
    table: str,
    where: str,
    partitions: Sequence[str] | str | None = None,
    label: str | None = None,
) -> list[Row]:
    """Deletes the rows matching a condition (Doris DELETE FROM), on any table model, in one commit.

    Rows are marked in deletion vectors (v3) or position-delete files (v2); no data file is rewritten and time travel still reads them. On unique tables the matching keys are deleted as a merge_type => 'DELETE' load would: with a sequence column each leaves a tombstone, so a late row with a smaller sequence value cannot bring the key back. On aggregate tables the condition may name key columns only (as Doris). partitions narrows the delete to formal partitions.

    SQL: CALL doris.delete(table string, where string, partitions array<string> = NULL, label string = NULL)

    Args:
        table (string, required): db.tbl
        where (string, required): Spark SQL condition on the table's columns, e.g. "k = 1".
        partitions (array<string>, default NULL): Only rows of these formal partitions (default: all).
        label (string, default NULL): Exactly-once label (default: generated).

    Returns rows with: label (string), snapshot_id (bigint), deleted_rows (bigint), elapsed_ms (bigint)
    """
    return _call(spark, "delete", {"table": table, "where": where, "partitions": partitions, "label": label})


@_procedure
def describe(
    spark: SparkSession,
    /,
    *,
    table: str,
) -> list[Row]:
    """Shows a table's Doris model: keys, sequence column, partitioning, buckets, columns, properties.

    Rows of section 'table' describe the model, 'column' rows each column (type, KEY, aggregate, AS (expr), NULL, AUTO_INCREMENT(start), DEFAULT, ON UPDATE, as Doris's SHOW CREATE TABLE writes them), 'property' rows the Doris PROPERTIES. A table created outside iceberg-doris is a DUPLICATE KEY table without keys.

    SQL: CALL doris.describe(table string)

    Args:
        table (string, required): db.tbl

    Returns rows with: section (string), name (string), value (string)
    """
    return _call(spark, "describe", {"table": table})


@_procedure
def drop_partition(
    spark: SparkSession,
    /,
    *,
    table: str,
    partition: str,
    temporary: bool = False,
    if_exists: bool = False,
    force: bool = False,
) -> list[Row]:
    """Drops a partition (or temp partition) and its rows in one commit; time travel still sees them.

    Refused on tables with dynamic_partition.enable=true (as Doris). An unknown name is an error unless if_exists => true. Dropping a formal partition removes its data files without rewriting any file and puts it into the recycle bin (recover_partition brings it back) unless force => true (Doris: DROP PARTITION ... FORCE).

    SQL: CALL doris.drop_partition(table string, partition string, temporary boolean = false, if_exists boolean = false, force boolean = false)

    Args:
        table (string, required): db.tbl
        partition (string, required): Partition name.
        temporary (boolean, default false): Drop a temporary partition.
        if_exists (boolean, default false): No error when the partition does not exist.
        force (boolean, default false): Skip the recycle bin: the partition cannot be recovered.

    Returns rows with: partition_name (string), is_temp (boolean), dropped (boolean), snapshot_id (bigint), deleted_rows (bigint)
    """
    return _call(spark, "drop_partition", {
        "table": table,
        "partition": partition,
        "temporary": temporary,
        "if_exists": if_exists,
        "force": force,
    })


@_procedure
def drop_temp_partition(
    spark: SparkSession,
    /,
    *,
    table: str,
    partition: str,
    if_exists: bool = False,
) -> list[Row]:
    """Drops a temporary partition (its branch) in one commit; formal partitions are untouched.

    Same as drop_partition with temporary => true. An unknown name is an error unless if_exists => true. As in Doris, a dropped temp partition cannot be recovered with recover_partition.

    SQL: CALL doris.drop_temp_partition(table string, partition string, if_exists boolean = false)

    Args:
        table (string, required): db.tbl
        partition (string, required): Temp partition name.
        if_exists (boolean, default false): No error when the temp partition does not exist.

    Returns rows with: partition_name (string), is_temp (boolean), dropped (boolean), snapshot_id (bigint), deleted_rows (bigint)
    """
    return _call(spark, "drop_temp_partition", {"table": table, "partition": partition, "if_exists": if_exists})


@_procedure
def enable_feature(
    spark: SparkSession,
    /,
    *,
    table: str,
    feature: str,
    properties: Mapping[str, str | int | float | Decimal] | None = None,
) -> list[Row]:
    """Doris ALTER TABLE ... ENABLE FEATURE: adds a hidden sequence column to a UNIQUE KEY table with rows.

    SEQUENCE_LOAD with map('function_column.sequence_type', '<integer or date type>') adds __DORIS_SEQUENCE_COL__ in one commit: the rows already there hold NULL, which every later version of their key beats; from then on every load supplies the sequence value. BATCH_DELETE is refused as Doris refuses it on a table that has the delete sign (every UNIQUE KEY table here has it); UPDATE_FLEXIBLE_COLUMNS sets enable_unique_key_skip_bitmap_column in one commit (merge-on-write UNIQUE KEY tables), which flexible partial updates need. Messages are Doris's.

    SQL: CALL doris.enable_feature(table string, feature string, properties map<string,string> = NULL)

    Args:
        table (string, required): db.tbl
        feature (string, required): SEQUENCE_LOAD, BATCH_DELETE or UPDATE_FLEXIBLE_COLUMNS
        properties (map<string,string>, default NULL): map('function_column.sequence_type', 'bigint') for SEQUENCE_LOAD

    Returns rows with: feature (string), hidden_column (string), column_type (string)
    """
    return _call(spark, "enable_feature", {"table": table, "feature": feature, "properties": properties})


@_procedure
def help(
    spark: SparkSession,
    /,
    *,
    procedure: str | None = None,
) -> list[Row]:
    """Lists every doris.* procedure, or describes one in full with its parameters.

    Without arguments: one row per procedure with its signature and a one-line summary.
    With procedure => '<name>': a first row describing the procedure and what it returns, then one row per parameter (type, required, default, description).

    SQL: CALL doris.help(procedure string = NULL)

    Args:
        procedure (string, default NULL): Name of one procedure to describe in full.

    Returns rows with: procedure (string), signature (string), parameter (string), type (string), required (boolean), default (string), description (string)
    """
    return _call(spark, "help", {"procedure": procedure})


@_procedure
def insert_overwrite(
    spark: SparkSession,
    /,
    *,
    table: str,
    query: str | DataFrame,
    partitions: Sequence[str] | str | None = None,
    auto_create: bool = False,
    label: str | None = None,
) -> list[Row]:
    """Doris INSERT OVERWRITE: replaces the table, named partitions or array('*') touched ones, in one snapshot.

    partitions => NULL overwrites the whole table (partitions that get no rows become empty, not dropped); array('p1', 'p2') only those (every row must fall in them); array('*') the partitions the rows touch (zero rows change nothing). Any filtered row fails the statement: 'Insert has filtered data in strict mode'. auto_create => true lets auto-partition tables create partitions (Doris's enable_auto_create_when_overwrite).

    SQL: CALL doris.insert_overwrite(table string, query string, partitions array<string> = NULL, auto_create boolean = false, label string = NULL)

    Args:
        table (string, required): db.tbl
        query (string, required): A SELECT producing the new rows (table column order); Python: also a DataFrame.
        partitions (array<string>, default NULL): NULL: whole table; names; or array('*').
        auto_create (boolean, default false): Auto-partition tables may create partitions.
        label (string, default NULL): Exactly-once label: letters, digits, '-', '_', ':' (default: generated).

    Returns rows with: label (string), status (string), snapshot_id (bigint), loaded_rows (bigint), filtered_rows (bigint), unselected_rows (bigint), deleted_rows (bigint), elapsed_ms (bigint), error_rows_path (string), repaired_keys (bigint)
    """
    return _call(spark, "insert_overwrite", {
        "table": table,
        "query": query,
        "partitions": partitions,
        "auto_create": auto_create,
        "label": label,
    })


@_procedure
def load(
    spark: SparkSession,
    /,
    *,
    table: str,
    source: str | DataFrame | None = None,
    query: str | None = None,
    path: Sequence[str] | str | None = None,
    format: str | None = None,
    format_options: Mapping[str, str | int | float | Decimal] | None = None,
    merge_type: str = "APPEND",
    delete_on: str | None = None,
    sequence_col: str | None = None,
    columns: str | None = None,
    where: str | None = None,
    partitions: Sequence[str] | str | None = None,
    temporary_partitions: Sequence[str] | str | None = None,
    partial_columns: bool = False,
    unique_key_update_mode: str | None = None,
    overwrite: bool = False,
    label: str | None = None,
    max_filter_ratio: float = 0.0,
    strict_mode: bool = False,
    progress: bool | None = None,
) -> list[Row]:
    """Loads rows from a table/view, a query or files into a table, as one commit (Doris stream/broker load).

    Give one of source, query or path (with format csv/json/parquet; CSV defaults to Doris's tab separator, see format_options). columns maps and computes columns (Doris syntax: 'k1, tmp, v = tmp * 2'); where filters after mapping (unselected rows). Rows that cannot be converted (strict_mode), violate NOT NULL or fit no partition are filtered; the load fails when filtered/(filtered+loaded) > max_filter_ratio. Rejected rows and reasons go to error_rows_path. A label can be used once per table. Auto-partition tables create missing partitions, named as Doris names them.

    SQL: CALL doris.load(table string, source string = NULL, query string = NULL, path array<string> = NULL, format string = NULL, format_options map<string,string> = NULL, merge_type string = 'APPEND', delete_on string = NULL, sequence_col string = NULL, columns string = NULL, where string = NULL, partitions array<string> = NULL, temporary_partitions array<string> = NULL, partial_columns boolean = false, unique_key_update_mode string = NULL, overwrite boolean = false, label string = NULL, max_filter_ratio double = 0.0, strict_mode boolean = false, progress boolean = NULL)

    Args:
        table (string, required): db.tbl
        source (string, default NULL): Table or view name (Python: also a DataFrame).
        query (string, default NULL): A SELECT statement.
        path (array<string>, default NULL): File path(s) or glob(s).
        format (string, default NULL): csv, json or parquet (default: from the file extension).
        format_options (map<string,string>, default NULL): e.g. map('column_separator', ',', 'header', 'true').
        merge_type (string, default 'APPEND'): APPEND, MERGE or DELETE (unique tables); NEGATIVE (aggregate tables, all values SUM) negates the values to undo an earlier load.
        delete_on (string, default NULL): MERGE: rows where this is true delete their key.
        sequence_col (string, default NULL): Source column that feeds a hidden sequence column.
        columns (string, default NULL): Column mapping, Doris syntax.
        where (string, default NULL): Filter on the mapped rows.
        partitions (array<string>, default NULL): Only these partitions; other rows are filtered.
        temporary_partitions (array<string>, default NULL): Load into these temp partitions.
        partial_columns (boolean, default false): Update only the named columns (MoW).
        unique_key_update_mode (string, default NULL): UPSERT, UPDATE_FIXED_COLUMNS (as partial_columns) or UPDATE_FLEXIBLE_COLUMNS (JSON lines: each row updates the columns it names; MoW tables with enable_unique_key_skip_bitmap_column).
        overwrite (boolean, default false): Replace the partitions the rows land in.
        label (string, default NULL): Exactly-once label: letters, digits, '-', '_', ':' (default: generated).
        max_filter_ratio (double, default 0.0): Tolerated share of filtered rows, 0 to 1.
        strict_mode (boolean, default false): Conversion failures filter the row.
        progress (boolean, default NULL): Show this load's phase lines on stderr (true) or not (false); default: the session's setting.

    Returns rows with: label (string), status (string), snapshot_id (bigint), loaded_rows (bigint), filtered_rows (bigint), unselected_rows (bigint), deleted_rows (bigint), elapsed_ms (bigint), error_rows_path (string), repaired_keys (bigint)
    """
    return _call(spark, "load", {
        "table": table,
        "source": source,
        "query": query,
        "path": path,
        "format": format,
        "format_options": format_options,
        "merge_type": merge_type,
        "delete_on": delete_on,
        "sequence_col": sequence_col,
        "columns": columns,
        "where": where,
        "partitions": partitions,
        "temporary_partitions": temporary_partitions,
        "partial_columns": partial_columns,
        "unique_key_update_mode": unique_key_update_mode,
        "overwrite": overwrite,
        "label": label,
        "max_filter_ratio": max_filter_ratio,
        "strict_mode": strict_mode,
        "progress": progress,
    })


@_procedure
def recover_partition(
    spark: SparkSession,
    /,
    *,
    table: str,
    partition: str,
    new_name: str | None = None,
    partition_id: int | None = None,
) -> list[Row]:
    """Brings a dropped, truncated or overwritten partition back from the recycle bin, in one commit.

    Doris RECOVER PARTITION: the most recent recycle-bin entry of that name (or the one partition_id names) comes back with the data files and deletion vectors it had, none rewritten. drop_partition and truncate (without force) and insert_overwrite put partitions into the recycle bin; entries expire after the table property catalog_trash_expire_second (default 86400). Refused if a partition of that name exists (drop it with force => true, or recover under new_name) or if its range or values now belong to another partition. Temp partitions and partitions replaced by swap/replace cannot be recovered.

    SQL: CALL doris.recover_partition(table string, partition string, new_name string = NULL, partition_id bigint = NULL)

    Args:
        table (string, required): db.tbl
        partition (string, required): Name of the recycled partition.
        new_name (string, default NULL): Recover it under this name (Doris: AS new_name).
        partition_id (bigint, default NULL): Doris's partition id: the snapshot id that recycled it (default: the newest entry).

    Returns rows with: partition_name (string), range (string), recovered_rows (bigint), dropped_in_snapshot (bigint), snapshot_id (bigint)
    """
    return _call(spark, "recover_partition", {
        "table": table,
        "partition": partition,
        "new_name": new_name,
        "partition_id": partition_id,
    })


@_procedure
def rename_partition(
    spark: SparkSession,
    /,
    *,
    table: str,
    partition: str,
    new_name: str,
) -> list[Row]:
    """Renames a formal partition in one metadata commit; no data file changes.

    Doris RENAME PARTITION. The new name must be unused by formal and temp partitions. Refused on unpartitioned tables; temp partitions cannot be renamed.

    SQL: CALL doris.rename_partition(table string, partition string, new_name string)

    Args:
        table (string, required): db.tbl
        partition (string, required): Current partition name.
        new_name (string, required): New name (letters, digits, '_', '-').

    Returns rows with: partition_name (string), new_name (string)
    """
    return _call(spark, "rename_partition", {"table": table, "partition": partition, "new_name": new_name})


@_procedure
def replace_partition(
    spark: SparkSession,
    /,
    *,
    table: str,
    partitions: Sequence[str] | str,
    temp_partitions: Sequence[str] | str,
    strict_range: bool = True,
    use_temp_partition_name: bool = False,
) -> list[Row]:
    """Doris REPLACE PARTITION WITH TEMPORARY PARTITION: one commit; replaced rows dropped, temps become formal.

    strict_range => true: the replaced ranges (or lists) must equal the temp ones exactly; false: the temp partitions must only not overlap the partitions that stay. use_temp_partition_name => false with lists of equal length renames the temp partitions to the formal names by position. Doris's messages.

    SQL: CALL doris.replace_partition(table string, partitions array<string>, temp_partitions array<string>, strict_range boolean = true, use_temp_partition_name boolean = false)

    Args:
        table (string, required): db.tbl
        partitions (array<string>, required): Formal partitions to replace.
        temp_partitions (array<string>, required): Temp partitions that replace them.
        strict_range (boolean, default true): Ranges (or lists) must match exactly.
        use_temp_partition_name (boolean, default false): Keep the temp names (else, for lists of equal length, take the formal names by position).

    Returns rows with: partition_name (string), from_temp_partition (string), row_count (bigint), data_files (bigint), delete_files (bigint), replaced_by_temp (string), snapshot_id (bigint)
    """
    return _call(spark, "replace_partition", {
        "table": table,
        "partitions": partitions,
        "temp_partitions": temp_partitions,
        "strict_range": strict_range,
        "use_temp_partition_name": use_temp_partition_name,
    })


@_procedure
def replace_table(
    spark: SparkSession,
    /,
    *,
    table: str,
    with_table: str,
    swap: bool = True,
) -> list[Row]:
    """Doris REPLACE WITH TABLE: one catalog transaction swaps two tables' names, or replaces and drops.

    Doris ALTER TABLE table REPLACE WITH TABLE with_table. swap => true (Doris's default): the names trade tables. swap => false: table names with_table's table and the table it named leaves the catalog (its files stay; dropped_metadata_location registers it again). Both tables must exist in one database; models and schemas are not compared, as in Doris. Readers see both names before or both after; a commit to either table meanwhile is never lost (the swap reads again). Needs iceberg-doris's JDBC catalog.

    SQL: CALL doris.replace_table(table string, with_table string, swap boolean = true)

    Args:
        table (string, required): db.tbl: the name that takes with_table's table.
        with_table (string, required): tbl or db.tbl, in table's database.
        swap (boolean, default true): Doris's 'swap' property: false drops table's old table.

    Returns rows with: table (string), with_table (string), swap (boolean), table_metadata_location (string), with_table_metadata_location (string), dropped_metadata_location (string)
    """
    return _call(spark, "replace_table", {"table": table, "with_table": with_table, "swap": swap})


@_procedure
def run_dynamic_partition(
    spark: SparkSession,
    /,
    *,
    table: str | None = None,
) -> list[Row]:
    """One pass of the dynamic-partition scheduler over one table or every enabled table.

    Creates and drops dynamic partitions; on an AUTO RANGE table with partition.retention_count = N, drops the history partitions (upper bound at or before now) beyond the N newest into the recycle bin. Returns one row per partition created or dropped (action CREATE / DROP), and ERROR rows for tables the pass could not change (the other tables still get their pass).

    SQL: CALL doris.run_dynamic_partition(table string = NULL)

    Args:
        table (string, default NULL): db.tbl; NULL for every table with dynamic_partition.enable or partition.retention_count

    Returns rows with: table (string), action (string), partition_name (string), range (string), message (string)
    """
    return _call(spark, "run_dynamic_partition", {"table": table})


@_procedure
def set_properties(
    spark: SparkSession,
    /,
    *,
    table: str,
    properties: Mapping[str, str | int | float | Decimal],
) -> list[Row]:
    """Doris ALTER TABLE ... SET (...): changes table properties such as dynamic_partition.*.

    dynamic_partition.* keys are validated together with the table's current ones, with Doris's messages; turning dynamic partitions on creates the partitions due now in the same commit (expired partitions are dropped only by doris.run_dynamic_partition, which reports them). partition.retention_count is Doris's too: AUTO RANGE tables only, never with dynamic_partition.*, a count > 0; doris.run_dynamic_partition drops the history partitions beyond it. Properties fixed at creation (enable_unique_key_merge_on_write, function_column.*) are refused. Storage settings (e.g. replication_num) are kept with no effect on rows; refused and unknown properties are refused by name, as at create_table (docs/doris-features.md).

    SQL: CALL doris.set_properties(table string, properties map<string,string>)

    Args:
        table (string, required): db.tbl
        properties (map<string,string>, required): map('key', 'value', ...)

    Returns rows with: property (string), old_value (string), new_value (string)
    """
    return _call(spark, "set_properties", {"table": table, "properties": properties})


@_procedure
def show_partitions(
    spark: SparkSession,
    /,
    *,
    table: str,
    temporary: bool = False,
) -> list[Row]:
    """One row per partition (or temp partition) with its range and row/file counts and sizes.

    Counts come from Iceberg metadata (manifests and snapshot summaries); no data file is read. row_count is records minus deleted records. An unpartitioned table shows one partition named after the table. Rows that fit no Doris partition (written by another engine) show as '(rows outside every partition)'.

    SQL: CALL doris.show_partitions(table string, temporary boolean = false)

    Args:
        table (string, required): db.tbl
        temporary (boolean, default false): Show temporary partitions instead.

    Returns rows with: partition_name (string), partition_key (string), range (string), row_count (bigint), data_files (bigint), delete_files (bigint), data_size (bigint), visible_snapshot_id (bigint), visible_time (timestamp), is_temp (boolean), branch (string)
    """
    return _call(spark, "show_partitions", {"table": table, "temporary": temporary})


@_procedure
def swap_temp_partition(
    spark: SparkSession,
    /,
    *,
    table: str,
    partitions: Sequence[str] | str,
    temp_partitions: Sequence[str] | str,
    strict_range: bool = True,
    use_temp_partition_name: bool = False,
) -> list[Row]:
    """Swaps temp partitions into the table in one commit; the replaced rows become temp partitions.

    Doris's REPLACE PARTITION rules (strict_range, use_temp_partition_name, RANGE and LIST, many-to-many, Doris's messages), but the replaced formal rows are kept as temp partitions (names trade places when the temp partitions take the formal names) so they can be checked, then dropped. Time travel to the snapshot before the swap reads the old rows too.

    SQL: CALL doris.swap_temp_partition(table string, partitions array<string>, temp_partitions array<string>, strict_range boolean = true, use_temp_partition_name boolean = false)

    Args:
        table (string, required): db.tbl
        partitions (array<string>, required): Formal partitions to replace.
        temp_partitions (array<string>, required): Temp partitions that replace them.
        strict_range (boolean, default true): Ranges (or lists) must match exactly.
        use_temp_partition_name (boolean, default false): Keep the temp names (else, for lists of equal length, take the formal names by position).

    Returns rows with: partition_name (string), from_temp_partition (string), row_count (bigint), data_files (bigint), delete_files (bigint), replaced_by_temp (string), snapshot_id (bigint)
    """
    return _call(spark, "swap_temp_partition", {
        "table": table,
        "partitions": partitions,
        "temp_partitions": temp_partitions,
        "strict_range": strict_range,
        "use_temp_partition_name": use_temp_partition_name,
    })


@_procedure
def truncate(
    spark: SparkSession,
    /,
    *,
    table: str,
    partitions: Sequence[str] | str | None = None,
    temporary: bool = False,
    force: bool = False,
) -> list[Row]:
    """Empties the table or some partitions in one metadata-only commit; the partitions stay.

    Doris TRUNCATE TABLE. partitions => NULL empties the whole table and drops all its temporary partitions (as Doris; they cannot be recovered); named formal partitions leave temp partitions alone. An unpartitioned table's one partition is named after the table. temporary => true (Doris TEMPORARY PARTITION) is refused: temp partitions cannot be truncated. Time travel reads the rows until cleanup. The emptied formal partitions' old contents go into the recycle bin (recover_partition, after dropping the emptied partition with force => true) unless force => true (Doris: TRUNCATE ... FORCE).

    SQL: CALL doris.truncate(table string, partitions array<string> = NULL, temporary boolean = false, force boolean = false)

    Args:
        table (string, required): db.tbl
        partitions (array<string>, default NULL): Formal partitions to empty (default: the whole table).
        temporary (boolean, default false): Doris's TEMPORARY PARTITION: refused.
        force (boolean, default false): Skip the recycle bin: the old rows cannot be recovered.

    Returns rows with: partitions (string), dropped_temp_partitions (string), deleted_rows (bigint), snapshot_id (bigint)
    """
    return _call(spark, "truncate", {"table": table, "partitions": partitions, "temporary": temporary, "force": force})


def __getattr__(name: str) -> Callable[..., list[Row]]:
    """Procedures registered after this file was written (plugins, tests) are found too."""
    from iceberg_doris.errors import UnknownProcedureError

    try:
        procedure = _procedures.get_procedure(name)
    except UnknownProcedureError:
        raise AttributeError(f"module {__name__!r} has no procedure {name!r}") from None
    entry = globals()[name] = _entry_point(procedure)
    return entry


def __dir__() -> list[str]:
    return sorted(set(globals()) | {p.name for p in _procedures.all_procedures()})
