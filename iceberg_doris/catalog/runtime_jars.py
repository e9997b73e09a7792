"""The jars a Spark session needs, found or built reproducibly.

- The Apache Iceberg 1.10 Spark runtime comes from the PyPI wheel ``snowpark-connect-deps-iceberg``.
  That repackaging lacks Iceberg's relocated Jackson, so we relocate the Jackson jars PySpark ships
  (``com.fasterxml.jackson`` -> ``org.apache.iceberg.shaded.com.fasterxml.jackson``) with jarjar.
- Where Maven Central is reachable, ``ICEBERG_DORIS_ICEBERG_RUNTIME=maven`` selects the ordinary
  ``spark.jars.packages`` route instead.
- The iceberg-doris Spark bridge (``jvm/`` in the repository) is compiled with ``javac``.
- JDBC drivers for the catalog come from Debian packages (or ``ICEBERG_DORIS_JDBC_JARS``).

An installed wheel ships the bridge and the relocated Jackson jar (built by ``setup.py`` when the
wheel was built, listed in ``_jars/shipped.json``) and uses them as they are: no ``javac`` or jarjar
at run time. A source checkout builds them on first use instead; built jars are named by a hash of
their inputs and cached, so a second run builds nothing and a changed input never reuses a stale jar.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from iceberg_doris.errors import SetupError

ICEBERG_VERSION = "1.10.2"
SCALA_BINARY = "2.12"
ICEBERG_RUNTIME_ENV = "ICEBERG_DORIS_ICEBERG_RUNTIME"  # "pypi" (default) or "maven"
ICEBERG_MAVEN_COORDINATE = f"org.apache.iceberg:iceberg-spark-runtime-3.5_{SCALA_BINARY}:{ICEBERG_VERSION}"
JAR_CACHE_ENV = "ICEBERG_DORIS_JAR_CACHE"
JARJAR_ENV = "ICEBERG_DORIS_JARJAR"
JDBC_JARS_ENV = "ICEBERG_DORIS_JDBC_JARS"

DEBIAN_JARJAR = Path("/usr/share/java/jarjar.jar")
DEBIAN_SQLITE_JDBC = Path("/usr/share/java/sqlite-jdbc.jar")
DEBIAN_POSTGRES_JDBC = Path("/usr/share/java/postgresql.jar")
DEBIAN_JNI_DIR = Path("/usr/lib/x86_64-linux-gnu/jni")
DEBIAN_PACKAGES = (
    "openjdk-17-jdk-headless libjarjar-java libxerial-sqlite-jdbc-java "
    "libxerial-sqlite-jdbc-jni libpostgresql-jdbc-java"
)

JACKSON_MODULES = ("annotations", "core", "databind", "datatype-jsr310")
JACKSON_RULE = "rule com.fasterxml.jackson.** org.apache.iceberg.shaded.com.fasterxml.jackson.@1\n"
BRIDGE_SOURCE_DIR = Path(__file__).resolve().parents[2] / "jvm" / "src" / "main" / "java"
PACKAGED_JAR_DIR = Path(__file__).resolve().parents[1] / "_jars"
SHIPPED_MANIFEST = "shipped.json"  # written into a wheel's _jars/ by build_distribution_jars


@dataclass(frozen=True)
class RuntimeJars:
    """What a session puts on its classpath."""

    jars: tuple[Path, ...]
    packages: tuple[str, ...]
    native_library_path: Path | None


def resolve_runtime_jars() -> RuntimeJars:
    """Finds every jar the session needs, building the derived ones if they are not cached yet."""
    require_java()
    route = os.environ.get(ICEBERG_RUNTIME_ENV, "pypi").lower()
    if route not in ("pypi", "maven"):
        raise SetupError(f"{ICEBERG_RUNTIME_ENV}={route!r} is not a route: use 'pypi' or 'maven'.")
    jars: list[Path] = []
    packages: list[str] = []
    if route == "pypi":
        jars += [iceberg_runtime_jar(), relocated_jackson_jar()]
    else:
        packages.append(ICEBERG_MAVEN_COORDINATE)
    jars.append(bridge_jar())
    jars += jdbc_driver_jars()
    native = DEBIAN_JNI_DIR if DEBIAN_JNI_DIR.is_dir() else None
    return RuntimeJars(tuple(jars), tuple(packages), native)


def require_java() -> None:
    if shutil.which("java") is None:
        raise SetupError(
            "Java 17 is needed to run Spark and was not found on PATH. Install it "
            "(Debian: apt-get install -y openjdk-17-jdk-headless) or set JAVA_HOME and PATH, "
            "then run ./scripts/setup.sh."
        )


def iceberg_runtime_jar() -> Path:
    """The Iceberg Spark runtime from the snowpark-connect-deps-iceberg wheel."""
    spec = importlib.util.find_spec("snowpark_connect_deps_iceberg")
    if spec is None or not spec.submodule_search_locations:
        raise SetupError(
            "The Iceberg Spark runtime is missing: pip install snowpark-connect-deps-iceberg==1.0.3 "
            f"(or set {ICEBERG_RUNTIME_ENV}=maven where Maven Central is reachable)."
        )
    jar = (
        Path(next(iter(spec.submodule_search_locations)))
        / "jars"
        / f"iceberg-spark-runtime-3.5_{SCALA_BINARY}-{ICEBERG_VERSION}.jar"
    )
    if not jar.is_file():
        raise SetupError(f"Expected the Iceberg runtime at {jar}; reinstall snowpark-connect-deps-iceberg==1.0.3.")
    return jar


def pyspark_jar_dir() -> Path:
    """Spark's own jars: under ``$SPARK_HOME`` when set (spark-submit sets it; there ``pyspark``
    is imported from ``pyspark.zip``, which has no jars beside it), else beside the pyspark package."""
    candidates = []
    spark_home = os.environ.get("SPARK_HOME")
    if spark_home:
        candidates.append(Path(spark_home) / "jars")
    import pyspark

    candidates.append(Path(pyspark.__file__).parent / "jars")
    for candidate in candidates:
        if candidate.is_dir() and any(candidate.glob("spark-core_*.jar")):
            return candidate
    raise SetupError(
        f"Spark's jars were not found (looked in {', '.join(str(c) for c in candidates)}). "
        "Set SPARK_HOME to the Spark installation PySpark belongs to, or reinstall pyspark."
    )


def shipped_jar(kind: str) -> Path | None:
    """A jar an installed wheel ships ("bridge" or "jackson"), or None in a source checkout."""
    manifest = PACKAGED_JAR_DIR / SHIPPED_MANIFEST
    if not manifest.is_file():
        return None
    name = json.loads(manifest.read_text()).get(kind)
    jar = PACKAGED_JAR_DIR / name if name else None
    if jar is None or not jar.is_file():
        raise SetupError(
            f"This iceberg-doris installation is damaged: its {kind} jar ({jar}) is missing. "
            "Reinstall it: pip install --force-reinstall iceberg-doris."
        )
    return jar


def relocated_jackson_jar() -> Path:
    """PySpark's Jackson, relocated to the package names the Iceberg runtime expects."""
    shipped = shipped_jar("jackson")
    if shipped is not None:
        return shipped
    sources = []
    for module in JACKSON_MODULES:
        found = sorted(pyspark_jar_dir().glob(f"jackson-{module}-2.*.jar"))
        if not found:
            raise SetupError(f"PySpark's jackson-{module} jar is missing from {pyspark_jar_dir()}; reinstall pyspark.")
        sources.append(found[-1])
    target = _cache_dir() / f"iceberg-shaded-jackson-{_digest(sources, JACKSON_RULE)}.jar"
    if target.is_file():
        return target
    jarjar = Path(os.environ.get(JARJAR_ENV, DEBIAN_JARJAR))
    if not jarjar.is_file():
        raise SetupError(
            f"jarjar is needed once to relocate Jackson and was not found at {jarjar}. "
            f"Install it (Debian: apt-get install -y libjarjar-java) or set {JARJAR_ENV}."
        )
    with tempfile.TemporaryDirectory() as work:
        merged = Path(work) / "jackson-merged.jar"
        _merge_jars(sources, merged)
        rules = Path(work) / "rules.txt"
        rules.write_text(JACKSON_RULE)
        relocated = Path(work) / "relocated.jar"
        _run(["java", "-jar", str(jarjar), "process", str(rules), str(merged), str(relocated)], "relocate Jackson")
        if not relocated.is_file():
            # jarjar reports some failures on stdout and still exits 0.
            raise SetupError(f"jarjar produced no relocated Jackson jar from {', '.join(s.name for s in sources)}.")
        # jarjar stamps entries with the current time; fixed times make the jar reproducible.
        normalized = Path(work) / "normalized.jar"
        _merge_jars([relocated], normalized)
        _publish(normalized, target)
    return target


