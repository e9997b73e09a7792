"""make demo's job (examples/pipeline.py) logs no error: Spark prints nothing at ERROR level and no
Java stack trace on its stderr (issue 57: its first load printed a failed code compilation twice)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]

# log4j2.properties' layout: "HH:mm:ss LEVEL logger: message"; a stack trace's frames start with "at".
_ERROR_LINE = re.compile(r"^\d\d:\d\d:\d\d ERROR ")
_JAVA_FRAME = re.compile(r"^\s+at [\w$.]+\(.*\)$")


@pytest.mark.spark
def test_the_demo_logs_no_error_and_no_stack_trace(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ICEBERG_DORIS_") or k == "ICEBERG_DORIS_JAR_CACHE"}
    env.update(ICEBERG_DORIS_HOME=str(tmp_path / "home"), PYTHONPATH=str(REPOSITORY))
    run = subprocess.run(
        [sys.executable, str(REPOSITORY / "examples" / "pipeline.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=540,
    )
    assert run.returncode == 0, run.stderr[-6000:]
    lines = run.stderr.splitlines()
    assert [line for line in lines if _ERROR_LINE.match(line)] == [], run.stderr[-6000:]
    assert [line for line in lines if _JAVA_FRAME.match(line)][:5] == [], run.stderr[-6000:]
    assert "Whole-stage codegen disabled" not in run.stderr
