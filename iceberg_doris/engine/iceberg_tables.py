"""Creating, reading and evolving the Iceberg side of a Doris table through Iceberg's Java API."""

from __future__ import annotations

import datetime as dt
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal
from typing import Any

from py4j.protocol import Py4JJavaError

from iceberg_doris.ddl import KeysModel
from iceberg_doris.ddl.format_version import format_version
from iceberg_doris.ddl.sql_text import quote_identifier, string_literal
from iceberg_doris.engine.bloom_filters import key_bloom_filter_properties
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, java_class
from iceberg_doris.engine.table_names import TableName
from iceberg_doris.partitioning import PartitionColumnType
from iceberg_doris.spark_session.spark_lines import running_line
from iceberg_doris.table_model import (
    ColumnModel,
    DorisTableModel,
    LayoutField,
    data_path_properties,
    model_from_properties,
    model_to_properties,
)
from iceberg_doris.table_model.column_renames import column_ids_json, follow_renames, needs_history, renamed_columns
from iceberg_doris.table_model.partition_predicates import All, Compare, Constant, InValues, IsNull, Predicate
from iceberg_doris.table_model.table_properties import COLUMN_IDS, stale_keys

log = logging.getLogger(__name__)
FORMAT_VERSION = "3"
ICEBERG_DEFAULTS = {
    "format-version": FORMAT_VERSION,
    "write.delete.mode": "merge-on-read",
    "write.update.mode": "merge-on-read",
    "write.merge.mode": "merge-on-read",
}

SPARK_TO_DORIS = {
    "BOOLEAN": "BOOLEAN",
    "TINYINT": "TINYINT",
    "SMALLINT": "SMALLINT",
    "INT": "INT",
    "BIGINT": "BIGINT",
    "FLOAT": "FLOAT",
    "DOUBLE": "DOUBLE",
    "DATE": "DATE",
    "TIMESTAMP_NTZ": "DATETIME(6)",  # Iceberg keeps microseconds: a plain table's timestamps are not rounded
    "TIMESTAMP": "DATETIME(6)",
    "STRING": "STRING",
    "BINARY": "STRING",
}


# The property Iceberg's Spark catalog shows as the table's comment (DESCRIBE TABLE EXTENDED).
TABLE_COMMENT = "comment"


def create_table(
    iceberg: IcebergJava, name: TableName, model: DorisTableModel, layout: list[LayoutField],
    comment: str | None = None,
) -> JavaObject | None:
    """Creates the Iceberg table for ``model`` in one catalog commit; None if a table of that name
    exists (created meanwhile by another writer). ``comment`` is the Doris table comment."""
    try:
        return _create_table(iceberg, name, model, layout, comment)
    except Py4JJavaError as error:
        if java_class(error) == "org.apache.iceberg.exceptions.AlreadyExistsException":
            return None
        raise


def _create_table(
    iceberg: IcebergJava, name: TableName, model: DorisTableModel, layout: list[LayoutField], comment: str | None
) -> JavaObject:
    schema = _schema(iceberg, model)
    spec = _partition_spec(iceberg, schema, layout)
    order = iceberg.sort_order.builderFor(schema)
    for key in model.key_columns:
        order = order.asc(key)
    properties = dict(ICEBERG_DEFAULTS) | data_path_properties(model, layout) | model_to_properties(model)
    # Key lookups of merge-on-write loads skip row groups without the key.
    properties |= key_bloom_filter_properties(model)
    properties["format-version"] = format_version(model.properties)
    if comment:
        properties[TABLE_COMMENT] = comment
    return (
        iceberg.catalog()
        .buildTable(iceberg.identifier(name), schema)
        .withPartitionSpec(spec)
        .withSortOrder(order.build())
        .withProperties(iceberg.java_map(properties))
        .create()
    )


