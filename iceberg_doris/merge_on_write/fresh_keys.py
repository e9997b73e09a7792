"""Keyed loads whose keys the table cannot hold yet: written without any lookup.

A unique- or aggregate-key load only has to find stored rows that share its keys. When no live
data file of the ref can hold any of them (the table or partition is empty, or the batch's keys
fall outside every file's key range: Iceberg keeps each file's lower and upper bound of the key
column in its manifest entry, so planning with the batch's key range finds the candidate files
from metadata alone, without reading data), every row of the batch is new: it is written as it
is, no key is scanned, probed or joined, and the commit deletes nothing. The snapshot summary's
``doris.key-lookup`` says so.

The facts this needs come from the pass that counts the load (:class:`BatchFacts`: how many keys,
how many distinct, their range, whether any row deletes). A batch with a repeated key, a delete
row, or a partial-column update takes the usual path. The commit validates against the same key
range: a concurrent commit that adds rows there makes the load look its keys up after all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from iceberg_doris.engine import key_index
from iceberg_doris.engine.file_sets import ref_snapshot_id
from iceberg_doris.engine.iceberg_java import JavaObject
from iceberg_doris.engine.iceberg_tables import iceberg_expression
from iceberg_doris.engine.live_files import live_files
from iceberg_doris.engine.staged_writes import stage_data_files
from iceberg_doris.merge_on_write import plan
from iceberg_doris.merge_on_write.lookup import KeyedTable, Lookup, LookupContext, WrittenMeanwhile, _first_key_filter
from iceberg_doris.table_model import snapshot_summary
from iceberg_doris.table_model.partition_predicates import TRUE, Predicate, both

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

NO_LOOKUP = "none: no live data file can hold the batch's keys"


@dataclass(frozen=True)
class BatchFacts:
    """What the counting pass found about a keyed batch's accepted rows."""

    rows: int
    # None: not counted (a load the key index decides counts no distinct keys: its collected keys
    # tell whether one repeats, without the shuffle an exact distinct count costs).
    distinct_keys: int | None
    low: Any  # smallest value of the first key column (None: no rows)
    high: Any
    deletes: bool  # some row deletes its key (merge_type DELETE / MERGE)
    # The key index's keys of the accepted rows, collected by the counting pass itself (a load the
    # index decides), or None: collected later, in a job of their own.
    collected: "key_index.BatchKeys | None" = None

    @property
    def repeated_keys(self) -> bool | None:
        """Whether some key occurs twice; None when the distinct keys were not counted."""
        return None if self.distinct_keys is None else self.distinct_keys != self.rows


def may_skip_lookup(shape: plan.KeyedLoadShape, facts: BatchFacts | None) -> bool:
    """Whether the batch itself allows writing it without a lookup (the table decides the rest)."""
    return facts is not None and facts.repeated_keys is not True and not facts.deletes and not shape.partial


def key_range(shape: plan.KeyedLoadShape, facts: BatchFacts) -> Predicate:
    """The batch's range of the first key column (no filter when the batch is empty)."""
    return _first_key_filter(shape, None, facts.low, facts.high) if facts.rows else TRUE


def holds_none_of(handle: KeyedTable, table: JavaObject, branch: str | None, touched: Predicate,
                  shape: plan.KeyedLoadShape, facts: BatchFacts) -> bool:
    """Whether no live data file of ``branch`` (in the touched partitions) can hold a batch key:
    planned from the manifests' partition values and key bounds, no data read."""
    snapshot_id = ref_snapshot_id(table, branch)
    if snapshot_id is None:
        return True
    row_filter = iceberg_expression(handle.iceberg, both(touched, key_range(shape, facts)))
    data_files, _ = live_files(table, snapshot_id=snapshot_id, row_filter=row_filter)
    return len(data_files) == 0


def without_lookup(
    context: LookupContext,
    facts: BatchFacts,
    *,
    upserts: list[JavaObject] | WrittenMeanwhile | None = None,
    known_new: bool = False,
) -> Lookup | None:
    """The lookup's result when no live file of the context table can hold a batch key (every row
    is new): the batch staged as it is (``upserts`` given: those files), nothing deleted. None when
    some file may hold a key: the caller looks the keys up. ``known_new``: :func:`holds_none_of`
    said so already for this snapshot of the ref."""
    handle, table, shape, touched, branch = context.handle, context.table, context.shape, context.touched, context.branch
    if not known_new and not holds_none_of(handle, table, branch, touched, shape, facts):
        return None
    iceberg = handle.iceberg
    row_filter = iceberg_expression(iceberg, both(touched, key_range(shape, facts)))
    if upserts is not None and not isinstance(upserts, list):
        upserts = upserts.files()  # being written meanwhile
    elif upserts is None:
        upserts = stage_data_files(iceberg, handle.name, plan.new_rows(all_new(context.batch, shape), shape), table=table)
    summary = dict(context.summary) | {
        snapshot_summary.LOOKUPS: str(context.lookups),
        snapshot_summary.KEY_LOOKUP: NO_LOOKUP,
        snapshot_summary.DELETED_ROWS: "0",
    }
    return Lookup(ref_snapshot_id(table, branch), row_filter, {}, 0, upserts, [], {}, {}, summary, [])


def all_new(batch: "DataFrame", shape: plan.KeyedLoadShape) -> "DataFrame":
    """The batch shaped as ``plan.decide``'s output when no key has a stored row: every version
    wins, and every stored value it could read is NULL."""
    from pyspark.sql import functions as F

    stored = [F.lit(None).cast(shape.model.column(c).spark_type).alias(plan.LIVE + c) for c in plan.live_columns_needed(shape)]
    return batch.select("*", *stored, F.lit(None).cast("string").alias(plan.FILE), F.lit(True).alias(plan.WINS))
