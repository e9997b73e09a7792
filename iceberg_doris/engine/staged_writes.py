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

from iceberg_doris.ddl.sql_text import quote_identifier
from iceberg_doris.engine import spark_settings
from iceberg_doris.engine.iceberg_java import IcebergJava, JavaObject, file_format, java_items
from iceberg_doris.engine.spark_runtime import select_sql
from iceberg_doris.engine.table_names import TableName
from iceberg_doris.errors import ConfigurationError
from iceberg_doris.spark_session.spark_lines import running_line

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

STAGE_OPTION = "rewritten-file-scan-task-set-id"
INTERNAL_WRITE_OPTION = "iceberg-doris.internal-write"  # DorisTarget.INTERNAL_WRITE on the JVM side
DISTRIBUTION_OPTION = "distribution-mode"  # Iceberg's per-write override of write.distribution-mode
TABLE_ORDERING_OPTION = "use-table-distribution-and-ordering"  # false: Iceberg adds no sort of its own
FANOUT_OPTION = "fanout-enabled"  # a task keeps a file open per partition: rows need not be grouped by it
FANOUT_MAX_BYTES_CONF = "spark.doris.load.fanoutMaxBytes"
DEFAULT_FANOUT_MAX_BYTES = 512 * 1024 * 1024
DEFAULT_ROW_GROUP_BYTES = 128 * 1024 * 1024  # Iceberg's write.parquet.row-group-size-bytes
LINEAGE_COLUMNS = ("_row_id", "_last_updated_sequence_number")
SMALL_WRITE_MAX_BYTES_CONF = "spark.doris.load.smallWriteMaxBytes"
DEFAULT_SMALL_WRITE_MAX_BYTES = 16 * 1024 * 1024
# Spark sizes a file source by its (compressed) bytes; its rows, by Spark's own row sizes, are
# 2.5-3.3x that in the benchmarks' Parquet batches (1.1M rows: 16-20 MB of files, 48-62 MB of rows).
FILE_BYTES_TO_ROW_BYTES = 3
RENAMED_CONF = "spark.doris.load.hashWriteMaxBytes"  # its name until 2026-11-27

log = logging.getLogger(__name__)


