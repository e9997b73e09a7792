"""What a unique- or aggregate-key load changes, decided as Spark DataFrames (nothing written here).

Unique keys (Doris merge-on-write): within the batch each key keeps one version, the one with the
largest sequence value (NULL smallest; equal: the later row), or the last row without a sequence
column or in a partial-column INSERT statement. Against the table, that version wins unless the key's stored sequence value is larger; the
stored value is the maximum over every physical version, tombstones included. A winning upsert
replaces the live row (its position goes into a delete bitmap); a winning delete removes it and,
on sequence tables, leaves a tombstone: the delete row itself, written and marked deleted in the
same commit, so no reader ever sees it but a later, older row cannot bring the key back.

Aggregate keys: the batch is aggregated per key (SUM, MAX, MIN, REPLACE, REPLACE_IF_NOT_NULL; REPLACE
follows ``replace_version_column`` when the table has one) and merged into the live row, which is
replaced the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iceberg_doris.ddl import KeysModel
from iceberg_doris.ddl.sql_text import quote_identifier, string_literal
from iceberg_doris.engine.key_joins import join_on_keys
from iceberg_doris.engine.spark_runtime import select_sql
from iceberg_doris.table_model import DorisTableModel
from iceberg_doris.table_model.model import HIDDEN_SEQUENCE_COLUMN

if TYPE_CHECKING:
    from pyroaring import BitMap64
    from pyspark.sql import Column, DataFrame

DELETE = "__doris_delete"
SEQUENCE = "__doris_seq"
ORDER = "__doris_order"
FILE = "_file"
POSITION = "_pos"
LIVE = "__live_"
LIVE_ROWS = "__live_rows"  # every (file, position) of a key's live versions
FILE_ORDER = "__doris_file_order"  # a data file's data sequence number: the commit that wrote it
MAX_SEQUENCE = "__doris_max_seq"
WINS = "__doris_wins"
NAMED = "__doris_named"  # a flexible partial update: the (lower-case) columns each row names
RESET = "__doris_reset"  # a flexible partial update: the key was deleted earlier in the batch


@dataclass(frozen=True)
class KeyedLoadShape:
    """How a keyed load reads: which columns it supplies and where its sequence values come from."""

    model: DorisTableModel
    supplied: tuple[str, ...]  # table columns the load supplies (all of them unless partial)
    partial: bool
    strict: bool = False
    insert_statement: bool = False  # Doris's INSERT, not its stream load (see resolve_batch)
    flexible: bool = False  # each row updates the columns it names (NAMED), UPDATE_FLEXIBLE_COLUMNS

    @property
    def keys(self) -> tuple[str, ...]:
        return self.model.key_columns

    @property
    def sequence_column(self) -> str | None:
        return self.model.sequence_column

    @property
    def null_safe(self) -> bool:
        """Whether keys match with NULL equal to NULL (a key column declared NULL)."""
        return self.model.null_safe_keys

    @property
    def sequence_supplied(self) -> bool:
        column = self.sequence_column
        return column is not None and (column in self.supplied or column == HIDDEN_SEQUENCE_COLUMN)


def resolve_batch(accepted: "DataFrame", shape: KeyedLoadShape, carried: tuple[str, ...] = ()) -> "DataFrame":
    """One version per key: the batch's winner (unique) or its aggregate (aggregate). ``carried``:
    columns that depend on the key alone (e.g. the partition a row was routed to), kept as they are."""
    from pyspark.sql import functions as F

    if shape.flexible:
        if shape.sequence_column is not None:
            _refuse_repeated_keys(accepted, shape)
        return _merge_flexible_rows(accepted, shape)
    if shape.model.keys_model is KeysModel.AGGREGATE:
        keys = [F.col(quote_identifier(k)) for k in shape.keys]
        kept = [F.first(quote_identifier(c)).alias(c) for c in carried]
        return accepted.groupBy(*keys).agg(*_batch_aggregates(shape), *kept, F.max(ORDER).alias(ORDER), F.lit(False).alias(DELETE))
    # Doris's two paths differ on a key repeated in one partial-column batch. Its stream load keeps
    # the larger sequence value, as a whole-row batch does (unique_with_mow_p0/partial_update/
    # test_partial_update_seq_col: (3,1500,'2022-07-20') then (3,2500,'2022-07-18') leaves 1500);
    # its INSERT keeps the last row whatever its sequence value (nereids_p0/insert_into_table/
    # partial_update_seq_col and test_partial_update_insert_seq_col, same rows: 2500). Either
    # row then meets the stored row's sequence value as any row does.
    by_sequence = shape.sequence_column is not None and not (shape.partial and shape.insert_statement)
    order = f"{SEQUENCE} DESC NULLS LAST, {ORDER} DESC" if by_sequence else f"{ORDER} DESC"
    # SQL text (select_sql): a window built from Columns costs dozens of py4j round trips per load.
    rank = f"row_number() OVER (PARTITION BY {', '.join(quote_identifier(k) for k in shape.keys)} ORDER BY {order}) AS __doris_rank"
    return select_sql(accepted, ["*", rank]).filter("__doris_rank = 1").drop("__doris_rank")


def _merge_flexible_rows(accepted: "DataFrame", shape: KeyedLoadShape) -> "DataFrame":
    """A flexible partial update's rows of one key merged in load order, as Doris merges them
    (unique_with_mow_p0/flexible/test_flexible_partial_update.groovy, ..._delete_sign.groovy): each
    column takes the value of the last row that names it; a delete sign deletes the key, and the
    rows after it build a new row (RESET: the stored row is not read); the key is deleted when its
    last row is a delete."""
    keys = [quote_identifier(k) for k in shape.keys]
    by_key = f"PARTITION BY {', '.join(keys)}"
    last_delete = f"max(CASE WHEN {DELETE} THEN {ORDER} END) OVER ({by_key}) AS __doris_last_delete"
    marked = select_sql(accepted, ["*", last_delete])
    # Rows before the key's last delete do not count: the delete removed what they wrote.
    after = marked.filter(f"__doris_last_delete IS NULL OR {ORDER} >= __doris_last_delete")
    columns = {c.name.lower() for c in shape.model.columns}
    values = []
    for name in accepted.columns:
        if name in shape.keys or name in (ORDER, DELETE, NAMED, RESET):
            continue
        named = (
            f"(NOT {DELETE} AND array_contains({NAMED}, {string_literal(name.lower())}))"
            if name.lower() in columns else "false"
        )
        # The last row naming the column, else the last row (its value is the column's default).
        values.append(f"max_by({quote_identifier(name)}, struct({named}, {ORDER})) AS {quote_identifier(name)}")
    merged = [
        *values,
        f"max_by({DELETE}, {ORDER}) AS {DELETE}",
        f"max({ORDER}) AS {ORDER}",
        f"coalesce(array_distinct(flatten(collect_list(CASE WHEN NOT {DELETE} THEN {NAMED} END))), array()) AS {NAMED}",
        f"max(__doris_last_delete IS NOT NULL) AS {RESET}",
    ]
    grouped = after.groupBy(*[_sql_column(k) for k in keys]).agg(*[_sql_column(text) for text in merged])
    return grouped.select(*accepted.columns)


def _refuse_repeated_keys(accepted: "DataFrame", shape: KeyedLoadShape) -> None:
    """Doris merges the rows of one key of a flexible load into a sequence table row by row against
    the stored sequence value; iceberg-doris decides a key's rows only once, so it refuses them."""
    from iceberg_doris.errors import LoadError

    repeated = accepted.groupBy(*[_sql_column(quote_identifier(k)) for k in shape.keys]).count().where("count > 1").limit(1).collect()
    if repeated:
        key = ", ".join(f"{k}={v}" for k, v in zip(shape.keys, repeated[0]))
        raise LoadError(
            f"the flexible partial update gives key ({key}) more than one row, on a table with a sequence column: "
            "iceberg-doris does not merge such rows (Doris merges them in order against the stored sequence value); "
            "load one row per key, or load the rows in separate loads"
        )


