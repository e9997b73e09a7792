"""Writing data files with Spark without committing them.

Spark writes a DataFrame into a table through Iceberg's writer, with the table's partitioning,
sort order and distribution, but instead of committing a snapshot the write hands its data files
to Iceberg's ``FileRewriteCoordinator`` (the mechanism of Iceberg's own rewrite actions), selected
per write by the option ``rewritten-file-scan-task-set-id``. The caller then publishes the files in
its own single commit, together with delete files and Doris metadata. Nothing is session-wide, so a
concurrent plain Spark write to the same table is never caught up in it, and no extra catalog
commit happens. Files of a write that is never published are orphans for ``doris.cleanup``.

Format v3 tables get the row-lineage columns ``_row_id`` / ``_last_updated_sequence_number`` as
nulls, which the spec reads as "assigned at commit" (the rewrite writer expects them).
"""

from __future__ import annotations

import logging
import uuid
from typing import TYPE_CHECKING

from iceberg_doris.engine import spark_settings
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, java_items
from iceberg_doris.engine.table_names import TableName
from iceberg_doris.errors import ConfigurationError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

STAGE_OPTION = "rewritten-file-scan-task-set-id"
DISTRIBUTION_OPTION = "distribution-mode"  # Iceberg's per-write override of write.distribution-mode
LINEAGE_COLUMNS = ("_row_id", "_last_updated_sequence_number")
SMALL_WRITE_MAX_BYTES_CONF = "spark.doris.load.smallWriteMaxBytes"
DEFAULT_SMALL_WRITE_MAX_BYTES = 16 * 1024 * 1024
RENAMED_CONF = "spark.doris.load.hashWriteMaxBytes"  # its name until 2026-11-27

log = logging.getLogger(__name__)


def stage_data_files(
    iceberg: IcebergJava, name: TableName, frame: "DataFrame", *, table: JavaObject | None = None,
    small_in_one_task: bool = True,
) -> list[JavaObject]:
    """Writes ``frame`` (columns in table order) as uncommitted data files; returns their DataFiles.
    ``table``: the table as the caller already loaded it (else it is loaded here); only its format
    version and identity are used, so any recent load serves.

    ``small_in_one_task`` (the default): when the rows are small (Spark's estimate of ``frame`` under
    ``spark.doris.load.smallWriteMaxBytes``, default 16 MiB), write them in one task (one file per
    Iceberg partition, sorted by the table's sort order), with no shuffle when the rows are only
    read, instead of range-distributing by the sort order, which samples the rows in a job of its
    own and shuffles them in another: on a 1% upsert into 1M rows that is two of the load's Spark
    jobs. Larger writes range-distribute all the same, as plain ``INSERT INTO`` a sorted Iceberg
    table does (hash-distributing them by partition collides: 3 of a ``bucket(4, k)`` table's 4
    buckets landed in one task, so one core wrote 75% of a 10M-row load, 1.54x of ``INSERT INTO``
    against 1.16x range-distributed). Either way each file is sorted, and one partition's files
    hold disjoint ranges of the sort order."""
    from pyspark.sql import functions as F

    if table is None:
        table = iceberg.load_table(name)
    one_task = small_in_one_task and small_write(frame)
    if one_task:
        # Rows that are only read (a load's cached rows) are read by the writing task itself; rows
        # a join or aggregate makes (merged with stored rows) are made in parallel and shuffled
        # to it: made in the one task, an aggregate load's merge took 0.2 s longer at 1M rows.
        only_reads = frame.sparkSession.sparkContext._jvm.io.icebergdoris.spark.PlanShapes.onlyReads(frame._jdf)
        frame = frame.coalesce(1) if only_reads else frame.repartition(1)
    if int(table.operations().current().formatVersion()) >= 3:
        frame = frame.select("*", *[F.lit(None).cast("long").alias(c) for c in LINEAGE_COLUMNS])
    file_set_id = f"doris-{uuid.uuid4().hex}"
    try:
        # The DataFrameWriter (v1) route: Iceberg's source resolves the table with the option set,
        # which DataFrameWriterV2 does not (its column check would refuse the lineage columns).
        writer = frame.write.format("iceberg").option(STAGE_OPTION, file_set_id)
        if one_task:
            writer = writer.option(DISTRIBUTION_OPTION, "none")
        writer.mode("append").save(name.sql)
    finally:
        files = java_items(iceberg.helpers.StagedDataFiles.take(table, file_set_id))
    return files


def discard_staged_files(table: JavaObject, files: list[JavaObject]) -> None:
    """Deletes data files staged by a write that no commit will publish (best effort: a file left
    behind is an orphan for ``doris.cleanup``, never read by anything)."""
    from py4j.protocol import Py4JError

    io = table.io()
    for data_file in files:
        location = str(data_file.location())
        try:
            io.deleteFile(location)
        except Py4JError as error:
            log.warning("could not delete the unpublished data file %s (%s); doris.cleanup removes it", location, error)


def small_write(frame: "DataFrame") -> bool:
    """Whether Spark estimates ``frame`` under ``spark.doris.load.smallWriteMaxBytes``; an unknown
    estimate (rows from Python objects) is not small."""
    if frame.sparkSession.conf.get(RENAMED_CONF, None) is not None:
        # Ignoring it would quietly drop the user's limit.
        raise ConfigurationError(
            f"{RENAMED_CONF} is now called {SMALL_WRITE_MAX_BYTES_CONF} (small writes go to one task instead of "
            f"being hash-distributed): set {SMALL_WRITE_MAX_BYTES_CONF} and unset {RENAMED_CONF}"
        )
    limit = spark_settings.whole_number(frame.sparkSession, SMALL_WRITE_MAX_BYTES_CONF, DEFAULT_SMALL_WRITE_MAX_BYTES, "bytes")
    if limit <= 0:
        return False
    try:
        # The plan before optimisation (with cached frames substituted): the write optimises its
        # own plan anyway, and optimising a plan with joins twice showed as ~0.1 s in a profile.
        estimate = int(frame._jdf.queryExecution().withCachedData().stats().sizeInBytes())
    except Exception:  # no estimate: range-distribute, which is balanced whatever the rows
        return False
    return estimate < limit
