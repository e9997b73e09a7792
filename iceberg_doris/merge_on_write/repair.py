"""Keys with more than one live row, and Doris's rule for them, decided as Spark DataFrames.

A Doris key has one visible row. A writer that does not know the key (a plain Spark ``INSERT``,
a pyiceberg ``append``) can store a second live row for it; Doris would have merged the two at
load time, so the repair applies the rule Doris would have applied:

- **unique keys**: one row stays, the newest version: the largest sequence value on a sequence
  table (NULL lowest), then the row written last (the later commit: its file's data sequence
  number; within a file the later position). The others are marked deleted; nothing is written.
- **aggregate keys**: every live row of the key is one contribution, counted once: they are
  aggregated into one new row (SUM adds each row once, MAX/MIN, REPLACE and REPLACE_IF_NOT_NULL
  take the newest row's value, ordered as above and by ``replace_version_column`` first if the
  table has one) and all of them are marked deleted. A later load then merges into that one row,
  so nothing is counted twice, and the repaired row is never repaired again (it is the key's only
  live row).

On a sequence table a key can also come back with one live row: a writer that does not know the
key appends a row whose sequence value is smaller than that of a deleted version of the key (a
tombstone, or a replaced row). A keyed load would have discarded that row (the stored sequence
value is the maximum over every physical version, :mod:`iceberg_doris.merge_on_write.plan`), so
the repair marks it deleted (:func:`rows_older_than_deleted_versions`).

Nothing here writes or commits; :mod:`iceberg_doris.operations.repair_keys` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from iceberg_doris.ddl import KeysModel
from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.engine.key_joins import join_on_keys
from iceberg_doris.merge_on_write.plan import FILE, POSITION, model_aggregates
from iceberg_doris.table_model import DorisTableModel

if TYPE_CHECKING:
    from pyroaring import BitMap64
    from pyspark.sql import Column, DataFrame

FILE_ORDER = "__doris_file_order"
KEY_ROWS = "__doris_key_rows"
RANK = "__doris_rank"
DELETED = "_deleted"  # Iceberg's metadata column: in a scan's projection, deleted rows are kept and flagged
LIVE_SEQUENCE = "live_sequence"
DELETED_SEQUENCE = "deleted_sequence"


def rows_of_keys_in(table_frame: "DataFrame", model: DorisTableModel, files: list[str]) -> "DataFrame":
    """The live rows (every column, with ``_file`` and ``_pos``) of the keys that have more than one
    live row and at least one in ``files``."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    keys = [quote_identifier(k) for k in model.key_columns]
    # Metadata columns resolve only on the table relation itself: select them before joining.
    base = table_frame.select(*[quote_identifier(c.name) for c in model.columns], FILE, POSITION)
    touched = base.filter(F.col(FILE).isin(files)).select(*keys).distinct()
    candidates = join_on_keys(base, touched, model.key_columns, "left_semi", null_safe=model.null_safe_keys)
    counted = candidates.withColumn(KEY_ROWS, F.count(F.lit(1)).over(Window.partitionBy(*keys)))
    return counted.filter(F.col(KEY_ROWS) > 1).drop(KEY_ROWS)


def repeated_keys(table_frame: "DataFrame", model: DorisTableModel) -> "DataFrame":
    """Every key with more than one live row, and how many (``rows``): what ``doris.check`` reports."""
    from pyspark.sql import functions as F

    keys = [quote_identifier(k) for k in model.key_columns]
    return table_frame.groupBy(*keys).agg(F.count(F.lit(1)).alias("rows")).filter(F.col("rows") > 1)


