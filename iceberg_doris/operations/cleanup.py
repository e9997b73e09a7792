"""``cleanup``: expire old snapshots and remove files no snapshot references.

Dropped temp partitions, replaced partitions, overwritten rows and unpublished staged loads leave
files that time travel may still need. Once snapshots older than ``older_than`` are expired (the
newest ``retain_last`` kept), their files and any orphan files under the table's location are
deleted. It wraps Iceberg's own actions; ``older_than`` defaults to 24 hours ago because removing
younger orphans can delete the files of a write that is still running. Stored primary-key index
entries (``_doris_key_index/``, which Iceberg's orphan removal skips) of data files no remaining
snapshot references go too, counted with the orphan files, and so do the rowid mappings crashed
compactions left (``_doris_compaction/``). Snapshots the recycle bin still needs (from the parent of
its oldest unexpired entry on, see :mod:`.recycle_bin`) are kept whatever ``older_than`` says, as
Doris keeps a dropped partition for ``catalog_trash_expire_second``.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import TYPE_CHECKING

import dataclasses

from iceberg_doris.engine import key_index
from iceberg_doris.engine.compaction.rowid_map import remove_stale_mappings
from iceberg_doris.engine.iceberg_java import IcebergJava
from iceberg_doris.engine.maintenance import CleanupCounts, expire_and_remove_orphans
from iceberg_doris.operations import recycle_bin
from iceberg_doris.operations.requests import CleanupRequest
from iceberg_doris.operations.tables import open_table

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DEFAULT_AGE = dt.timedelta(hours=24)


def cleanup(spark: "SparkSession", table: str, request: CleanupRequest) -> CleanupCounts:
    """Expires snapshots older than ``request.older_than`` (keeping ``retain_last``) and deletes
    the files nothing references any more."""
    iceberg = IcebergJava(spark)
    cutoff = request.older_than if request.older_than is not None else dt.datetime.now() - DEFAULT_AGE
    name = iceberg.name(table)
    handle = open_table(spark, table)
    keep_from = recycle_bin.oldest_needed_ms(handle.table, handle.model, int(time.time() * 1000))
    counts = expire_and_remove_orphans(
        iceberg, name, cutoff_ms=int(cutoff.timestamp() * 1000), retain_last=int(request.retain_last), keep_from_ms=keep_from
    )
    loaded = iceberg.load_table(name)
    entries = key_index.remove_orphan_entries(iceberg, loaded, name.sql)
    entries += remove_stale_mappings(spark, loaded, int(cutoff.timestamp() * 1000))
    return dataclasses.replace(counts, deleted_orphan_files=counts.deleted_orphan_files + entries)
