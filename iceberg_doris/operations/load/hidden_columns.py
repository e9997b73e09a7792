"""Doris's hidden columns written by a load, as Doris lets INSERT and stream load write them.

- ``__DORIS_DELETE_SIGN__`` (unique-key tables): a row whose value is 1 deletes its key (with the
  sequence rules, like a ``merge_type => 'DELETE'`` row); 0 or NULL upserts. A source column of
  that name, or a ``columns`` item ``__DORIS_DELETE_SIGN__ = <expr>``, supplies it.
- ``__DORIS_SEQUENCE_COL__`` (tables declared with ``function_column.sequence_type``): a source
  column or ``columns`` item of that name is the sequence value, as Doris's INSERT must list it;
  ``sequence_col`` still names another source column instead.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from iceberg_doris.ddl import KeysModel
from iceberg_doris.errors import LoadError
from iceberg_doris.operations.requests import LoadRequest
from iceberg_doris.operations.tables import DorisTable
from iceberg_doris.table_model.model import HIDDEN_SEQUENCE_COLUMN

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

DELETE_SIGN_COLUMN = "__DORIS_DELETE_SIGN__"


def supplied_as(frame: "DataFrame", mapping: Any, hidden: str) -> str | None:
    """How the load spells the hidden column ``hidden`` (case-insensitive), if it supplies it."""
    names = list(mapping.names()) if mapping is not None else list(frame.columns)
    return next((name for name in names if name.lower() == hidden.lower()), None)


def with_hidden_sequence(handle: DorisTable, request: LoadRequest, frame: "DataFrame", mapping: Any) -> LoadRequest:
    """The request with ``sequence_col`` naming the load's ``__DORIS_SEQUENCE_COL__`` when the table
    has a hidden sequence column, the load supplies it and ``sequence_col`` names nothing else."""
    model = handle.model
    if request.sequence_col or not model.sequence_type or model.sequence_col:
        return request
    spelled = supplied_as(frame, mapping, HIDDEN_SEQUENCE_COLUMN)
    return replace(request, sequence_col=spelled) if spelled else request


def delete_sign_source(handle: DorisTable, frame: "DataFrame", mapping: Any) -> str | None:
    """The load's ``__DORIS_DELETE_SIGN__`` column, if it supplies one (unique-key tables only)."""
    spelled = supplied_as(frame, mapping, DELETE_SIGN_COLUMN)
    if spelled is not None and handle.model.keys_model is not KeysModel.UNIQUE:
        raise LoadError(
            f"{handle.name.qualified} has no column {DELETE_SIGN_COLUMN}: only unique-key tables have the delete sign "
            "(batch delete); leave it out of the source"
        )
    return spelled
