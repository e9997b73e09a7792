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

Nothing here writes or commits; :mod:`iceberg_doris.operations.check_keys` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from iceberg_doris.ddl import KeysModel
from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.merge_on_write.plan import FILE, POSITION, model_aggregates
from iceberg_doris.table_model import DorisTableModel

if TYPE_CHECKING:
    from pyroaring import BitMap64
    from pyspark.sql import Column, DataFrame

FILE_ORDER = "__doris_file_order"
KEY_ROWS = "__doris_key_rows"
RANK = "__doris_rank"


def rows_of_keys_in(table_frame: "DataFrame", model: DorisTableModel, files: list[str]) -> "DataFrame":
    """The live rows (every column, with ``_file`` and ``_pos``) of the keys that have more than one
    live row and at least one in ``files``."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    keys = [quote_identifier(k) for k in model.key_columns]
    # Metadata columns resolve only on the table relation itself: select them before joining.
    base = table_frame.select(*[quote_identifier(c.name) for c in model.columns], FILE, POSITION)
    touched = base.filter(F.col(FILE).isin(files)).select(*keys).distinct()
    candidates = base.join(touched, list(model.key_columns), "left_semi")
    counted = candidates.withColumn(KEY_ROWS, F.count(F.lit(1)).over(Window.partitionBy(*keys)))
    return counted.filter(F.col(KEY_ROWS) > 1).drop(KEY_ROWS)


def repeated_keys(table_frame: "DataFrame", model: DorisTableModel) -> "DataFrame":
    """Every key with more than one live row, and how many (``rows``): what ``doris.check`` reports."""
    from pyspark.sql import functions as F

    keys = [quote_identifier(k) for k in model.key_columns]
    return table_frame.groupBy(*keys).agg(F.count(F.lit(1)).alias("rows")).filter(F.col("rows") > 1)


@dataclass(frozen=True)
class Repair:
    """What repairing the repeated keys changes."""

    deletes: dict[str, "BitMap64"]  # data file location -> positions of live rows to mark deleted
    merged_rows: "DataFrame | None"  # aggregate keys: one new row per key, in table column order
    keys: int  # keys repaired
    deleted_rows: int


def plan_repair(rows: "DataFrame", model: DorisTableModel, file_order: "Column") -> Repair:
    """The repair of ``rows`` (:func:`rows_of_keys_in`, cached by the caller); ``file_order``: the
    data sequence number of a row's file, by ``_file``."""
    from pyroaring import BitMap64
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    keys = [quote_identifier(k) for k in model.key_columns]
    ordered = rows.withColumn(FILE_ORDER, file_order)
    newest = F.struct(F.col(FILE_ORDER), F.col(POSITION), F.col(FILE))
    if model.keys_model is KeysModel.AGGREGATE:
        removed = ordered
        merged = ordered.groupBy(*keys).agg(*model_aggregates(model, newest))
        merged = merged.select(*[F.col(quote_identifier(c.name)).cast(c.spark_type).alias(c.name) for c in model.columns])
    else:
        order = [F.col(FILE_ORDER).desc(), F.col(POSITION).desc(), F.col(FILE).desc()]
        if model.sequence_column:
            order.insert(0, F.col(quote_identifier(model.sequence_column)).desc_nulls_last())
        ranked = ordered.withColumn(RANK, F.row_number().over(Window.partitionBy(*keys).orderBy(*order)))
        removed = ranked.filter(F.col(RANK) > 1)
        merged = None
    per_file = removed.groupBy(FILE).agg(F.collect_list(POSITION).alias("positions")).collect()
    deletes = {row[0]: BitMap64(row[1]) for row in per_file}
    key_count = removed.select(*keys).distinct().count() if deletes else 0
    return Repair(deletes, merged, key_count, sum(len(p) for p in deletes.values()))