def _sql_column(text: str) -> "Column":
    from pyspark.sql import functions as F

    return F.expr(text)


def live_rows(table_frame: "DataFrame", batch: "DataFrame", shape: KeyedLoadShape, *, broadcast_keys: bool = False) -> "DataFrame":
    """The table's live rows for the batch's keys, with their file and position, columns prefixed."""
    from pyspark.sql import functions as F

    keys = list(shape.keys)
    columns = live_columns_needed(shape)
    # Metadata columns resolve only on the table relation itself: select them before joining.
    base = table_frame.select(*[F.col(quote_identifier(k)).alias(k) for k in keys], *[F.col(quote_identifier(c)).alias(LIVE + c) for c in columns], FILE, POSITION)
    return join_on_keys(base, _keys_of(batch, keys, broadcast_keys), keys, "left_semi", null_safe=shape.null_safe)


def _keys_of(batch: "DataFrame", keys: list[str], broadcast: bool) -> "DataFrame":
    from pyspark.sql import functions as F

    frame = batch.select(*[quote_identifier(k) for k in keys])
    return F.broadcast(frame) if broadcast else frame


def live_columns_needed(shape: KeyedLoadShape) -> list[str]:
    """The stored values a load reads besides keys, file and position: a full-row upsert reads
    none (only the key columns are scanned); aggregate and partial loads merge with the stored
    row (but for ON UPDATE CURRENT_TIMESTAMP columns, which take the load's time); a delete's
    tombstone fills NOT NULL columns from it; an unsupplied sequence column keeps
    the stored value. An aggregate table's REPLACE column takes the batch's value whatever is
    stored (:func:`_merge_aggregate`), so it is not read, unless a ``replace_version_column``
    decides between the two."""
    model = shape.model
    versioned = bool(model.property("replace_version_column"))
    needed: set[str] = set()
    for column in model.columns:
        if column.is_key:
            continue
        if model.keys_model is KeysModel.AGGREGATE:
            if versioned or (column.aggregation or "REPLACE") != "REPLACE":
                needed.add(column.name)
        elif shape.partial and column.name not in shape.supplied and not column.on_update:
            needed.add(column.name)
        elif shape.sequence_column and not column.nullable:
            needed.add(column.name)
    if shape.sequence_column and not shape.sequence_supplied:
        needed.add(shape.sequence_column)
    return [c.name for c in model.columns if c.name in needed]


