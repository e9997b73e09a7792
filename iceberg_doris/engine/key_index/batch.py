"""A batch's keys, collected into the driver's JVM and sorted: what a probe ships to the executors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.key_index import jvm, wire

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


@dataclass
class BatchKeys:
    """A batch's keys in the driver JVM, sorted (a handle on ``io.icebergdoris.keyindex.BatchKeys``)."""

    java: jvm.BatchKeysHandle
    spark: "SparkSession"
    _summaries: dict[int, wire.BatchSummary] = field(default_factory=dict, repr=False, compare=False)

    def describe(self, values_up_to: int = 0) -> wire.BatchSummary:
        """Count, repeats and the first key column's range and (for at most ``values_up_to`` keys)
        values, in one py4j call; remembered."""
        if values_up_to not in self._summaries:
            text = str(jvm.index_of(self.spark).describeBatch(self.java, values_up_to))
            self._summaries[values_up_to] = wire.BatchSummary.from_json(text)
        return self._summaries[values_up_to]

    def _any_summary(self) -> wire.BatchSummary:
        return next(iter(self._summaries.values())) if self._summaries else self.describe()

    @property
    def count(self) -> int:
        return self._any_summary().count

    @property
    def has_duplicates(self) -> bool:
        """Whether some key occurs more than once: a probe needs one row per key."""
        return self._any_summary().has_duplicates

    def first_column_values(self) -> list[Any]:
        """The first key column's values in key order (dates and timestamps as ISO text)."""
        values = self.describe(self.count).first_column_values
        if values is None:  # cannot happen: every key was asked for
            raise ValueError("key index: the batch's first key column values were not sent")
        return values

    def first_column_range(self) -> list[Any]:
        """[smallest, largest] of the first key column, or [] for no keys."""
        return self._any_summary().first_column_range


def collect_batch_keys(
    iceberg: IcebergJava, table: JavaObject, rows: "DataFrame", key_columns: list[str], sequence_column: str | None
) -> BatchKeys:
    """The batch's keys (the first ``len(key_columns)`` columns of ``rows``), delete flags (the next
    column) and, with ``sequence_column``, sequence values (the one after): one Spark job, the keys
    go to the driver's JVM only."""
    request = jvm.session_request(iceberg.spark, key_columns, sequence_column)
    return BatchKeys(jvm.index(iceberg).collectBatchKeys(rows._jdf, table, request), iceberg.spark)
