"""Which of the chosen data files a compaction rewrites, drops or keeps, and the delete files that
go with them: the facts ``doris.compact`` decides from, read from the live-file plan."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from iceberg_doris.engine.compaction.carry_over import positions
from iceberg_doris.engine.file_sets import FileSet, record_count
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, java_items
from iceberg_doris.engine.iceberg_tables import committed_at_millis
from iceberg_doris.engine.live_files import delete_file_key


@dataclass
class RewriteCandidates:
    """The data files to rewrite (fully deleted ones among them are dropped: no row is copied),
    the delete files that go with them, each file's delete files at the start, and how many fully
    deleted files were kept (they may still hold tombstones) or dropped."""

    rewrite: FileSet = field(default_factory=FileSet)
    removed_deletes: FileSet = field(default_factory=FileSet)
    deletes_at_start: dict[str, list[JavaObject]] = field(default_factory=dict)
    fully_deleted: set[str] = field(default_factory=set)
    kept: int = 0
    dropped: int = 0


def rewrite_candidates(
    iceberg: IcebergJava, table: JavaObject, plan: JavaObject, locations: Iterable[str], *,
    guards_tombstones: bool, cutoff_ms: int,
) -> RewriteCandidates:
    """The files at ``locations`` of ``plan`` (io.icebergdoris.iceberg.LiveFiles) a compaction
    rewrites. A file whose every row is deleted is kept when ``guards_tombstones`` and the
    snapshot that added it is younger than ``cutoff_ms`` (epoch ms): its deleted rows may be
    tombstones still guarding their keys."""
    chosen = RewriteCandidates()
    seen_deletes: set[str] = set()
    for location in locations:
        deletes = java_items(plan.deletes(location))
        data_file = plan.dataFile(location)
        fully_deleted = _deleted_rows(iceberg, table, deletes, location) >= record_count(data_file)
        if fully_deleted and guards_tombstones and _added_after(iceberg, table, data_file, cutoff_ms):
            chosen.kept += 1
            continue
        if fully_deleted:
            chosen.dropped += 1
            chosen.fully_deleted.add(location)
        chosen.rewrite.data_files.append(data_file)
        chosen.deletes_at_start[location] = deletes
        for delete_file in deletes:
            key = delete_file_key(delete_file)
            if key not in seen_deletes:
                seen_deletes.add(key)
                chosen.removed_deletes.delete_files.append(delete_file)
    return chosen


def _deleted_rows(iceberg: IcebergJava, table: JavaObject, deletes: list[JavaObject], location: str) -> int:
    """How many rows of the data file at ``location`` its delete files delete. A v2 position
    delete file may cover every file of a partition: its row count is not this file's, so it is read."""
    if all(_only_for(d, location) for d in deletes):
        return sum(record_count(d) for d in deletes)
    return len(positions(iceberg, table, deletes, location))


def _only_for(delete_file: JavaObject, location: str) -> bool:
    referenced = delete_file.referencedDataFile()
    return referenced is not None and str(referenced) == location


def _added_after(iceberg: IcebergJava, table: JavaObject, data_file: JavaObject, cutoff_ms: int) -> bool:
    """Whether the snapshot that added the file is younger than the retention cutoff."""
    sequence = data_file.dataSequenceNumber()
    if sequence is None:
        return True
    committed = committed_at_millis(iceberg, table, int(sequence))
    return committed >= cutoff_ms if committed is not None else False