def stage_data_files(
    iceberg: IcebergJava, name: TableName, frame: "DataFrame", *, table: JavaObject | None = None,
    small_in_one_task: bool = True, disjoint_files: bool = False, rows_at_most_of: "DataFrame | None" = None,
    cached_meanwhile: bool = False,
) -> list[JavaObject]:
    """Writes ``frame`` (columns in table order) as uncommitted data files; returns their DataFiles.
    ``table``: the table as the caller already loaded it (else it is loaded here); only its format
    version, identity and partition spec are used, so any recent load serves.
    ``rows_at_most_of``: a frame known to have at least as many rows as ``frame`` (the batch that
    merged rows come from), whose size, scaled to ``frame``'s row width, bounds Spark's estimate of
    ``frame``: Spark estimates a join by the product of its sides (10^18 bytes for a 1% aggregate
    load's merged rows), which made every merge-on-write merge range-distribute its few rows.
    ``cached_meanwhile``: the cached rows ``frame`` reads are being stored by a job running
    meanwhile (a load counting them): they count as only read, the writing tasks waiting for each
    cached partition as that job stores it (a cache not yet filled is otherwise computed again,
    after a shuffle, by whoever writes it).

    How the rows reach the writing tasks, cheapest first; each file is sorted by the table's sort
    order either way:

    - ``small_in_one_task`` (the default) and rows Spark estimates under
      ``spark.doris.load.smallWriteMaxBytes`` (default 16 MiB): one task writes them (one file per
      Iceberg partition), with no shuffle when the rows are only read. Range distribution would
      sample the rows in a job of its own and shuffle them in another: on a 1% upsert into 1M rows
      that is two of the load's Spark jobs.
    - Unless ``disjoint_files`` (a compaction's output: one partition's files hold disjoint ranges),
      rows only read (a load's cached rows, a source's files) into a table partitioned by buckets
      alone (or not at all), read by at least as many tasks as Spark has cores: each reading task
      (coalesced to one per core) sorts and writes its own rows, with no sampling job and no
      shuffle, when that writes at most twice the files range distribution would
      (:func:`unshuffled_writers`). A bucket then gets one file per writing task, the files' key
      ranges overlapping as the segments of one Doris load do. 3M fresh rows into a
      ``bucket(4, k)`` table: 5.62 s against 7.09 s range-distributed (``INSERT INTO`` 5.58 s).
      Each task sorts its rows by the table's sort order alone and a fanout writer keeps a file
      open per bucket (:func:`sorted_for_fanout`), unless the open files would not fit.
    - Otherwise the rows are range-distributed by the sort order, as plain ``INSERT INTO`` a
      sorted Iceberg table does, and one partition's files hold disjoint ranges of it
      (hash-distributing them by partition collides: 3 of a ``bucket(4, k)`` table's 4 buckets
      landed in one task, so one core wrote 75% of a 10M-row load)."""

    if table is None:
        table = iceberg.load_table(name)
    one_task = small_in_one_task and small_write(frame, rows_at_most_of)
    writers = None if one_task or disjoint_files else unshuffled_writers_for(frame, table, cached_meanwhile)
    fanout = False
    if writers is not None:
        frame = frame.coalesce(writers)
        by_sort_order = sorted_for_fanout(frame, table)
        if by_sort_order is not None:
            frame, fanout = by_sort_order, True
    if one_task:
        # Rows that are only read (a load's cached rows, joined with broadcast stored rows) are
        # read by the writing task itself; rows a shuffled join or an aggregate makes are made in
        # parallel and shuffled to it: made in the one task, an aggregate load's merge with its
        # grouped stored rows took 0.2 s longer at 1M rows.
        only_reads = frame.sparkSession.sparkContext._jvm.io.icebergdoris.spark.PlanShapes.onlyReads(frame._jdf, cached_meanwhile)
        frame = frame.coalesce(1) if only_reads else frame.repartition(1)
    if int(table.operations().current().formatVersion()) >= 3:
        # As SQL text: Columns built in Python cost about ten py4j round trips each, on every load.
        frame = select_sql(frame, ["*"] + [f"CAST(NULL AS BIGINT) AS {quote_identifier(c)}" for c in LINEAGE_COLUMNS])
    file_set_id = f"doris-{uuid.uuid4().hex}"
    by_table_cache = running_line().staged_writes_by_table_cache
    try:
        # The DataFrameWriter (v1) route: Iceberg's source resolves the table with the option set,
        # which DataFrameWriterV2 does not (its column check would refuse the lineage columns).
        # Marked as ours: the session extension runs a user's write to a Doris table as a Doris
        # load (jvm/.../DorisStatementRule.java), which this write, part of one, must not become.
        writer = frame.write.format("iceberg").option(INTERNAL_WRITE_OPTION, "true")
        if by_table_cache:
            # Iceberg 1.12 on Spark 4.1: the file-set id names a table registered for the rewrite.
            iceberg.helpers.StagedDataFiles.register(table, file_set_id)
            target = file_set_id
        else:
            writer = writer.option(STAGE_OPTION, file_set_id)
            # Named with its catalog: Spark 4's Iceberg source otherwise first tries the namespace
            # as a catalog name, and logs the failure with a stack trace on every write.
            target = f"{quote_identifier(iceberg.catalog_name)}.{name.sql}"
        if one_task or writers is not None:
            writer = writer.option(DISTRIBUTION_OPTION, "none")
        if fanout:
            writer = writer.option(TABLE_ORDERING_OPTION, "false").option(FANOUT_OPTION, "true")
        writer.mode("append").save(target)
    finally:
        if by_table_cache:
            iceberg.helpers.StagedDataFiles.unregister(file_set_id)
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


