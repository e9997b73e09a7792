"""The Doris model as Iceberg table properties: every engine sees it, every change is one commit.

Keys (all under ``doris.``): the keys model, key columns, a JSON list of Doris column types and
aggregates, merge-on-write, the sequence column/type, the partitions (JSON, formal and temporary),
the auto-partition rule, the distribution, and each Doris ``PROPERTIES`` entry as
``doris.property.<key>``. A table without ``doris.keys-model`` is a duplicate-key table.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from iceberg_doris.ddl import KeysModel
from iceberg_doris.errors import TableStateError
from iceberg_doris.partitioning import from_json, to_json
from iceberg_doris.table_model.model import AutoPartition, ColumnModel, Distribution, DorisTableModel

PREFIX = "doris."
MODEL_VERSION = "doris.model-version"
MODEL_VERSION_CURRENT = "1"
KEYS_MODEL = "doris.keys-model"
KEYS_MODEL_DEFAULT = KeysModel.DUPLICATE.value
KEY_COLUMNS = "doris.key-columns"
COLUMNS = "doris.columns"
MERGE_ON_WRITE = "doris.merge-on-write"
MERGE_ON_WRITE_DEFAULT = "false"
SEQUENCE_COL = "doris.sequence-col"
SEQUENCE_TYPE = "doris.sequence-type"
PARTITIONS = "doris.partitions"
AUTO_PARTITION = "doris.auto-partition"
DISTRIBUTION = "doris.distribution"
UNPARTITIONED_TEMP = "doris.temp-partitions"
# name -> Iceberg field id of each model column when the model was last written (see column_renames).
COLUMN_IDS = "doris.column-ids"
DORIS_PROPERTY_PREFIX = "doris.property."
# doris.stream.<stream> -> the stream's last committed micro-batch (table_model.stream_marks).
STREAM_PREFIX = "doris.stream."


def model_to_properties(model: DorisTableModel) -> dict[str, str]:
    """The ``doris.*`` Iceberg properties that describe ``model`` (complete: stale keys must go)."""
    props = {
        MODEL_VERSION: MODEL_VERSION_CURRENT,
        KEYS_MODEL: model.keys_model.value,
        KEY_COLUMNS: ",".join(model.key_columns),
        COLUMNS: json.dumps([_column_json(c) for c in model.columns], separators=(",", ":")),
        MERGE_ON_WRITE: "true" if model.merge_on_write else "false",
    }
    if model.sequence_col:
        props[SEQUENCE_COL] = model.sequence_col
    if model.sequence_type:
        props[SEQUENCE_TYPE] = model.sequence_type
    if model.partitions is not None:
        props[PARTITIONS] = to_json(model.partitions)
    if model.auto_partition is not None:
        props[AUTO_PARTITION] = json.dumps(
            {"kind": model.auto_partition.kind, "unit": model.auto_partition.unit}, separators=(",", ":")
        )
    if model.distribution is not None:
        d = model.distribution
        props[DISTRIBUTION] = json.dumps(
            {"kind": d.kind, "columns": list(d.columns), "buckets": d.buckets}, separators=(",", ":")
        )
    if model.unpartitioned_temp:
        props[UNPARTITIONED_TEMP] = json.dumps(list(model.unpartitioned_temp), separators=(",", ":"))
    for key, value in model.properties.items():
        props[DORIS_PROPERTY_PREFIX + key] = value
    return props


def model_from_properties(properties: Mapping[str, str], schema_columns: list[ColumnModel]) -> DorisTableModel:
    """Reads the model back. ``schema_columns`` describe the Iceberg schema as it is now (so a
    column added by another engine still shows, with its Iceberg-derived type)."""
    keys_model = KeysModel(properties.get(KEYS_MODEL, KEYS_MODEL_DEFAULT))
    key_columns = tuple(c for c in properties.get(KEY_COLUMNS, "").split(",") if c)
    stored = {c["name"].lower(): c for c in json.loads(properties.get(COLUMNS, "[]"))}
    columns = []
    for column in schema_columns:
        saved = stored.get(column.name.lower())
        if saved is None:
            columns.append(column)
            continue
        columns.append(
            ColumnModel(
                name=column.name,
                doris_type=saved["type"],
                spark_type=column.spark_type,
                nullable=column.nullable,
                is_key=column.name in key_columns,
                aggregation=saved.get("agg"),
                default=saved.get("default"),
                comment=column.comment,
                on_update=bool(saved.get("on_update", False)),
                generated=saved.get("generated"),
                generated_refs=tuple(saved.get("generated_refs", ())),
                auto_increment_start=saved.get("auto_increment"),
            )
        )
    try:
        partitions = from_json(properties[PARTITIONS]) if PARTITIONS in properties else None
    except Exception as error:  # noqa: BLE001 - a damaged property must say where it is
        raise TableStateError(f"The table property {PARTITIONS} cannot be read ({error}); it was changed by hand?") from None
    auto = None
    if AUTO_PARTITION in properties:
        raw = json.loads(properties[AUTO_PARTITION])
        auto = AutoPartition(raw["kind"], raw.get("unit"))
    distribution = None
    if DISTRIBUTION in properties:
        raw = json.loads(properties[DISTRIBUTION])
        distribution = Distribution(raw["kind"], tuple(raw.get("columns", ())), raw.get("buckets"))
    doris_properties = {
        key[len(DORIS_PROPERTY_PREFIX):]: value for key, value in properties.items() if key.startswith(DORIS_PROPERTY_PREFIX)
    }
    return DorisTableModel(
        keys_model=keys_model,
        key_columns=key_columns,
        columns=tuple(columns),
        merge_on_write=properties.get(MERGE_ON_WRITE, MERGE_ON_WRITE_DEFAULT) == "true",
        sequence_col=properties.get(SEQUENCE_COL),
        sequence_type=properties.get(SEQUENCE_TYPE),
        partitions=partitions,
        auto_partition=auto,
        distribution=distribution,
        properties=doris_properties,
        unpartitioned_temp=tuple(json.loads(properties.get(UNPARTITIONED_TEMP, "[]"))),
    )


# Every key model_to_properties writes (besides doris.property.*): the only ones a new model removes.
MODEL_KEYS = frozenset({
    MODEL_VERSION, KEYS_MODEL, KEY_COLUMNS, COLUMNS, MERGE_ON_WRITE, SEQUENCE_COL, SEQUENCE_TYPE, PARTITIONS,
    AUTO_PARTITION, DISTRIBUTION, UNPARTITIONED_TEMP, COLUMN_IDS,
})


def stale_keys(current: Mapping[str, str], wanted: Mapping[str, str]) -> list[str]:
    """The model's keys present on the table that the new model no longer has. Other ``doris.*``
    keys are not the model's and stay: settings users set (``doris.compaction.*``,
    ``doris.tombstone-retention-hours``) and the streams' marks (``doris.stream.*``)."""
    return [k for k in current if (k in MODEL_KEYS or k.startswith(DORIS_PROPERTY_PREFIX)) and k not in wanted]


def _column_json(column: ColumnModel) -> dict[str, object]:
    data: dict[str, object] = {"name": column.name, "type": column.doris_type}
    if column.aggregation:
        data["agg"] = column.aggregation
    if column.default is not None:
        data["default"] = column.default
    if column.on_update:
        data["on_update"] = True
    if column.generated is not None:
        data["generated"] = column.generated
        data["generated_refs"] = list(column.generated_refs)
    if column.auto_increment_start is not None:
        data["auto_increment"] = column.auto_increment_start
    return data
