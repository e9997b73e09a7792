"""Strict-mode partial updates filter the rows whose key the table does not hold.

Doris (suite ``unique_with_mow_p0/partial_update/test_partial_update_strict_mode``): a partial-column
stream load with ``strict_mode: true`` loads the rows of existing keys and counts every row with a
new key as a filtered row; the load fails only when the filtered rows exceed ``max_filter_ratio``
(``too many filtered rows``). Here such rows become error rows before the rows are counted, so the
counts, the error rows and the ratio check are those of any other filtered row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.loading import REASON_COLUMN, STATUS_COLUMN
from iceberg_doris.operations.tables import DorisTable

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

NEW_KEY_REASON = (
    "the row's key is not in the table: a partial update in strict mode only updates existing rows "
    "(load without strict_mode to insert new keys with defaults)"
)
_KNOWN = "__doris_known_key"


def filter_new_keys(handle: DorisTable, prepared: "DataFrame", branches: Sequence[str] = ()) -> "DataFrame":
    """``prepared`` (the load's rows with their status) with each accepted row whose key the table
    does not hold turned into an error row with :data:`NEW_KEY_REASON`. Keys compare NULL-safely
    (Doris key columns may be nullable).

    The keys held are main's, or with ``branches`` those of the temp partitions' branches the load
    writes to: in Doris a temp partition has tablets of its own, so a partial update into it finds
    only the keys loaded into that temp partition."""
    from functools import reduce

    from pyspark.sql import functions as F

    keys = list(handle.model.key_columns)
    stored_names = [f"{_KNOWN}_{i}" for i in range(len(keys))]
    spark = prepared.sparkSession
    sources = [spark.read.option("branch", branch).table(handle.name.sql) for branch in branches] or [spark.table(handle.name.sql)]
    stored = (
        reduce(lambda left, right: left.unionByName(right), [
            source.select(*[F.col(quote_identifier(k)).alias(n) for k, n in zip(keys, stored_names)]) for source in sources
        ])
        .distinct()
        .withColumn(_KNOWN, F.lit(True))
    )
    condition = None
    for key, name in zip(keys, stored_names):
        term = F.col(quote_identifier(key)).eqNullSafe(F.col(name))
        condition = term if condition is None else condition & term
    joined = prepared.join(stored, on=condition, how="left")
    new_key = (F.col(STATUS_COLUMN) == "ok") & F.col(_KNOWN).isNull()
    columns = []
    for name in prepared.columns:
        if name == STATUS_COLUMN:
            columns.append(F.when(new_key, F.lit("error")).otherwise(F.col(STATUS_COLUMN)).alias(STATUS_COLUMN))
        elif name == REASON_COLUMN:
            columns.append(F.when(new_key, F.lit(NEW_KEY_REASON)).otherwise(F.col(REASON_COLUMN)).alias(REASON_COLUMN))
        else:
            columns.append(F.col(quote_identifier(name)))
    return joined.select(*columns)
