"""The Python side of a driver JVM that has none: spark-sql, the Thrift server, a Scala or Java job.

``CALL doris.*`` in such a driver starts ``python -m iceberg_doris.entry.jvm_side``
(``jvm/.../PythonSide.java``) with the port and secret of a py4j gateway the JVM opened on
127.0.0.1 in its environment, as spark-submit starts a PySpark program. This process connects to
it, wraps the JVM's SparkContext and default session as PySpark objects, registers the procedure
handler (:func:`iceberg_doris.entry.bridge.install_for_driver_jvm`) and serves calls until
the JVM goes away, which closes its standard input.
"""

from __future__ import annotations

import logging
import os
import sys

log = logging.getLogger(__name__)
GATEWAY_VARIABLES = ("PYSPARK_GATEWAY_PORT", "PYSPARK_GATEWAY_SECRET")


def main() -> int:
    missing = [name for name in GATEWAY_VARIABLES if not os.environ.get(name)]
    if missing:
        print(
            f"iceberg_doris.entry.jvm_side is started by a Spark driver's CALL doris.* (it needs "
            f"{' and '.join(missing)} in its environment), not by hand: run the statement in spark-sql "
            "or the Thrift server configured with iceberg-doris --print-spark-conf.",
            file=sys.stderr,
        )
        return 2
    from pyspark import SparkContext
    from pyspark.java_gateway import launch_gateway
    from pyspark.sql import SparkSession

    from iceberg_doris.entry.bridge import install_for_driver_jvm

    gateway = launch_gateway()  # reads the port and secret from the environment
    jvm = gateway.jvm
    jsc = jvm.org.apache.spark.api.java.JavaSparkContext(jvm.org.apache.spark.SparkContext.getOrCreate())
    context = SparkContext(gateway=gateway, jsc=jsc)
    spark = SparkSession(context, jvm.org.apache.spark.sql.SparkSession.getDefaultSession().get())
    install_for_driver_jvm(spark)
    print("iceberg-doris: the Python side is ready", flush=True)
    sys.stdin.buffer.read()  # the end of input: the driver JVM is gone
    sys.stdout.flush()
    os._exit(0)  # py4j's threads would keep a dead gateway's process waiting


if __name__ == "__main__":
    sys.exit(main())
