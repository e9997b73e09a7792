"""The primary-key index of unique- and aggregate-key loads: per data file, its keys sorted with
their row positions and, on tables with a sequence column, each row's sequence value
(``io.icebergdoris.keyindex.KeyIndex`` in Spark's JVM, the index's one entry point: this package
is its only caller, through the typed boundary of :mod:`.wire`). Loads that merge with the stored
rows read the hit rows' values by position afterwards (:meth:`IndexHits.read_live_rows`,
``KeyIndexRows``).

Modules: :mod:`.settings` (the ``spark.doris.keyIndex.*`` settings, the types covered),
:mod:`.wire` (requests and answers), :mod:`.jvm` (the handle on ``KeyIndex``), :mod:`.batch` (a
batch's keys), :mod:`.probe` (lookups and what their hits give), :mod:`.new_files` (a load's new
files indexed while it commits), :mod:`.stored` (caches and stored entries).

A load probes its batch's keys into the index entry of each candidate data file instead of
scanning the table's key columns and joining them. Any key is covered: one column or several
(INT/BIGINT/..., DATE, DATETIME, CHAR/VARCHAR/STRING, DECIMAL and LARGEINT, BOOLEAN), each
encoded order-preservingly and concatenated, as Doris encodes its keys (``KeyCodec``); one
integer-like column is compared as a plain long.

Entries are derived data, one immutable Parquet file per data file under
``<table location>/_doris_key_index/`` (``KeyIndexFiles``: sorted rows of key (a long for one
integer-like column, else the encoded bytes), position and sequence value, named by a hash of the
data file's location, size and record count and of the key layout and entry format). A probe uses the copy in its executor's memory, else reads the stored file, else builds
the entry from the data file and stores it. Data files never change, so an entry can never be
stale; its positions are physical (deleted rows included) and a probe drops those the file's delete
files mark in the looked-up snapshot. A stored entry that fails its checks (checksum, row count,
order, positions) is rebuilt, with a warning. A file written by any engine is covered; a file with
a NULL key is not, and the load falls back to scanning (a table with a key column declared NULL
never uses the index: ``merge_on_write.lookup.keys_not_encodable``).

Settings (Spark conf, read at each load):

* ``spark.doris.keyIndex.enabled`` (default ``true``): ``false`` always scans.
* ``spark.doris.keyIndex.persist`` (default ``true``): ``false`` keeps entries in executor memory
  only (neither read nor written as files).
* ``spark.doris.keyIndex.maxRows`` (default ``auto``: a fifth of each executor JVM's maximum heap):
  cached keys per executor JVM, ~12 bytes each (longer encoded keys count as several).
* ``spark.doris.keyIndex.buildOnLoad`` (default ``true``): a keyed load builds and stores the
  entries of the data files it commits (one Spark job reading their key columns, on a JVM thread
  started once the files are written, so it overlaps the load's commit), so the next load, in this session or a new one, reads them instead of building them on
  its own latency path; ``false`` leaves them to the first lookup that needs them.
* ``spark.doris.keyIndex.rowsFromPages`` (default ``true``): loads that merge with stored rows
  decode the hits' values from the data files' Parquet pages (``HitValues``); ``false`` reads
  every hit file through Iceberg's readers instead.
"""

from iceberg_doris.engine.key_index.batch import BatchKeys, collect_batch_keys
from iceberg_doris.engine.key_index.jvm import session_request
from iceberg_doris.engine.key_index.new_files import PendingEntries, index_new_files, new_files_repeat_keys, start_indexing
from iceberg_doris.engine.key_index.probe import IndexHits, SequenceDecision, StoredRows, probe, probe_or_none
from iceberg_doris.engine.key_index.settings import (
    BUILD_ON_LOAD_CONF,
    AUTO_MAX_ROWS,
    ENABLED_CONF,
    INDEXABLE_SPARK_TYPES,
    MAX_ROWS_CONF,
    PERSIST_CONF,
    ROWS_FROM_PAGES_CONF,
    SEQUENCE_SPARK_TYPES,
    build_on_load,
    enabled,
    indexable_type,
    max_rows,
    persist,
)
from iceberg_doris.engine.key_index.stored import (
    cached_bytes,
    cached_rows,
    clear_cache,
    files_read_from_pages,
    files_with_keys_from_probe,
    remove_orphan_entries,
)

__all__ = [
    "BUILD_ON_LOAD_CONF",
    "AUTO_MAX_ROWS",
    "ENABLED_CONF",
    "INDEXABLE_SPARK_TYPES",
    "MAX_ROWS_CONF",
    "PERSIST_CONF",
    "ROWS_FROM_PAGES_CONF",
    "SEQUENCE_SPARK_TYPES",
    "BatchKeys",
    "IndexHits",
    "PendingEntries",
    "SequenceDecision",
    "StoredRows",
    "build_on_load",
    "cached_bytes",
    "cached_rows",
    "clear_cache",
    "collect_batch_keys",
    "enabled",
    "files_read_from_pages",
    "files_with_keys_from_probe",
    "index_new_files",
    "indexable_type",
    "max_rows",
    "new_files_repeat_keys",
    "persist",
    "probe",
    "probe_or_none",
    "remove_orphan_entries",
    "session_request",
    "start_indexing",
]
