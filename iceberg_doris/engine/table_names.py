"""Table names as users write them (``db.tbl``, ``catalog.db.tbl``, with or without backquotes)."""

from __future__ import annotations

from dataclasses import dataclass

from iceberg_doris.errors import ProcedureArgumentError


@dataclass(frozen=True)
class TableName:
    namespace: str
    name: str

    @property
    def qualified(self) -> str:
        """``db.tbl`` as Iceberg's TableIdentifier.parse and our messages write it."""
        return f"{self.namespace}.{self.name}"

    @property
    def sql(self) -> str:
        """The name quoted for Spark SQL."""
        return f"`{self.namespace}`.`{self.name}`"


def parse_table_name(text: str, catalog_name: str) -> TableName:
    """Splits ``db.tbl`` (optionally prefixed by the catalog name); refuses anything else."""
    parts = [p.strip().strip("`") for p in text.strip().split(".")]
    if len(parts) == 3 and parts[0].lower() == catalog_name.lower():
        parts = parts[1:]
    if len(parts) != 2 or not all(parts):
        raise ProcedureArgumentError(
            f"Table name {text!r} must be written db.tbl (a namespace and a table), e.g. 'sales.orders'"
        )
    return TableName(parts[0], parts[1])
