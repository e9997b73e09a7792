"""Opening a table for an operation: the Iceberg handle, the table as loaded and its Doris model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.iceberg_tables import read_model
from iceberg_doris.engine.table_names import TableName
from iceberg_doris.errors import PartitionError
from iceberg_doris.partitioning import PartitionSet
from iceberg_doris.table_model import DorisTableModel
from iceberg_doris.engine.iceberg_tables import table_properties, table_property

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class DorisTable:
    iceberg: IcebergJava
    name: TableName
    table: JavaObject
    model: DorisTableModel

    @property
    def properties(self) -> dict[str, str]:
        return table_properties(self.table)

    def property(self, key: str) -> str | None:
        """One Iceberg table property (without copying them all)."""
        return table_property(self.table, key)

    def require_partitions(self) -> PartitionSet:
        if self.model.partitions is None:
            raise PartitionError(
                f"Only support adding partition to range and list partitioned table: {self.name.qualified} "
                "is not partitioned (create it with PARTITION BY RANGE(...) or LIST(...))"
            )
        return self.model.partitions

    def stored_partition_name(self, name: str, temporary: bool = False) -> str:
        """``name`` as the table spells the partition it names: Doris looks partition names up
        case-insensitively (``P1`` finds ``p1``). An unpartitioned table's one partition is named
        after the table; its temp partitions are listed in the model. Unknown names come back
        unchanged (the caller reports them)."""
        folded = name.lower()
        if self.model.partitions is not None:
            return self.model.partitions.stored_name(name, temporary)
        known = self.model.unpartitioned_temp if temporary else (self.name.name,)
        return next((n for n in known if n.lower() == folded), name)

    def stored_partition_names(self, names: "Sequence[str] | None", temporary: bool = False) -> "tuple[str, ...] | None":
        """:meth:`stored_partition_name` of each name; None stays None."""
        if names is None:
            return None
        return tuple(self.stored_partition_name(n, temporary) for n in names)


def open_table(spark: "SparkSession", table: str) -> DorisTable:
    """The table named ``table`` (``db.tbl``), loaded from the catalog; TableNotFoundError if absent."""
    iceberg = IcebergJava(spark)
    name = iceberg.name(table)
    loaded = iceberg.load_table(name)
    return DorisTable(iceberg, name, loaded, read_model(iceberg, loaded))


def reopen(handle: DorisTable, table: JavaObject) -> DorisTable:
    """The same handle on a freshly loaded table (inside a commit attempt)."""
    return DorisTable(handle.iceberg, handle.name, table, read_model(handle.iceberg, table))
