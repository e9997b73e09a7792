"""The primary-key index of unique- and aggregate-key loads: per data file, its keys sorted with
their row positions and, on tables with a sequence column, each row's sequence value
(``io.icebergdoris.keyindex.KeyIndex`` in Spark's JVM). Loads that merge with the stored rows read
the hit rows' values by position afterwards (:meth:`IndexHits.read_live_rows`, ``KeyIndexRows``).

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
a NULL key is not, and the load falls back to scanning.

Settings (Spark conf, read at each load):

* ``spark.doris.keyIndex.enabled`` (default ``true``): ``false`` always scans.
* ``spark.doris.keyIndex.persist`` (default ``true``): ``false`` keeps entries in executor memory
  only (neither read nor written as files).
* ``spark.doris.keyIndex.maxRows`` (default 50,000,000): cached keys per executor JVM, ~12 bytes
  each (longer encoded keys count as several).
* ``spark.doris.keyIndex.buildOnLoad`` (default ``true``): a keyed load builds and stores the
  entries of the data files it commits (one Spark job reading their key columns, on a JVM thread
  started once the files are written, so it overlaps the load's commit), so the next load, in this session or a new one, reads them instead of building them on
  its own latency path; ``false`` leaves them to the first lookup that needs them.
* ``spark.doris.keyIndex.rowsFromPages`` (default ``true``): loads that merge with stored rows
  decode the hits' values from the data files' Parquet pages (``HitValues``); ``false`` reads
  every hit file through Iceberg's readers instead.
"""

from __future__ import annotations

import json
import logging
import struct
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from pyroaring import BitMap64

from iceberg_doris.engine import spark_settings
from iceberg_doris.engine.file_sets import file_location
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, split_locations

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

ENABLED_CONF = "spark.doris.keyIndex.enabled"
MAX_ROWS_CONF = "spark.doris.keyIndex.maxRows"
PERSIST_CONF = "spark.doris.keyIndex.persist"
BUILD_ON_LOAD_CONF = "spark.doris.keyIndex.buildOnLoad"
DEFAULT_MAX_ROWS = 50_000_000
# Spark types of key columns the index encodes (``KeyCodec``): integers, dates and timestamps,
# strings, decimals (LARGEINT is DECIMAL(38,0)) and booleans.
INDEXABLE_SPARK_TYPES = frozenset({"tinyint", "smallint", "int", "bigint", "date", "timestamp", "timestamp_ntz", "string", "boolean"})
# Sequence columns the index keeps the values of: what Doris allows (integers, DATE, DATETIME).
SEQUENCE_SPARK_TYPES = frozenset({"tinyint", "smallint", "int", "bigint", "date", "timestamp", "timestamp_ntz"})


log = logging.getLogger(__name__)


def enabled(spark: "SparkSession") -> bool:
    return str(spark.conf.get(ENABLED_CONF, "true")).strip().lower() != "false"


def persist(spark: "SparkSession") -> bool:
    return str(spark.conf.get(PERSIST_CONF, "true")).strip().lower() != "false"


def build_on_load(spark: "SparkSession") -> bool:
    return persist(spark) and str(spark.conf.get(BUILD_ON_LOAD_CONF, "true")).strip().lower() != "false"


def indexable_type(spark_type: str) -> bool:
    """Whether the index encodes a key column of this Spark type (``varchar(10)``, ``decimal(9,2)``, ...)."""
    name = spark_type.strip().lower()
    return name in INDEXABLE_SPARK_TYPES or name.startswith(("varchar(", "char(", "decimal("))


def max_rows(spark: "SparkSession") -> int:
    return max(0, spark_settings.whole_number(spark, MAX_ROWS_CONF, DEFAULT_MAX_ROWS, "rows"))


@dataclass(frozen=True)
class BatchKeys:
    """A batch's keys in the driver JVM, sorted: what probes ship to the executors."""

    java: JavaObject

    @property
    def count(self) -> int:
        return int(self.java.count())

    @property
    def has_duplicates(self) -> bool:
        """Whether some key occurs more than once: a probe needs one row per key."""
        return bool(self.java.hasDuplicates())

    def first_column_values(self) -> list[Any]:
        """The first key column's values (dates and timestamps as ISO text)."""
        return _key_values(str(self.java.firstColumnValuesJson()))

    def first_column_range(self) -> list[Any]:
        """[smallest, largest] of the first key column, or [] for no keys."""
        return _key_values(str(self.java.firstColumnRangeJson()))


