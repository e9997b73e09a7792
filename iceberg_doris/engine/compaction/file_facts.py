"""The facts the compaction chooser needs about each live data file of a snapshot."""

from __future__ import annotations

from iceberg_doris.engine.deletion_vectors import delete_file_key
from iceberg_doris.engine.iceberg_java import JavaObject, java_items, split_locations
from iceberg_doris.engine.live_files import locations_with_deletes
from iceberg_doris.table_model.compaction_policy import FileFacts


def file_facts(table: JavaObject, plan: JavaObject) -> list[FileFacts]:
    """One :class:`FileFacts` per data file of ``plan`` (io.icebergdoris.iceberg.LiveFiles).
    Deleted rows are the delete files' record counts: exact for deletion vectors and file-scoped
    position deletes; a partition-scoped position delete file counts all its rows against each
    file it may apply to, an overestimate that can only make a file look more worth rewriting."""
    with_deletes = set(locations_with_deletes(plan))
    facts = []
    for location in split_locations(str(plan.locations())):
        data_file = plan.dataFile(location)
        deletes = java_items(plan.deletes(location)) if location in with_deletes else []
        rows = int(data_file.recordCount())
        spec = table.specs().get(data_file.specId())
        facts.append(FileFacts(
            location=location,
            partition=f"{data_file.specId()}/{spec.partitionToPath(data_file.partition())}",
            size_bytes=int(data_file.fileSizeInBytes()),
            rows=rows,
            deleted_rows=min(rows, sum(int(d.recordCount()) for d in deletes)),
            delete_files=len(deletes),
            shared_deletes=tuple(delete_file_key(d) for d in deletes if _shared(d)),
        ))
    return facts


def _shared(delete_file: JavaObject) -> bool:
    """Whether a delete file may apply to several data files (a v2 partition-scoped position
    delete file); a deletion vector or a file-scoped position delete file applies to one."""
    return delete_file.referencedDataFile() is None