def sorted_for_fanout(frame: "DataFrame", table: JavaObject) -> "DataFrame | None":
    """``frame``'s tasks each sorted by the table's sort order alone, to be written by a fanout
    writer (a file open per bucket), or None to let Iceberg sort them itself.

    Iceberg sorts a task's rows by its partition first (``bucket(4, k), k``): with a few buckets
    nearly every comparison ties on the bucket, so Spark's sort compares whole rows (and computes
    the bucket hash again) instead of radix-sorting a key prefix. 10M fresh rows into a
    ``bucket(4, k)`` DUPLICATE KEY table, interleaved: 16.4 s that way, 10.2 s sorted by ``k``
    and written through a fanout writer (``INSERT INTO`` unsorted 12.4 s). Each open file buffers
    up to a Parquet row group, outside Spark's memory accounting (the sort beside it still takes
    its share), so a task's open files must fit ``spark.doris.load.fanoutMaxBytes`` (default 512
    MiB: four buckets of Iceberg's 128 MiB row groups; 10M rows into eight buckets raised the heap's
    peak from 2.6 to 3.2-3.5 GiB, and row groups fill only on larger loads); a sort field with a
    transform other than identity also leaves the sort to Iceberg."""
    buckets = bucket_partitions(table)
    if buckets is None:
        return None
    budget = spark_settings.whole_number(frame.sparkSession, FANOUT_MAX_BYTES_CONF, DEFAULT_FANOUT_MAX_BYTES, "bytes")
    if not fanout_fits(buckets, row_group_bytes(table), budget):
        return None
    order = sort_columns(table)
    if order is None:
        return None
    return frame.sortWithinPartitions(*order) if order else frame


def fanout_fits(buckets: int, row_group: int, budget: int) -> bool:
    """Whether a task writing a file per bucket, each buffering up to one row group, fits ``budget``."""
    return budget > 0 and buckets * row_group <= budget


def row_group_bytes(table: JavaObject) -> int:
    """The table's Parquet row group size (what one open file may buffer)."""
    text = table.properties().get("write.parquet.row-group-size-bytes")
    try:
        return int(text) if text is not None else DEFAULT_ROW_GROUP_BYTES
    except ValueError:
        return DEFAULT_ROW_GROUP_BYTES


def sort_columns(table: JavaObject) -> "list[Column] | None":
    """The table's sort order as Spark sort columns (empty when unsorted), or None when a field
    is not a top-level column in identity order (left to Iceberg's own sort)."""
    from pyspark.sql import functions as F

    struct = table.schema().asStruct()
    columns = []
    for field in table.sortOrder().fields():
        column = struct.field(field.sourceId())  # top-level columns only
        if column is None or not field.transform().isIdentity():
            return None
        spark_column = F.col(quote_identifier(str(column.name())))
        ascending = str(field.direction().name()) == "ASC"
        nulls_first = str(field.nullOrder().name()) == "NULLS_FIRST"
        if ascending:
            columns.append(spark_column.asc_nulls_first() if nulls_first else spark_column.asc_nulls_last())
        else:
            columns.append(spark_column.desc_nulls_first() if nulls_first else spark_column.desc_nulls_last())
    return columns


def unshuffled_writers_for(frame: "DataFrame", table: JavaObject, cached_meanwhile: bool = False) -> int | None:
    """How many tasks write ``frame`` with no shuffle (see :func:`unshuffled_writers`), or None
    to range-distribute it (``cached_meanwhile``: as :func:`stage_data_files`)."""
    buckets = bucket_partitions(table)
    if buckets is None:
        return None
    spark = frame.sparkSession
    tasks = int(spark.sparkContext._jvm.io.icebergdoris.spark.PlanShapes.readTasks(frame._jdf, cached_meanwhile))
    shuffle = int(spark.conf.get("spark.sql.shuffle.partitions"))
    return unshuffled_writers(buckets, tasks, spark.sparkContext.defaultParallelism, shuffle)


