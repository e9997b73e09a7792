"""The Doris table model on Iceberg (pure Python).

A Doris table's model (keys, aggregates, sequence column, partitions, distribution, properties)
is stored in the Iceberg table's properties; its partitions decide the Iceberg partition spec.
"""

from iceberg_doris.table_model import snapshot_summary
from iceberg_doris.table_model.iceberg_layout import LayoutField, choose_layout, data_path_properties
from iceberg_doris.table_model.model import (
    AutoPartition,
    ColumnModel,
    Distribution,
    DorisTableModel,
    duplicate_model_for,
    model_from_definition,
)
from iceberg_doris.table_model.table_properties import model_from_properties, model_to_properties

__all__ = [
    "AutoPartition",
    "ColumnModel",
    "Distribution",
    "DorisTableModel",
    "LayoutField",
    "choose_layout",
    "data_path_properties",
    "duplicate_model_for",
    "model_from_definition",
    "model_from_properties",
    "model_to_properties",
]
