"""The SparkSession iceberg-doris runs on: Iceberg runtime, SQL extensions, our ``CALL doris.*``
bridge, and the Iceberg catalog as the session's default catalog (so ``db.tbl`` names work)."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from iceberg_doris.catalog.settings import CatalogSettings
from iceberg_doris.errors import ConfigurationError
from iceberg_doris.operations.progress import show_progress
from iceberg_doris.spark_session.catalog_conf import spark_catalog_conf
from iceberg_doris.spark_session.running_jvm import prepare_driver_jvm
from iceberg_doris.spark_session.runtime_jars import listed, resolve_runtime_jars
from iceberg_doris.spark_session.secrets import split_secret_settings, supply_secret_settings
from iceberg_doris.spark_session.shuffle_sizing import is_local_cluster
from iceberg_doris.spark_session.spark_lines import running_line

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DORIS_PROCEDURE_CATALOG = "io.icebergdoris.spark.DorisProcedureCatalog"
MASTER_ENV = "ICEBERG_DORIS_SPARK_MASTER"
DEFAULT_MASTER = "local[*]"
LOG4J_CONFIG = Path(__file__).resolve().parent / "log4j2.properties"
LOOPBACK = "127.0.0.1"
CLOSED_WEB_UI_FILTER = "io.icebergdoris.spark.ClosedWebUi"

_lock = threading.Lock()
_active_settings: CatalogSettings | None = None


def session(
    *,
    home: str | os.PathLike[str] | None = None,
    catalog_uri: str | None = None,
    warehouse: str | os.PathLike[str] | None = None,
    master: str | None = None,
    conf: Mapping[str, str] | None = None,
    catalog_password_file: str | os.PathLike[str] | None = None,
    progress: bool = True,
) -> "SparkSession":
    """Returns a SparkSession wired for iceberg-doris.

    With no arguments it uses the embedded default: a SQLite catalog file and a local warehouse
    under one home folder (``home``, else ``$ICEBERG_DORIS_HOME``, else ``~/.iceberg-doris``).

    Args:
        home: folder for the embedded catalog and warehouse.
        catalog_uri: ``sqlite:////path/catalog.db`` or ``postgresql://user:pw@host:5432/db``
            (default ``$ICEBERG_DORIS_CATALOG_URI``, else the embedded SQLite file).
        warehouse: any URI Iceberg can write (``file:///...``, ``s3://...``) or a local path
            (default ``$ICEBERG_DORIS_WAREHOUSE``, else ``<home>/warehouse``).
        master: Spark master URL (default ``$ICEBERG_DORIS_SPARK_MASTER``, else ``local[*]``).
        conf: extra Spark settings; they win over ours.
        catalog_password_file: file whose first line is the PostgreSQL password, when
            ``catalog_uri`` carries none (default ``$ICEBERG_DORIS_CATALOG_PASSWORD_FILE``, then
            ``$PGPASSWORD``, then ``~/.pgpass``).
        progress: show the phases of long work (loads, overwrites, deletes, compactions) on
            stderr, with row counts and elapsed time (:mod:`iceberg_doris.operations.progress`);
            False turns them off. Once the application configures logging, they go to its
            handlers instead.

    A local master (``local[*]``) binds every Spark listener to 127.0.0.1 and makes them
    authenticate (``spark.authenticate``, with a secret Spark keeps in memory). A
    ``local-cluster[N,C,M]`` master gets the same, its secret made inside the driver JVM and its
    embedded Master, Workers and executors on loopback (:mod:`iceberg_doris.spark_session.local_cluster`).
    ``spark.sql.shuffle.partitions`` is sized for the master's cores unless set
    (:mod:`iceberg_doris.spark_session.shuffle_sizing`). Secret catalog
    settings (the catalog password, ``spark.sql.catalog.*`` keys naming a secret, password, token
    or access key) are handed to the driver after it starts, never on its command line.

    One Spark driver runs per Python process: calling this again with the same settings returns
    the running session; different settings raise :class:`ConfigurationError`.

    Example:
        >>> import iceberg_doris
        >>> spark = iceberg_doris.session()                            # doctest: +SKIP
        >>> spark.sql("CALL doris.help()").show(100, truncate=False)   # doctest: +SKIP
    """
    global _active_settings
    from pyspark.sql import SparkSession

    settings = CatalogSettings.resolve(
        home=home, catalog_uri=catalog_uri, warehouse=warehouse, catalog_password_file=catalog_password_file
    )
    show_progress(progress)
    with _lock:
        running = SparkSession.getActiveSession()
        if running is not None and _active_settings is not None:
            if settings != _active_settings:
                raise ConfigurationError(
                    "A Spark session for another catalog is already running in this process "
                    f"({_active_settings.display_uri}); Spark allows one per process. "
                    "Call spark.stop() first, or reuse the running session."
                )
            _apply_runtime_conf(running, conf)
            return running
        resolved_master = resolve_master(master)
        builder = SparkSession.builder.appName("iceberg-doris").master(resolved_master)
        launch, secrets = split_secret_settings(spark_conf(settings, master=master, conf=conf))
        if is_local_cluster(resolved_master):
            from iceberg_doris.spark_session.local_cluster import start_local_cluster_driver

            start_local_cluster_driver(resolved_master, launch)
        for key, value in launch.items():
            builder = builder.config(key, value)
        spark = builder.getOrCreate()
        _check_static_conf(spark)
        from iceberg_doris.spark_session.bridge import install

        install(spark, settings)
        supply_secret_settings(spark, secrets)  # conf's own secret settings, after ours: conf wins
        _active_settings = settings
        return spark


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
    late_properties = {"iceberg.scan.plan-in-worker-pool": "false"}
    prepare_driver_jvm(runtime, late_properties, conf or {})
    java_options = [
        f"-Dlog4j2.configurationFile={LOG4J_CONFIG.as_uri()}",
        # Iceberg's parallel scan planning (ParallelIterable) waits for its workers in 10 ms sleeps:
        # a load's plan of ~20 small manifests took 0.21 s that way and 0.07 s read in order
        # (JFR, 100-batch CDC stream). Many manifests on object storage may want it back (docs/sessions-and-catalogs.md).
        "-Diceberg.scan.plan-in-worker-pool=false",
    ]
    result = {
        "spark.sql.extensions": ",".join(line.sql_extensions),
        "spark.sql.catalog.doris": DORIS_PROCEDURE_CATALOG,
        "spark.sql.defaultCatalog": settings.name,
        "spark.driver.extraJavaOptions": " ".join(java_options),
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
    result.update(conf or {})
    # The jar and package lists are merged, not overridden: the user's own come first.
    jars = [str(j) for j in runtime.jars]
    packages_of_ours = runtime.packages
    if is_local_cluster(resolved_master):
        # A local-cluster's executors fail to deserialize a load's tasks when the Iceberg runtime
        # reaches them as a package (a ClassCastException of a SerializedLambda; as jars they run):
        # the packages are resolved to their files here, by Spark's Ivy code, and listed as jars.
        from iceberg_doris.spark_session.prefetch import package_files

        jars += [str(f) for f in package_files(packages_of_ours, conf or {})]
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


def _apply_runtime_conf(spark: "SparkSession", conf: Mapping[str, str] | None) -> None:
    public, secrets = split_secret_settings(conf or {})
    for key, value in public.items():
        spark.conf.set(key, value)
    supply_secret_settings(spark, secrets)


def _check_static_conf(spark: "SparkSession") -> None:
    extensions = spark.sparkContext.getConf().get("spark.sql.extensions", "")
    if not all(extension in extensions for extension in running_line().sql_extensions):
        raise ConfigurationError(
            "A SparkContext without the iceberg-doris extensions was already running in this "
            "process, so CALL doris.* cannot work on it. Stop it (spark.stop()) before calling "
            "iceberg_doris.session(), or start your own session with iceberg_doris.spark_conf()."
        )