def _key_values(text: str) -> list[Any]:
    """Key values the JVM sent as JSON (one transfer: iterating a Java list costs a round trip
    per value), decimals as ``{"decimal": "1.50"}``."""
    return [Decimal(v["decimal"]) if isinstance(v, dict) else v for v in json.loads(text)]


def collect_batch_keys(
    iceberg: IcebergJava, table: JavaObject, rows: "DataFrame", key_columns: list[str], sequence_column: str | None
) -> BatchKeys:
    """The batch's keys (the first ``len(key_columns)`` columns of ``rows``), delete flags (the next
    column) and, with ``sequence_column``, sequence values (the one after): one Spark job, the keys
    go to the driver's JVM only."""
    return BatchKeys(_java(iceberg).batchKeys(rows._jdf, table, _joined(key_columns), sequence_column or ""))


def _joined(names: list[str]) -> str:
    return "\n".join(names)


@dataclass(frozen=True)
class IndexHits:
    """Live positions of the batch's keys, per data file that holds some."""

    upserts: dict[str, BitMap64]
    deletes: dict[str, BitMap64]
    probed_files: int
    built_files: int  # entries built from their data file for this probe
    read_files: int  # entries read from their stored files (the rest came from executor caches)
    unindexable: tuple[str, ...]  # files the index cannot cover (a NULL key)
    problems: tuple[str, ...]  # stored entries rejected or not written, one line each
    java: JavaObject  # the lookup: sequence tables read their live rows and stored sequences from it

    def describe(self) -> str:
        """The snapshot summary's ``doris.key-index``: how the keys were found."""
        text = f"probed {self.probed_files} files, built {self.built_files}"
        return text + (f", read {self.read_files}" if self.read_files else "")

    def one_live_row_per_key(self) -> bool:
        """Whether no batch key has two live rows among the probed files (true of a table only
        iceberg-doris writes; a plain INSERT can add a second)."""
        return bool(self.java.oneLiveRowPerKey())

    def live_rows(self, spark: "SparkSession") -> "DataFrame":
        """Sequence tables: the batch keys' live rows (key columns, ``_file``, ``_pos``)."""
        from pyspark.sql import DataFrame

        return DataFrame(self.java.liveRows(), spark)

    def decide_by_sequence(self, spark: "SparkSession") -> "SequenceDecision":
        """Sequence tables, full-row loads: which versions win, decided from the index's own
        sequence values (``KeyIndex.Lookup.decideBySequence``), with no Spark job."""
        from pyspark.sql import DataFrame

        decision = self.java.decideBySequence()
        locations = split_locations(str(decision.locations()))
        bitmaps = _bitmaps(bytes(decision.positions()), 2 * len(locations))
        by_file = {location: up | down for location, up, down in zip(locations, bitmaps[0::2], bitmaps[1::2])}
        losing = decision.losingKeys()
        return SequenceDecision(
            by_file, int(decision.deletedRows()), bool(decision.anyDeleteWins()),
            DataFrame(losing, spark) if losing is not None else None,
        )

    def stored_sequences(self, spark: "SparkSession", column: str) -> "DataFrame":
        """Sequence tables: per batch key, the largest stored sequence value (key columns, ``column``)."""
        from pyspark.sql import DataFrame

        return DataFrame(self.java.storedSequences(column), spark)

    def read_live_rows(self, spark: "SparkSession", table: JavaObject, columns: list[str]) -> "StoredRows":
        """The batch keys' live rows with the stored values of ``columns`` (key columns first),
        read by position from the hit data files on the executors (``KeyIndexRows``): ``columns``,
        then ``_file`` and ``_pos``. The rows are read now (a failure raises here) and kept until
        :meth:`StoredRows.release`."""
        from pyspark.sql import DataFrame

        read = self.java.readLiveRows(table, _joined(columns))
        return StoredRows(DataFrame(read.frame(), spark), int(read.count()), read)

    def read_live_rows_or_none(self, spark: "SparkSession", table: JavaObject, columns: list[str]) -> "StoredRows | None":
        """:meth:`read_live_rows`, or None when the read fails in the JVM (a data file that is
        not Parquet, or holds fewer rows than the index points at): the caller scans instead."""
        from py4j.protocol import Py4JJavaError

        from iceberg_doris.engine.iceberg_java import java_message

        try:
            return self.read_live_rows(spark, table, columns)
        except Py4JJavaError as error:
            log.warning("key index: reading the stored rows by position failed (%s); scanning the keys instead", java_message(error))
            return None


