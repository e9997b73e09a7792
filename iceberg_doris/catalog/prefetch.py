"""Fetches what a first session would: builds the bridge jar (in a checkout) and has Spark resolve
the Maven packages into its Ivy cache, so the first ``session()`` starts without downloading.

    python -m iceberg_doris.catalog.prefetch

``scripts/setup.sh`` runs it for every virtualenv it makes. It remembers what it fetched (a stamp
beside the interpreter's environment), so a second run starts no JVM.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from iceberg_doris.catalog.runtime_jars import resolve_runtime_jars
from iceberg_doris.spark_lines import running_line


def prefetch() -> list[str]:
    """Returns what the session will load: the bridge jar and the Maven packages."""
    line = running_line()
    runtime = resolve_runtime_jars(line=line)
    wanted = [str(jar) for jar in runtime.jars] + list(runtime.packages)
    stamp = Path(sys.prefix) / f".iceberg-doris-fetched-{hashlib.sha256(' '.join(wanted).encode()).hexdigest()[:16]}"
    if not stamp.is_file():
        _resolve_with_spark(runtime.packages)
        for old in Path(sys.prefix).glob(".iceberg-doris-fetched-*"):
            old.unlink()
        stamp.touch()
    return wanted


def _resolve_with_spark(packages: tuple[str, ...]) -> None:
    """Starts Spark's JVM with the packages (spark-submit resolves them at launch), then stops it."""
    from pyspark import SparkConf
    from pyspark.java_gateway import launch_gateway

    gateway = launch_gateway(SparkConf().set("spark.jars.packages", ",".join(packages)))
    gateway.shutdown()


def main() -> None:
    line = running_line()
    print(f"iceberg-doris: Spark {line.line} (Scala {line.scala}), Iceberg {line.iceberg}:")
    for entry in prefetch():
        print(f"  {entry}")


if __name__ == "__main__":
    main()
