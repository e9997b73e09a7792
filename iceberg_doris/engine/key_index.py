"""The primary-key index of unique-key loads: per data file, its keys sorted with their row
positions (``io.icebergdoris.iceberg.KeyIndex`` in Spark's JVM).

A load probes its batch's keys into the index of each candidate data file instead of scanning the
table's key column and joining it. Entries are derived data, built from a file the first time a
probe needs it and kept in the memory of the executor that built it (least recently used first
out beyond ``spark.doris.keyIndex.maxRows`` rows per executor). Data files never change, so an
entry can never be stale; its positions are physical (deleted rows included) and a probe drops
those the file's delete files mark in the looked-up snapshot. A file written by any engine is covered;
a file with a NULL key is not, and the load falls back to scanning.

Settings (Spark conf, read at each load):

* ``spark.doris.keyIndex.enabled`` (default ``true``): ``false`` always scans.
* ``spark.doris.keyIndex.maxRows`` (default 50,000,000): cached keys per executor JVM, ~12 bytes
  each.
"""

from __future__ import annotations

import logging
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyroaring import BitMap64

from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, split_locations

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

ENABLED_CONF = "spark.doris.keyIndex.enabled"
MAX_ROWS_CONF = "spark.doris.keyIndex.maxRows"
DEFAULT_MAX_ROWS = 50_000_000
# Doris key types whose Iceberg type is int or long: what the index stores.
INDEXABLE_SPARK_TYPES = frozenset({"tinyint", "smallint", "int", "bigint"})


log = logging.getLogger(__name__)


def enabled(spark: "SparkSession") -> bool:
    return str(spark.conf.get(ENABLED_CONF, "true")).strip().lower() != "false"


def max_rows(spark: "SparkSession") -> int:
    value = str(spark.conf.get(MAX_ROWS_CONF, str(DEFAULT_MAX_ROWS))).strip()
    try:
        return max(0, int(value))
    except ValueError:
        from iceberg_doris.errors import DorisError

        raise DorisError(f"{MAX_ROWS_CONF} must be a whole number of rows, not {value!r}") from None


@dataclass(frozen=True)
class BatchKeys:
    """A batch's keys in the driver JVM, sorted: what probes ship to the executors."""

    java: JavaObject

    @property
    def count(self) -> int:
        return int(self.java.count())

    @property
    def low(self) -> int:
        return int(self.java.min())

    @property
    def high(self) -> int:
        return int(self.java.max())

    @property
    def has_duplicates(self) -> bool:
        """Whether some key occurs more than once: a probe needs one row per key."""
        return bool(self.java.hasDuplicates())

    def values(self) -> list[int]:
        joined = str(self.java.joined())
        return [int(v) for v in joined.split(",")] if joined else []


def collect_batch_keys(iceberg: IcebergJava, keys_and_deletes: "DataFrame") -> BatchKeys:
    """The batch's keys (first column, integral) with their delete flags (second column): one
    Spark job, the keys go to the driver's JVM only."""
    return BatchKeys(iceberg.helpers.KeyIndex.batchKeys(keys_and_deletes._jdf))


@dataclass(frozen=True)
class IndexHits:
    """Live positions of the batch's keys, per data file that holds some."""

    upserts: dict[str, BitMap64]
    deletes: dict[str, BitMap64]
    probed_files: int
    built_files: int  # entries built for this probe (the rest came from executor caches)
    unindexable: tuple[str, ...]  # files the index cannot cover (a NULL key)


def probe(iceberg: IcebergJava, table: JavaObject, plan: JavaObject, key_column: str, keys: BatchKeys) -> IndexHits:
    """Probes ``keys`` into the index entries of the data files of ``plan`` (a LiveFiles); the
    positions found are live in the planned snapshot (its delete files applied on the executors)."""
    spark = iceberg.spark
    lookup = iceberg.helpers.KeyIndex.lookup(spark._jsparkSession, table, plan, key_column, keys.java, max_rows(spark))
    locations = split_locations(str(lookup.locationsWithHits()))
    bitmaps = _bitmaps(bytes(lookup.positionsOfHits()), 2 * len(locations))
    upserts = dict(zip(locations, bitmaps[0::2]))
    deletes = dict(zip(locations, bitmaps[1::2]))
    return IndexHits(
        upserts, deletes, int(lookup.probedFiles()), int(lookup.builtFiles()), tuple(split_locations(str(lookup.unindexable())))
    )


def probe_or_none(
    iceberg: IcebergJava, table: JavaObject, plan: JavaObject, key_column: str, keys: BatchKeys
) -> IndexHits | None:
    """:func:`probe`, or None when the probe fails in the JVM: the index is an accelerator, so the
    caller looks its keys up another way."""
    from py4j.protocol import Py4JJavaError

    from iceberg_doris.engine.iceberg_java import java_message

    try:
        return probe(iceberg, table, plan, key_column, keys)
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


def cached_rows(iceberg: IcebergJava) -> int:
    """Keys cached by the key index in this (driver) JVM; in local mode, the executors' cache."""
    return int(iceberg.helpers.KeyIndex.cachedRows())


def clear_cache(iceberg: IcebergJava) -> None:
    """Forgets the key index entries of this (driver) JVM."""
    iceberg.helpers.KeyIndex.clear()
