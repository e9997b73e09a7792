"""``iceberg_doris.session()``: a SparkSession wired for iceberg-doris, built once per process.

The settings it starts Spark with are :func:`iceberg_doris.spark_conf`
(:mod:`iceberg_doris.spark_session.builder`); once Spark runs, :func:`iceberg_doris.install`
(:mod:`.bridge`) registers ``CALL doris.*`` and the ``doris`` format.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING

from iceberg_doris.entry.bridge import install
from iceberg_doris.errors import ConfigurationError
from iceberg_doris.lake.settings import CatalogSettings
from iceberg_doris.operations.progress import show_progress
from iceberg_doris.spark_session.builder import resolve_master, spark_conf
from iceberg_doris.spark_session.secrets import split_secret_settings, supply_secret_settings
from iceberg_doris.spark_session.shuffle_sizing import is_local_cluster
from iceberg_doris.spark_session.spark_lines import running_line

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

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
        install(spark, settings)
        supply_secret_settings(spark, secrets)  # conf's own secret settings, after ours: conf wins
        _active_settings = settings
        return spark


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
