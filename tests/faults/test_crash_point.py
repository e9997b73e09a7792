"""The crash-point hook itself (no Spark): inert unless named, read once, a real SIGKILL when hit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from iceberg_doris.engine.faults import CRASH_ENV, operation_name
from tests.faults.crash_harness import REPO_ROOT


def run_point(code: str, target: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != CRASH_ENV}
    if target is not None:
        env[CRASH_ENV] = target
    script = f"from iceberg_doris.engine.faults import crash_point\n{code}\nprint('alive', flush=True)"
    return subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    ("phrase", "name"),
    [
        ("load into", "load"),
        ("insert_overwrite into", "insert_overwrite"),
        ("swap temp partition of", "swap_temp_partition"),
        ("add partition to", "add_partition"),
        ("compact", "compact"),
        ("create_table", "create_table"),
    ],
)
def test_points_are_named_after_the_procedure(phrase, name):
    assert operation_name(phrase) == name


@pytest.mark.parametrize("target", [None, "load.before-commit", "compact.files-staged", ""])
def test_a_point_not_named_does_nothing(target):
    done = run_point("crash_point('load into', 'files-staged')", target)
    assert (done.returncode, done.stdout) == (0, "alive\n"), done.stderr


@pytest.mark.parametrize("target", ["load.files-staged", "*.files-staged", "load.*"])
def test_the_named_point_kills_the_process(target):
    done = run_point("crash_point('load into', 'files-staged')", target)
    assert done.returncode == -signal.SIGKILL
    assert done.stdout == ""  # nothing after the point ran
    assert "crash point load.files-staged reached" in done.stderr


def test_the_variable_is_read_once_at_import():
    code = f"import os\nos.environ[{CRASH_ENV!r}] = 'load.files-staged'\ncrash_point('load into', 'files-staged')"
    done = run_point(code, None)
    assert (done.returncode, done.stdout) == (0, "alive\n"), done.stderr
