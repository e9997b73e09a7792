"""Only the session's owner reaches ``CALL doris.*``: the py4j callback server the JVM calls the Python
procedures through demands the gateway's secret and listens on loopback (real session, raw sockets)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

import iceberg_doris
from iceberg_doris.entry.bridge import ProcedureHandler
from iceberg_doris.entry.callback_server import callback_server_port

pytestmark = pytest.mark.spark

# Only a connection the server keeps open runs into it (the refused ones are closed at once).
STRANGER_TIMEOUT = 5.0


class Flag:
    """A Python object the JVM can run (java.lang.Runnable) and keep."""

    def __init__(self) -> None:
        self.ran = threading.Event()

    def run(self) -> None:
        self.ran.set()

    class Java:
        implements = ["java.lang.Runnable"]


def exchange(port: int, payload: str) -> tuple[bytes, bool]:
    """Sends raw py4j protocol text as a stranger would; returns (what came back, whether the server hung up)."""
    with socket.create_connection(("127.0.0.1", port), timeout=STRANGER_TIMEOUT) as sock:
        sock.sendall(payload.encode())
        received = b""
        while True:
            try:
                chunk = sock.recv(4096)
            except ConnectionResetError:
                return received, True
            except socket.timeout:
                return received, False
            if not chunk:
                return received, True
            received += chunk


def handler_ids(gateway) -> list[str]:
    pool = gateway.gateway_property.pool
    return [key for key, value in list(pool.dict.items()) if isinstance(value, ProcedureHandler)]


def proxy_id(gateway, obj: object) -> str:
    return next(key for key, value in list(gateway.gateway_property.pool.dict.items()) if value is obj)


def garbage_collect(object_id: str) -> str:
    return f"g\n{object_id}\ne\n"


def call(object_id: str, method: str, *string_args: str) -> str:
    return f"c\n{object_id}\n{method}\n" + "".join(f"s{a}\n" for a in string_args) + "e\n"


def run_from_jvm_thread(spark) -> bool:
    """A JVM thread that serves no Python call opens its own connection to the callback server."""
    flag = Flag()
    thread = spark._jvm.java.lang.Thread(flag)
    thread.start()
    thread.join(60_000)
    return flag.ran.is_set()


@pytest.fixture
def gateway(spark) -> Iterator[object]:
    yield spark.sparkContext._gateway


def test_callback_server_listens_on_loopback_only(gateway):
    assert gateway._callback_server.server_socket.getsockname()[0] == "127.0.0.1"


@pytest.mark.parametrize(
    "authentication",
    ["", "A\nnot-the-token\ne\n", "A\n\ne\n"],
    ids=["no-token", "wrong-token", "empty-token"],
)
def test_stranger_cannot_collect_the_procedure_proxy(spark, gateway, authentication):
    ids = handler_ids(gateway)
    assert ids, "the session registered its procedure handler"
    reply, hung_up = exchange(callback_server_port(gateway), authentication + garbage_collect(ids[0]))
    assert hung_up
    assert not reply.startswith(b"!y")  # py4j's success answer
    assert handler_ids(gateway) == ids
    assert spark.sql("CALL doris.help(procedure => 'help')").collect()[0]["procedure"] == "help"


def test_stranger_cannot_call_a_procedure(spark, gateway):
    ids = handler_ids(gateway)
    reply, hung_up = exchange(callback_server_port(gateway), call(ids[0], "describe", "help"))
    assert hung_up
    assert b"output" not in reply and not reply.startswith(b"!y")
    assert spark.sql("CALL doris.help()").count() > 1


def test_the_driver_itself_authenticates_new_connections(spark):
    """The JVM side sends the token too, else a callback from a fresh JVM thread would be refused."""
    assert run_from_jvm_thread(spark)


def test_install_secures_a_callback_server_started_without_a_token(spark, gateway):
    """A server PySpark started for something else (streaming, foreachBatch) gets the token in place,
    keeping the Python objects registered with it."""
    from py4j.java_gateway import JavaObject

    port = callback_server_port(gateway)
    server = gateway._callback_server
    sentinel = Flag()
    keeper = spark._jvm.java.util.ArrayList()
    keeper.add(sentinel)  # registers the Python object with the callback server, as PySpark's listeners are
    try:
        # The state pyspark.java_gateway.ensure_callback_server_started leaves: no token on either side.
        for parameters in {id(p): p for p in (server.callback_server_parameters, gateway.callback_server_parameters)}.values():
            parameters.auth_token = None
        jvm_side = JavaObject("GATEWAY_SERVER", gateway._gateway_client)
        jvm_side.resetCallbackClient(jvm_side.getCallbackClient().getAddress(), port)
        reply, _ = exchange(port, call(proxy_id(gateway, sentinel), "run"))
        assert reply.startswith(b"!y") and sentinel.ran.is_set()  # the hole this closes

        iceberg_doris.install(spark)

        assert callback_server_port(gateway) == port  # not restarted
        reply, hung_up = exchange(port, garbage_collect(proxy_id(gateway, sentinel)))
        assert hung_up and not reply.startswith(b"!y")
        assert proxy_id(gateway, sentinel)  # still registered
        assert run_from_jvm_thread(spark)
        assert spark.sql("CALL doris.help()").count() > 1
    finally:
        iceberg_doris.install(spark)  # whatever happened, leave the session secured
