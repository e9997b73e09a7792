"""Starting the driver JVM of a ``local-cluster[N,C,M]`` session the safe way.

A local-cluster master runs Spark's standalone Master and N Workers inside the driver JVM; the
Workers start each executor as a JVM of its own. Unlike ``local[...]``, Spark does not make the
``spark.authenticate`` secret itself for this master: it must be in the SparkConf, and
``spark.authenticate.secret.file`` is accepted on Kubernetes only. So:

- the driver JVM is started first, then :class:`io.icebergdoris.spark.ClusterSecret` makes the
  secret inside it as a system property, which the session's SparkConf loads: it is on no command
  line, in no file, and never crosses py4j. Workers hand it to executors in their environment
  (``_SPARK_AUTH_SECRET``, readable by the owner only); Spark leaves it off their command lines.
- ``SPARK_LOCAL_IP=127.0.0.1`` in the JVM's environment binds the Master's, Workers' and
  executors' listeners (RPC, block managers, web UIs) to loopback; executors inherit it.
- The embedded Workers keep executors' logs and fetched jars in ``$SPARK_HOME/work`` (they ignore
  ``SPARK_WORKER_DIR``), which for a pip-installed PySpark is inside the package, shared and
  world-readable. ``SPARK_HOME`` is therefore a new owner-only folder linking to Spark's ``bin``,
  ``jars`` (and ``conf``, ``python``, ``RELEASE`` where they exist), removed when Python exits.
- The Master's and Workers' web UIs take no authentication and Spark has no switch for them;
  ``spark.ui.filters`` (set by ``spark_conf``) closes them with a filter that answers 403.
"""

from __future__ import annotations

import atexit
import ipaddress
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from iceberg_doris.errors import ConfigurationError
from iceberg_doris.spark_session.shuffle_sizing import is_local_cluster

LOCAL_IP_ENV = "SPARK_LOCAL_IP"
SPARK_HOME_ENV = "SPARK_HOME"
# What spark-submit, the Workers and executors read from SPARK_HOME (not "work": that stays ours).
SPARK_HOME_ENTRIES = ("bin", "jars", "conf", "python", "RELEASE")
SECRET_KEY = "spark.authenticate.secret"
LOOPBACK = "127.0.0.1"


def start_local_cluster_driver(master: str, launch: Mapping[str, str]) -> None:
    """Starts (or checks) this process's driver JVM for ``master`` and gives it the secret.

    ``launch`` are the settings the session starts with; the JVM gets them on its command line, as
    PySpark would give them. Raises :class:`ConfigurationError` when a driver JVM already runs
    (``spark-submit``, a stopped notebook session) without ``SPARK_LOCAL_IP=127.0.0.1``: its
    embedded cluster would listen on the host's network address.
    """
    from pyspark import SparkConf, SparkContext

    if SparkContext._gateway is None and "PYSPARK_GATEWAY_PORT" not in os.environ:
        conf = SparkConf()
        for key, value in launch.items():
            conf.set(key, value)
        conf.setMaster(master)
        with _environment({LOCAL_IP_ENV: LOOPBACK, SPARK_HOME_ENV: _private_spark_home()}):
            SparkContext._ensure_initialized(conf=conf)
    else:
        SparkContext._ensure_initialized()
    jvm = SparkContext._jvm
    local_ip = jvm.java.lang.System.getenv(LOCAL_IP_ENV)
    if not _is_loopback(local_ip):
        raise ConfigurationError(
            f"A local-cluster master cannot start in this process: its Spark driver JVM was started "
            f"before iceberg-doris (spark-submit, or a stopped notebook session) without "
            f"{LOCAL_IP_ENV}=127.0.0.1, so the embedded Master and Workers would listen on the "
            f"host's network address. Export {LOCAL_IP_ENV}=127.0.0.1 before starting it, or call "
            f"iceberg_doris.session(master='{master}') in a new Python process."
        )
    if launch.get("spark.authenticate", "").strip().lower() == "true" and SECRET_KEY not in launch:
        jvm.io.icebergdoris.spark.ClusterSecret.provideIfMissing()


@contextmanager
def _environment(values: Mapping[str, str]) -> Iterator[None]:
    """``values`` in os.environ while the JVM is launched (it copies the environment), then the
    process's own values again: Python code keeps seeing what the user set."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _private_spark_home() -> str:
    from pyspark.find_spark_home import _find_spark_home

    spark_home = Path(_find_spark_home())
    folder = Path(tempfile.mkdtemp(prefix="iceberg-doris-spark-home-"))  # mode 0700
    atexit.register(_stop_and_remove, folder)
    for entry in SPARK_HOME_ENTRIES:
        if (spark_home / entry).exists():
            (folder / entry).symlink_to(spark_home / entry)
    return str(folder)


def _stop_and_remove(folder: Path) -> None:
    """Stops a still-running local-cluster context first: otherwise the JVM's shutdown, after
    Python has exited, stops the Workers, which relaunch executors meanwhile and so recreate
    ``work/`` (with the default, world-readable mode) after the folder was removed."""
    from pyspark import SparkContext

    context = SparkContext._active_spark_context
    if context is not None and is_local_cluster(context.master):
        context.stop()
    shutil.rmtree(folder, ignore_errors=True)


def _is_loopback(address: str | None) -> bool:
    if not address:
        return False
    try:
        return ipaddress.ip_address(address.strip()).is_loopback
    except ValueError:
        return address.strip() == "localhost"
