"""In local mode, files are written without a ``chmod`` process each.

Spark ships no Hadoop native library, so Hadoop's local file system sets the permission of every
file and directory it creates by running ``chmod`` in a new process, and its checksum layer creates
a ``.crc`` file beside each file: a keyed load into a local table started 14 such processes (its
data file, delete file, index entry, manifests, manifest list and table metadata), 2.6 ms each, one
after the other on the thread writing. ``jvm/.../LocalFileSystemWithoutChmod.java`` is Hadoop's
local file system with that one step done by a system call (the same permission); checksums,
umask, renames and listings are Hadoop's own.

Only where one JVM runs every task (``local[...]``): executors of a cluster would need the bridge
jar on their class path before Spark's own files are read. A ``fs.file.impl`` someone set is kept.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from iceberg_doris.spark_session.shuffle_sizing import is_local_cluster

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

LOCAL_FILE_SYSTEM = "io.icebergdoris.hadoop.LocalFileSystemWithoutChmod"
FILE_SYSTEM_SETTING = "fs.file.impl"

log = logging.getLogger(__name__)


def replaces_local_file_system(master: str, chosen: str | None) -> bool:
    """Whether a session on ``master`` whose Hadoop configuration names ``chosen`` (or nothing) for
    ``file:`` gets :data:`LOCAL_FILE_SYSTEM`: in local mode, unless someone chose another."""
    one_jvm = master.startswith("local") and not is_local_cluster(master)
    return one_jvm and chosen in (None, LOCAL_FILE_SYSTEM)


def write_local_files_without_chmod(spark: "SparkSession") -> bool:
    """Makes ``file:`` paths of a local-mode session use :data:`LOCAL_FILE_SYSTEM`; returns whether
    they do. Idempotent."""
    context = spark.sparkContext
    conf = context._jsc.hadoopConfiguration()
    chosen = conf.get(FILE_SYSTEM_SETTING)
    if not replaces_local_file_system(context.master, chosen):
        log.debug("local files keep %s (master %s)", chosen or "Hadoop's own file system", context.master)
        return False
    used = bool(context._jvm.io.icebergdoris.hadoop.LocalFileSystemWithoutChmod.useInThisJvm(conf))
    if not used:
        log.debug("local files keep Hadoop's own file system (its cache could not be reached)")
    return used
