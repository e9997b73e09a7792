"""The rows of a running ``MERGE INTO`` statement, joined to given stored rows of the table.

When a ``MERGE INTO``'s ``ON`` equates the table's unique key with values of the source, the
session extension (``jvm/.../MergeStatement.java``, ``MergeRows.java``) hands the statement's load
a token: with it the load asks for the source's key values, finds the stored rows of those keys
(through the key index), and asks for the statement's rows joined to those rows instead of the
whole table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


@dataclass(frozen=True)
class MergeRows:
    """A running ``MERGE INTO``'s rows, by the token its JVM side registered for this call."""

    spark: "SparkSession"
    token: str

    def source_keys(self) -> "DataFrame":
        """The source's key values: one row per source row, one column per key column (named as
        the table's, of its types)."""
        from pyspark.sql import DataFrame

        return DataFrame(self._jvm().sourceKeys(self.token), self.spark)

    def joined_to(self, stored: "DataFrame") -> "DataFrame":
        """The statement's rows with ``stored`` (rows with every column of the table) as its table."""
        from pyspark.sql import DataFrame

        return DataFrame(self._jvm().rows(self.token, stored._jdf), self.spark)

    def _jvm(self):  # noqa: ANN202 - a py4j handle
        return self.spark.sparkContext._jvm.io.icebergdoris.spark.MergeRows
