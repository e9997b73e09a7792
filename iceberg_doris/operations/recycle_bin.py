"""The recycle bin (Doris ``CatalogRecycleBin``, for partitions) is the table's Iceberg history.

A ``drop_partition`` or ``truncate`` without ``force``, and an ``insert_overwrite``, put the formal
partitions they empty into the recycle bin: the operation's snapshot summary carries their
definitions (``doris.recycled-partitions``), and the snapshot itself (or, when it emptied several
partitions, its parent) still lists their data files and deletion vectors. An entry is a partition
name plus the id of that snapshot, which plays Doris's partition id (``RECOVER PARTITION p <id>``).

An entry is gone once it is recovered (the recovery's summary names it), once it is older than the
table property ``catalog_trash_expire_second`` (Doris's FE setting of that name, default one day;
Doris's extra ten-minute floor, which orders its edit log, has no counterpart here), or once its
snapshot leaves main's history (Iceberg's own ``expire_snapshots`` or a rollback). ``doris.cleanup``
never expires the snapshots an unexpired entry needs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from iceberg_doris.engine.file_sets import FileSet
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject
from iceberg_doris.engine.iceberg_tables import iceberg_expression
from iceberg_doris.engine.snapshot_history import (
    HistoricSnapshot,
    main_lineage,
    parent_committed_ms,
    removed_files,
    removed_files_matching,
)
from iceberg_doris.errors import ProcedureArgumentError
from iceberg_doris.partitioning import Partition, PartitionSet, from_json, to_json
from iceberg_doris.table_model import DorisTableModel, snapshot_summary
from iceberg_doris.table_model.partition_predicates import partition_predicate

EXPIRE_PROPERTY = "catalog_trash_expire_second"
EXPIRE_DEFAULT_SECONDS = 86400  # Doris's default: one day


@dataclass(frozen=True)
class RecycleEntry:
    """One recoverable partition: its definition as it was, and the snapshot that emptied it."""

    partition: Partition
    columns: PartitionSet  # the partition set it belonged to, without partitions (columns, kind)
    snapshot_id: int
    recycled_ms: int  # when the snapshot was committed: Doris's recycle time
    operation: str
    shared: bool  # the snapshot emptied other partitions too

    @property
    def name(self) -> str:
        return self.partition.name


def recycle_summary(partitions: PartitionSet, recycled: Iterable[Partition]) -> dict[str, str]:
    """The snapshot-summary entry that puts ``recycled`` (formal partitions of ``partitions``) into
    the recycle bin; empty when there is nothing to recycle."""
    chosen = list(recycled)
    if not chosen:
        return {}
    return {snapshot_summary.RECYCLED_PARTITIONS: to_json(partitions.with_partitions(formal=chosen, temp=[]))}


def expire_seconds(model: DorisTableModel) -> int:
    """The table's ``catalog_trash_expire_second`` (default one day)."""
    text = model.properties.get(EXPIRE_PROPERTY)
    return EXPIRE_DEFAULT_SECONDS if text is None else parse_expire_seconds(text)


def parse_expire_seconds(text: str) -> int:
    try:
        value = int(str(text).strip())
    except ValueError:
        value = -1
    if value < 0:
        raise ProcedureArgumentError(
            f"Invalid {EXPIRE_PROPERTY}: '{text}'. Give a whole number of seconds >= 0 (Doris's default is 86400, "
            "one day)"
        )
    return value


def entries(table: JavaObject, model: DorisTableModel, now_ms: int) -> Iterator[RecycleEntry]:
    """The unexpired, unrecovered entries on main's history, newest first."""
    expire_ms = expire_seconds(model) * 1000
    recovered: set[tuple[str, str | None]] = set()
    for snapshot in main_lineage(table):
        summary = snapshot.summary
        if snapshot_summary.RECOVERED_FROM in summary:
            name = summary.get(snapshot_summary.RECOVERED_PARTITION)
            recovered.add((summary[snapshot_summary.RECOVERED_FROM], name.lower() if name is not None else None))
        if now_ms - snapshot.timestamp_ms > expire_ms:
            break  # expired, and so is everything older (recoveries are always newer than their entry)
        for entry in _entries_of(snapshot):
            key = str(entry.snapshot_id)
            if (key, None) in recovered or (key, entry.name.lower()) in recovered:
                continue
            yield entry


def oldest_needed_ms(table: JavaObject, model: DorisTableModel, now_ms: int) -> int | None:
    """The commit time of the oldest snapshot an unexpired entry still needs (the entry's parent,
    which holds its files as live files), or None when the recycle bin is empty."""
    oldest = None
    for entry in entries(table, model, now_ms):
        needed = parent_committed_ms(table, entry.snapshot_id)
        oldest = needed if oldest is None else min(oldest, needed)
    return oldest


def entry_files(iceberg: IcebergJava, table: JavaObject, entry: RecycleEntry) -> FileSet | None:
    """The data files and delete files the entry's partition had when it was recycled, or None
    when they cannot be told apart any more (a shared snapshot whose parent was expired)."""
    if not entry.shared:
        return removed_files(table, entry.snapshot_id)
    predicate = partition_predicate(entry.columns, entry.partition)
    return removed_files_matching(table, entry.snapshot_id, iceberg_expression(iceberg, predicate))


def _entries_of(snapshot: HistoricSnapshot) -> list[RecycleEntry]:
    summary = snapshot.summary
    text = summary.get(snapshot_summary.RECYCLED_PARTITIONS) or summary.get(snapshot_summary.DROPPED_PARTITION)
    if text is None:
        return []
    recycled = from_json(text)
    columns = recycled.with_partitions(formal=[], temp=[])
    operation = summary.get(snapshot_summary.OPERATION, "")
    shared = len(recycled.formal) > 1
    return [
        RecycleEntry(p, columns, snapshot.snapshot_id, snapshot.timestamp_ms, operation, shared) for p in recycled.formal
    ]
