"""The Python side's entry point refuses to run without a driver's gateway in its environment."""

from __future__ import annotations

import subprocess
import sys

from tests.packaging.helpers import REPOSITORY


def test_run_by_hand_it_says_who_starts_it():
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPOSITORY)}

    result = subprocess.run([sys.executable, "-m", "iceberg_doris.entry.jvm_side"], env=env,
                            capture_output=True, text=True, timeout=120)

    assert result.returncode == 2
    assert "needs PYSPARK_GATEWAY_PORT and PYSPARK_GATEWAY_SECRET in its environment" in result.stderr
    assert "CALL doris.*" in result.stderr
