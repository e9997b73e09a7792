"""Load transactions: Doris's ``BEGIN; INSERT ...; INSERT ...; COMMIT`` on one table, as one load.

A transaction collects several loads' rows and commits them together, as one load: one Iceberg
commit, one snapshot, one label, or nothing. Nothing is read or written before the commit, so a
rollback (or an exception inside the ``with`` block) has nothing to undo.

Later loads see earlier ones' rows because the rows are resolved together, in load order, the way
one load resolves several rows of a key: on a unique table the row of the later load wins (unless a
sequence column decides), a ``DELETE`` load deletes the keys earlier loads of the transaction wrote,
and on an aggregate table the values aggregate. A load's ``merge_type`` travels with its rows as
Doris's ``__DORIS_DELETE_SIGN__`` column.

Limits (see ``docs/loads.md``): one table per transaction (Iceberg commits one table at a time on
a SQL catalog, so several tables cannot commit atomically); each load gives rows named like the
table's columns, the same columns in every load (a DataFrame, a table or view, or a query; no file
paths, column mappings or partial columns); ``max_filter_ratio`` and ``strict_mode`` apply to the transaction as a whole; the sources
are read when the transaction commits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iceberg_doris.errors import LoadError
from iceberg_doris.loading import read_source
from iceberg_doris.operations.load import load
from iceberg_doris.operations.load.hidden_columns import DELETE_SIGN_COLUMN
from iceberg_doris.operations.requests import LoadOrigin, LoadRequest, LoadResult, MergeType

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

TRANSACTION_OPERATION = "transaction"


@dataclass(frozen=True)
class _PendingLoad:
    frame: "DataFrame"
    merge_type: MergeType
    delete_on: str | None


class LoadTransaction:
    """A transaction on one table: :meth:`load` adds rows, :meth:`commit` commits them all in one
    snapshot, :meth:`rollback` forgets them. Used as a context manager it commits on a clean exit
    and rolls back when the block raises."""

    def __init__(
        self, spark: "SparkSession", table: str, *, label: str | None = None, max_filter_ratio: float = 0.0,
        strict_mode: bool = False,
    ) -> None:
        self._spark, self._table = spark, table
        self._label, self._max_filter_ratio, self._strict_mode = label, max_filter_ratio, strict_mode
        self._loads: list[_PendingLoad] = []
        self._state = "open"
        self.result: LoadResult | None = None

    def load(
        self, source: "str | DataFrame | None" = None, *, query: str | None = None, merge_type: str = "APPEND",
        delete_on: str | None = None,
    ) -> None:
        """Adds a load's rows (``source``: a DataFrame, table or view; or ``query``) with Doris's
        ``merge_type`` APPEND, DELETE or MERGE (rows where ``delete_on`` holds delete their key)."""
        self._check_open("load into")
        try:
            kind = MergeType(str(merge_type).upper())
        except ValueError:
            kind = None
        if kind not in (MergeType.APPEND, MergeType.DELETE, MergeType.MERGE):
            raise LoadError(f"Invalid merge type {merge_type} in a transaction: use APPEND, DELETE or MERGE")
        if (kind is MergeType.MERGE) != (delete_on is not None):
            raise LoadError(
                "Excepted DELETE ON clause when merge type is MERGE." if kind is MergeType.MERGE
                else "not support DELETE ON clause when merge type is not MERGE."
            )
        frame = read_source(self._spark, source=source, query=query)
        if DELETE_SIGN_COLUMN.lower() in (c.lower() for c in frame.columns):
            raise LoadError(
                f"A transaction's load cannot carry {DELETE_SIGN_COLUMN}: give merge_type => 'DELETE' or 'MERGE' "
                "with delete_on instead"
            )
        if self._loads and {c.lower() for c in frame.columns} != {c.lower() for c in self._loads[0].frame.columns}:
            raise LoadError(
                f"Every load of a transaction gives the same columns: this one gives {', '.join(frame.columns)}, the "
                f"first gave {', '.join(self._loads[0].frame.columns)}. Select the same columns (a column a load leaves "
                "out would get NULL instead of its default)"
            )
        self._loads.append(_PendingLoad(frame, kind, delete_on))

    def commit(self) -> LoadResult | None:
        """Commits every load's rows in one snapshot; None (and no snapshot) when nothing was loaded."""
        self._check_open("commit")
        self._state = "committing"
        try:
            if not self._loads:
                return None
            self.result = load(self._spark, self._table, self._request())
            return self.result
        finally:
            self._state = "committed"
            self._loads = []

    def rollback(self) -> None:
        """Forgets the loads: nothing was written, so nothing changes."""
        self._check_open("roll back")
        self._loads = []
        self._state = "rolled back"

    def __enter__(self) -> "LoadTransaction":
        return self

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        if self._state != "open":
            return
        if error is None:
            self.commit()
        else:
            self.rollback()

    def _check_open(self, action: str) -> None:
        if self._state != "open":
            raise LoadError(
                f"Cannot {action} a transaction that is already {self._state}: start a new one with "
                "iceberg_doris.transaction(spark, table)"
            )

    def _request(self) -> LoadRequest:
        from pyspark.sql import functions as F

        deletes = any(p.merge_type is not MergeType.APPEND for p in self._loads)
        frames = []
        for pending in self._loads:
            frame = pending.frame
            if deletes:
                if pending.merge_type is MergeType.DELETE:
                    sign = F.lit(1)
                elif pending.merge_type is MergeType.MERGE:
                    sign = F.when(F.coalesce(F.expr(pending.delete_on), F.lit(False)), 1).otherwise(0)
                else:
                    sign = F.lit(0)
                frame = frame.withColumn(DELETE_SIGN_COLUMN, sign)
            frames.append(frame)
        combined = frames[0]
        # Union keeps each input's partitions in order, so the batch order (which breaks ties
        # between rows of a key) follows the loads' order.
        for frame in frames[1:]:
            combined = combined.unionByName(frame)
        return LoadRequest(
            source=combined, label=self._label, max_filter_ratio=self._max_filter_ratio, strict_mode=self._strict_mode,
            origin=LoadOrigin(operation=TRANSACTION_OPERATION),
        )


def transaction(
    spark: "SparkSession", table: str, *, label: str | None = None, max_filter_ratio: float = 0.0,
    strict_mode: bool = False,
) -> LoadTransaction:
    """A load transaction on ``table`` (Doris ``BEGIN ... COMMIT``)::

        with iceberg_doris.transaction(spark, "db.t") as tx:
            tx.load(first_frame)
            tx.load(query="SELECT 1 AS k", merge_type="DELETE")
    """
    return LoadTransaction(spark, table, label=label, max_filter_ratio=max_filter_ratio, strict_mode=strict_mode)
