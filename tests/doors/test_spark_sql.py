"""The spark-sql CLI, launched with the properties iceberg-doris --print-spark-conf prints, runs
CALL doris.*: its driver JVM has no Python, so the bridge starts the Python side itself."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.doors.scenario import EXPECTED, PYSPARK_BIN, properties_file, rows_in_catalog, script
from tests.packaging.helpers import run
from tests.packaging.test_session_entry_points import _environment

pytestmark = pytest.mark.spark


def test_spark_sql_creates_loads_and_swaps_a_temp_partition(tmp_path):
    env = _environment(tmp_path)
    properties = properties_file(tmp_path, env)
    (tmp_path / "scenario.sql").write_text(script())

    result = run([str(PYSPARK_BIN / "spark-sql"), "--properties-file", str(properties), "-f", "scenario.sql"],
                 cwd=tmp_path, env=env)

    assert result.stdout.split()[-6:] == ["1", "11", "2", "21", "3", "30"]
    assert rows_in_catalog(tmp_path) == EXPECTED
    assert "PYSPARK_GATEWAY_SECRET" not in result.stdout + result.stderr
    assert _python_sides_left_in(tmp_path) == [], "the Python side outlived its driver"

    # A new driver whose first statement is Spark's own INSERT: it starts the Python side too, and
    # the row replaces key 3 (a plain Iceberg append would leave the key stored twice).
    again = run([str(PYSPARK_BIN / "spark-sql"), "--properties-file", str(properties), "-e",
                 "INSERT INTO doors.orders VALUES (DATE'2024-01-20', 3L, 31L)"], cwd=tmp_path, env=env)
    assert rows_in_catalog(tmp_path) == [(1, 11), (2, 21), (3, 31)], again.stderr[-3000:]


def _python_sides_left_in(folder: Path, wait: float = 15) -> list[int]:
    """The Python side processes still running in ``folder`` (spark-sql's working folder) after
    ``wait`` seconds: one ends when its driver JVM does (its standard input closes)."""
    deadline = time.monotonic() + wait
    while True:
        left = []
        for process in Path("/proc").iterdir():
            try:
                if (process.name.isdigit() and b"iceberg_doris.entry.jvm_side" in (process / "cmdline").read_bytes()
                        and Path(os.readlink(process / "cwd")) == folder):
                    left.append(int(process.name))
            except OSError:  # it ended meanwhile
                continue
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.5)


def test_an_interpreter_without_the_package_is_named_in_the_error(tmp_path):
    env = _environment(tmp_path)
    properties = properties_file(tmp_path, env)
    not_python = tmp_path / "not-python"
    not_python.write_text("#!/bin/sh\necho 'No module named iceberg_doris' >&2\nexit 3\n")
    not_python.chmod(0o755)

    result = subprocess.run(
        [str(PYSPARK_BIN / "spark-sql"), "--properties-file", str(properties),
         "--conf", f"spark.doris.python={not_python}", "-e", "CALL doris.help()"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=540,
    )

    output = result.stdout + result.stderr
    assert "exited with code 3 before it was ready" in output, output[-4000:]
    assert "Set spark.doris.python to a Python that has iceberg-doris and pyspark installed" in output
    assert "No module named iceberg_doris" in output
