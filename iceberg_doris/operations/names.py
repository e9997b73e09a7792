"""Doris's naming rules as procedures check them when arguments bind (labels, shown values)."""

from iceberg_doris.names.rules import check_label, shown

__all__ = ["check_label", "shown"]