@dataclass
class StoredRows:
    """Stored rows read by position, persisted on the executors until :meth:`release`."""

    frame: "DataFrame"
    count: int
    java: JavaObject
    _released: bool = False

    def broadcastable(self) -> bool:
        """Whether the rows fit Spark's own broadcast limit (``spark.sql.autoBroadcastJoinThreshold``)
        by the estimate Spark makes from a row count (the schema's default width: a string counts
        20 bytes, so a row's data file location is counted short, as in Spark's own estimates).
        Spark cannot tell by itself, as rows read by position carry no size estimate, so a join
        with them would shuffle both sides."""
        try:
            limit = int(self.frame.sparkSession._jsparkSession.sessionState().conf().autoBroadcastJoinThreshold())
            width = max(1, int(self.frame._jdf.schema().defaultSize()))
        except Exception:  # no limit or width to go by: let Spark plan the join
            return False
        return limit > 0 and self.count * width <= limit

    def release(self) -> None:
        if not self._released:
            self._released = True
            self.java.release()


def probe(
    iceberg: IcebergJava, table: JavaObject, plan: JavaObject, key_columns: list[str], sequence_column: str | None, keys: BatchKeys,
    *, for_reading: bool = False,
) -> IndexHits:
    """Probes ``keys`` into the index entries of the data files of ``plan`` (a LiveFiles); the
    positions found are live in the planned snapshot (its delete files applied on the executors).
    ``for_reading``: the hits will be read by position (:meth:`IndexHits.read_live_rows`), so the
    probe keeps the batch key each one matched and the read takes the key columns from it."""
    spark = iceberg.spark
    lookup = _java(iceberg).lookup(
        spark._jsparkSession, table, plan, _joined(key_columns), sequence_column or "", keys.java, max_rows(spark), persist(spark),
        for_reading,
    )
    locations = split_locations(str(lookup.locationsWithHits()))
    bitmaps = _bitmaps(bytes(lookup.positionsOfHits()), 2 * len(locations))
    upserts = dict(zip(locations, bitmaps[0::2]))
    deletes = dict(zip(locations, bitmaps[1::2]))
    problems = tuple(split_locations(str(lookup.problems())))
    for problem in problems:
        log.warning("key index: %s", problem)
    return IndexHits(
        upserts, deletes, int(lookup.probedFiles()), int(lookup.builtFiles()), int(lookup.readFiles()),
        tuple(split_locations(str(lookup.unindexable()))), problems, lookup,
    )


def probe_or_none(
    iceberg: IcebergJava, table: JavaObject, plan: JavaObject, key_columns: list[str], sequence_column: str | None, keys: BatchKeys,
    *, for_reading: bool = False,
) -> IndexHits | None:
    """:func:`probe`, or None when the probe fails in the JVM: the index is an accelerator, so the
    caller looks its keys up another way."""
    from py4j.protocol import Py4JJavaError

    from iceberg_doris.engine.iceberg_java import java_message

    try:
        return probe(iceberg, table, plan, key_columns, sequence_column, keys, for_reading=for_reading)
    except Py4JJavaError as error:
        log.warning("key index lookup failed (%s); scanning the keys instead", java_message(error))
        return None


def _bitmaps(blob: bytes, count: int) -> list[BitMap64]:
    """``count`` bitmaps, each a big-endian int32 length and a portable 64-bit Roaring bitmap."""
    result = []
    offset = 0
    for _ in range(count):
        (size,) = struct.unpack_from(">i", blob, offset)
        offset += 4
        result.append(BitMap64.deserialize(blob[offset:offset + size]))
        offset += size
    if offset != len(blob):
        raise ValueError(f"key index: {len(blob) - offset} unread bytes after {count} bitmaps")
    return result


@dataclass(frozen=True)
class SequenceDecision:
    """Which versions of a sequence table's batch win, decided by the index."""

    replaced: dict[str, BitMap64]  # data file -> live positions the winners replace
    deleted_rows: int  # of those, rows winning deletes remove
    any_delete_wins: bool  # a tombstone is written
    losing_keys: "DataFrame | None"  # key columns of the versions that lose; None: every version wins