def stored_sequence(physical: "DataFrame", batch: "DataFrame", shape: KeyedLoadShape, *, broadcast_keys: bool = False) -> "DataFrame":
    """Per key of the batch, the largest sequence value over every physical version (deleted ones
    and tombstones included), read from the data files as they are on disk."""
    from pyspark.sql import functions as F

    keys = list(shape.keys)
    column = shape.sequence_column
    assert column is not None
    matching = join_on_keys(physical, _keys_of(batch, keys, broadcast_keys), keys, "left_semi", null_safe=shape.null_safe)
    return matching.groupBy(*keys).agg(F.max(F.col(quote_identifier(column))).alias(MAX_SEQUENCE))


def decide(
    batch: "DataFrame", live: "DataFrame", stored: "DataFrame | None", shape: KeyedLoadShape, *,
    live_unique: bool = False, broadcast_live: bool = False, file_order: "Column | None" = None,
) -> "DataFrame":
    """The batch joined with the live rows, with WINS telling whether each version applies.
    ``live_unique``: ``live`` holds at most one row per key (as the index can tell), so it is not
    grouped; ``broadcast_live``: few enough live rows to ship to every task, so the batch is
    joined where it is read instead of being shuffled to meet them; ``file_order``: the data
    sequence number of a live row's file, which orders a key's several live rows (:func:`one_per_key`)."""
    from pyspark.sql import functions as F

    keys = list(shape.keys)
    live_per_key = one_per_key(live, shape, already=live_unique, file_order=file_order)
    null_safe = shape.null_safe
    joined = join_on_keys(batch, F.broadcast(live_per_key) if broadcast_live else live_per_key, keys, "left", null_safe=null_safe)
    if stored is not None:
        # From the index, the stored sequence values are no more rows than the live ones.
        joined = join_on_keys(joined, F.broadcast(stored) if broadcast_live else stored, keys, "left", null_safe=null_safe)
    if shape.flexible and stored is not None and shape.sequence_column is not None:
        # A row that does not name the sequence column keeps the stored value, which it equals.
        named = F.array_contains(F.col(NAMED), shape.sequence_column.lower())
        wins = ~named | F.col(MAX_SEQUENCE).isNull() | (F.col(SEQUENCE).isNotNull() & (F.col(SEQUENCE) >= F.col(MAX_SEQUENCE)))
    elif shape.model.keys_model is KeysModel.AGGREGATE or stored is None or not shape.sequence_supplied:
        wins = F.lit(True)
    else:
        # NULL sorts below every value; an equal value wins because this load is the later one.
        wins = F.col(MAX_SEQUENCE).isNull() | (F.col(SEQUENCE).isNotNull() & (F.col(SEQUENCE) >= F.col(MAX_SEQUENCE)))
    return joined.withColumn(WINS, wins)


