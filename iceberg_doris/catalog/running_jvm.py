"""Our jars in a Spark driver JVM that was started without them.

PySpark normally starts the driver JVM itself, with ``spark.jars`` on its command line, and then
the jars are on its classpath. Two ways into a session start the JVM first:

- ``spark-submit job.py``: spark-submit launches the JVM, then runs the job, whose session
  settings come too late for the JVM's classpath;
- a notebook or ``pyspark`` shell whose session was stopped: the next session reuses the JVM.

There the classes of ``spark.sql.extensions`` are not found, Spark skips the extension with a
warning, and py4j answers ``'JavaPackage' object is not callable``. Both JVMs load the user's
classes through Spark's ``MutableURLClassLoader`` (the context class loader of every py4j thread),
which takes more jars while it runs: we add ours there before the session is created.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from iceberg_doris.errors import SetupError

BRIDGE_CLASS = "io.icebergdoris.spark.DorisSparkSessionExtensions"
JDBC_DRIVER_CLASSES = ("org.sqlite.JDBC", "org.postgresql.Driver")
GATEWAY_PORT_ENV = "PYSPARK_GATEWAY_PORT"  # set by spark-submit for the Python job it runs


def prepare_driver_jvm(jars: Sequence[Path], system_properties: dict[str, str]) -> None:
    """Makes ``jars`` loadable in this process's driver JVM if one is already running.

    Does nothing when PySpark has yet to start the JVM (it then starts it with ``spark.jars``).
    ``system_properties`` are the ``-D`` options the session would have put on the JVM's
    command line that still take effect when set later.
    """
    from pyspark import SparkContext

    if SparkContext._gateway is None and GATEWAY_PORT_ENV not in os.environ:
        return
    SparkContext._ensure_initialized()  # connects to the running JVM; starts nothing new
    jvm = SparkContext._jvm
    add_jars(jvm, jars)
    for key, value in system_properties.items():
        if jvm.java.lang.System.getProperty(key) is None:
            jvm.java.lang.System.setProperty(key, value)


def add_jars(jvm: Any, jars: Sequence[Path]) -> None:
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