def bridge_jar() -> Path:
    """The compiled iceberg-doris Spark bridge (parser extension and ``doris`` procedure catalog)."""
    shipped = shipped_jar("bridge")
    if shipped is not None:
        return shipped
    sources = sorted(BRIDGE_SOURCE_DIR.rglob("*.java")) if BRIDGE_SOURCE_DIR.is_dir() else []
    if not sources:
        packaged = sorted(PACKAGED_JAR_DIR.glob("iceberg-doris-bridge-*.jar"))
        if packaged:
            return packaged[-1]
        raise SetupError(
            f"The iceberg-doris bridge sources ({BRIDGE_SOURCE_DIR}) are not here and no built bridge "
            "jar was packaged; install iceberg-doris from a checkout with ./scripts/setup.sh."
        )
    import pyspark

    compile_against = [iceberg_runtime_jar()]
    target = _cache_dir() / f"iceberg-doris-bridge-{_digest(sources + compile_against, pyspark.__version__)}.jar"
    if target.is_file():
        return target
    if shutil.which("javac") is None:
        raise SetupError(
            "javac is needed once to build the iceberg-doris Spark bridge: "
            "apt-get install -y openjdk-17-jdk-headless, then run ./scripts/setup.sh."
        )
    classpath = os.pathsep.join([str(pyspark_jar_dir() / "*")] + [str(j) for j in compile_against])
    with tempfile.TemporaryDirectory() as work:
        classes = Path(work) / "classes"
        classes.mkdir()
        _run(
            ["javac", "-nowarn", "--release", "17", "-d", str(classes), "-cp", classpath]
            + [str(s) for s in sources],
            "compile the iceberg-doris Spark bridge",
        )
        built = Path(work) / "bridge.jar"
        _zip_directory(classes, built)
        _publish(built, target)
    return target