def one_per_key(
    live: "DataFrame", shape: KeyedLoadShape, *, already: bool = False, file_order: "Column | None" = None
) -> "DataFrame":
    """The live rows with one row per key: where each version sits (LIVE_ROWS, every (file,
    position); FILE one of them, non-NULL when the key exists) and the stored values.

    A table only iceberg-doris writes holds one live row per key; one that a plain INSERT also
    wrote may hold more. Then every one of them is replaced, and an aggregate load merges them all
    (their values aggregated first, SUM counting each once), as a compaction would have. Where one
    value is taken (a partial update's unsupplied columns, REPLACE columns), it is the newest live
    row's: the last written, by ``file_order`` (the data sequence number of a live row's file),
    then by position in its file (the file's location breaks a tie, or decides without an order).
    ``already``: ``live`` is known to hold one row per key; it is reshaped without a grouping
    (a shuffle), into the same columns and types the grouping gives."""
    from pyspark.sql import functions as F

    keys = list(shape.keys)
    located = F.struct(F.col(FILE).alias(FILE), F.col(POSITION).alias(POSITION))
    aggregate_model = shape.model.keys_model is KeysModel.AGGREGATE
    if already:
        values = []
        for field in live.schema.fields:
            if field.name.startswith(LIVE):
                kind = shape.model.column(field.name[len(LIVE):]).aggregation if aggregate_model else None
                # A SUM widens its type; the merge then computes as it does on the grouped rows.
                target = _sum_type(field.dataType) if kind == "SUM" else field.dataType
                values.append(F.col(quote_identifier(field.name)).cast(target).alias(field.name))
        return live.select(*[F.col(quote_identifier(k)) for k in keys], F.array(located).alias(LIVE_ROWS), F.col(FILE), *values)
    newest = located
    if file_order is not None:
        newest = F.struct(file_order.alias(FILE_ORDER), F.col(POSITION), F.col(FILE))
    aggregates = [F.collect_list(located).alias(LIVE_ROWS), F.min(FILE).alias(FILE)]
    for name in live.columns:
        if not name.startswith(LIVE):
            continue
        value = F.col(quote_identifier(name))
        kind = shape.model.column(name[len(LIVE):]).aggregation if aggregate_model else None
        if kind == "SUM":
            merged = F.sum(value)
        elif kind == "MAX":
            merged = F.max(value)
        elif kind == "MIN":
            merged = F.min(value)
        elif kind == "REPLACE_IF_NOT_NULL":
            merged = F.max_by(value, F.when(value.isNotNull(), newest))
        else:  # REPLACE, and unique tables: the newest version (they are equal unless a plain write diverged)
            merged = F.max_by(value, newest)
        aggregates.append(merged.alias(name))
    return live.groupBy(*[F.col(quote_identifier(k)) for k in keys]).agg(*aggregates)


def _sum_type(value_type: Any) -> Any:
    """The type Spark's SUM gives over ``value_type`` (``Sum.resultType``)."""
    from pyspark.sql import types as T

    if isinstance(value_type, T.DecimalType):
        return T.DecimalType(min(38, value_type.precision + 10), value_type.scale)
    if isinstance(value_type, (T.ByteType, T.ShortType, T.IntegerType, T.LongType)):
        return T.LongType()
    return T.DoubleType()


