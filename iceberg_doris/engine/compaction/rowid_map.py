"""Rowid conversion: where each row a compaction rewrote now lives, (old file, position) ->
(new file, position), as Doris keeps it to carry delete bitmaps over onto the rowsets it writes.

This module is the scan rewrite's mapping, for files the order-keeping rewrite
(:mod:`.ordered_rewrite`, which needs no pairing) cannot copy; it also owns the mapping folders'
location and lifetime for both.

Spark's Iceberg writer sorts and distributes rows its own way, so the positions cannot be
predicted from the write; they are read back. The rows of the replaced files (read at the
compaction's start snapshot, with ``_file`` and ``_pos``) and the staged new files (read as plain
Parquet, with ``_metadata.file_path`` and ``_metadata.row_index``) are matched on a 96-bit hash of
all columns (``xxhash64`` and ``hash``) plus the row's rank among rows of equal hash (ordered by
old position on one side, new position on the other). Identical rows are interchangeable, so any
one-to-one pairing among them is right. The pairing is complete exactly when it pairs as many rows
as the new files hold (each side's (hash, rank) is unique), which :func:`build_rowid_map` checks.

The mapping can be as large as the rewritten data, so it is never kept in driver memory: it is
written as Parquet under ``<table location>/_doris_compaction/<id>/`` (sorted by old file and
position, so a lookup of a few positions reads few row groups).

Its lifetime: a keyed load that looked its keys up before the compaction committed converts its
deletes of the replaced files through the mapping at its own commit
(:mod:`.past_compactions`), so the mapping outlives the compaction's commit. The compaction
snapshot's summary names the folder (``doris.rowid-map``); it is kept for
:data:`MAPPING_RETENTION_MS` (one hour) after it was written, then removed by the table's next
compaction (:func:`remove_stale_mappings`), or earlier by ``doris.cleanup`` with a younger
``older_than``. A load in flight longer than that finds the mapping gone and looks its keys up
again, which is always correct, only slower. A compaction that fails or crashes leaves a folder no
snapshot names; the same removals take it (Iceberg's orphan removal skips folders whose name
starts with ``_``, so ``doris.cleanup`` counts these with the orphan files).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from py4j.protocol import Py4JJavaError
from pyroaring import BitMap64

from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.engine import interleaving
from iceberg_doris.engine.iceberg_java import JavaObject, file_format
from iceberg_doris.errors import CommitConflictError

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

    from iceberg_doris.engine.table_names import TableName
    from pyspark.sql.types import StructType

log = logging.getLogger(__name__)

MAPPING_FOLDER = "_doris_compaction"
OLD_FILE, OLD_POS, NEW_FILE, NEW_POS = "old_file", "old_pos", "new_file", "new_pos"
# How long a compaction's mapping stays after it was written: loads that looked their keys up
# before the compaction committed and commit within this time convert their deletes through it.
MAPPING_RETENTION_MS = 60 * 60 * 1000


@dataclass(frozen=True)
class RowidMap:
    """A persisted rowid mapping of one compaction."""

    location: str  # the Parquet folder
    rows: int  # rows mapped: every row of the new files

    def convert(self, spark: "SparkSession", deleted: Mapping[str, BitMap64]) -> dict[str, BitMap64]:
        """The new (file -> positions) of the old ``deleted`` (file -> positions). Positions the
        mapping does not hold (rows not live when the compaction read them) are not rewritten rows
        and must not be asked for: :class:`CommitConflictError` if one is missing."""
        converted = self.find(spark, deleted)
        if converted is None:
            # Every position deleted since the start was live then, so the mapping holds it; one
            # missing means the mapping is damaged (its folder removed by hand or by a cleanup
            # with a cutoff younger than the compaction): carrying over part would lose deletes.
            raise mapping_incomplete(self.location)
        return converted

    def find(self, spark: "SparkSession", positions: Mapping[str, BitMap64]) -> dict[str, BitMap64] | None:
        """The new (file -> positions) of the old ``positions`` (file -> positions); None when
        the mapping does not hold every one of them (or its folder is gone)."""
        from pyspark.sql import functions as F
        from pyspark.sql.types import LongType, StringType, StructField, StructType
        from pyspark.errors import AnalysisException

        wanted = [(location, int(pos)) for location, chosen in sorted(positions.items()) for pos in chosen]
        if not wanted:
            return {}
        schema = StructType([StructField(OLD_FILE, StringType(), False), StructField(OLD_POS, LongType(), False)])
        probe = spark.createDataFrame(wanted, schema)
        try:
            mapping = spark.read.parquet(self.location).filter(F.col(OLD_FILE).isin(sorted(positions)))
            found = mapping.join(F.broadcast(probe), [OLD_FILE, OLD_POS]).select(NEW_FILE, NEW_POS).collect()
        except AnalysisException as error:  # the folder is gone (PATH_NOT_FOUND)
            log.info("compaction mapping %s cannot be read: %s", self.location, error)
            return None
        if len(found) != len(wanted):
            return None
        converted: dict[str, BitMap64] = {}
        for new_file, new_pos in found:
            converted.setdefault(new_file, BitMap64()).add(int(new_pos))
        return converted

    def discard(self, spark: "SparkSession") -> None:
        """Removes the mapping's folder (best effort: a leftover is an orphan for cleanup)."""
        try:
            jvm = spark.sparkContext._jvm
            path = jvm.org.apache.hadoop.fs.Path(self.location)
            path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()).delete(path, True)
        except Exception as error:  # noqa: BLE001 - never fail a compaction over its scratch folder
            log.warning("could not remove the compaction mapping %s: %s", self.location, error)