def tables_with_property(iceberg: IcebergJava, key: str, value: str) -> list[str]:
    """Every table of the catalog whose property ``key`` is ``value`` (case-insensitive), as names
    that parse back to the same parts; tables that fail to load are skipped (logged)."""
    return tables_with_any_property(iceberg, {key: value})


def tables_with_any_property(iceberg: IcebergJava, wanted: Mapping[str, str | None]) -> list[str]:
    """Every table of the catalog with at least one property of ``wanted`` at its value
    (case-insensitive; None: any value), named as :func:`tables_with_property` names them."""
    catalog = iceberg.catalog()
    found = []
    for namespace in catalog.listNamespaces():
        for identifier in catalog.listTables(namespace):
            levels = list(identifier.namespace().levels())
            name = TableName(str(levels[0]), str(identifier.name())).qualified if len(levels) == 1 else str(identifier)
            try:
                properties = catalog.loadTable(identifier).properties()
            except Exception:  # noqa: BLE001 - one broken table must not hide the others
                log.warning("cannot load %s to read its properties", name)
                continue
            if any(_property_matches(properties.get(key), value) for key, value in wanted.items()):
                found.append(name)
    return found


def _property_matches(found: Any, wanted: str | None) -> bool:
    if found is None:
        return False
    return wanted is None or str(found).lower() == wanted.lower()


def snapshot_with_summary(iceberg: IcebergJava, table: JavaObject, key: str, value: str) -> int | None:
    """The id of a snapshot of ``table`` whose summary has ``key`` = ``value`` (a load's label), or None."""
    found = int(iceberg.helpers.SnapshotHistory.findBySummary(table, key, value))
    return None if found == -1 else found


def committed_at_millis(iceberg: IcebergJava, table: JavaObject, sequence_number: int) -> int | None:
    """When the snapshot with data sequence number ``sequence_number`` was committed (epoch ms),
    None if the table no longer knows it."""
    committed = int(iceberg.helpers.SnapshotHistory.committedAtMillis(table, int(sequence_number)))
    return committed if committed >= 0 else None


def format_version_of(table: JavaObject) -> int:
    return int(table.operations().current().formatVersion())


def table_location(table: JavaObject) -> str:
    return str(table.location())


def current_snapshot_id(table: JavaObject) -> int | None:
    snapshot = table.currentSnapshot()
    return int(snapshot.snapshotId()) if snapshot is not None else None


def read_model(iceberg: IcebergJava, table: JavaObject) -> DorisTableModel:
    """The Doris model of a loaded table (a duplicate-key model for tables made elsewhere).

    Remembered by the table's metadata file: a metadata file never changes, so neither does the
    model it holds (a load reads it twice)."""
    location = _metadata_location(table)
    with _MODELS_LOCK:
        cached = _MODELS.get(location) if location is not None else None
        if cached is not None:
            _MODELS.move_to_end(location)
            return cached
    # One JSON text from the JVM (TableFacts): walking properties and columns through py4j took ~300 round trips.
    facts = json.loads(str(iceberg.helpers.TableFacts.json(table, True)))
    properties = {str(k): str(v) for k, v in facts["properties"].items()}
    current = {c["name"]: int(c["id"]) for c in facts["columns"] if c["id"] is not None}
    # Columns renamed by other engines are followed through their field ids (see column_renames).
    history = facts["schemas"] if needs_history(properties) else ()
    properties = follow_renames(properties, renamed_columns(properties, current, history))
    model = model_from_properties(properties, [_column_model(c) for c in facts["columns"]])
    if location is not None:
        with _MODELS_LOCK:
            _MODELS[location] = model
            while len(_MODELS) > _MODELS_KEPT:
                _MODELS.popitem(last=False)
    return model


_MODELS: OrderedDict[str, DorisTableModel] = OrderedDict()
_MODELS_LOCK = threading.Lock()
_MODELS_KEPT = 256


def field_ids(schema: JavaObject) -> dict[str, int]:
    """Top-level column name -> Iceberg field id."""
    return {str(column.name()): int(column.fieldId()) for column in schema.columns()}