def rows_older_than_deleted_versions(
    table_frame: "DataFrame", model: DorisTableModel, files: list[str] | None = None
) -> "DataFrame":
    """The live rows of a sequence table that lose to a deleted version of their key: the key
    columns, ``_file``, ``_pos``, the row's sequence value (``live_sequence``) and the largest one
    among the key's deleted versions (``deleted_sequence``). ``files``: only live rows in these
    data files (those a repair may change); ``None``: every live row.

    The comparison is the keyed load's (:func:`iceberg_doris.merge_on_write.plan.decide`): a row
    wins when no stored version has a sequence value or its own is at least the largest stored one
    (NULL below every value). A live row written after a deleted version with an equal value wins,
    so only a strictly smaller value (or NULL) loses. Live versions are left to
    :func:`repeated_keys`: ``table_frame`` read at one snapshot, with deleted rows still in it."""
    from pyspark.sql import functions as F

    column = model.sequence_column
    assert column is not None, "only a table with a sequence column orders versions by it"
    keys = [quote_identifier(k) for k in model.key_columns]
    # Naming _deleted in the projection makes Iceberg keep the rows its deletes mark (tombstones
    # and replaced rows) instead of dropping them; metadata columns resolve only on the table
    # relation, so they are selected before any join.
    versions = table_frame.select(*keys, F.col(quote_identifier(column)).alias(LIVE_SEQUENCE), FILE, POSITION, DELETED)
    deleted = (
        versions.filter(F.col(DELETED)).groupBy(*keys)
        .agg(F.max(LIVE_SEQUENCE).alias(DELETED_SEQUENCE))
        .filter(F.col(DELETED_SEQUENCE).isNotNull())  # a NULL deleted version beats nothing
    )
    live = versions.filter(~F.col(DELETED))
    if files is not None:
        live = live.filter(F.col(FILE).isin(files))
    joined = join_on_keys(live.drop(DELETED), deleted, model.key_columns, null_safe=model.null_safe_keys)
    return joined.filter(F.col(LIVE_SEQUENCE).isNull() | (F.col(LIVE_SEQUENCE) < F.col(DELETED_SEQUENCE)))


@dataclass(frozen=True)
class Repair:
    """What repairing the repeated (and, on sequence tables, the revived) keys changes."""

    deletes: dict[str, "BitMap64"]  # data file location -> positions of live rows to mark deleted
    merged_rows: "DataFrame | None"  # aggregate keys: one new row per key, in table column order
    keys: int  # keys repaired
    deleted_rows: int


def plan_repair(
    rows: "DataFrame", model: DorisTableModel, file_order: "Column | None", older: "DataFrame | None" = None
) -> Repair:
    """The repair of ``rows`` (:func:`rows_of_keys_in`, cached by the caller); ``file_order``: the
    data sequence number of a row's file, by ``_file`` (``None`` when ``rows`` is empty);
    ``older``: on a unique sequence table, live rows that lose to a deleted version of their key
    (:func:`rows_older_than_deleted_versions`), marked deleted too."""
    from pyroaring import BitMap64
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    keys = [quote_identifier(k) for k in model.key_columns]
    located = [*keys, FILE, POSITION]
    merged = None
    parts: list["DataFrame"] = []
    if model.keys_model is KeysModel.AGGREGATE:
        assert older is None, "an aggregate table has no sequence column"
        if file_order is not None:
            ordered = rows.withColumn(FILE_ORDER, file_order)
            newest = F.struct(F.col(FILE_ORDER), F.col(POSITION), F.col(FILE))
            parts.append(ordered.select(*located))
            merged = ordered.groupBy(*keys).agg(*model_aggregates(model, newest))
            merged = merged.select(*[F.col(quote_identifier(c.name)).cast(c.spark_type).alias(c.name) for c in model.columns])
    else:
        if file_order is not None:
            ordered = rows.withColumn(FILE_ORDER, file_order)
            order = [F.col(FILE_ORDER).desc(), F.col(POSITION).desc(), F.col(FILE).desc()]
            if model.sequence_column:
                order.insert(0, F.col(quote_identifier(model.sequence_column)).desc_nulls_last())
            ranked = ordered.withColumn(RANK, F.row_number().over(Window.partitionBy(*keys).orderBy(*order)))
            parts.append(ranked.filter(F.col(RANK) > 1).select(*located))
        if older is not None:
            # A row both outranked and older than a deleted version is marked once.
            parts.append(older.select(*located))
    if not parts:
        return Repair({}, None, 0, 0)
    removed = parts[0] if len(parts) == 1 else parts[0].unionByName(parts[1]).distinct()
    per_file = removed.groupBy(FILE).agg(F.collect_list(POSITION).alias("positions")).collect()
    deletes = {row[0]: BitMap64(row[1]) for row in per_file}
    key_count = removed.select(*keys).distinct().count() if deletes else 0
    return Repair(deletes, merged, key_count, sum(len(p) for p in deletes.values()))

