"""A Doris ``CREATE TABLE`` statement as parsed, before validation: what ``ddl.parser`` builds
and ``ddl.validation`` checks into a :class:`~iceberg_doris.ddl.model.TableDefinition`."""

from __future__ import annotations

from dataclasses import dataclass, field

from iceberg_doris.ddl.model import ColumnDef, DistributionDesc, KeysModel, PartitionItemDef, StepPartitionDef

__all__ = ["PartitionExpr", "RawPartition", "RawTable"]


@dataclass
class PartitionExpr:
    """A partition expression: a column reference, a function call or a literal."""

    kind: str  # "column", "function", "string", "number"
    value: str
    args: list["PartitionExpr"] = field(default_factory=list)
    text: str = ""


@dataclass
class RawPartition:
    """The PARTITION BY clause as written."""

    kind: str  # RANGE | LIST
    auto_keyword: bool
    exprs: list[PartitionExpr]
    items: list[PartitionItemDef]
    steps: list[StepPartitionDef]
    has_less_than: bool = False
    has_fixed: bool = False
    has_in: bool = False
    #: the properties of each ``FROM .. TO .. INTERVAL n (...)`` batch, in written order
    step_properties: list[dict[str, str]] = field(default_factory=list)


@dataclass
class RawTable:
    """The statement as written, before Doris's semantic checks."""

    sql: str
    catalog: str | None = None
    database: str | None = None
    table: str = ""
    if_not_exists: bool = False
    external: bool = False
    temporary: bool = False
    columns: list[ColumnDef] = field(default_factory=list)
    indexes: list[str] = field(default_factory=list)
    engine: str | None = None
    keys_model: KeysModel | None = None
    key_columns: list[str] = field(default_factory=list)
    cluster_by: list[str] = field(default_factory=list)
    comment: str | None = None
    partition: RawPartition | None = None
    distribution: DistributionDesc | None = None
    rollups: list[str] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)
    #: the clauses written, by their names in ``ddl.parser.CLAUSES``
    clauses: list[str] = field(default_factory=list)
    #: (column, attribute) for each attribute written, by the names in ``ddl.parser.COLUMN_ATTRIBUTES``
    column_attributes: list[tuple[str, str]] = field(default_factory=list)