def _metadata_location(table: JavaObject) -> str | None:
    try:
        location = table.operations().current().metadataFileLocation()
    except Exception:  # noqa: BLE001 - a table without operations (a serialized copy): not cached
        return None
    return str(location) if location is not None else None


def _column_model(column: dict[str, Any]) -> ColumnModel:
    """A column as :class:`TableFacts` describes it."""
    spark_type = str(column["sql"])
    return ColumnModel(
        name=str(column["name"]), doris_type=doris_type_of(spark_type), spark_type=spark_type,
        nullable=bool(column["nullable"]), comment=column["comment"],
    )


def doris_type_of(spark_type: str) -> str:
    if spark_type.startswith("DECIMAL"):
        return spark_type
    return SPARK_TO_DORIS.get(spark_type, spark_type)


def stage_model(transaction: JavaObject, current: dict[str, str], model: DorisTableModel) -> None:
    """Stages the model's properties on a transaction (stale ``doris.*`` keys removed)."""
    wanted = model_to_properties(model)
    ids = {name.lower(): field_id for name, field_id in field_ids(transaction.table().schema()).items()}
    wanted[COLUMN_IDS] = column_ids_json({c.name: ids[c.name.lower()] for c in model.columns if c.name.lower() in ids})
    update = transaction.updateProperties()
    for key, value in wanted.items():
        if current.get(key) != value:
            update.set(key, value)
    for key in stale_keys(current, wanted):
        update.remove(key)
    update.commit()


def stage_new_column(iceberg: IcebergJava, transaction: JavaObject, column: ColumnModel) -> None:
    """Stages adding ``column`` as the schema's last column, optional whatever ``column`` says:
    the files already written lack it, so their rows read it as NULL."""
    struct = iceberg.jvm.org.apache.spark.sql.types.StructType.fromDDL(_column_ddl(replace(column, nullable=True)))
    iceberg_type = iceberg.spark_schema_util.convert(struct).findField(column.name).type()
    transaction.updateSchema().addColumn(column.name, iceberg_type, column.comment).commit()


def stage_properties(transaction: JavaObject, values: Mapping[str, str]) -> None:
    """Stages setting these table properties on a transaction (only these: the others are left as
    the metadata the transaction commits on holds them)."""
    update = transaction.updateProperties()
    for key, value in values.items():
        update.set(key, value)
    update.commit()


def current_layout(table: JavaObject) -> list[str]:
    """The current spec's fields as LayoutField.text strings (e.g. ``month(dt)``)."""
    texts = []
    for field in table.spec().fields():
        transform = str(field.transform().toString())
        source = str(table.schema().findColumnName(field.sourceId()))
        if transform == "identity":
            texts.append(source)
        elif transform.startswith(("bucket[", "truncate[")):
            kind, width = transform.rstrip("]").split("[")
            texts.append(f"{kind}({width}, {source})")
        else:
            texts.append(f"{transform}({source})")
    return texts


def stage_layout(iceberg: IcebergJava, table: JavaObject, transaction: JavaObject, layout: list[LayoutField]) -> bool:
    """Evolves the partition spec to ``layout`` on the transaction; False when already there.

    Field order does not matter to Iceberg (it keeps re-added fields where they were), so only the
    fields that differ are removed or added."""
    current = dict(zip(current_layout(table), (str(f.name()) for f in table.spec().fields())))
    wanted = {f.text: f for f in layout}
    if set(current) == set(wanted):
        return False
    update = transaction.updateSpec()
    for text, field_name in current.items():
        if text not in wanted:
            update.removeField(field_name)
    for text, field in wanted.items():
        if text in current:
            continue
        if field.transform == "identity":
            update.addField(field.column)
        else:
            update.addField(_term(iceberg, field))
    update.commit()
    return True


