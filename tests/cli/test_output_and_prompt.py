"""The command line's --version, CSV/JSON output and interactive prompt, run as a user runs them:
a process of its own (the prompt on a pseudo-terminal)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
import pty
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

import iceberg_doris
from iceberg_doris.cli.output import render_csv, render_json

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "iceberg_doris.cli"]
QUERY = "SELECT 1 AS id, 'a,\"b' AS name, CAST(NULL AS STRING) AS note, DATE'2024-05-01' AS d, CAST(1.50 AS DECIMAL(5,2)) AS x"


def cli(*args: str, home: Path, **options) -> subprocess.CompletedProcess:
    env = dict(os.environ, ICEBERG_DORIS_HOME=str(home), HOME=str(home))
    return subprocess.run([*CLI, *args], cwd=ROOT, env=env, text=True, timeout=300, **options)


def test_csv_and_json_keep_nulls_quotes_dates_and_decimals():
    rows = [(1, 'a,"b', None, dt.date(2024, 5, 1), Decimal("1.50"))]
    columns = ["id", "name", "note", "d", "x"]
    assert render_csv(columns, rows) == 'id,name,note,d,x\n1,"a,""b",,2024-05-01,1.50'
    assert json.loads(render_json(columns, rows)) == [{"id": 1, "name": 'a,"b', "note": None, "d": "2024-05-01", "x": "1.50"}]


def test_version_needs_no_session(tmp_path):
    run = cli("--version", home=tmp_path, capture_output=True)
    assert run.returncode == 0
    assert run.stdout == f"iceberg-doris {iceberg_doris.__version__}\n"


@pytest.mark.spark  # starts its own Spark session
def test_csv_and_json_output_of_a_query(tmp_path):
    run = cli("--output", "csv", "-e", QUERY, "-e", "SELECT id FROM range(3)", "--max-rows", "2", home=tmp_path, capture_output=True)
    assert run.returncode == 0, run.stderr
    first, second = run.stdout.split("\nid\n")
    assert list(csv.reader(io.StringIO(first))) == [["id", "name", "note", "d", "x"], ["1", 'a,"b', "", "2024-05-01", "1.50"]]
    assert second.splitlines() == ["0", "1"]
    assert "only the first 2 rows are shown" in run.stderr
    run = cli("--output", "json", "-e", QUERY, home=tmp_path, capture_output=True)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [{"id": 1, "name": 'a,"b', "note": None, "d": "2024-05-01", "x": "1.50"}]


@pytest.mark.spark  # starts its own Spark session
def test_the_prompt_runs_statements_ending_in_a_semicolon_until_exit(tmp_path):
    primary, secondary = pty.openpty()
    process = subprocess.Popen(
        [*CLI], cwd=ROOT, stdin=secondary, stdout=secondary, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, ICEBERG_DORIS_HOME=str(tmp_path / "lake"), HOME=str(tmp_path)),
    )
    os.close(secondary)
    # A statement over two lines, a ';' inside a quote, an error that does not end the prompt.
    os.write(primary, b"SELECT 41 + 1 AS answer,\n 'x;y' AS text;\nSELECT nope;\nSELECT 'still here' AS s;\nexit\n")
    output = b""
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the terminal closes when the process exits
            break
        if not chunk:
            break
        output += chunk
    os.close(primary)
    stderr = process.stderr.read()
    assert process.wait(timeout=300) == 0, stderr
    text = output.decode()
    assert "| 42     | x;y  |" in text
    assert "| still here |" in text
    assert "doris> " in text and "    -> " in text
    assert "ERROR: " in stderr and "nope" in stderr
    assert [p.name for p in tmp_path.iterdir() if "hist" in p.name.lower()] == []  # no history file with secrets
