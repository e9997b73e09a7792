"""Every key iceberg-doris writes into an Iceberg snapshot summary, in one place.

The summary is how a snapshot says which Doris operation made it: the load's label (what makes a
label usable once), row counts, how a merge-on-write load found its keys. Readers query them with
``SELECT summary['doris.label'] FROM db.t.snapshots``. Nothing else spells these keys out.
"""

from __future__ import annotations

LABEL = "doris.label"  # a load's exactly-once label
OPERATION = "doris.operation"  # the Doris operation: load, insert_overwrite, compact, ...
LOADED_ROWS = "doris.loaded-rows"
FILTERED_ROWS = "doris.filtered-rows"
UNSELECTED_ROWS = "doris.unselected-rows"
DELETED_ROWS = "doris.deleted-rows"  # live rows a MERGE/DELETE load removed
OVERWRITTEN_PARTITIONS = "doris.overwritten-partitions"  # names, or ALL_PARTITIONS
ALL_PARTITIONS = "*all*"
PARTITIONS = "doris.partitions"  # the partitions a partition operation changed
TEMP_PARTITIONS = "doris.temp-partitions"  # the temp partitions a swap/replace moved
LOOKUPS = "doris.lookups"  # how many times a keyed load looked its keys up (2: the table changed)
KEY_INDEX = "doris.key-index"  # "probed N files, built M[, read K][, R rows read by position]", or "scan: <why>" (absent: index off or nothing to look up)
DROPPED_PARTITION = "doris.dropped-partition"  # older drops: the dropped partition's definition (JSON), for recover
RECYCLED_PARTITIONS = "doris.recycled-partitions"  # the recycle bin: definitions (JSON) of the partitions a drop, truncate or overwrite emptied
RECOVERED_FROM = "doris.recovered-from"  # the snapshot (recycle-bin entry) a recover_partition brought back
RECOVERED_PARTITION = "doris.recovered-partition"  # the name that entry's partition had
CARRIED_DELETES = "doris.carried-deletes"  # rows a compaction deleted in its new files: deleted by commits made while it ran
MERGE_TARGET = "doris.merge-target"  # what a MERGE INTO joined its source to: "key index: <how>" (the stored rows of the source's keys) or "scan: <why>" (the whole table)
KEY_LOOKUP = "doris.key-lookup"  # "none: ..." when no live file could hold a keyed load's keys
ROWID_MAP = "doris.rowid-map"  # a compaction's rowid mapping folder, kept for loads that looked up before it (engine.compaction.rowid_map)
PAST_COMPACTIONS = "doris.past-compactions"  # compactions a keyed load's deletes were converted through instead of a second lookup
STREAM = "doris.stream"  # the stream (doris.stream_to) whose micro-batch a load committed
STREAM_BATCH = "doris.stream-batch"  # that micro-batch's id (Spark's batch id)

KEYS_CHECKED = "doris.keys-checked"  # the snapshot of main up to which commits not made by iceberg-doris were checked for repeated keys
REPAIRED_KEYS = "doris.repaired-keys"  # keys a repair of writes outside iceberg-doris left with one live row again