def iceberg_expression(iceberg: IcebergJava, predicate: Predicate) -> JavaObject:
    """An Iceberg Java expression for a partition predicate."""
    e = iceberg.expressions
    if isinstance(predicate, Constant):
        return e.alwaysTrue() if predicate.value else e.alwaysFalse()
    if isinstance(predicate, IsNull):
        return e.isNull(predicate.column)
    if isinstance(predicate, InValues):
        return _in_values(iceberg, predicate)
    if isinstance(predicate, Compare):
        value = java_value(iceberg, predicate.value, predicate.column_type)
        method = {"=": "equal", "<": "lessThan", "<=": "lessThanOrEqual", ">": "greaterThan", ">=": "greaterThanOrEqual"}
        return getattr(e, method[predicate.op])(predicate.column, value)
    combine = getattr(e, "and" if isinstance(predicate, All) else "or")
    parts = [iceberg_expression(iceberg, p) for p in predicate.parts]
    result = parts[0]
    for part in parts[1:]:
        result = combine(result, part)
    return result


_INTEGER_TYPES = frozenset(
    {PartitionColumnType.TINYINT, PartitionColumnType.SMALLINT, PartitionColumnType.INT, PartitionColumnType.BIGINT}
)
_TEXT_TYPES = frozenset({
    PartitionColumnType.DATE, PartitionColumnType.DATEV2, PartitionColumnType.DATETIME,
    PartitionColumnType.DATETIMEV2, PartitionColumnType.CHAR, PartitionColumnType.VARCHAR, PartitionColumnType.STRING,
})
_SEPARATOR = "\x00"


def _in_values(iceberg: IcebergJava, predicate: InValues) -> JavaObject:
    """``column IN (...)`` in one py4j call (thousands of keys one call each took seconds)."""
    kind = _value_kind(predicate)
    if kind is None:
        values = iceberg.jvm.java.util.ArrayList()
        for value in predicate.values:
            values.add(java_value(iceberg, value, predicate.column_type))
        return getattr(iceberg.expressions, "in")(predicate.column, values)
    text = _SEPARATOR.join(_value_text(v) for v in predicate.values)
    return getattr(iceberg.helpers.KeyValues, "in")(predicate.column, kind, text, _SEPARATOR)


def _value_kind(predicate: InValues) -> str | None:
    """How KeyValues parses the values, or None when they must go one by one."""
    column_type = predicate.column_type
    if column_type is PartitionColumnType.LARGEINT:
        return "decimal"
    if column_type in _INTEGER_TYPES and all(isinstance(v, int) and not isinstance(v, bool) for v in predicate.values):
        return "long"
    if column_type in _TEXT_TYPES and all(
        isinstance(v, (str, dt.date)) and _SEPARATOR not in _value_text(v) for v in predicate.values
    ):
        return "string"
    return None


def _value_text(value: Any) -> str:
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None).isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


def java_value(iceberg: IcebergJava, value: Any, column_type: PartitionColumnType) -> Any:
    """A value Iceberg's literals convert to the column's type."""
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None).isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if column_type is PartitionColumnType.LARGEINT or isinstance(value, Decimal):
        return iceberg.jvm.java.math.BigDecimal(str(value))
    if isinstance(value, int) and not isinstance(value, bool) and column_type is PartitionColumnType.BIGINT:
        return iceberg.jvm.java.lang.Long.valueOf(str(value))
    return value


def _schema(iceberg: IcebergJava, model: DorisTableModel) -> JavaObject:
    ddl = ", ".join(_column_ddl(c) for c in model.columns)
    struct = iceberg.jvm.org.apache.spark.sql.types.StructType.fromDDL(ddl)
    schema = iceberg.spark_schema_util.convert(struct)
    if model.keys_model is KeysModel.DUPLICATE or not model.key_columns or model.null_safe_keys:
        # Identifier fields must be required: a table with a key declared NULL has none, and its
        # key lives only in the Doris model (table properties), where every operation reads it.
        return schema
    ids = iceberg.java_set([schema.findField(k).fieldId() for k in model.key_columns])
    return iceberg.schema_class(schema.columns(), ids)


