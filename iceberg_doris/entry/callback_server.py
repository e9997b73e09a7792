"""The py4j callback server ``CALL doris.*`` goes through: loopback only, and only for the owner.

The JVM reaches the Python procedures through py4j's callback server. PySpark starts that server
without an auth token, so any local process could connect to its port, call a procedure proxy or
send py4j's garbage-collect command for it (which broke every later ``CALL doris.*``). Here the
server demands the gateway's own secret (the token PySpark's Python -> JVM gateway already
requires) on every connection, listens on 127.0.0.1 only, and the driver's callback client is made
to send that secret (``jvm/.../CallbackAuthentication.java``: py4j 0.10.9.7 loses it otherwise).

A callback server someone already started without a token (PySpark streaming, ``foreachBatch``, an
earlier PySpark call) is not restarted: restarting it would drop every Python object registered
with it. It is switched to demand the token from its next connection on; connections it accepted
before keep working. One listening beyond loopback cannot be fixed in place and is refused.
"""

from __future__ import annotations

import ipaddress
import secrets
from typing import Any

from iceberg_doris.errors import ConfigurationError
from iceberg_doris.spark_session.py4j_sockets import gateway_server

LOOPBACK = "127.0.0.1"


def start_authenticated_callback_server(gateway: Any) -> None:
    """Makes ``gateway``'s callback server run, on loopback, requiring the gateway's token."""
    from pyspark.java_gateway import ensure_callback_server_started

    token = gateway.gateway_parameters.auth_token or secrets.token_hex(32)
    server = gateway.__dict__.get("_callback_server")
    if server is None:
        parameters = gateway.callback_server_parameters
        parameters.auth_token = token
        parameters.address = LOOPBACK
        ensure_callback_server_started(gateway)
        server = gateway._callback_server
    else:
        _require_loopback(server)
        for parameters in _parameter_sets(server):
            parameters.auth_token = token
    port = server.server_socket.getsockname()[1]
    gateway.jvm.io.icebergdoris.spark.CallbackAuthentication.connect(gateway_server(gateway), port, token)


def callback_server_port(gateway: Any) -> int:
    """The port the running callback server listens on."""
    return gateway._callback_server.server_socket.getsockname()[1]


def _parameter_sets(server: Any) -> list[Any]:
    # A PySpark ClientServer's server reads python_parameters, a plain CallbackServer its
    # callback_server_parameters; usually one object, set both to be sure.
    found = [getattr(server, name, None) for name in ("callback_server_parameters", "python_parameters")]
    return [p for p in found if p is not None]


def _require_loopback(server: Any) -> None:
    host = server.server_socket.getsockname()[0]
    if not ipaddress.ip_address(host.split("%")[0]).is_loopback:
        raise ConfigurationError(
            f"The py4j callback server of this Spark driver already listens on {host}, beyond loopback, "
            "so other machines could reach CALL doris.*. Start the session with iceberg_doris.session() "
            "before anything else starts that server (or leave its address at 127.0.0.1)."
        )