def mapping_incomplete(location: str) -> CommitConflictError:
    """The error of a compaction whose mapping misses a row deleted while it ran."""
    return CommitConflictError(
        f"Cannot compact: its rowid mapping at {location} does not hold every row deleted while it "
        "ran (was the folder removed?); nothing was committed. Run it again."
    )


def new_mapping_location(table: JavaObject) -> str:
    """A new, unique mapping folder of ``table``: ``<table location>/_doris_compaction/<id>``."""
    return f"{str(table.location()).rstrip('/')}/{MAPPING_FOLDER}/{uuid.uuid4().hex}"


def build_rowid_map(
    spark: "SparkSession",
    table: JavaObject,
    old_rows: "DataFrame",
    columns: Sequence[str],
    added: Sequence[JavaObject],
    *,
    keys: Sequence[str] = (),
) -> RowidMap | None:
    """Pairs each row of ``old_rows`` (the live rows of the replaced files: ``columns`` plus
    ``_file`` and ``_pos``) with its place in the new data files ``added``, writes the pairs next
    to the table and returns the mapping. None when the pairing is not complete (a type read back
    differently than it was written): the caller then must not carry deletes over.

    ``keys``: columns expected to identify each live row (a unique or aggregate table's keys).
    They are tried first: only they are read back and hashed, and rows are paired by their hash
    alone, with no ranking. Each side holds the same rows, so that pairing holds exactly as many
    pairs as rows only if no two rows share a hash (a key stored twice by a writer outside
    iceberg-doris, or a collision); otherwise every column is paired as above."""
    expected = sum(int(f.recordCount()) for f in added)
    location = new_mapping_location(table)
    mapping = RowidMap(location, expected)
    if not added:
        return mapping
    if any(file_format(f) != "PARQUET" for f in added):
        # Spark gives a row's position (_metadata.row_index) in Parquet files only.
        log.info("compaction of %s wrote non-Parquet files: no rowid mapping, deletes are not carried over", table.name())
        return None
    names = {str(f.location()).rsplit("/", 1)[-1]: str(f.location()) for f in added}
    if len(names) != len(added):
        return None  # two new files with one name: cannot tell them apart by name
    files = spark.createDataFrame(sorted(names.items()), "name string, " + NEW_FILE + " string")
    if keys:
        if _write_pairs(spark, old_rows, keys, added, files, location, ranked=False) == expected:
            return mapping
        log.info("compaction mapping of %s: the keys do not identify every row; pairing every column", table.name())
        mapping.discard(spark)
    paired = _write_pairs(spark, old_rows, columns, added, files, location, ranked=True)
    if paired != expected:
        log.warning("compaction mapping of %s paired %d of %d rows: deletes are not carried over", table.name(), paired, expected)
        mapping.discard(spark)
        return None
    return mapping