@dataclass
class PendingEntries:
    """The key-index entries of a load's new files, being built on a JVM thread of their own
    (:func:`start_indexing`) while the load commits."""

    future: JavaObject
    locations: frozenset[str]
    _finished: bool = False

    def finish(self) -> None:
        """Waits for the entries. Never fails the load: the index is derived data, and a lookup
        builds what is missing; a failure is a warning."""
        from py4j.protocol import Py4JJavaError

        from iceberg_doris.engine.iceberg_java import java_message

        if self._finished:
            return
        self._finished = True
        try:
            problems = str(self.future.get())
        except Py4JJavaError as error:
            log.warning(
                "key index: the entries of the %d new file(s) were not built (%s); a later lookup builds them",
                len(self.locations), java_message(error),
            )
            return
        for problem in split_locations(problems):
            log.warning("key index: %s", problem)


def start_indexing(
    iceberg: IcebergJava, table: JavaObject, files: list[JavaObject], key_columns: list[str], sequence_column: str | None
) -> PendingEntries | None:
    """Starts building, storing and caching the entries of ``files`` (data files a load has
    written) on a JVM thread, so the load's commit runs meanwhile; None for no files."""
    if not files:
        return None
    spark = iceberg.spark
    future = _java(iceberg).indexNewFilesInBackground(
        spark._jsparkSession, table, _java_list(iceberg, files), _joined(key_columns), sequence_column or "", max_rows(spark)
    )
    return PendingEntries(future, frozenset(map(file_location, files)))


def index_new_files(
    iceberg: IcebergJava, table: JavaObject, files: list[JavaObject], key_columns: list[str], sequence_column: str | None
) -> None:
    """Builds, stores and caches the entries of ``files`` (data files a load has just committed)
    and waits for them; see :class:`PendingEntries`."""
    pending = start_indexing(iceberg, table, files, key_columns, sequence_column)
    if pending is not None:
        pending.finish()


def new_files_repeat_keys(
    iceberg: IcebergJava, table: JavaObject, files: list[JavaObject], key_columns: list[str], sequence_column: str | None
) -> str:
    """Indexes ``files`` (a load's new, uncommitted data files) and says whether a key occurs
    more than once among them: ``"distinct"``, ``"repeats"`` or ``"unknown"`` (see
    ``KeyIndex.newFilesRepeatKeys``; a failure in the JVM is ``"unknown"``, with a warning)."""
    from py4j.protocol import Py4JJavaError

    from iceberg_doris.engine.iceberg_java import java_message

    spark = iceberg.spark
    try:
        verdict, *problems = split_locations(str(_java(iceberg).newFilesRepeatKeys(
            spark._jsparkSession, table, _java_list(iceberg, files), _joined(key_columns), sequence_column or "", max_rows(spark)
        )))
    except Py4JJavaError as error:
        log.warning("key index: could not check the new files' keys for repeats (%s)", java_message(error))
        return "unknown"
    for problem in problems:
        log.warning("key index: %s", problem)
    return verdict


def _java_list(iceberg: IcebergJava, items: list[JavaObject]) -> JavaObject:
    java = iceberg.jvm.java.util.ArrayList()
    for item in items:
        java.add(item)
    return java


def cached_rows(iceberg: IcebergJava) -> int:
    """Keys cached by the key index in this (driver) JVM; in local mode, the executors' cache."""
    return int(_java(iceberg).cachedRows())


def clear_cache(iceberg: IcebergJava) -> None:
    """Forgets the key index entries of this (driver) JVM; their stored files stay."""
    _java(iceberg).clear()


def remove_orphan_entries(iceberg: IcebergJava, table: JavaObject, table_sql: str) -> int:
    """Deletes the stored entries of data files no snapshot of the table references any more."""
    referenced = iceberg.spark.sql(f"SELECT file_path, file_size_in_bytes, record_count FROM {table_sql}.all_data_files")
    return int(_java(iceberg).removeOrphanEntries(table, referenced._jdf))


def _java(iceberg: IcebergJava) -> JavaObject:
    """The JVM's ``io.icebergdoris.keyindex.KeyIndex``."""
    return iceberg.jvm.io.icebergdoris.keyindex.KeyIndex