def unshuffled_writers(buckets: int, read_tasks: int, cores: int, shuffle_partitions: int) -> int | None:
    """The number of tasks that write rows read by ``read_tasks`` tasks (-1: not only read) into
    ``buckets`` partitions without a shuffle, or None when the rows should be range-distributed:

    - fewer reading tasks than ``cores`` would leave cores idle (range distribution spreads them);
    - the reading tasks are coalesced to one per core, each writing a file per bucket, and that
      must stay within twice the files range distribution writes (about one per shuffle
      partition, plus one per bucket where a range spans two)."""
    if read_tasks < max(1, cores):
        return None
    writers = max(1, cores)
    if writers * buckets > 2 * (shuffle_partitions + buckets):
        return None
    return writers


def bucket_partitions(table: JavaObject) -> int | None:
    """How many partitions the table's spec can put rows in when it partitions by buckets alone
    (1 when unpartitioned), else None (other transforms have no bound known before the write)."""
    count = 1
    for field in table.spec().fields():
        transform = str(field.transform().toString())
        if not transform.startswith("bucket["):
            return None
        count *= int(transform[len("bucket["):-1])
    return count


def small_write(frame: "DataFrame", rows_at_most_of: "DataFrame | None" = None) -> bool:
    """Whether Spark estimates ``frame`` under ``spark.doris.load.smallWriteMaxBytes`` (bounded by
    the size of ``rows_at_most_of`` scaled to ``frame``'s row width, when given); an unknown
    estimate (rows from Python objects) is not small. A frame Spark sizes by the files it reads
    counts FILE_BYTES_TO_ROW_BYTES times their bytes: a 10% upsert's 1.1M rows from 16 MB of
    Parquet were written by one task, 3.0-3.7 s against 2.0 s on two."""
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
        # The plan before optimisation: the write optimises its own plan anyway, and optimising a
        # plan with joins twice showed as ~0.1 s in a profile.
        estimate = size_estimate(frame)
        if rows_at_most_of is not None:
            # Row widths by Spark's default sizes (a string counts 20 bytes), as its own estimates do.
            rows = size_estimate(rows_at_most_of) // max(1, int(rows_at_most_of._jdf.schema().defaultSize()))
            estimate = min(estimate, (rows + 1) * max(1, int(frame._jdf.schema().defaultSize())))
    except Exception:  # no estimate: range-distribute, which is balanced whatever the rows
        return False
    return estimate < limit


def size_estimate(frame: "DataFrame") -> int:
    """Spark's estimate of ``frame``'s bytes, from the plan before optimisation with cached frames
    substituted (a materialised cache reports its real size), in bytes of rows: a frame Spark
    sizes by the files it reads (``PlanShapes.sizedByFiles``) counts FILE_BYTES_TO_ROW_BYTES times
    their compressed bytes."""
    estimate = int(frame._jdf.queryExecution().withCachedData().stats().sizeInBytes())
    shapes = frame.sparkSession.sparkContext._jvm.io.icebergdoris.spark.PlanShapes
    return estimate * FILE_BYTES_TO_ROW_BYTES if shapes.sizedByFiles(frame._jdf) else estimate


def read_staged_files(spark: "SparkSession", files: list[JavaObject], columns: list[tuple[str, str]]) -> "DataFrame":
    """The rows of uncommitted data files (a load's staged rows), read back as ``columns`` (name,
    Spark SQL type) by their names in the files: a load that must look its keys up after writing
    them works from what it wrote, never from a new read of its source."""
    by_format: dict[str, list[str]] = {}
    for data_file in files:
        by_format.setdefault(file_format(data_file).lower(), []).append(str(data_file.location()))
    schema = ", ".join(f"{quote_identifier(name)} {spark_type}" for name, spark_type in columns)
    frames = [spark.read.format(file_format).schema(schema).load(locations) for file_format, locations in by_format.items()]
    if not frames:
        return spark.createDataFrame([], schema)
    rows = frames[0]
    for frame in frames[1:]:
        rows = rows.unionByName(frame)
    return rows
