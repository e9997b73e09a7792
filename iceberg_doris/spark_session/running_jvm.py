"""Our jars in a Spark driver JVM that was started without them.

PySpark normally starts the driver JVM itself, with ``spark.jars`` on its command line, and then
the jars are on its classpath. Two ways into a session start the JVM first:

- ``spark-submit job.py``: spark-submit launches the JVM, then runs the job, whose session
  settings come too late for the JVM's classpath;
- a notebook or ``pyspark`` shell whose session was stopped: the next session reuses the JVM.

There the classes of ``spark.sql.extensions`` are not found, Spark skips the extension with a
warning, and py4j answers ``'JavaPackage' object is not callable``. Both JVMs load the user's
classes through Spark's ``MutableURLClassLoader`` (the context class loader of every py4j thread),
which takes more jars while it runs: we add ours there before the session is created. The Maven
packages are resolved there the way ``spark-submit --packages`` resolves them (Spark's own Ivy
resolution, the same cache and ``spark.jars.repositories``), then added as jars.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from iceberg_doris.errors import SetupError
from iceberg_doris.spark_session.runtime_jars import listed

if TYPE_CHECKING:
    from iceberg_doris.spark_session.runtime_jars import RuntimeJars

BRIDGE_CLASS = "io.icebergdoris.spark.DorisProcedureCatalog"
JDBC_DRIVER_CLASSES = ("org.sqlite.JDBC", "org.postgresql.Driver")
GATEWAY_PORT_ENV = "PYSPARK_GATEWAY_PORT"  # set by spark-submit for the Python job it runs


def prepare_driver_jvm(runtime: "RuntimeJars", system_properties: dict[str, str], conf: Mapping[str, str]) -> None:
    """Makes the runtime's jars and packages loadable in this process's driver JVM if one is
    already running (``conf``: the user's settings, for ``spark.jars.repositories`` and ``spark.jars.ivy``).

    Does nothing when PySpark has yet to start the JVM (it then starts it with ``spark.jars``).
    ``system_properties`` are the ``-D`` options the session would have put on the JVM's
    command line that still take effect when set later.
    """
    from pyspark import SparkContext

    if SparkContext._gateway is None and GATEWAY_PORT_ENV not in os.environ:
        return
    SparkContext._ensure_initialized()  # connects to the running JVM; starts nothing new
    jvm = SparkContext._jvm
    add_jars(jvm, runtime, conf)
    for key, value in system_properties.items():
        if jvm.java.lang.System.getProperty(key) is None:
            jvm.java.lang.System.setProperty(key, value)


def add_jars(jvm: Any, runtime: "RuntimeJars", conf: Mapping[str, str]) -> None:
    """Adds the jars to the running JVM's user class loader, unless its classes already load."""
    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    if _loads(jvm, loader, BRIDGE_CLASS):
        return
    if loader is None or "MutableURLClassLoader" not in loader.getClass().getName():
        raise SetupError(
            "The Spark driver JVM of this process was started without the iceberg-doris jars and "
            "cannot take them now. Start a new Python process (restart the kernel) and create the "
            "session there with iceberg_doris.session(), or launch with "
            "spark-submit --properties-file <(iceberg-doris --print-spark-conf)."
        )
    jars = list(runtime.jars) + [Path(jar) for jar in listed(conf.get("spark.jars", ""))]
    jars += resolve_packages(jvm, runtime.packages, conf)
    for jar in jars:
        loader.addURL(jvm.java.io.File(str(jar)).toURI().toURL())
    for driver in JDBC_DRIVER_CLASSES:
        # JDBC drivers register with DriverManager when their class initialises; DriverManager
        # scanned for drivers before these jars were there.
        _loads(jvm, loader, driver, initialize=True)
    if not _loads(jvm, loader, BRIDGE_CLASS):
        raise SetupError(f"Added the iceberg-doris jars to the running Spark driver, but {BRIDGE_CLASS} still does not load.")


def _loads(jvm: Any, loader: Any, class_name: str, *, initialize: bool = False) -> bool:
    from py4j.protocol import Py4JJavaError

    try:
        jvm.java.lang.Class.forName(class_name, initialize, loader)
        return True
    except Py4JJavaError:
        return False


def resolve_packages(jvm: Any, packages: tuple[str, ...], conf: Mapping[str, str]) -> list[Path]:
    """Local jar files of Maven packages and their dependencies, resolved by Spark's Ivy code."""
    if not packages:
        return []
    utils = jvm.org.apache.spark.util.DependencyUtils
    settings = conf.get("spark.jars.ivySettings")
    try:
        resolved = utils.resolveMavenDependencies(
            True,
            conf.get("spark.jars.excludes", ""),
            ",".join(packages),
            conf.get("spark.jars.repositories", ""),
            conf.get("spark.jars.ivy"),
            jvm.scala.Option.apply(settings),
        )
    except Exception as error:  # py4j's error names Ivy's; the fix is ours to say
        raise SetupError(
            f"Could not resolve {', '.join(packages)} from Maven Central: {str(error).splitlines()[0][:300]}. "
            "On a machine without Maven Central, name a mirror in spark.jars.repositories or list the jars "
            "in spark.jars (see docs/sessions-and-catalogs.md, 'Jars without Maven Central')."
        ) from None
    return [Path(jar) for jar in listed(resolved.mkString(","))]