def jdbc_driver_jars() -> list[Path]:
    """SQLite and PostgreSQL JDBC drivers: both when available, so either catalog kind works."""
    override = os.environ.get(JDBC_JARS_ENV)
    if override:
        jars = [Path(p) for p in override.split(os.pathsep) if p]
        missing = [str(j) for j in jars if not j.is_file()]
        if missing:
            raise SetupError(f"{JDBC_JARS_ENV} names jars that do not exist: {', '.join(missing)}")
        return jars
    jars = [j for j in (DEBIAN_SQLITE_JDBC, DEBIAN_POSTGRES_JDBC) if j.is_file()]
    if DEBIAN_SQLITE_JDBC not in jars:
        # No PyPI package ships these drivers, so they are the one part a pip install cannot bring.
        raise SetupError(
            "The SQLite JDBC driver for the embedded catalog is missing (pip cannot install it). "
            "Install it (Debian: apt-get install -y libxerial-sqlite-jdbc-java libxerial-sqlite-jdbc-jni), "
            f"or download sqlite-jdbc (org.xerial:sqlite-jdbc, 3.x) and set {JDBC_JARS_ENV}=/path/sqlite-jdbc.jar "
            f"(add the PostgreSQL driver, org.postgresql:postgresql, separated by '{os.pathsep}', for a PostgreSQL catalog)."
        )
    return jars


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
        hasher.update(path.name.encode())
        hasher.update(path.read_bytes())
    return hasher.hexdigest()[:16]


def _merge_jars(jars: list[Path], target: Path) -> None:
    seen: set[str] = set()
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for jar in jars:
            with zipfile.ZipFile(jar) as source:
                for entry in source.infolist():
                    name = entry.filename
                    # Multi-release copies (META-INF/versions/N/...) relocate onto the base class
                    # names and make jarjar fail; the base classes run on Java 17.
                    if name in seen or name.upper().startswith(("META-INF/MANIFEST", "META-INF/VERSIONS/")):
                        continue
                    seen.add(name)
                    out.writestr(_fixed_time(entry), source.read(entry))


def _zip_directory(directory: Path, target: Path) -> None:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for path in sorted(directory.rglob("*")):
            if path.is_file():
                info = zipfile.ZipInfo(path.relative_to(directory).as_posix(), date_time=(2024, 1, 1, 0, 0, 0))
                out.writestr(info, path.read_bytes(), zipfile.ZIP_DEFLATED)


def _fixed_time(entry: zipfile.ZipInfo) -> zipfile.ZipInfo:
    """Fixed timestamps make the built jar byte-for-byte reproducible."""
    info = zipfile.ZipInfo(entry.filename, date_time=(2024, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = entry.external_attr
    return info


def _publish(built: Path, target: Path) -> None:
    """Atomic rename, so a concurrent build never exposes a half-written jar."""
    staging = target.with_suffix(f".{os.getpid()}.tmp")
    shutil.copyfile(built, staging)
    os.replace(staging, target)


def _run(command: list[str], purpose: str) -> None:
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SetupError(f"Could not {purpose}: {' '.join(command[:3])} ... failed:\n{result.stderr.strip()[-2000:]}")


def build_distribution_jars(target: Path) -> list[Path]:
    """Builds the jars a wheel ships into ``target`` and lists them in its manifest.

    Run by ``setup.py`` at wheel-build time (the build machine has javac and jarjar); the
    installed package then finds them through :func:`shipped_jar`.
    """
    target.mkdir(parents=True, exist_ok=True)
    previous = os.environ.get(JAR_CACHE_ENV)
    os.environ[JAR_CACHE_ENV] = str(target)
    try:
        jackson = relocated_jackson_jar()
        bridge = bridge_jar()
    finally:
        if previous is None:
            os.environ.pop(JAR_CACHE_ENV, None)
        else:
            os.environ[JAR_CACHE_ENV] = previous
    (target / SHIPPED_MANIFEST).write_text(json.dumps({"bridge": bridge.name, "jackson": jackson.name}, indent=1) + "\n")
    return [bridge, jackson]


def main() -> None:
    """Builds what is missing and prints the classpath (used by scripts/setup.sh)."""
    for jar in resolve_runtime_jars().jars:
        print(jar)
