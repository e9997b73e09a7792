"""An embedded (local-master) session listens on loopback only: the driver JVM, the Python process,
and the processes they start (PySpark's Python workers); Spark's own listeners demand its secret."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path

import pytest

from iceberg_doris.lake.settings import CatalogSettings
from iceberg_doris.spark_session.builder import spark_conf
from iceberg_doris.spark_session.spark_lines import running_line

LISTEN = "0A"  # TCP state in /proc/net/tcp


def listening_addresses(pid: int) -> list[tuple[str, int]]:
    """(address, port) of every TCP socket process ``pid`` listens on."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:  # closed meanwhile
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    found = []
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == LISTEN and fields[9] in inodes:
                found.append(_decode(fields[1]))
    return found


def _decode(hex_address: str) -> tuple[str, int]:
    address, port = hex_address.split(":")
    raw = bytes.fromhex(address)
    # The kernel prints each 32-bit word in host (little-endian) order.
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    return str(ipaddress.ip_address(words)), int(port, 16)


def is_loopback(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def descendants(pid: int) -> list[int]:
    children = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            children += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return children + [d for c in children for d in descendants(c)]


def test_decode_proc_net_addresses():
    assert _decode("0100007F:1F90") == ("127.0.0.1", 8080)
    assert _decode("0000000000000000FFFF00000100007F:9541") == (str(ipaddress.ip_address("::ffff:127.0.0.1")), 0x9541)
    assert _decode("00000000000000000000000001000000:0016") == ("::1", 22)
    assert not is_loopback("::ffff:192.0.2.2") and is_loopback("::ffff:127.0.0.1") and is_loopback("::1")


@pytest.mark.spark
def test_every_listener_of_a_local_session_is_on_loopback(spark):
    # Python UDFs start PySpark's worker daemon; collect() serves results through a local socket.
    spark.range(10).selectExpr("id").rdd.map(lambda row: row.id * 2).collect()
    jvm_pid = int(spark._jvm.ProcessHandle.current().pid())
    processes = {os.getpid(), jvm_pid}
    processes |= set(descendants(jvm_pid)) | set(descendants(os.getpid()))
    listeners = {}
    for pid in processes:
        try:
            listeners[pid] = listening_addresses(pid)
        except FileNotFoundError:  # a short-lived child (a Python worker) ended meanwhile
            continue
    assert len(listeners[jvm_pid]) >= 3  # py4j gateway, driver RPC, block manager
    outside = {pid: [a for a in found if not is_loopback(a[0])] for pid, found in listeners.items()}
    assert outside == {pid: [] for pid in listeners}, listeners


@pytest.mark.spark
def test_spark_rpc_and_block_manager_refuse_a_client_without_the_secret(spark):
    """A transport client built without the session's secret, as another local user's would be."""
    jvm = spark._jvm
    env = spark._jsc.sc().env()
    ports = {"rpc": env.rpcEnv().address().port(), "block manager": env.blockManager().blockManagerId().port()}
    transport = jvm.org.apache.spark.network.netty.SparkTransportConf
    # Spark 4 added the TLS options as a fifth argument (None: plain, as Spark 3.5's).
    extra = [jvm.scala.Option.empty()] if not running_line().line.startswith("3.") else []
    stranger_conf = transport.fromSparkConf(jvm.org.apache.spark.SparkConf(False), "rpc", 1, jvm.scala.Option.empty(), *extra)
    context = jvm.org.apache.spark.network.TransportContext(stranger_conf, jvm.org.apache.spark.network.server.NoOpRpcHandler())
    factory = context.createClientFactory()
    try:
        for name, port in ports.items():
            client = factory.createClient("127.0.0.1", port)
            with pytest.raises(Exception) as refused:
                client.sendRpcSync(jvm.java.nio.ByteBuffer.wrap(bytearray(b"stranger")), 30_000)
            # Without authentication the server would try to decode the message instead.
            assert "Expected SaslMessage" in str(refused.value), (name, str(refused.value)[:500])
    finally:
        factory.close()
    assert spark.range(3).rdd.map(lambda r: r.id).sum() == 3  # the session's own traffic authenticates


def test_local_master_binds_the_driver_to_loopback_and_authenticates(tmp_path):
    conf = spark_conf(CatalogSettings.resolve(home=tmp_path), master="local[2]")
    assert conf["spark.driver.bindAddress"] == "127.0.0.1"
    assert conf["spark.driver.host"] == "127.0.0.1"
    assert conf["spark.authenticate"] == "true"
    assert not any("secret" in key for key in conf)  # Spark makes the local secret in memory


def test_cluster_master_keeps_sparks_network_defaults_and_conf_wins(tmp_path):
    settings = CatalogSettings.resolve(home=tmp_path)
    cluster = spark_conf(settings, master="spark://spark-master:7077")
    assert not {"spark.driver.bindAddress", "spark.driver.host", "spark.authenticate"} & set(cluster)
    mine = spark_conf(settings, master="local[*]", conf={"spark.driver.bindAddress": "0.0.0.0"})
    assert mine["spark.driver.bindAddress"] == "0.0.0.0"