def _write_pairs(
    spark: "SparkSession", old_rows: "DataFrame", columns: Sequence[str], added: Sequence[JavaObject],
    files: "DataFrame", location: str, *, ranked: bool,
) -> int:
    """Writes the pairs of old and new positions matched on ``columns`` (and, ``ranked``, the rank
    among rows of equal hash) to ``location``; returns how many it wrote."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    table_columns = old_rows.select(*[quote_identifier(c) for c in columns])
    hashed = _hash_columns(table_columns.schema, columns)
    old = old_rows.select(
        F.xxhash64(*hashed).alias("h1"), F.hash(*hashed).alias("h2"),
        F.col("_file").alias(OLD_FILE), F.col("_pos").alias(OLD_POS),
    )
    written = spark.read.schema(table_columns.schema).parquet(*[str(f.location()) for f in added])
    new = written.select(
        F.xxhash64(*hashed).alias("h1"), F.hash(*hashed).alias("h2"),
        F.element_at(F.split(F.col("_metadata.file_path"), "/"), -1).alias("name"),
        F.col("_metadata.row_index").alias(NEW_POS),
    ).join(F.broadcast(files), "name").drop("name")
    on = ["h1", "h2"]
    if ranked:
        same_hash = Window.partitionBy("h1", "h2")
        old = old.withColumn("rank", F.row_number().over(same_hash.orderBy(OLD_FILE, OLD_POS)))
        new = new.withColumn("rank", F.row_number().over(same_hash.orderBy(NEW_FILE, NEW_POS)))
        on.append("rank")
    pairs = old.join(new, on).select(OLD_FILE, OLD_POS, NEW_FILE, NEW_POS)
    pairs.repartitionByRange(max(1, len(added) // 8), OLD_FILE, OLD_POS).sortWithinPartitions(OLD_FILE, OLD_POS) \
        .write.mode("errorifexists").parquet(location)
    return spark.read.parquet(location).count()


def _hash_columns(schema: "StructType", columns: Sequence[str]) -> list["Column"]:
    """The columns as hashed: Spark hashes no map, so a column holding one is hashed as JSON."""
    from pyspark.sql import functions as F

    hashed = []
    for field, name in zip(schema.fields, columns):
        column = F.col(quote_identifier(name))
        hashed.append(F.to_json(F.struct(column)) if "map<" in field.dataType.simpleString() else column)
    return hashed


def remove_stale_mappings(spark: "SparkSession", table: JavaObject, cutoff_ms: int, name: "TableName | None" = None) -> int:
    """Removes the mapping folders of ``table`` whose newest file is older than ``cutoff_ms``
    (past their retention, or left by crashed compactions); returns how many files went.

    Other compactions of the table remove folders too (a failed one its own, a finished one the
    stale ones), so a folder listed here may be gone by the time it is walked: it is skipped."""
    jvm = spark.sparkContext._jvm
    root = jvm.org.apache.hadoop.fs.Path(f"{str(table.location()).rstrip('/')}/{MAPPING_FOLDER}")
    fs = root.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    if not fs.exists(root):
        return 0
    folders = fs.listStatus(root)
    if name is not None:
        interleaving.reached(interleaving.MAPPINGS_LISTED, name)
    removed = 0
    for folder in folders:
        try:
            files = fs.listFiles(folder.getPath(), True)
            count, newest = 0, int(folder.getModificationTime())
            while files.hasNext():
                status = files.next()
                count += 1
                newest = max(newest, int(status.getModificationTime()))
            if newest < cutoff_ms and fs.delete(folder.getPath(), True):
                removed += count
        except Py4JJavaError as error:
            if error.java_exception.getClass().getName() != "java.io.FileNotFoundException":
                raise
            log.info("compaction mapping %s was removed meanwhile", folder.getPath().toString())
    return removed
