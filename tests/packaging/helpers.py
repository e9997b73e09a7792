"""Running iceberg-doris as a user would: in subprocesses, away from the source tree."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
# Tools that build jars; a machine that only runs iceberg-doris has none of them.
BUILD_TOOLS = ("javac", "jar", "jshell", "mvn")


def runtime_only_path(tmp_path: Path, *extra_dirs: Path) -> str:
    """A PATH with every command of the current PATH except the JDK's build tools and Maven."""
    shadow = tmp_path / "runtime-bin"
    shadow.mkdir(exist_ok=True)
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        folder = Path(directory)
        if not folder.is_dir():
            continue
        for command in folder.iterdir():
            if command.name in BUILD_TOOLS or (shadow / command.name).exists():
                continue
            (shadow / command.name).symlink_to(command.resolve() if command.is_symlink() else command)
    return os.pathsep.join([str(d) for d in extra_dirs] + [str(shadow)])


# Spark's Ivy caches (3.5: ~/.ivy2, 4.x: ~/.ivy2.5.2) and Maven's: a fresh home keeps the machine's,
# so a subprocess does not download the Iceberg runtime again (nothing of iceberg-doris is in them).
JAR_CACHES = (".ivy2", ".ivy2.5.2", ".m2")


def share_jar_caches(home: Path) -> None:
    """Links the machine's jar caches into a fresh home."""
    for cache in JAR_CACHES:
        source = Path.home() / cache
        if source.is_dir() and not (home / cache).exists():
            (home / cache).symlink_to(source)


def user_environment(tmp_path: Path, *, path: str | None = None) -> dict[str, str]:
    """A fresh home (sharing the machine's jar caches) and no iceberg-doris or Python settings
    inherited from the test run."""
    home = tmp_path / "user-home"
    home.mkdir(exist_ok=True)
    share_jar_caches(home)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ICEBERG_DORIS_", "PYTHON", "PYSPARK", "SPARK_", "VIRTUAL_ENV"))
    }
    env.update(HOME=str(home), ICEBERG_DORIS_HOME=str(tmp_path / "lake"), PATH=path or env.get("PATH", ""))
    return env


def installer_environment(tmp_path: Path) -> dict[str, str]:
    """user_environment, but pip keeps the machine's download and wheel cache (PySpark is a
    300 MB download and a sdist; nothing of iceberg-doris is in that cache)."""
    env = user_environment(tmp_path)
    env["PIP_CACHE_DIR"] = os.environ.get("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip"))
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def run(command: list[str], *, cwd: Path, env: dict[str, str], timeout: float = 540) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise AssertionError(
            f"{' '.join(command)} exited {result.returncode}\nstdout:\n{result.stdout[-4000:]}\nstderr:\n{result.stderr[-6000:]}"
        )
    return result


UNIQUE_KEY_JOB = '''
import pathlib
import pyspark
pathlib.Path("pyspark-origin.txt").write_text(pyspark.__file__)
import iceberg_doris
from iceberg_doris import doris

spark = iceberg_doris.session()
spark.sql("CREATE NAMESPACE IF NOT EXISTS shop")
doris.create_table(spark, ddl="""CREATE TABLE shop.users (id BIGINT NOT NULL, name VARCHAR(20))
    UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1""")
doris.load(spark, table="shop.users", query="SELECT * FROM VALUES (1, 'a'), (2, 'b') AS t(id, name)")
result = doris.load(spark, table="shop.users", query="SELECT * FROM VALUES (2, 'B'), (3, 'c') AS t(id, name)")
print("STATUS", result[0]["status"])
for row in spark.sql("SELECT id, name FROM shop.users ORDER BY id").collect():
    print("ROW", row.id, row.name)
print("MODULE", iceberg_doris.__file__)
spark.stop()
'''


def printed(stdout: str, tag: str) -> list[str]:
    return [line[len(tag) + 1 :] for line in stdout.splitlines() if line.startswith(tag + " ")]


def python_of(venv: Path) -> Path:
    return venv / "bin" / "python"


def make_venv(target: Path) -> Path:
    run([sys.executable, "-m", "venv", str(target)], cwd=target.parent, env=dict(os.environ))
    return target


def have(command: str) -> bool:
    return shutil.which(command) is not None
