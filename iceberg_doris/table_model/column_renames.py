"""Following column renames made outside iceberg-doris (plain Spark ``ALTER TABLE ... RENAME
COLUMN``) through Iceberg field ids.

The Doris model names columns in several table properties (columns, keys, sequence column,
partition and distribution columns). Iceberg renames a column by keeping its field id and changing
its name in a new schema, without touching those properties. So the model is read through the ids:
each stored name is resolved to its field id (the ids the model last recorded in
``doris.column-ids``, else the oldest schema of the table that has the name, i.e. the schema the
model was written against), and that id to the column's name now. The next change iceberg-doris
commits writes the model back with the new names.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from iceberg_doris.table_model.table_properties import (
    COLUMN_IDS,
    COLUMNS,
    DISTRIBUTION,
    DORIS_PROPERTY_PREFIX,
    KEY_COLUMNS,
    PARTITIONS,
    SEQUENCE_COL,
)

# Doris PROPERTIES entries whose value is a column name.
_COLUMN_PROPERTIES = ("function_column.sequence_col",)


def stored_column_names(properties: Mapping[str, str]) -> list[str]:
    """The column names the model's properties were written with."""
    return [c["name"] for c in json.loads(properties.get(COLUMNS, "[]"))]


def stored_column_ids(properties: Mapping[str, str]) -> dict[str, int]:
    return {name.lower(): int(i) for name, i in json.loads(properties.get(COLUMN_IDS, "{}")).items()}


def column_ids_json(ids: Mapping[str, int]) -> str:
    return json.dumps(dict(ids), separators=(",", ":"))


def needs_history(properties: Mapping[str, str]) -> bool:
    """Whether some stored name has no recorded id and must be resolved in the table's schemas
    (a model not written since its table was created, or written before ids were recorded)."""
    ids = stored_column_ids(properties)
    return any(name.lower() not in ids for name in stored_column_names(properties))


def renamed_columns(
    properties: Mapping[str, str], current: Mapping[str, int], history: Sequence[Mapping[str, int]] = ()
) -> dict[str, str]:
    """Stored name (lower case) -> the column's name now, for every column renamed since the model
    was written. ``current``: name -> field id of the schema now; ``history``: the table's schemas,
    oldest first, each name -> field id. A column that is gone (dropped) is not in the result."""
    recorded = stored_column_ids(properties)
    by_id = {field_id: name for name, field_id in current.items()}
    lowered = {name.lower(): field_id for name, field_id in current.items()}
    renames: dict[str, str] = {}
    for name in stored_column_names(properties):
        key = name.lower()
        field_id = recorded.get(key)
        if field_id is None:
            # Oldest first: a column renamed and its old name given to a new column resolves to
            # the column the model was written with.
            field_id = next((s[n] for s in history for n in s if n.lower() == key), lowered.get(key))
        now = by_id.get(field_id) if field_id is not None else None
        if now is not None and now.lower() != key:
            renames[key] = now
    return renames


def follow_renames(properties: Mapping[str, str], renames: Mapping[str, str]) -> dict[str, str]:
    """``properties`` with every model column name in ``renames`` replaced by its new name."""
    result = dict(properties)
    if not renames:
        return result

    def new(name: str) -> str:
        return renames.get(name.lower(), name)

    if COLUMNS in result:
        columns = json.loads(result[COLUMNS])
        for column in columns:
            column["name"] = new(column["name"])
        result[COLUMNS] = json.dumps(columns, separators=(",", ":"))
    if KEY_COLUMNS in result:
        result[KEY_COLUMNS] = ",".join(new(c) for c in result[KEY_COLUMNS].split(",") if c)
    if SEQUENCE_COL in result:
        result[SEQUENCE_COL] = new(result[SEQUENCE_COL])
    for key in _COLUMN_PROPERTIES:
        if DORIS_PROPERTY_PREFIX + key in result:
            result[DORIS_PROPERTY_PREFIX + key] = new(result[DORIS_PROPERTY_PREFIX + key])
    if PARTITIONS in result:
        partitions = json.loads(result[PARTITIONS])
        partitions["cols"] = [[new(c[0]), *c[1:]] for c in partitions.get("cols", [])]
        result[PARTITIONS] = json.dumps(partitions, separators=(",", ":"))
    if DISTRIBUTION in result:
        distribution = json.loads(result[DISTRIBUTION])
        distribution["columns"] = [new(c) for c in distribution.get("columns", [])]
        result[DISTRIBUTION] = json.dumps(distribution, separators=(",", ":"))
    if COLUMN_IDS in result:
        result[COLUMN_IDS] = column_ids_json({new(n): i for n, i in json.loads(result[COLUMN_IDS]).items()})
    return result