def _column_ddl(column: ColumnModel) -> str:
    text = f"{quote_identifier(column.name)} {column.spark_type}"
    if not column.nullable:
        text += " NOT NULL"
    if column.comment:
        text += " COMMENT " + string_literal(column.comment)
    return text


def _partition_spec(iceberg: IcebergJava, schema: JavaObject, layout: list[LayoutField]) -> JavaObject:
    builder = iceberg.partition_spec.builderFor(schema)
    for field in layout:
        if field.transform in ("truncate", "bucket"):
            builder = getattr(builder, field.transform)(field.column, field.width)
        else:
            builder = getattr(builder, field.transform)(field.column)
    return builder.build()


def _term(iceberg: IcebergJava, field: LayoutField) -> JavaObject:
    e = iceberg.expressions
    if field.transform in ("truncate", "bucket"):
        return getattr(e, field.transform)(field.column, field.width)
    return getattr(e, field.transform)(field.column)


def table_properties(table: JavaObject) -> dict[str, str]:
    """Every Iceberg table property, copied."""
    return dict(table.properties())


def table_property(table: JavaObject, key: str) -> str | None:
    """One Iceberg table property, without copying them all."""
    value = table.properties().get(key)
    return str(value) if value is not None else None


def read_at_snapshot(spark: Any, name: TableName, table: JavaObject, snapshot_id: int) -> Any:
    """The table's rows as of one snapshot, under the table's current schema, as a DataFrame.

    On Spark 3.5 that is Iceberg's ``snapshot-id`` read option. Spark 4's Iceberg refuses it for
    ``VERSION AS OF``, which reads with the schema the snapshot was written under: a column
    renamed or added since (a rename commits no snapshot) would be missing by its current name.
    There columns are matched by field id, as Iceberg matches them, and added ones read as NULL.

    Iceberg (1.12 on Spark 4.1 at least) binds a filter pushed into such a scan against the
    current schema while the scan reads the snapshot's, so a filter on a renamed column fails the
    query. The renamed projection is therefore nondeterministic in form (a ``rand`` that never
    changes a value), which Spark does not push a filter through. A lookup after a renamed key
    column still fails on Spark 4 with the key index off: some filter reaches the scan another way
    (README, "Known gaps on Spark 4")."""
    from pyspark.sql import functions as F

    if running_line().snapshot_id_read_option:
        return spark.read.option("snapshot-id", int(snapshot_id)).table(name.sql)
    frame = spark.sql(f"SELECT * FROM {name.sql} VERSION AS OF {int(snapshot_id)}")
    snapshot = table.snapshot(int(snapshot_id))
    if snapshot is None:  # committed after this table object was loaded (a retry after a conflict)
        table = spark.sparkContext._jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, name.sql)
        snapshot = table.snapshot(int(snapshot_id))
    current = table.schema()
    snapshot_schema_id = snapshot.schemaId()
    if snapshot_schema_id is None or int(snapshot_schema_id) == int(current.schemaId()):
        return frame
    old = table.schemas().get(snapshot_schema_id)
    old_names = {int(field.fieldId()): str(field.name()) for field in old.columns()}
    always = F.rand(0) >= 0  # true for every row, and nondeterministic: a barrier to pushdown
    columns = []
    for field in current.columns():
        new_name = str(field.name())
        old_name = old_names.get(int(field.fieldId()))
        if old_name is None:  # added since the snapshot: no file of it holds the column
            spark_type = str(spark.sparkContext._jvm.org.apache.iceberg.spark.SparkSchemaUtil.convert(field.type()).sql())
            columns.append(F.lit(None).cast(spark_type).alias(new_name))
        else:
            column = F.col(quote_identifier(old_name))
            columns.append(F.when(always, column).otherwise(column).alias(new_name))
    return frame.select(*columns)
