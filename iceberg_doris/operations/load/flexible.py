"""Doris's flexible partial update (``unique_key_update_mode => 'UPDATE_FLEXIBLE_COLUMNS'``): the
load's rules, with Doris's messages, in Doris's order (the stream-load header checks of
``be/src/http/action/stream_load.cpp``, then the table's).

Each JSON row updates the columns it names (:mod:`iceberg_doris.loading.flexible_json`); the rows
then go the partial-update road of merge-on-write (:mod:`iceberg_doris.merge_on_write.plan`).
"""

from __future__ import annotations

from iceberg_doris.ddl import KeysModel
from iceberg_doris.errors import LoadError
from iceberg_doris.operations.requests import LoadRequest, MergeType, UniqueKeyUpdateMode
from iceberg_doris.operations.tables import DorisTable

__all__ = ["check_update_mode", "check_flexible"]

_JSON_EXTENSIONS = (".json", ".jsonl", ".ndjson")


def check_update_mode(request: LoadRequest) -> None:
    """``partial_columns => true`` says the same as UPDATE_FIXED_COLUMNS; with another mode it would
    be ignored (Doris reads it only without the header), so the two are refused together."""
    mode = request.unique_key_update_mode
    if request.partial_columns and mode not in (None, UniqueKeyUpdateMode.UPDATE_FIXED_COLUMNS):
        raise LoadError(
            f"partial_columns => true contradicts unique_key_update_mode {mode.value}: give one of them "
            "(partial_columns => true is unique_key_update_mode UPDATE_FIXED_COLUMNS)"
        )


def _option(request: LoadRequest, name: str) -> str | None:
    options = {str(k).strip().lower(): str(v) for k, v in (request.format_options or {}).items()}
    return options.get(name)


def _is_json(request: LoadRequest) -> bool:
    if request.path is None:
        return False
    if request.format is not None:
        return request.format.strip().lower() == "json"
    return all(p.strip().lower().split("?")[0].endswith(_JSON_EXTENSIONS) for p in request.path)


def check_flexible(handle: DorisTable, request: LoadRequest) -> None:
    """Doris's rules for a flexible partial update, before anything is read."""
    if not _is_json(request):
        raise LoadError(
            "flexible partial update only support json format as input file currently: give path and format => 'json'"
        )
    if (_option(request, "fuzzy_parse") or "").strip().lower() == "true":
        raise LoadError("Don't support flexible partial update when 'fuzzy_parse' is enabled")
    if request.columns:
        raise LoadError("Don't support flexible partial update when 'columns' is specified")
    if _option(request, "jsonpaths") is not None:
        raise LoadError("Don't support flexible partial update when 'jsonpaths' is specified")
    if request.sequence_col:
        raise LoadError("Don't support flexible partial update when 'function_column.sequence_col' is specified")
    if request.merge_type is not MergeType.APPEND:
        raise LoadError("Don't support flexible partial update when 'merge_type' is specified")
    if request.where:
        raise LoadError("Don't support flexible partial update when 'where' is specified")
    if request.delete_on:
        raise LoadError("Don't support flexible partial update when 'delete' is specified")
    by_line = _option(request, "read_json_by_line")
    if (_option(request, "strip_outer_array") or "").strip().lower() == "true" or (
        by_line is not None and by_line.strip().lower() != "true"
    ):
        raise LoadError(
            "flexible partial update reads one JSON object per line (read_json_by_line); strip_outer_array is not "
            "supported with it: write the file as JSON lines"
        )
    if request.overwrite is not None:
        raise LoadError(
            "unique_key_update_mode UPDATE_FLEXIBLE_COLUMNS cannot be combined with overwrite: an overwrite replaces "
            "whole rows, so there are no stored rows to update"
        )
    model = handle.model
    if model.keys_model is not KeysModel.UNIQUE or not model.merge_on_write:
        raise LoadError("Only unique key merge on write support partial update")
    if not model.skip_bitmap:
        raise LoadError(
            "Flexible partial update can only support table with skip bitmap hidden column. Set "
            "enable_unique_key_skip_bitmap_column = true at CREATE TABLE, or run doris.enable_feature(table, "
            "'UPDATE_FLEXIBLE_COLUMNS')"
        )
    generated = [c.name for c in model.columns if c.generated]
    if generated:
        raise LoadError(
            f"flexible partial update of {handle.name.qualified}, a table with generated column {generated[0]}, is not "
            "supported by iceberg-doris: load its rows with unique_key_update_mode UPDATE_FIXED_COLUMNS"
        )
