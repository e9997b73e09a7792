"""Spark Connect: a Connect server started from the installed PySpark with the properties
iceberg-doris --print-spark-conf prints, on 127.0.0.1 and asking for a token, and the Connect Python
client (no JVM of its own) running CALL doris.*, Spark's own INSERT, ``df.writeTo(...).append()``
and ``doris.changes`` through it. The server's driver JVM has no Python: the bridge starts it."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.doors.scenario import PYSPARK_BIN, STATEMENTS, properties_file, rows_in_catalog
from tests.doors.test_thrift_server import _driver_class_path, _free_port, _processes_showing, _wait_for_port
from tests.packaging.test_session_entry_points import _environment

pytestmark = pytest.mark.spark
CONNECT_SERVER = "org.apache.spark.sql.connect.service.SparkConnectServer"
TOKEN_VARIABLE = "SPARK_CONNECT_AUTHENTICATE_TOKEN"  # read by the server and by the Python client

# Run by the client process: Spark Connect's Python client only, each statement through the server.
CLIENT = """
import json, os, sys
from pyspark.sql import SparkSession

spark = SparkSession.builder.remote(f"sc://localhost:{sys.argv[1]}").getOrCreate()
assert type(spark).__module__ == "pyspark.sql.connect.session", type(spark)
for statement in json.loads(sys.argv[2]):
    spark.sql(statement).collect()
before = spark.sql("SELECT snapshot_id FROM doors.orders.snapshots ORDER BY committed_at DESC LIMIT 1").first()[0]
# DataFrame writes go through the same door (docs/doors.md's example): an upsert of key 3.
spark.sql("SELECT DATE'2024-01-20' AS dt, 3L AS id, 31L AS amount").writeTo("doors.orders").append()
changes = spark.sql(f"CALL doris.changes(table => 'doors.orders', start_snapshot => {before})").collect()
rows = spark.sql("SELECT id, amount FROM doors.orders ORDER BY id").collect()
from pyspark import SparkContext
children = [c for t in os.listdir("/proc/self/task") for c in open(f"/proc/self/task/{t}/children").read().split()]
print(json.dumps({
    "jvm": SparkContext._jvm is not None or bool(children),
    "rows": [[r.id, r.amount] for r in rows],
    "changes": sorted([r.id, r.amount, r._change_type] for r in changes),
}))
"""


@pytest.fixture
def connect_server(tmp_path: Path) -> Iterator[tuple[int, dict[str, str], str]]:
    env = _environment(tmp_path)
    properties = properties_file(tmp_path, env)
    token = secrets.token_urlsafe(32)
    port = _free_port()
    log = tmp_path / "connect-server.log"
    with open(log, "w") as out:
        server = subprocess.Popen(
            [str(PYSPARK_BIN / "spark-submit"), "--class", CONNECT_SERVER, "--properties-file", str(properties),
             "--driver-class-path", _driver_class_path(properties),
             "--conf", "spark.connect.grpc.binding.address=127.0.0.1", "--conf", f"spark.connect.grpc.binding.port={port}",
             "spark-internal"],
            cwd=tmp_path, env=env | {TOKEN_VARIABLE: token}, stdout=out, stderr=subprocess.STDOUT,
        )
    try:
        _wait_for_port(port, server, log)
        yield port, env, token
    finally:
        server.terminate()
        server.wait(timeout=120)


def _client(port: int, env: dict[str, str], cwd: Path, token: str | None) -> subprocess.CompletedProcess[str]:
    client_env = {k: v for k, v in env.items() if k != TOKEN_VARIABLE} | ({TOKEN_VARIABLE: token} if token else {})
    return subprocess.run(
        [sys.executable, "-c", CLIENT, str(port), json.dumps(STATEMENTS[:-1])],
        cwd=cwd, env=client_env, capture_output=True, text=True, timeout=900,
    )


def test_the_connect_client_calls_procedures_inserts_writes_and_reads_changes(connect_server, tmp_path):
    # One server for both clients (each start costs a driver JVM): first one without the token,
    # which is refused and creates nothing, then one with it.
    port, env, token = connect_server

    refused = _client(port, env, tmp_path, token=None)

    assert refused.returncode != 0
    assert rows_in_catalog_is_empty(tmp_path)

    result = _client(port, env, tmp_path, token)

    assert result.returncode == 0, result.stderr[-6000:]
    answer = json.loads(result.stdout.strip().splitlines()[-1])
    # The swap's rows came from a temp view of the client's own session: the calls ran in it.
    assert answer["rows"] == [[1, 11], [2, 21], [3, 31]]
    assert rows_in_catalog(tmp_path) == [(1, 11), (2, 21), (3, 31)]
    assert answer["changes"] == [[3, 30, "update_preimage"], [3, 31, "update_postimage"]]
    assert answer["jvm"] is False, "the client started a JVM or another process"
    token_in_log = token.encode() in (tmp_path / "connect-server.log").read_bytes()
    assert not token_in_log, "the server's log holds the token"
    assert not _processes_showing(token.encode()), "a process command line holds the token"


def rows_in_catalog_is_empty(tmp_path: Path) -> bool:
    from iceberg_doris.lake.pyiceberg_catalog import catalog

    return not catalog(home=tmp_path / "lake").namespace_exists("doors")
