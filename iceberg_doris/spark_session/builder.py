"""The settings a SparkSession for iceberg-doris starts with (:func:`iceberg_doris.spark_conf`):
Iceberg runtime, SQL extensions, the ``doris`` procedure catalog, and the Iceberg catalog as the
session's default catalog (so ``db.tbl`` names work). :func:`iceberg_doris.session` (in
:mod:`iceberg_doris.entry.session`) starts Spark with them."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from iceberg_doris.lake.settings import CatalogSettings
from iceberg_doris.spark_session.catalog_conf import spark_catalog_conf
from iceberg_doris.spark_session.running_jvm import prepare_driver_jvm
from iceberg_doris.spark_session.runtime_jars import RuntimeJars, listed, resolve_runtime_jars
from iceberg_doris.spark_session.s3_conf import s3_jars, s3_spark_conf
from iceberg_doris.spark_session.shuffle_sizing import is_local_cluster
from iceberg_doris.spark_session.spark_lines import running_line

DORIS_PROCEDURE_CATALOG = "io.icebergdoris.spark.DorisProcedureCatalog"
MASTER_ENV = "ICEBERG_DORIS_SPARK_MASTER"
DEFAULT_MASTER = "local[*]"
LOG4J_CONFIG = Path(__file__).resolve().parent / "log4j2.properties"
LOOPBACK = "127.0.0.1"
CLOSED_WEB_UI_FILTER = "io.icebergdoris.spark.ClosedWebUi"
# HotSpot never compiles a method over 8,000 bytes of bytecode (DontCompileHugeMethods), and a
# load's whole-stage generated code (conversions, Doris's checks, routing, one method per stage)
# is over that on any table of a dozen columns: it ran interpreted. JIT-compiled, the prepared rows
# of TPC-H's lineitem.tbl took 0.18 s of CPU instead of 0.6 s (Spark's own CSV reader: 0.21 s).
# Spark's docs name the same limit (spark.sql.codegen.hugeMethodLimit).
JIT_OPTIONS = ("-XX:-DontCompileHugeMethods",)


def spark_conf(
    settings: CatalogSettings, *, master: str | None = None, conf: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Every Spark setting :func:`session` applies, for ``spark-submit`` users who build their own.

    The catalog password is not among them (it would be on the driver's command line): pass the
    same ``settings`` to :func:`iceberg_doris.install` once the session exists. A local master
    binds the driver to 127.0.0.1 and turns on ``spark.authenticate``; a cluster master keeps
    Spark's defaults (executors must reach the driver), so secure that network with Spark's own
    ``spark.authenticate`` and TLS settings. ``local-cluster`` needs a secret no launch setting can
    carry safely: only :func:`session` starts it. ``spark.sql.shuffle.partitions`` is not among
    these settings: :func:`iceberg_doris.install` sizes it once the session runs, unless it is set.

    If this process already runs a driver JVM (``spark-submit job.py``, or a notebook whose
    session was stopped), the jars cannot reach it through ``spark.jars`` any more: they are added
    to its class loader here, so call this before building the session.
    """
    line = running_line()
    runtime = resolve_runtime_jars(conf, line)
    s3 = s3_jars(line) if settings.s3 is not None else None
    if s3 is not None:
        # An s3:// warehouse: S3FileIO and s3a, whose jars only such sessions download.
        runtime = RuntimeJars(runtime.jars, runtime.packages + s3.packages)
    late_properties = {"iceberg.scan.plan-in-worker-pool": "false"}
    prepare_driver_jvm(runtime, late_properties, conf or {})
    java_options = [
        f"-Dlog4j2.configurationFile={LOG4J_CONFIG.as_uri()}",
        # Iceberg's parallel scan planning (ParallelIterable) waits for its workers in 10 ms sleeps:
        # a load's plan of ~20 small manifests took 0.21 s that way and 0.07 s read in order
        # (JFR, 100-batch CDC stream). Many manifests on object storage may want it back (docs/sessions-and-catalogs.md).
        "-Diceberg.scan.plan-in-worker-pool=false",
    ] + list(JIT_OPTIONS)
    result = {
        "spark.sql.extensions": ",".join(line.sql_extensions),
        "spark.sql.catalog.doris": DORIS_PROCEDURE_CATALOG,
        "spark.sql.defaultCatalog": settings.name,
        "spark.driver.extraJavaOptions": " ".join(java_options),
        "spark.executor.extraJavaOptions": " ".join(JIT_OPTIONS),
        "spark.ui.enabled": "false",
        # Spark's progress bar for a person at a terminal; logs and pipes stay free of it.
        "spark.ui.showConsoleProgress": "true" if _stderr_is_terminal() else "false",
        "spark.sql.session.timeZone": "UTC",
    }
    resolved_master = resolve_master(master)
    # spark.sql.shuffle.partitions is not set here: it is sized once the session runs (see
    # shuffle_sizing), so a value from spark-defaults.conf or --conf is not overridden.
    if resolved_master.startswith("local"):
        # Nothing outside this machine needs the driver's RPC or block manager (which follows the
        # bind address) in local mode; by default they listen on the host's network address.
        result["spark.driver.bindAddress"] = LOOPBACK
        result["spark.driver.host"] = LOOPBACK
        # Loopback still admits every local user: make the RPC and block transfers authenticate.
        # In local mode Spark makes the secret itself, in memory (never on a command line); for
        # local-cluster, session() makes it inside the driver JVM (local_cluster.py).
        result["spark.authenticate"] = "true"
    if is_local_cluster(resolved_master):
        # The embedded standalone Master and Workers start web UIs Spark cannot turn off.
        result["spark.ui.filters"] = CLOSED_WEB_UI_FILTER
    elif resolved_master.startswith("local"):
        memory = local_driver_memory()
        if memory is not None:
            result["spark.driver.memory"] = memory
    result.update(spark_catalog_conf(settings))
    if settings.s3 is not None:
        result.update(s3_spark_conf(settings.name, settings.s3))
    result.update(conf or {})
    if s3 is not None and s3.excludes:
        result["spark.jars.excludes"] = _joined((conf or {}).get("spark.jars.excludes", ""), *s3.excludes)
    # The jar and package lists are merged, not overridden: the user's own come first.
    jars = [str(j) for j in runtime.jars]
    packages_of_ours = runtime.packages
    if is_local_cluster(resolved_master):
        # A local-cluster's executors fail to deserialize a load's tasks when the Iceberg runtime
        # reaches them as a package (a ClassCastException of a SerializedLambda; as jars they run):
        # the packages are resolved to their files here, by Spark's Ivy code, and listed as jars.
        from iceberg_doris.spark_session.prefetch import package_files

        jars += [str(f) for f in package_files(packages_of_ours, result)]  # with our spark.jars.excludes
        packages_of_ours = ()
    result["spark.jars"] = _joined((conf or {}).get("spark.jars", ""), *jars)
    packages = _joined((conf or {}).get("spark.jars.packages", ""), *packages_of_ours)
    if packages:
        result["spark.jars.packages"] = packages
    return result


