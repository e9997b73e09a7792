"""The wheel and sdist the project's own build makes: self-contained, they run a load on a machine
(here: a PATH) without javac or Maven, from fresh virtualenvs with PySpark 4.1 and 3.5, away from
the source tree."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.packaging.helpers import (
    REPOSITORY,
    installer_environment,
    UNIQUE_KEY_JOB,
    make_venv,
    printed,
    python_of,
    run,
    runtime_only_path,
    user_environment,
)

# Building the wheel (Maven, once per Spark line) and two fresh virtualenvs installing PySpark: too slow for every
# CI run, so `make test-wheel` (ICEBERG_DORIS_WHEEL_TEST=1) runs it; the rest of tests/packaging
# (spark-submit, an existing session, --print-spark-conf) runs always.
pytestmark = [
    pytest.mark.spark,
    pytest.mark.skipif(
        os.environ.get("ICEBERG_DORIS_WHEEL_TEST") != "1",
        reason="builds and installs the wheel (minutes): run with ICEBERG_DORIS_WHEEL_TEST=1 (make test-wheel)",
    ),
]


@pytest.fixture(scope="module")
def distribution(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """`python -m build`: the sdist, then the wheel built from that sdist (so the sdist is complete).
    The build runs in build's own isolated environment, from a copy of the committed sources."""
    work = tmp_path_factory.mktemp("dist")
    source = work / "source"
    source.mkdir()
    # The repository's files as git sees them (tracked or not ignored): no local jar cache or
    # virtualenv leaks into the build.
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPOSITORY, capture_output=True, check=True,
    ).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (REPOSITORY / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPOSITORY / name, source / name)
    out = work / "out"
    run([sys.executable, "-m", "build", "--outdir", str(out), str(source)], cwd=work, env=installer_environment(work))
    wheels = sorted(out.glob("iceberg_doris-*.whl"))
    sdists = sorted(out.glob("iceberg_doris-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in out.iterdir())
    return {"wheel": wheels[0], "sdist": sdists[0], "work": work}


def test_wheel_ships_a_bridge_per_spark_line_and_the_logging_config(distribution):
    from iceberg_doris.spark_session.spark_lines import SUPPORTED

    with zipfile.ZipFile(distribution["wheel"]) as wheel:
        names = set(wheel.namelist())
        manifest = json.loads(wheel.read("iceberg_doris/_jars/shipped.json"))["bridge"]
        classes = {}
        for line, jar in manifest.items():
            with wheel.open(f"iceberg_doris/_jars/{jar}") as bridge:
                classes[line] = set(zipfile.ZipFile(bridge).namelist())
    assert "iceberg_doris/spark_session/log4j2.properties" in names
    assert sorted(manifest) == sorted(line.line for line in SUPPORTED)
    assert sorted(n for n in names if n.startswith("iceberg_doris/_jars/")) == sorted(
        ["iceberg_doris/_jars/shipped.json"] + [f"iceberg_doris/_jars/{jar}" for jar in manifest.values()]
    )
    for line in SUPPORTED:
        assert "io/icebergdoris/spark/DorisProcedureCatalog.class" in classes[line.line]
        assert ("io/icebergdoris/spark/DorisCallParser.class" in classes[line.line]) is (not line.native_call)


def test_sdist_carries_what_the_wheel_build_needs(distribution):
    with tarfile.open(distribution["sdist"]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {"setup.py", "build_support/iceberg_doris_build.py", "iceberg_doris/spark_session/log4j2.properties", "jvm/pom.xml"} <= names
    assert "jvm/src/spark4/java/io/icebergdoris/spark/DorisProcedureCatalog.java" in names
    assert "jvm/src/spark3/java/io/icebergdoris/spark/DorisSparkSessionExtensions.java" in names
    assert "jvm/src/line/java/io/icebergdoris/spark/DorisStatement.java" in names
    assert not any(name.startswith(("iceberg_doris/_jars/", "jvm/target/")) for name in names)


@pytest.mark.parametrize("pyspark_pin", ["pyspark>=4.1,<4.2", "pyspark>=3.5,<3.6"])
def test_installed_wheel_runs_a_unique_key_load_without_javac_or_maven(distribution, tmp_path, pyspark_pin):
    venv = make_venv(tmp_path / "venv")
    run([str(python_of(venv)), "-m", "pip", "install", "-q", str(distribution["wheel"]), pyspark_pin], cwd=tmp_path,
        env=installer_environment(tmp_path))
    path = runtime_only_path(tmp_path, venv / "bin")
    assert shutil.which("javac", path=path) is None and shutil.which("java", path=path) is not None
    assert shutil.which("mvn", path=path) is None
    env = user_environment(tmp_path, path=path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "job.py").write_text(UNIQUE_KEY_JOB)

    result = run([str(python_of(venv)), "job.py"], cwd=elsewhere, env=env)

    assert printed(result.stdout, "STATUS") == ["FINISHED"]
    assert printed(result.stdout, "ROW") == ["1 a", "2 B", "3 c"]
    [module] = printed(result.stdout, "MODULE")
    assert Path(module).is_relative_to(venv)
    built_anywhere = [jar for jar in (tmp_path / "user-home").rglob("iceberg-doris-bridge*.jar")]
    assert built_anywhere == [], "the installed package built jars instead of using the shipped ones"
