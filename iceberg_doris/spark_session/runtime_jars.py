"""The jars a Spark session needs, the ordinary way: from Maven Central through Spark's own
``spark.jars.packages``, plus our bridge jar.

- The Iceberg Spark runtime of the running PySpark's line (:mod:`iceberg_doris.spark_session.spark_lines`)
  and the SQLite and PostgreSQL JDBC drivers are Maven coordinates: Spark resolves them with Ivy
  when the driver starts and keeps them in its Ivy cache, so only the first start downloads.
- Machines without Maven Central use Spark's own settings: ``spark.jars.repositories`` names a
  mirror (Spark tries it as well), and a jar listed in ``spark.jars`` that provides one of the
  artifacts (by its Maven file name, e.g. ``iceberg-spark-runtime-4.1_2.13-1.12.0.jar``) replaces
  that package.
- The iceberg-doris bridge (``jvm/`` in the repository) is one jar per Spark line. An installed
  wheel ships every line's (``_jars/shipped.json``); a source checkout builds the running line's
  with Maven on first use, named by a hash of its inputs and cached, so a second run builds
  nothing and a changed source never reuses a stale jar.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from iceberg_doris.spark_session.spark_lines import (
    POSTGRES_JDBC_PACKAGE,
    SQLITE_JDBC_PACKAGE,
    SUPPORTED,
    SparkLine,
    running_line,
)
from iceberg_doris.errors import SetupError

JAR_CACHE_ENV = "ICEBERG_DORIS_JAR_CACHE"
MAVEN_ENV = "ICEBERG_DORIS_MAVEN"  # the mvn command, when it is not on PATH

JVM_MODULE_DIR = Path(__file__).resolve().parents[2] / "jvm"
PACKAGED_JAR_DIR = Path(__file__).resolve().parents[1] / "_jars"
SHIPPED_MANIFEST = "shipped.json"  # written into a wheel's _jars/ by build_distribution_jars


@dataclass(frozen=True)
class RuntimeJars:
    """What a session puts on its classpath: local jars (``spark.jars``) and Maven coordinates
    (``spark.jars.packages``)."""

    jars: tuple[Path, ...]
    packages: tuple[str, ...]


def resolve_runtime_jars(conf: Mapping[str, str] | None = None, line: SparkLine | None = None) -> RuntimeJars:
    """The jars and packages of a session of ``line`` (default: the running PySpark's line).

    ``conf`` is the user's own Spark settings: a jar of theirs in ``spark.jars`` that provides one
    of our packages replaces it."""
    require_java()
    line = line or running_line()
    own_jars = [Path(entry) for entry in listed((conf or {}).get("spark.jars", ""))]
    packages = [
        package
        for package in (line.iceberg_package, SQLITE_JDBC_PACKAGE, POSTGRES_JDBC_PACKAGE)
        if not any(_provides(jar, package) for jar in own_jars)
    ]
    return RuntimeJars((bridge_jar(line),), tuple(packages))


def listed(value: str) -> list[str]:
    """The entries of a comma-separated Spark list setting (``spark.jars``, ``spark.jars.packages``)."""
    return [entry.strip() for entry in value.split(",") if entry.strip()]


def _provides(jar: Path, package: str) -> bool:
    """Whether a jar's file name is the package's artifact (any version): Maven's file name
    (``artifact-1.2.jar``) or the one Ivy retrieves it under (``group_artifact-1.2.jar``)."""
    group, artifact, _version = package.split(":")
    name = jar.name.removeprefix(f"{group}_")
    return name.startswith(f"{artifact}-") and name.endswith(".jar") and name[len(artifact) + 1 : len(artifact) + 2].isdigit()


def require_java() -> None:
    if shutil.which("java") is None:
        raise SetupError(
            "Java 17 is needed to run Spark and was not found on PATH. Install it "
            "(Debian: apt-get install -y openjdk-17-jdk-headless) or set JAVA_HOME and PATH, "
            "then run ./scripts/setup.sh."
        )


def shipped_jar(line: SparkLine) -> Path | None:
    """The bridge jar an installed wheel ships for ``line``, or None in a source checkout."""
    manifest = PACKAGED_JAR_DIR / SHIPPED_MANIFEST
    if not manifest.is_file():
        return None
    name = json.loads(manifest.read_text()).get("bridge", {}).get(line.line)
    jar = PACKAGED_JAR_DIR / name if name else None
    if jar is None or not jar.is_file():
        raise SetupError(
            f"This iceberg-doris installation is damaged: its bridge jar for Spark {line.line} ({jar}) is "
            "missing. Reinstall it: pip install --force-reinstall iceberg-doris."
        )
    return jar


def bridge_jar(line: SparkLine | None = None) -> Path:
    """The iceberg-doris bridge for ``line``: shipped by the wheel, or built here with Maven."""
    line = line or running_line()
    shipped = shipped_jar(line)
    if shipped is not None:
        return shipped
    inputs = _module_inputs()
    if not inputs:
        raise SetupError(
            f"The iceberg-doris JVM sources ({JVM_MODULE_DIR}) are not here and no built bridge jar was "
            "packaged; install iceberg-doris from a wheel, or from a checkout with ./scripts/setup.sh."
        )
    digest = _digest(inputs, line.line)
    target = _cache_dir() / f"{line.bridge_name.removesuffix('.jar')}-{digest}.jar"
    if target.is_file():
        return target
    # One build of a line at a time in a checkout, from clean classes: a build that ran while a
    # source was edited leaves classes newer than the edit, which an incremental build would keep.
    with _build_lock(line):
        if target.is_file():
            return target  # built by another process meanwhile
        for _ in range(BUILD_ATTEMPTS):
            built = _maven_package(line)
            inputs = _module_inputs()
            if _digest(inputs, line.line) == digest:
                break
            # A source changed during the build: the jar matches neither version.
            digest = _digest(inputs, line.line)
            target = _cache_dir() / f"{line.bridge_name.removesuffix('.jar')}-{digest}.jar"
        else:
            raise SetupError(
                f"The JVM sources in {JVM_MODULE_DIR} kept changing while the bridge was built; "
                "build it again when they are saved (python -m iceberg_doris.spark_session.prefetch)."
            )
        _publish(built, target)
    prune_older_builds(target)
    return target


BUILD_ATTEMPTS = 3


@contextlib.contextmanager
def _build_lock(line: SparkLine) -> Iterator[None]:
    """An exclusive lock on the line's build folder for the duration of one build."""
    folder = JVM_MODULE_DIR / "target"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f".build-spark-{line.line}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


KEPT_BUILDS = 3


def prune_older_builds(newest: Path, keep: int = KEPT_BUILDS) -> list[Path]:
    """Removes all but the ``keep`` newest builds of ``newest``'s line from its folder (each edit
    of the JVM sources builds a jar of its own; a checkout would otherwise collect them forever).
    The newest builds stay for sessions still running on them. Returns what it removed."""
    stem = newest.name.rsplit("-", 1)[0]
    builds = sorted(newest.parent.glob(f"{stem}-*.jar"), key=lambda p: p.stat().st_mtime, reverse=True)
    removed = [p for p in builds[keep:] if p != newest]
    for path in removed:
        path.unlink(missing_ok=True)
    return removed


def _module_inputs() -> list[Path]:
    if not (JVM_MODULE_DIR / "pom.xml").is_file():
        return []
    source_root = JVM_MODULE_DIR / "src"
    sources = sorted(
        path for path in source_root.rglob("*") if path.is_file() and path.relative_to(source_root).parts[0] != "test"
    )
    return [JVM_MODULE_DIR / "pom.xml"] + sources


def _maven_package(line: SparkLine) -> Path:
    """``mvn clean package`` of the line's profile, whose folder is its own (its tests run in
    ``make test``, not on every build)."""
    maven = os.environ.get(MAVEN_ENV) or shutil.which("mvn")
    if maven is None:
        raise SetupError(
            "Maven is needed once to build the iceberg-doris bridge in a source checkout: "
            "apt-get install -y maven, then run ./scripts/setup.sh (an installed wheel needs no Maven)."
        )
    command = [maven, "-q", "-B", "-f", str(JVM_MODULE_DIR / "pom.xml"), "-P", line.maven_profile, "clean", "package", "-DskipTests"]
    _run(command, f"build the iceberg-doris bridge for Spark {line.line}")
    built = JVM_MODULE_DIR / "target" / f"spark-{line.line}" / line.bridge_name
    if not built.is_file():
        raise SetupError(f"Maven reported success but {built} was not built.")
    return built


def _cache_dir() -> Path:
    configured = os.environ.get(JAR_CACHE_ENV)
    for candidate in ([Path(configured)] if configured else []) + [
        PACKAGED_JAR_DIR,
        Path.home() / ".cache" / "iceberg-doris" / "jars",
    ]:
        try:
            candidate.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(candidate, os.W_OK):
            return candidate
    raise SetupError(f"No writable folder for built jars; set {JAR_CACHE_ENV} to one.")


def _digest(files: list[Path], salt: str) -> str:
    hasher = hashlib.sha256(salt.encode())
    for path in files:
        hasher.update(path.relative_to(JVM_MODULE_DIR).as_posix().encode())
        hasher.update(path.read_bytes())
    return hasher.hexdigest()[:16]


def _publish(built: Path, target: Path) -> None:
    """Atomic rename, so a concurrent build never exposes a half-written jar."""
    staging = target.with_suffix(f".{os.getpid()}.tmp")
    shutil.copyfile(built, staging)
    os.replace(staging, target)


def _run(command: list[str], purpose: str) -> None:
    with tempfile.TemporaryFile("w+") as output:
        result = subprocess.run(command, stdout=output, stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            output.seek(0)
            raise SetupError(f"Could not {purpose}: {' '.join(command[:2])} ... failed:\n{output.read()[-3000:]}")


def build_distribution_jars(target: Path) -> list[Path]:
    """Builds the bridge of every supported line into ``target`` and lists them in its manifest.

    Run by ``setup.py`` at wheel-build time (the build machine has Maven and a JDK); the installed
    package then finds them through :func:`shipped_jar`.
    """
    target.mkdir(parents=True, exist_ok=True)
    shipped: dict[str, str] = {}
    jars = []
    for line in SUPPORTED:
        jar = target / line.bridge_name
        shutil.copyfile(_maven_package(line), jar)
        shipped[line.line] = jar.name
        jars.append(jar)
    (target / SHIPPED_MANIFEST).write_text(json.dumps({"bridge": shipped}, indent=1) + "\n")
    return jars


def main() -> None:
    """Builds what is missing and prints the classpath and packages (used by scripts/setup.sh)."""
    runtime = resolve_runtime_jars()
    for jar in runtime.jars:
        print(jar)
    for package in runtime.packages:
        print(package)
