"""``enable_feature``: Doris ``ALTER TABLE t ENABLE FEATURE "<name>" [WITH PROPERTIES (...)]``.

Doris adds a hidden column to an existing UNIQUE KEY table with it. ``SEQUENCE_LOAD`` is a Doris
sequence column added to an Iceberg table: ``__DORIS_SEQUENCE_COL__`` becomes the schema's last
column, optional, and the table's model gets ``function_column.sequence_type``, in one commit. The
rows already written hold NULL there, which every later version of their key beats (NULL is the
smallest sequence value), as in Doris.

``BATCH_DELETE`` is answered as Doris answers a table that has the delete sign: every UNIQUE KEY
table here takes ``__DORIS_DELETE_SIGN__`` from its first load. ``UPDATE_FLEXIBLE_COLUMNS`` sets
``enable_unique_key_skip_bitmap_column`` in one commit (Doris adds its skip-bitmap column; a
flexible load here reads the columns each row names from the JSON itself, so the property is all
the table needs).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, NoReturn

from iceberg_doris.ddl import KeysModel, sequence_type_from_text
from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.engine.iceberg_tables import stage_new_column
from iceberg_doris.errors import InvalidTableDefinitionError, ProcedureArgumentError, TableStateError
from iceberg_doris.operations.partition_changes import commit_model_change
from iceberg_doris.operations.requests import FeatureEnabled
from iceberg_doris.operations.tables import DorisTable, open_table
from iceberg_doris.table_model import DorisTableModel
from iceberg_doris.table_model.model import HIDDEN_SEQUENCE_COLUMN, SKIP_BITMAP_PROPERTY, hidden_sequence_column

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

BATCH_DELETE = "BATCH_DELETE"
SEQUENCE_LOAD = "SEQUENCE_LOAD"
UPDATE_FLEXIBLE_COLUMNS = "UPDATE_FLEXIBLE_COLUMNS"
FEATURES = (BATCH_DELETE, SEQUENCE_LOAD, UPDATE_FLEXIBLE_COLUMNS)
SEQUENCE_TYPE = "function_column.sequence_type"


def enable_feature(
    spark: "SparkSession", table: str, feature: str, properties: Mapping[str, str] | None = None
) -> FeatureEnabled:
    """Doris ENABLE FEATURE: adds the feature's hidden column and model in one commit, or refuses
    with Doris's message (the checks in Doris's order: the feature, its properties, the table)."""
    name = feature.strip().upper()
    if name not in FEATURES:
        raise ProcedureArgumentError(f"unknown feature name: {feature}")
    given = {key.strip().lower(): value for key, value in (properties or {}).items()}
    if name == SEQUENCE_LOAD and not given:
        raise ProcedureArgumentError("Properties is not set")
    if name != SEQUENCE_LOAD:
        _refuse_others(name, given, ())
    handle = open_table(spark, table)
    if name == BATCH_DELETE:
        _refuse_batch_delete(handle.model)
    if name == UPDATE_FLEXIBLE_COLUMNS:
        return _enable_flexible_columns(handle)
    model = handle.model
    if model.keys_model is not KeysModel.UNIQUE:
        raise TableStateError("Sequence load only supported in unique tables.")
    if SEQUENCE_TYPE not in given:
        raise ProcedureArgumentError("unknown sequence column type")
    _refuse_others(name, given, (SEQUENCE_TYPE,))
    try:
        sequence = sequence_type_from_text(given[SEQUENCE_TYPE].strip())
    except InvalidTableDefinitionError as error:
        raise ProcedureArgumentError(str(error)) from None
    _check_no_sequence(model)

    def change(fresh: DorisTable, transaction: JavaObject) -> tuple[DorisTableModel, FeatureEnabled]:
        _check_no_sequence(fresh.model)  # again, on the metadata this commit builds on
        column = hidden_sequence_column(sequence)
        stage_new_column(fresh.iceberg, transaction, column)
        return fresh.model.with_hidden_sequence(sequence), FeatureEnabled(SEQUENCE_LOAD, column.name, column.doris_type)

    return commit_model_change(handle, change, operation=f"enable {SEQUENCE_LOAD} on").result


def _refuse_others(feature: str, given: Mapping[str, str], taken: tuple[str, ...]) -> None:
    """Doris ignores the properties a feature does not read; nothing is accepted and ignored here."""
    others = sorted(key for key in given if key not in taken)
    if others:
        takes = f"takes only {', '.join(taken)}" if taken else "takes no properties"
        raise ProcedureArgumentError(f'ENABLE FEATURE "{feature}" {takes}; refused: {", ".join(others)}')


def _refuse_batch_delete(model: DorisTableModel) -> NoReturn:
    if model.keys_model is not KeysModel.UNIQUE:
        raise TableStateError("Batch delete only supported in unique tables.")
    # Loads into every UNIQUE KEY table take __DORIS_DELETE_SIGN__, from the table's creation on.
    raise TableStateError("Can not enable batch delete support, already supported batch delete.")


def _enable_flexible_columns(handle: DorisTable) -> FeatureEnabled:
    _check_flexible_allowed(handle.model, handle.name.name)

    def change(fresh: DorisTable, transaction: JavaObject) -> tuple[DorisTableModel, FeatureEnabled]:
        _check_flexible_allowed(fresh.model, fresh.name.name)  # again, on the metadata this commit builds on
        model = fresh.model
        enabled = model.with_properties({**model.properties, SKIP_BITMAP_PROPERTY: "true"})
        return enabled, FeatureEnabled(UPDATE_FLEXIBLE_COLUMNS, "__DORIS_SKIP_BITMAP_COL__", "BITMAP")

    return commit_model_change(handle, change, operation=f"enable {UPDATE_FLEXIBLE_COLUMNS} on").result


def _check_flexible_allowed(model: DorisTableModel, table: str) -> None:
    """Doris's rules and messages (ENABLE FEATURE's analysis; unique_with_mow_p0/flexible/
    test_flexible_partial_update_property.groovy)."""
    if model.keys_model is not KeysModel.UNIQUE or not model.merge_on_write:
        raise TableStateError("Update flexible columns feature is only supported on merge-on-write unique tables.")
    if model.skip_bitmap:
        raise TableStateError(f"table {table} has enabled update flexible columns feature already.")


def _check_no_sequence(model: DorisTableModel) -> None:
    hidden = any(c.name.lower() == HIDDEN_SEQUENCE_COLUMN.lower() for c in model.columns)
    if model.sequence_column is not None or hidden:
        raise TableStateError("Can not enable sequence column support, already supported sequence column.")