def new_rows(decided: "DataFrame", shape: KeyedLoadShape) -> "DataFrame":
    """The rows to write for winning upserts (merged with the live row for partial and aggregate loads)."""
    exists = f"{FILE} IS NOT NULL"
    values = []
    # SQL text (select_sql): Columns built in Python cost several py4j round trips each, which a
    # 1-row load of a 10-column table would pay hundreds of times.
    for column in shape.model.columns:
        name = column.name
        incoming, stored = quote_identifier(name), quote_identifier(LIVE + name)
        if column.is_key:
            value = incoming
        elif shape.model.keys_model is KeysModel.AGGREGATE:
            value = f"CASE WHEN {exists} THEN {_merge_aggregate(column.aggregation, stored, incoming, shape)} ELSE {incoming} END"
        elif shape.flexible and not column.on_update:
            # A column the row does not name keeps the stored value, unless the batch deleted the key first.
            given = f"array_contains({NAMED}, {string_literal(name.lower())})"
            own = SEQUENCE if name == HIDDEN_SEQUENCE_COLUMN else incoming
            value = f"CASE WHEN {exists} AND NOT {RESET} AND NOT {given} THEN {stored} ELSE {own} END"
        elif name == shape.sequence_column and not shape.sequence_supplied:
            value = f"CASE WHEN {exists} THEN {stored} ELSE {incoming} END"
        elif name == HIDDEN_SEQUENCE_COLUMN:
            value = SEQUENCE
        elif shape.partial and name not in shape.supplied and not column.on_update:
            # ON UPDATE CURRENT_TIMESTAMP columns take the batch's value, the load's time (their
            # default), on updated keys as on new ones.
            value = f"CASE WHEN {exists} THEN {stored} ELSE {incoming} END"
        else:
            value = incoming
        values.append(f"CAST({value} AS {column.spark_type}) AS {quote_identifier(name)}")
    return select_sql(decided.filter(f"{WINS} AND NOT {DELETE}"), values)


def tombstones(decided: "DataFrame", shape: KeyedLoadShape) -> "DataFrame":
    """Winning deletes on sequence tables: written, and deleted in the same commit."""
    values = []
    for column in shape.model.columns:
        value = SEQUENCE if column.name == HIDDEN_SEQUENCE_COLUMN else quote_identifier(column.name)
        if not column.nullable and not column.is_key:
            value = f"coalesce({value}, {quote_identifier(LIVE + column.name)})"
        values.append(f"CAST({value} AS {column.spark_type}) AS {quote_identifier(column.name)}")
    return select_sql(decided.filter(f"{WINS} AND {DELETE}"), values)


@dataclass(frozen=True)
class ReplacedPositions:
    """What the winning rows of a load mark deleted, per data file."""

    by_file: dict[str, "BitMap64"]
    deleted_rows: int  # live rows removed by winning deletes
    any_delete_wins: bool  # tombstones to write (sequence tables)


def replaced_positions(decided: "DataFrame") -> ReplacedPositions:
    """The positions of live rows that winning versions replace, gathered per file on the
    executors: one row per data file reaches the driver, not one per key."""
    from pyroaring import BitMap64
    from pyspark.sql import functions as F

    marked = decided.filter(F.col(WINS) & (F.col(FILE).isNotNull() | F.col(DELETE)))
    # One row per live version (a key without one keeps a row with no file: a delete of an absent key).
    versions = marked.select(F.explode_outer(LIVE_ROWS).alias("__version"), DELETE).select(
        F.col(f"__version.{FILE}").alias(FILE), F.col(f"__version.{POSITION}").alias(POSITION), DELETE,
    )
    per_file = versions.groupBy(FILE).agg(
        F.collect_list(POSITION).alias("positions"),  # rows without a live row have no position: skipped
        F.sum(F.when(F.col(DELETE) & F.col(FILE).isNotNull(), 1).otherwise(0)).alias("deleted"),
        F.max(F.col(DELETE).cast("int")).alias("any_delete"),
    ).collect()
    return ReplacedPositions(
        by_file={r[0]: BitMap64(r[1]) for r in per_file if r[0] is not None},
        deleted_rows=sum(int(r[2]) for r in per_file),
        any_delete_wins=any(r[3] for r in per_file),
    )


def overwrite_rows(accepted: "DataFrame", shape: KeyedLoadShape, carried: tuple[str, ...] = ()) -> "DataFrame":
    """What an overwrite of a unique or aggregate table writes: the batch resolved per key as a
    load resolves it (the winner by sequence value or batch order, or the aggregate), with no
    stored row to merge with, since the overwrite replaces them all; a key whose winner is a
    delete is left out. Same columns as ``accepted`` (the hidden sequence column filled)."""
    from pyspark.sql import functions as F

    resolved = resolve_batch(accepted, shape, carried).filter(~F.col(DELETE))
    if any(c.name == HIDDEN_SEQUENCE_COLUMN for c in shape.model.columns):
        resolved = resolved.withColumn(HIDDEN_SEQUENCE_COLUMN, F.col(SEQUENCE))
    return resolved


