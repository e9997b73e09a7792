"""Reading the JSON lines of a flexible partial update (Doris's ``UPDATE_FLEXIBLE_COLUMNS``): each
row's values and the columns it names.

A column a JSON object leaves out keeps its stored value, where an explicit ``null`` sets NULL, so
the two must stay apart: Spark's JSON reader makes both NULL. Each line is therefore parsed once
into a map of its keys (values as their JSON text, as ``num_as_string`` reads them); the table's
columns are taken from the map, and the keys the line holds become :data:`NAMED_COLUMN` (lower
case, as Doris matches column names). Keys that are not table columns are ignored, as Doris's JSON
reader ignores them. A line that is not a JSON object is an error row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from iceberg_doris.ddl.sql_text import quote_identifier, string_literal
from iceberg_doris.engine.spark_runtime import select_sql
from iceberg_doris.loading.source import MALFORMED_COLUMN

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["NAMED_COLUMN", "read_flexible_json"]

#: Source column of a flexible load: the (lower-case) keys each JSON line holds.
NAMED_COLUMN = "__doris_named_source"
_MAP = "__doris_fields"


def read_flexible_json(
    spark: "SparkSession", paths: Sequence[str], columns: Sequence[str], keys: Sequence[str]
) -> "DataFrame":
    """The lines of ``paths`` as rows: one string column per name of ``columns`` (NULL when the
    line leaves it out or holds ``null``), :data:`NAMED_COLUMN` and :data:`MALFORMED_COLUMN`.
    ``keys`` count as named on every row; a row without one of them is an error row, as Doris
    filters it, a key declared NULL included (unique_with_mow_p0/flexible/
    test_flexible_partial_update_filter_missing_key.groovy: ``k1 int NULL``)."""
    lines = spark.read.text(list(paths))
    parsed = select_sql(
        lines.where("trim(value) != ''"),
        ["value", f"from_json(value, 'map<string,string>') AS {_MAP}"],
    )
    fields = f"transform_keys({_MAP}, (k, v) -> lower(k))"
    keyed = select_sql(parsed, ["value", f"{fields} AS {_MAP}"])
    values = [f"{_MAP}[{string_literal(name.lower())}] AS {quote_identifier(name)}" for name in columns]
    missing = " ".join(
        f"WHEN NOT map_contains_key({_MAP}, {string_literal(key.lower())}) "
        f"THEN {string_literal(f'the row has no value for key column {key}: a flexible partial update names every key')}"
        for key in keys
    )
    reason = (
        f"CASE WHEN {_MAP} IS NULL THEN concat('malformed JSON record: ', substring(value, 1, 200)) {missing} END"
    )
    return select_sql(keyed, [*values, f"array_union(coalesce(map_keys({_MAP}), array()), array({', '.join(string_literal(k.lower()) for k in keys)})) AS {NAMED_COLUMN}", f"{reason} AS {MALFORMED_COLUMN}"])
