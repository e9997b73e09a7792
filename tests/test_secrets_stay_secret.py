"""The PostgreSQL catalog password appears on no process command line, in no message, log line,
``describe`` row or file iceberg-doris writes: real server with a password, real sessions, real CLI.

The password is unique to this run, so a hit anywhere on the machine is ours.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.support.postgres_server import postgres_server
from tests.support.secret_probe import failure_file
from tests.support.spark_output import without_spark_start_up

pytestmark = [pytest.mark.postgres, pytest.mark.spark]  # Spark sessions in subprocesses

REPO = Path(__file__).resolve().parents[1]
CLI = Path(sys.executable).parent / "iceberg-doris"
TIMEOUT = 300


def base_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ICEBERG_DORIS_") or k == "ICEBERG_DORIS_JAR_CACHE"}
    env.pop("PGPASSWORD", None)
    env["ICEBERG_DORIS_HOME"] = str(home)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    return env


def processes_showing(marker: str, *, except_pids: set[int] = frozenset()) -> list[tuple[int, str]]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) not in except_pids:
            try:
                argv = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in argv:
                found.append((int(entry.name), argv.split(b"\0")[0].decode(errors="replace")))
    return found


def files_showing(root: Path, marker: str) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and marker.encode() in p.read_bytes()]


def probe_failure(report_file: Path, stderr: str) -> str:
    """The probe's traceback, else the end of its stderr without py4j's DEBUG traces."""
    failure = failure_file(str(report_file))
    if failure.exists():
        return failure.read_text()
    return "\n".join(line for line in stderr.splitlines() if not line.startswith("py4j."))[-3000:]


def test_catalog_password_stays_secret(tmp_path):
    marker = uuid.uuid4().hex
    password = f"Pw-{marker}/:@%"  # characters URIs must encode, to exercise parsing and masking
    forms = {password, quote(password, safe=""), marker}
    with postgres_server(password=password) as url:
        assert quote(password, safe="") in url
        port_and_db = url.rsplit("@", 1)[1]

        # 1. A session on the catalog, its URI (password inside) passed through the environment.
        home = tmp_path / "probe"
        home.mkdir()
        report_file = tmp_path / "report.json"
        probe = subprocess.run(
            [sys.executable, "-m", "tests.support.secret_probe", str(report_file)],
            cwd=REPO, env=dict(base_env(home), ICEBERG_DORIS_CATALOG_URI=url, SECRET_PROBE_MARKER=marker),
            capture_output=True, text=True, timeout=TIMEOUT,
        )
        assert probe.returncode == 0, probe_failure(report_file, probe.stderr)
        report = json.loads(report_file.read_text())
        # It did the work: loads (one refused with error rows), describe, pyiceberg on the same catalog.
        assert report["load"][0][1] == "FINISHED" and report["load"][0][4] == "1"
        assert report["rows"] == [["1", "Paris"], ["3", "Xian"]] and report["pyiceberg_rows"] == 2
        assert report["errors"][0].startswith("too many filtered rows: 1 of 3 rows were filtered")
        assert any("A Spark session for another catalog is already running" in e for e in report["errors"])
        assert any(e.startswith("Unsupported catalog URI 'postgresqll://lake:***@") for e in report["errors"])
        assert any(e.startswith("PostgreSQL catalog URI 'postgresql://lake:***@") for e in report["errors"])
        assert ["table", "keys_model", "DUPLICATE"] in report["describe"]
        assert ["spark.sql.catalog.iceberg.jdbc.password", "*********(redacted)"] in report["set"]
        assert "spark.sql.catalog.iceberg.uri=jdbc:postgresql://" in report["jvm_command_line"]  # the right process
        assert "py4j" in probe.stderr and "Command to send" in probe.stderr  # DEBUG logs were on
        assert list((home / "warehouse").rglob("*.parquet"))  # files were written
        assert list((home / "warehouse" / "_doris_load_errors").rglob("*"))  # error rows too

        assert report["processes_showing_secret"] == []
        for form in forms:
            assert form not in report_file.read_text()
            assert form not in probe.stdout
            assert form not in probe.stderr  # Python logging at DEBUG, the JVM's log4j output
        assert files_showing(home, marker) == []

        # 2. The CLI with the password in a file: scanned while its Python and JVM processes run
        #    (the scheduler keeps them alive until told to stop).
        cli_home = tmp_path / "cli"
        cli_home.mkdir()
        password_file = tmp_path / "catalog-password"
        password_file.write_text(password + "\n")
        password_file.chmod(0o600)
        cli = subprocess.Popen(
            [str(CLI), "--catalog-uri", f"postgresql://lake@{port_and_db}", "--catalog-password-file", str(password_file),
             "-e", "CALL doris.describe('sales.orders')", "--dynamic-partitions-every", "3600"],
            env=base_env(cli_home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        try:
            out_lines = []
            for line in cli.stdout:
                out_lines.append(line)
                if "dynamic partition pass" in line:
                    break
            assert processes_showing(marker) == []
        finally:
            cli.send_signal(signal.SIGTERM)
            rest, err = cli.communicate(timeout=TIMEOUT)
        out = "".join(out_lines) + rest
        assert cli.returncode == 0, err[-3000:]
        assert "keys_model" in out and "DUPLICATE" in out
        assert "WARNING" not in without_spark_start_up(err)
        for form in forms:
            assert form not in out and form not in err
        assert files_showing(cli_home, marker) == []

        # 3. The CLI with the password in --catalog-uri warns (masked) before anything else; the
        #    session itself works as in test_postgres_catalog, so a bad --conf stops it early here.
        warned = subprocess.run(
            [str(CLI), "--catalog-uri", url, "--conf", "not-a-setting", "-e", "SELECT 1"],
            env=base_env(cli_home), capture_output=True, text=True, timeout=TIMEOUT,
        )
        assert warned.returncode == 1
        assert f"WARNING: --catalog-uri postgresql://lake:***@{port_and_db} carries a password" in warned.stderr
        assert "ERROR: --conf 'not-a-setting' is not KEY=VALUE" in warned.stderr

        # 4. Mistyped URIs on the CLI: clear errors, masked.
        for mistyped, message in [
            (url.replace("postgresql://", "postgres-sql://"), "ERROR: Unsupported catalog URI 'postgres-sql://lake:***@"),
            (url.replace("postgresql://", "postgresql:/"), "ERROR: PostgreSQL catalog URI 'postgresql:/lake:***@"),
            (url.rsplit("/", 1)[0], "ERROR: PostgreSQL catalog URI 'postgresql://lake:***@"),
        ]:
            failed = subprocess.run([str(CLI), "--catalog-uri", mistyped, "-e", "SELECT 1"], env=base_env(cli_home),
                                    capture_output=True, text=True, timeout=TIMEOUT)
            assert failed.returncode == 1
            assert message in failed.stderr, failed.stderr
            for form in forms:
                assert form not in failed.stderr and form not in failed.stdout
        for output in (warned.stdout, warned.stderr):
            for form in forms:
                assert form not in output
