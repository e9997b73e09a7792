"""Spark's console progress bar is on when stderr is a terminal (a person watching) and off when
it is a pipe or file (logs, CI); ``conf`` overrides it either way. The session's own setting is
checked in tests/operations/test_progress.py."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

CODE = (
    "from iceberg_doris.spark_session.builder import _stderr_is_terminal; "
    "print('progress bar', 'on' if _stderr_is_terminal() else 'off')"
)


def run(stderr) -> str:
    return subprocess.run([sys.executable, "-c", CODE], stdout=subprocess.PIPE, stderr=stderr, text=True, check=True).stdout


def test_on_for_a_terminal_off_for_a_pipe():
    primary, secondary = pty.openpty()
    try:
        assert run(secondary) == "progress bar on\n"
    finally:
        os.close(primary)
        os.close(secondary)
    assert run(subprocess.PIPE) == "progress bar off\n"
    assert run(subprocess.DEVNULL) == "progress bar off\n"