def _joined(*entries: str) -> str:
    """One comma-separated Spark list of every entry's items, each once, in order."""
    return ",".join(dict.fromkeys(item for entry in entries for item in listed(entry)))


def resolve_master(master: str | None = None) -> str:
    """The master a session uses: ``master``, else ``$ICEBERG_DORIS_SPARK_MASTER``, else ``local[*]``."""
    return master or os.environ.get(MASTER_ENV, DEFAULT_MASTER)


def _stderr_is_terminal() -> bool:
    try:
        return os.isatty(sys.stderr.fileno())
    except (AttributeError, OSError, ValueError):  # replaced or closed stderr (notebooks, daemons)
        return False


# In local mode the driver JVM is every executor too: Spark's default heap (1 GiB) spills and
# collects garbage through a load of a million rows. A quarter of the machine's memory, within
# these bounds, leaves room for the Python process and other programs.
DRIVER_MEMORY_SHARE = 4
DRIVER_MEMORY_MIN_MIB = 1024
DRIVER_MEMORY_MAX_MIB = 8192
DRIVER_MEMORY_ENV = "SPARK_DRIVER_MEMORY"


def local_driver_memory(total_bytes: int | None = None) -> str | None:
    """The driver heap a local session gets (``spark.driver.memory``): a quarter of the machine's
    memory, at least 1 GiB and at most 8 GiB; None (Spark's own default) when the memory cannot be
    read or ``$SPARK_DRIVER_MEMORY`` chooses it. ``conf={"spark.driver.memory": ...}`` wins."""
    if os.environ.get(DRIVER_MEMORY_ENV):
        return None
    if total_bytes is None:
        try:
            total_bytes = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            return None
    mib = total_bytes // (1024 * 1024) // DRIVER_MEMORY_SHARE
    return f"{max(DRIVER_MEMORY_MIN_MIB, min(DRIVER_MEMORY_MAX_MIB, mib))}m"
