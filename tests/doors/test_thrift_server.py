"""The Spark Thrift server (how JDBC and ODBC clients reach Spark SQL), started from the installed
PySpark with the properties iceberg-doris --print-spark-conf prints, on 127.0.0.1, and queried by
Hive's own JDBC client, beeline: CALL doris.* then SELECT, each connection in its own session."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.doors.scenario import EXPECTED, PYSPARK_BIN, properties_file, rows_in_catalog, script
from iceberg_doris.lake.pyiceberg_catalog import catalog
from iceberg_doris.spark_session.prefetch import package_files
from tests.packaging.helpers import run
from tests.packaging.test_session_entry_points import _environment

pytestmark = pytest.mark.spark
THRIFT_SERVER = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for_port(port: int, server: subprocess.Popen, log: Path, timeout: float = 480) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"the Thrift server exited {server.returncode}:\n{log.read_text()[-6000:]}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(1)
    raise AssertionError(f"the Thrift server did not listen on {port}:\n{log.read_text()[-6000:]}")


def _driver_class_path(properties: Path) -> str:
    """The bridge jar and the packages' jars, on the driver's class path: the server's sessions load
    their catalog in the Thrift handler's threads, whose class loader does not see the jars Spark
    adds at runtime (spark.jars, spark.jars.packages) and would miss Iceberg's SparkCatalog."""
    conf = dict(line.split("=", 1) for line in properties.read_text().splitlines() if "=" in line and not line.startswith("#"))
    packages = tuple(conf["spark.jars.packages"].split(","))
    return ":".join([conf["spark.jars"], *(str(jar) for jar in package_files(packages, {}))])


@pytest.fixture
def thrift_server(tmp_path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    env = _environment(tmp_path)
    properties = properties_file(tmp_path, env)
    class_path = _driver_class_path(properties)
    # Hive's JDBC driver opens every connection with USE <database of the URL, else default>, and
    # the server's default catalog is ours: the namespace must exist there.
    catalog(home=tmp_path / "lake").create_namespace("default")
    port = _free_port()
    log = tmp_path / "thrift-server.log"
    with open(log, "w") as out:
        server = subprocess.Popen(
            [str(PYSPARK_BIN / "spark-submit"), "--class", THRIFT_SERVER, "--properties-file", str(properties),
             "--driver-class-path", class_path, "--hiveconf", f"hive.server2.thrift.port={port}", "--hiveconf", "hive.server2.thrift.bind.host=127.0.0.1",
             "spark-internal"],
            cwd=tmp_path, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    (tmp_path / "server.pid").write_text(str(server.pid))
    try:
        _wait_for_port(port, server, log)
        yield port, env
    finally:
        server.terminate()
        server.wait(timeout=120)


def _beeline(port: int, env: dict[str, str], cwd: Path, script_file: str) -> str:
    result = run([str(PYSPARK_BIN / "beeline"), "-u", f"jdbc:hive2://127.0.0.1:{port}/default", "-n", "doors",
                  "--silent=true", "--outputformat=csv2", "-f", script_file], cwd=cwd, env=env)
    return result.stdout


def _last_select(out: str) -> list[str]:
    """The rows under the last "id,amount" header of beeline's CSV output, up to the blank or "null"
    status lines beeline --silent still prints (sometimes on the header's line, sometimes after
    the rows)."""
    lines = out.strip().splitlines()
    header = max(i for i, line in enumerate(lines) if line.endswith("id,amount"))
    rows = []
    for line in lines[header + 1 :]:
        if not line.strip() or line.strip() == "null":  # the status lines after the rows
            break
        rows.append(line)
    return rows


def thrift_server_pid(tmp_path: Path) -> int:
    return int((tmp_path / "server.pid").read_text())


def _python_side(server_pid: int) -> int:
    children = subprocess.run(["pgrep", "-P", str(server_pid)], capture_output=True, text=True).stdout.split()
    found = [int(pid) for pid in children if b"iceberg_doris.entry.jvm_side" in Path(f"/proc/{pid}/cmdline").read_bytes()]
    assert len(found) == 1, children
    return found[0]


def _processes_showing(secret: bytes) -> list[str]:
    found = []
    for process in Path("/proc").iterdir():
        try:
            if process.name.isdigit() and secret in (process / "cmdline").read_bytes():
                found.append(process.name)
        except OSError:  # it ended meanwhile
            continue
    return found


def test_beeline_calls_procedures_then_selects_and_the_python_side_comes_back(thrift_server, tmp_path):
    port, env = thrift_server
    (tmp_path / "scenario.sql").write_text(script())

    out = _beeline(port, env, tmp_path, "scenario.sql")

    # The temp partition's rows came from a temp view of this connection's session (each JDBC
    # connection has its own, not the server's default session): the call ran in it.
    assert _last_select(out) == ["1,11", "2,21", "3,30"], out
    assert rows_in_catalog(tmp_path) == EXPECTED

    # The Python side the server started holds the gateway's secret in its environment only.
    python_side = _python_side(thrift_server_pid(tmp_path))

    secret = dict(
        entry.split(b"=", 1) for entry in Path(f"/proc/{python_side}/environ").read_bytes().split(b"\0") if b"=" in entry
    )[b"PYSPARK_GATEWAY_SECRET"]
    # Compared into booleans, never shown: a failed assert would print its operands.
    long_enough = len(secret) >= 32
    in_log = secret in (tmp_path / "thrift-server.log").read_bytes()
    assert long_enough, "the gateway secret is short"
    assert not _processes_showing(secret), "a process command line holds the gateway secret"
    assert not in_log, "the driver's log holds the gateway secret"

    # A dead Python side is started again by the next call.

    os.kill(python_side, signal.SIGKILL)
    (tmp_path / "again.sql").write_text(
        "CALL doris.load(table => 'doors.orders', query => 'SELECT DATE\"2024-02-11\" AS dt, 4L AS id, 40L AS amount');\n"
        "SELECT id, amount FROM doors.orders ORDER BY id;\n"
    )
    out = _beeline(port, env, tmp_path, "again.sql")

    assert _last_select(out) == ["1,11", "2,21", "3,30", "4,40"], out
    assert _python_side(thrift_server_pid(tmp_path)) != python_side
