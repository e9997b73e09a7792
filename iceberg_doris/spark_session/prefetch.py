"""Fetches what a first session would: builds the bridge jar (in a checkout) and has Spark resolve
the Maven packages into its Ivy cache, so the first ``session()`` starts without downloading.

    python -m iceberg_doris.spark_session.prefetch

``scripts/setup.sh`` runs it for every virtualenv it makes. It remembers what it fetched (a stamp
beside the interpreter's environment), so a second run starts no JVM.

    python -m iceberg_doris.spark_session.prefetch --files COORDINATE...

prints the local jar files of Maven packages (resolved by Spark's Ivy code in a JVM of its own),
for sessions that must list jars rather than packages (:func:`package_files`).

    python -m iceberg_doris.spark_session.prefetch --s3

fetches as well what a session on an ``s3://`` warehouse adds (S3FileIO and ``s3a``,
:mod:`iceberg_doris.spark_session.s3_conf`); ``scripts/setup.sh --test`` runs it.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from iceberg_doris.errors import SetupError
from iceberg_doris.spark_session.runtime_jars import resolve_runtime_jars
from iceberg_doris.spark_session.s3_conf import s3_jars
from iceberg_doris.spark_session.spark_lines import running_line

# The settings Spark's resolution reads (mirrors, exclusions, the Ivy folder and settings file).
RESOLUTION_SETTINGS = ("spark.jars.repositories", "spark.jars.excludes", "spark.jars.ivy", "spark.jars.ivySettings")


def prefetch(*, s3: bool = False) -> list[str]:
    """Returns what the session will load: the bridge jar and the Maven packages (with ``s3``, also
    those of an ``s3://`` warehouse)."""
    line = running_line()
    runtime = resolve_runtime_jars(line=line)
    wanted = [str(jar) for jar in runtime.jars] + list(runtime.packages)
    _once(wanted, "fetched", lambda: _resolve_with_spark(runtime.packages))
    if s3:
        jars = s3_jars(line)
        excludes = {"spark.jars.excludes": ",".join(jars.excludes)} if jars.excludes else {}
        _once(list(jars.packages + jars.excludes), "s3-fetched", lambda: package_files(jars.packages, excludes))
        wanted += jars.packages
    return wanted


def _once(wanted: list[str], kind: str, fetch: Callable[[], object]) -> None:
    """Runs ``fetch`` unless a stamp beside the interpreter's environment says it fetched ``wanted``."""
    stamp = Path(sys.prefix) / f".iceberg-doris-{kind}-{hashlib.sha256(' '.join(wanted).encode()).hexdigest()[:16]}"
    if not stamp.is_file():
        fetch()
        for old in Path(sys.prefix).glob(f".iceberg-doris-{kind}-*"):
            old.unlink()
        stamp.touch()


def _resolve_with_spark(packages: tuple[str, ...]) -> None:
    """Starts Spark's JVM with the packages (spark-submit resolves them at launch), then stops it."""
    from pyspark import SparkConf
    from pyspark.java_gateway import launch_gateway

    gateway = launch_gateway(SparkConf().set("spark.jars.packages", ",".join(packages)))
    gateway.shutdown()


def package_files(packages: tuple[str, ...], conf: Mapping[str, str]) -> list[Path]:
    """The local jar files of ``packages`` and their dependencies, resolved (downloaded once) by
    Spark's own Ivy code in a JVM of its own, which then exits: this process's JVM is not started."""
    if not packages:
        return []
    settings = {key: conf[key] for key in RESOLUTION_SETTINGS if key in conf}
    result = subprocess.run(
        [sys.executable, "-m", "iceberg_doris.spark_session.prefetch", "--files", json.dumps(settings), *packages],
        capture_output=True, text=True,
    )
    files = [line.removeprefix("FILE ") for line in result.stdout.splitlines() if line.startswith("FILE ")]
    if result.returncode != 0 or not files:
        raise SetupError(f"Could not resolve {', '.join(packages)}: {result.stderr.strip()[-1500:]}")
    return [Path(file) for file in files]


def _print_package_files(settings_json: str, packages: list[str]) -> None:
    from pyspark import SparkConf
    from pyspark.java_gateway import launch_gateway

    from iceberg_doris.spark_session.running_jvm import resolve_packages

    gateway = launch_gateway(SparkConf())
    try:
        for file in resolve_packages(gateway.jvm, tuple(packages), json.loads(settings_json)):
            print(f"FILE {file}")
    finally:
        gateway.shutdown()


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--files":
        _print_package_files(sys.argv[2], sys.argv[3:])
        return
    line = running_line()
    print(f"iceberg-doris: Spark {line.line} (Scala {line.scala}), Iceberg {line.iceberg}:")
    for entry in prefetch(s3="--s3" in sys.argv[1:]):
        print(f"  {entry}")


if __name__ == "__main__":
    main()
