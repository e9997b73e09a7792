"""``changes``: the change feed of a table: every row change after one snapshot up to and including
another (Iceberg's incremental-read convention), read from the commits in between (read only).

A Doris UNIQUE KEY table is merge-on-write: each load's delete bitmaps say exactly which stored
rows it replaced, so the feed reads only what each commit touched (``engine.change_feed``) and
needs no diff of whole snapshots. Rows come with the columns Spark and Delta change feeds use:

- ``_change_type``: ``insert``, ``delete``, ``update_preimage``, ``update_postimage``;
- ``_commit_snapshot_id``, ``_commit_timestamp``: the commit that made the change.

Per commit, on a table with keys (UNIQUE and AGGREGATE KEY), a row a load replaced and the row it
wrote for the same key are an update (pre-image, post-image), even when the values are equal: the
load did write the key, as Delta reports an UPDATE that sets a value to itself. Rows of whole data
files an operation removed (overwrite, truncate, swapped or dropped partitions) are deleted and
its new rows inserted, never paired: every old row goes, every new one comes. A commit by another
engine that rewrote whole files (copy-on-write DELETE, UPDATE, MERGE INTO) first loses the rows
it copied unchanged (carry-over rows, as Iceberg's changelog view removes them), then pairs the
rest by key.

``net``: one change per key over the whole range, from its first pre-image (its row before the
range) and its last post-image (its row after it): ``insert`` if it had none before, ``delete`` if
none after, an update pair if both and they differ, nothing if they are equal. Tables without keys
(DUPLICATE KEY) cancel equal deleted and inserted rows instead. Net changes assume at most one
live row per key, which every Doris load keeps (``doris.check`` finds keys another engine broke).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from iceberg_doris.ddl import KeysModel
from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.engine.change_feed import (
    DROPPED,
    INSERTED,
    change_columns,
    commit_reads,
    commits_between,
    read_changed_rows,
)
from iceberg_doris.errors import PartitionError
from iceberg_doris.operations.tables import DorisTable, open_table
from iceberg_doris.operations.temp_partitions import branch_name

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

CHANGE_TYPE = "_change_type"
COMMIT_SNAPSHOT_ID = "_commit_snapshot_id"
COMMIT_TIMESTAMP = "_commit_timestamp"
INSERT, DELETE, UPDATE_PREIMAGE, UPDATE_POSTIMAGE = "insert", "delete", "update_preimage", "update_postimage"
CHANGE_TYPES = (INSERT, DELETE, UPDATE_PREIMAGE, UPDATE_POSTIMAGE)

_IMAGE = "__doris_image"  # a row's values as one string: equal rows, equal images
_PRE = "__doris_pre"  # true: the row left the table (deleted or dropped); false: it came in
_DORIS = "__doris_commit"  # the commit was an iceberg-doris operation
ONE_TASK_ROWS = 2_000_000  # feeds of up to this many rows read (at most) are turned into changes in one task


@dataclass(frozen=True)
class ChangesRequest:
    start_snapshot: int | None  # None: from the table's first snapshot
    end_snapshot: int | None = None  # None: the ref's head
    net: bool = False
    temp_partition: str | None = None  # read the temp partition's branch instead of main


def changes(spark: "SparkSession", table: str, request: ChangesRequest) -> "DataFrame":
    """The change feed of ``table`` as a DataFrame: the table's columns, then ``_change_type``,
    ``_commit_snapshot_id`` and ``_commit_timestamp``, ordered by commit."""
    handle = open_table(spark, table)
    ref = _ref(handle, request.temp_partition)
    commits = commits_between(
        handle.table, handle.name.qualified, start=request.start_snapshot, end=request.end_snapshot, ref=ref
    )
    reads = [(ordinal, commit, commit_reads(handle.iceberg, handle.table, commit, handle.name.qualified))
             for ordinal, commit in enumerate(commits)]
    doris_commits = [ordinal for ordinal, commit in enumerate(commits) if commit.doris_operation is not None]
    rows = read_changed_rows(handle.iceberg, handle.table, reads)
    if sum(r.row_estimate for _, _, r in reads) <= ONE_TASK_ROWS:
        # One partition: every window and the final sort then run without a shuffle, which for a
        # feed of a few commits is most of its time.
        rows = rows.coalesce(1)
    return ChangeFrame(handle, rows, doris_commits).result(net=request.net)


def _ref(handle: DorisTable, temp_partition: str | None) -> str | None:
    if temp_partition is None:
        return None
    partitions = handle.model.partitions
    names = partitions.temp_partition_names if partitions is not None else handle.model.unpartitioned_temp
    if temp_partition not in names:
        raise PartitionError(
            f"Cannot read changes of temporary partition {temp_partition} of {handle.name.qualified}: it does not "
            "exist (CALL doris.show_partitions(table => ..., temporary => true) lists them)"
        )
    return branch_name(temp_partition)


class ChangeFrame:
    """The rows read, turned into changes (pure DataFrame work: no JVM beyond Spark's own)."""

    def __init__(self, handle: DorisTable, rows: "DataFrame", doris_commits: list[int]):
        self.kind, self.snapshot, self.millis, self.ordinal, self.file, self.position = change_columns(handle.iceberg)
        self.rows = rows
        self.columns = [c for c in rows.columns if c not in (self.kind, self.snapshot, self.millis, self.ordinal, self.file, self.position)]
        model = handle.model
        self.keys = list(model.key_columns) if model.keys_model in (KeysModel.UNIQUE, KeysModel.AGGREGATE) else []
        self.doris_commits = doris_commits

    def result(self, *, net: bool) -> "DataFrame":
        from pyspark.sql import functions as F

        rows = self._prepared()
        changed = self._net(rows) if net else self._per_commit(rows)
        ordered = changed.orderBy(
            F.col(self.ordinal), *[F.col(quote_identifier(k)) for k in self.keys], F.col("__doris_type_order"),
            F.col(self.file), F.col(self.position),
        )
        return ordered.select(
            *[F.col(quote_identifier(c)) for c in self.columns],
            F.col(CHANGE_TYPE),
            F.col(self.snapshot).alias(COMMIT_SNAPSHOT_ID),
            F.timestamp_millis(F.col(self.millis)).alias(COMMIT_TIMESTAMP),
        )

    def _prepared(self) -> "DataFrame":
        from pyspark.sql import functions as F

        image = F.to_json(F.struct(*[F.col(quote_identifier(c)) for c in self.columns]))
        doris = F.col(self.ordinal).isin(self.doris_commits) if self.doris_commits else F.lit(False)
        return self.rows.withColumn(_IMAGE, image).withColumn(_PRE, F.col(self.kind) != INSERTED).withColumn(_DORIS, doris)

    def _per_commit(self, rows: "DataFrame") -> "DataFrame":
        """Each commit's changes: carry-over rows of other engines' rewrites dropped, then pairs by key."""
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        # Carry-over rows: in a commit of another engine, a row of a removed file that comes back
        # unchanged in one of its new files (copy-on-write copies every row it did not change).
        by_image = Window.partitionBy(self.ordinal, _IMAGE)
        side = Window.partitionBy(self.ordinal, _IMAGE, _PRE).orderBy(self.file, self.position)
        dropped = F.sum(F.when(F.col(self.kind) == DROPPED, 1).otherwise(0)).over(by_image)
        inserted = F.sum(F.when(F.col(self.kind) == INSERTED, 1).otherwise(0)).over(by_image)
        cancelled = F.least(dropped, inserted)
        rank = F.row_number().over(side)
        kept = rows.withColumn("__doris_cancelled", cancelled).withColumn("__doris_rank", rank).filter(
            F.col(_DORIS) | ~F.col(self.kind).isin(DROPPED, INSERTED) | (F.col("__doris_rank") > F.col("__doris_cancelled"))
        )
        if not self.keys:
            return self._typed(kept, F.when(F.col(_PRE), F.lit(DELETE)).otherwise(F.lit(INSERT)))
        # A pre-image and a post-image of one key in one commit: an update. Iceberg-doris's
        # whole-file removals (overwrites, partition operations) are never paired.
        pairable = (F.col(self.kind) != DROPPED) | ~F.col(_DORIS)
        by_key = Window.partitionBy(self.ordinal, *[F.col(quote_identifier(k)) for k in self.keys])
        pres = F.sum(F.when(pairable & F.col(_PRE), 1).otherwise(0)).over(by_key)
        posts = F.sum(F.when(pairable & ~F.col(_PRE), 1).otherwise(0)).over(by_key)
        paired = pairable & (pres == 1) & (posts == 1)
        change = (
            F.when(paired & F.col(_PRE), F.lit(UPDATE_PREIMAGE))
            .when(paired, F.lit(UPDATE_POSTIMAGE))
            .when(F.col(_PRE), F.lit(DELETE))
            .otherwise(F.lit(INSERT))
        )
        return self._typed(kept, change)

    def _net(self, rows: "DataFrame") -> "DataFrame":
        """One change per key over the range: first pre-image, last post-image, equal ones dropped."""
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        if not self.keys:
            by_image = Window.partitionBy(_IMAGE)
            pres = F.sum(F.col(_PRE).cast("int")).over(by_image)
            posts = F.sum((~F.col(_PRE)).cast("int")).over(by_image)
            # The earliest deletes and the latest inserts of an image are the ones left standing.
            side = Window.partitionBy(_IMAGE, _PRE).orderBy(
                F.when(F.col(_PRE), F.col(self.ordinal)).otherwise(-F.col(self.ordinal)), self.file, self.position
            )
            surplus = F.when(F.col(_PRE), pres - posts).otherwise(posts - pres)
            kept = (
                rows.withColumn("__doris_rank", F.row_number().over(side)).withColumn("__doris_surplus", surplus)
                .filter(F.col("__doris_rank") <= F.col("__doris_surplus"))
            )
            return self._typed(kept, F.when(F.col(_PRE), F.lit(DELETE)).otherwise(F.lit(INSERT)))
        keys = [F.col(quote_identifier(k)) for k in self.keys]
        # Within a commit a key's pre-image comes before its post-image.
        order = [F.col(self.ordinal), F.col(_PRE).cast("int").desc(), F.col(self.file), F.col(self.position)]
        window = Window.partitionBy(*keys).orderBy(*order)
        whole = window.rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)
        first = F.row_number().over(window) == 1
        backwards = [F.col(self.ordinal).desc(), F.col(_PRE).cast("int"), F.col(self.file).desc(), F.col(self.position).desc()]
        last = F.row_number().over(Window.partitionBy(*keys).orderBy(*backwards)) == 1
        ranked = (
            rows.withColumn("__doris_first", first & F.col(_PRE))
            .withColumn("__doris_last", last & ~F.col(_PRE))
        )
        before = F.max(F.when(F.col("__doris_first"), F.col(_IMAGE))).over(whole)
        after = F.max(F.when(F.col("__doris_last"), F.col(_IMAGE))).over(whole)
        kept = (
            ranked.withColumn("__doris_before", before)
            .withColumn("__doris_after", after)
            .filter((F.col("__doris_first") | F.col("__doris_last")))
            .filter(~(F.col("__doris_before").isNotNull() & F.col("__doris_before").eqNullSafe(F.col("__doris_after"))))
        )
        both = F.col("__doris_before").isNotNull() & F.col("__doris_after").isNotNull()
        change = (
            F.when(both & F.col(_PRE), F.lit(UPDATE_PREIMAGE))
            .when(both, F.lit(UPDATE_POSTIMAGE))
            .when(F.col(_PRE), F.lit(DELETE))
            .otherwise(F.lit(INSERT))
        )
        return self._typed(kept, change)

    def _typed(self, rows: "DataFrame", change: "Column") -> "DataFrame":
        from pyspark.sql import functions as F

        order = (
            F.when(F.col(CHANGE_TYPE) == UPDATE_PREIMAGE, 0)
            .when(F.col(CHANGE_TYPE) == DELETE, 1)
            .when(F.col(CHANGE_TYPE) == UPDATE_POSTIMAGE, 2)
            .otherwise(3)
        )
        return rows.withColumn(CHANGE_TYPE, change).withColumn("__doris_type_order", order)


__all__ = ["CHANGE_TYPES", "ChangesRequest", "changes"]
