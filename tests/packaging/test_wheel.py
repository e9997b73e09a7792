"""The wheel and sdist the project's own build makes: self-contained, they run a load on a machine
(here: a PATH) without javac or jarjar, from a fresh virtualenv, away from the source tree."""

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

# Building the wheel and a fresh virtualenv installs PySpark twice (~7 minutes): too slow for every
# CI run, so `make test-wheel` (ICEBERG_DORIS_WHEEL_TEST=1) runs it; the rest of tests/packaging
# (spark-submit, an existing session, --print-spark-conf) runs always.
pytestmark = [
    pytest.mark.spark,
    pytest.mark.skipif(
        os.environ.get("ICEBERG_DORIS_WHEEL_TEST") != "1",
        reason="builds and installs the wheel (~7 min): run with ICEBERG_DORIS_WHEEL_TEST=1 (make test-wheel)",
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


def test_wheel_ships_the_jars_and_logging_config(distribution):
    with zipfile.ZipFile(distribution["wheel"]) as wheel:
        names = set(wheel.namelist())
        manifest = json.loads(wheel.read("iceberg_doris/_jars/shipped.json"))
        with wheel.open(f"iceberg_doris/_jars/{manifest['bridge']}") as bridge:
            bridge_classes = set(zipfile.ZipFile(bridge).namelist())
        with wheel.open(f"iceberg_doris/_jars/{manifest['jackson']}") as jackson:
            jackson_classes = set(zipfile.ZipFile(jackson).namelist())
    assert "iceberg_doris/catalog/log4j2.properties" in names
    assert sorted(n for n in names if n.startswith("iceberg_doris/_jars/")) == sorted(
        f"iceberg_doris/_jars/{n}" for n in ("shipped.json", manifest["bridge"], manifest["jackson"])
    )
    assert "io/icebergdoris/spark/DorisSparkSessionExtensions.class" in bridge_classes
    assert "org/apache/iceberg/shaded/com/fasterxml/jackson/core/JsonFactoryBuilder.class" in jackson_classes


def test_sdist_carries_what_the_wheel_build_needs(distribution):
    with tarfile.open(distribution["sdist"]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {"setup.py", "build_support/iceberg_doris_build.py", "iceberg_doris/catalog/log4j2.properties"} <= names
    assert "jvm/src/main/java/io/icebergdoris/spark/DorisSparkSessionExtensions.java" in names
    assert not any(name.startswith("iceberg_doris/_jars/") for name in names)


def test_installed_wheel_runs_a_unique_key_load_without_javac_or_jarjar(distribution, tmp_path):
    venv = make_venv(tmp_path / "venv")
    run([str(python_of(venv)), "-m", "pip", "install", "-q", str(distribution["wheel"])], cwd=tmp_path,
        env=installer_environment(tmp_path))
    path = runtime_only_path(tmp_path, venv / "bin")
    assert shutil.which("javac", path=path) is None and shutil.which("java", path=path) is not None
    env = user_environment(tmp_path, path=path)
    env["ICEBERG_DORIS_JARJAR"] = str(tmp_path / "no-jarjar.jar")  # the Debian jar must not be needed
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "job.py").write_text(UNIQUE_KEY_JOB)

    result = run([str(python_of(venv)), "job.py"], cwd=elsewhere, env=env)

    assert printed(result.stdout, "STATUS") == ["FINISHED"]
    assert printed(result.stdout, "ROW") == ["1 a", "2 B", "3 c"]
    [module] = printed(result.stdout, "MODULE")
    assert Path(module).is_relative_to(venv)
    built_anywhere = list((tmp_path / "user-home").rglob("*.jar"))
    assert built_anywhere == [], "the installed package built jars instead of using the shipped ones"