def without_live_rows(
    batch: "DataFrame", *, losing_keys: "DataFrame | None" = None, keys: tuple[str, ...] = (), null_safe: bool = False,
) -> "DataFrame":
    """The batch shaped as ``decide``'s output when no stored value matters (full rows, the
    winners already known): every version wins but those whose key is in ``losing_keys`` (the key
    columns ``keys``; a sequence table's versions older than a stored one), and none reads a live row."""
    from pyspark.sql import functions as F

    if losing_keys is None:
        return select_sql(batch, ["*", f"CAST(NULL AS STRING) AS {FILE}", f"true AS {WINS}"])
    shaped = select_sql(batch, ["*", f"CAST(NULL AS STRING) AS {FILE}"])
    lost = select_sql(losing_keys, [*[quote_identifier(k) for k in keys], "true AS __doris_lost"])
    joined = join_on_keys(shaped, F.broadcast(lost), keys, "left", null_safe=null_safe)
    return select_sql(joined, ["*", f"__doris_lost IS NULL AS {WINS}"]).drop("__doris_lost")


def new_keys(decided: "DataFrame") -> "DataFrame":
    """Winning upserts of keys the table does not hold yet."""
    from pyspark.sql import functions as F

    return decided.filter(F.col(WINS) & ~F.col(DELETE) & F.col(FILE).isNull())


def _batch_aggregates(shape: KeyedLoadShape) -> list["Column"]:
    from pyspark.sql import functions as F

    return model_aggregates(shape.model, F.col(ORDER))


def model_aggregates(model: DorisTableModel, newest: "Column") -> list["Column"]:
    """One aggregate per value column of an AGGREGATE KEY table, merging a key's rows by Doris's
    rules; ``newest`` orders the rows (larger is newer) for REPLACE and REPLACE_IF_NOT_NULL, after
    the ``replace_version_column`` if the table has one."""
    from pyspark.sql import functions as F

    version = model.property("replace_version_column")
    replace_order = F.struct(F.col(quote_identifier(version)), newest) if version else newest
    result = []
    for column in model.value_columns:
        value = F.col(quote_identifier(column.name))
        kind = column.aggregation or "REPLACE"
        if kind == "SUM":
            aggregate = F.sum(value)
        elif kind == "MAX":
            aggregate = F.max(value)
        elif kind == "MIN":
            aggregate = F.min(value)
        elif kind == "REPLACE_IF_NOT_NULL":
            aggregate = F.max_by(value, F.when(value.isNotNull(), newest))
        else:
            aggregate = F.max_by(value, replace_order)
        result.append(aggregate.alias(column.name))
    return result


def _merge_aggregate(kind: str | None, stored: str, incoming: str, shape: KeyedLoadShape) -> str:
    """SQL: a stored value merged with the batch's aggregate by the column's aggregation."""
    kind = kind or "REPLACE"
    if kind == "SUM":
        return f"CASE WHEN {stored} IS NULL THEN {incoming} WHEN {incoming} IS NULL THEN {stored} ELSE {stored} + {incoming} END"
    if kind == "MAX":
        return f"greatest({stored}, {incoming})"
    if kind == "MIN":
        return f"least({stored}, {incoming})"
    if kind == "REPLACE_IF_NOT_NULL":
        return f"coalesce({incoming}, {stored})"
    version = shape.model.property("replace_version_column")
    if version:
        stored_version = quote_identifier(LIVE + version)
        return f"CASE WHEN {stored_version} IS NULL OR {quote_identifier(version)} >= {stored_version} THEN {incoming} ELSE {stored} END"
    return incoming


def written_batch(written: "DataFrame", shape: KeyedLoadShape) -> "DataFrame":
    """A batch of new rows as a load wrote them (every table column; one row per key, no delete
    among them) with the columns a lookup reads besides: no row deletes, the stored sequence value
    is the row's, and the rows' order does not matter (no key repeats)."""
    sequence = quote_identifier(shape.sequence_column) if shape.sequence_column else "CAST(NULL AS INT)"
    return select_sql(written, ["*", f"false AS {DELETE}", f"{sequence} AS {SEQUENCE}", f"monotonically_increasing_id() AS {ORDER}"])
