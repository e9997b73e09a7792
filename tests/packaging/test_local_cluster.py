"""A ``local-cluster[2,1,1024]`` master (Spark's standalone Master and two Workers inside the
driver, each executor a JVM of its own: the closest thing to a cluster CI can run), started by
``iceberg_doris.session(master=...)`` in a process of its own: shuffle partitions sized for its
cores, a unique-key load that runs on the executors, and no listener open to anyone but the owner."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.spark_session.test_loopback_listeners import is_loopback
from tests.packaging.helpers import printed, run
from tests.packaging.test_session_entry_points import _environment

pytestmark = pytest.mark.spark

CLUSTER_JOB = r'''
import json, os, time, urllib.error, urllib.request
from pathlib import Path
import iceberg_doris
from iceberg_doris import doris
from tests.spark_session.test_loopback_listeners import descendants, is_loopback, listening_addresses

spark = iceberg_doris.session(master="local-cluster[2,1,1024]")
print("SHUFFLE", spark.conf.get("spark.sql.shuffle.partitions"))
spark.sql("CREATE NAMESPACE IF NOT EXISTS shop")
doris.create_table(spark, ddl="""CREATE TABLE shop.users (id BIGINT NOT NULL, name VARCHAR(20))
    UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2""")
spark.sql("CALL doris.load(table => 'shop.users', query => 'SELECT * FROM VALUES (1, \"a\"), (2, \"b\") AS t(id, name)')")
result = doris.load(spark, table="shop.users", query="SELECT * FROM VALUES (2, 'B'), (3, 'c') AS t(id, name)")
print("STATUS", result[0]["status"])
for row in spark.sql("SELECT id, name FROM shop.users ORDER BY id").collect():
    print("ROW", row.id, row.name)
print("SHUFFLE", spark.conf.get("spark.sql.shuffle.partitions"))
# Tasks ran in the executor JVMs: the host of each task's executor is not the driver.
executors = [e for e in spark.sparkContext._jsc.sc().statusTracker().getExecutorInfos()]
print("EXECUTORS", len(executors) - 1)

jvm = spark._jvm
driver_pid = int(jvm.ProcessHandle.current().pid())
processes = [driver_pid] + descendants(driver_pid)
report = {"listeners": {}, "cmdlines": {}, "secret_env": {}, "executor_pids": []}
for pid in processes:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        report["listeners"][pid] = listening_addresses(pid)
    except (FileNotFoundError, ProcessLookupError):  # a short-lived Python worker ended meanwhile
        continue
    report["cmdlines"][pid] = cmdline
    if "CoarseGrainedExecutorBackend" in cmdline:
        report["executor_pids"].append(pid)
        report.setdefault("executor_dirs", []).append(os.readlink(f"/proc/{pid}/cwd"))
    secret = [e.split(b"=", 1)[1].decode() for e in environ if e.startswith(b"_SPARK_AUTH_SECRET=")]
    if secret:
        report["secret_env"][pid] = {"value": secret[0], "mode": oct(os.stat(f"/proc/{pid}/environ").st_mode & 0o777)}

# Every listener: HTTP answers 403; Spark RPC refuses a client without the secret.
# Spark 4 added the TLS options as a fifth argument (None: plain, as Spark 3.5's).
tls = [jvm.scala.Option.empty()] if not spark.version.startswith("3.") else []
stranger_conf = jvm.org.apache.spark.network.netty.SparkTransportConf.fromSparkConf(
    jvm.org.apache.spark.SparkConf(False), "rpc", 1, jvm.scala.Option.empty(), *tls)
factory = jvm.org.apache.spark.network.TransportContext(
    stranger_conf, jvm.org.apache.spark.network.server.NoOpRpcHandler()).createClientFactory()
gateway_port = spark.sparkContext._gateway.gateway_parameters.port
answers = {}
for pid in report["executor_pids"] + [driver_pid]:
    for address, port in report["listeners"][pid]:
        if port == gateway_port:
            continue
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=3)
            answers[port] = "HTTP 200"
            continue
        except urllib.error.HTTPError as error:
            answers[port] = f"HTTP {error.code} {error.read().decode(errors='replace')[:300]}"
            continue
        except Exception:
            pass
        try:
            client = factory.createClient("127.0.0.1", port)
            client.sendRpcSync(jvm.java.nio.ByteBuffer.wrap(bytearray(b"stranger")), 5000)
            answers[port] = "RPC accepted"
        except Exception as refused:
            answers[port] = "refused: Expected SaslMessage" if "Expected SaslMessage" in str(refused) else "other"
report["answers"] = answers
print("REPORT", json.dumps(report))
# No spark.stop(): the session's folder must go at exit even so.
'''


def test_local_cluster_session_sizes_shuffles_loads_and_stays_private(tmp_path):
    folder = tmp_path / "job"
    folder.mkdir()
    (folder / "job.py").write_text(CLUSTER_JOB)

    result = run([sys.executable, "job.py"], cwd=folder, env=_environment(tmp_path), timeout=240)

    # 2 executors x 1 core -> 2 partitions per core, set before the executors registered
    assert printed(result.stdout, "SHUFFLE") == ["4", "4"]
    assert printed(result.stdout, "STATUS") == ["FINISHED"]
    assert printed(result.stdout, "ROW") == ["1 a", "2 B", "3 c"]
    assert printed(result.stdout, "EXECUTORS") == ["2"]
    [raw] = printed(result.stdout, "REPORT")
    report = json.loads(raw)

    assert len(report["executor_pids"]) == 2
    outside = {pid: [a for a in found if not is_loopback(a[0])] for pid, found in report["listeners"].items()}
    assert outside == {pid: [] for pid in report["listeners"]}, report["listeners"]
    # The secret reached each executor in its owner-only environment, on no command line.
    secrets = {entry["value"] for entry in report["secret_env"].values()}
    assert len(secrets) == 1 and len(next(iter(secrets))) == 64
    assert {str(pid) for pid in report["executor_pids"]} <= set(report["secret_env"])
    assert {entry["mode"] for entry in report["secret_env"].values()} == {"0o400"}
    [secret] = secrets
    assert not [pid for pid, line in report["cmdlines"].items() if secret in line or "authenticate.secret" in line]
    assert secret not in result.stdout.replace(raw, "") and secret not in result.stderr
    # The Master's and both Workers' web UIs are closed; every Spark RPC listener (driver RPC and
    # block manager, Master, 2 Workers, 2 executors' block managers) demands the secret.
    # Executors work (logs, fetched jars) in an owner-only folder of this process's own, not in
    # PySpark's installed package, and it is gone once the process has ended (without spark.stop()).
    homes = {Path(d).parents[2] for d in report["executor_dirs"]}
    assert len(homes) == 1 and next(iter(homes)).name.startswith("iceberg-doris-spark-home-"), report["executor_dirs"]
    assert not next(iter(homes)).exists()
    answers = report["answers"].values()
    web = [a for a in answers if a.startswith("HTTP")]
    assert len(web) == 3 and all(a.startswith("HTTP 403") and "closed by iceberg-doris" in a for a in web), answers
    assert sum(a == "refused: Expected SaslMessage" for a in answers) >= 7, answers
    assert "RPC accepted" not in answers
