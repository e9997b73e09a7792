"""The driver's py4j connections send each write at once (``TCP_NODELAY``).

py4j writes an answer longer than 8 KiB in two writes. With Nagle's algorithm on (py4j's
default), the second waits for the acknowledgement of the first, which the Python side's kernel
delays by up to 40 ms: every such answer took 44 ms however short the call (measured: 0.2 ms
for 8,000 characters, 44 ms for 9,000). A keyed load gets one: the probe's hit positions.
``jvm/.../Py4jNoDelay.java`` sets the option on the JVM's end of every connection, the open ones
and the ones accepted later (each Python thread opens its own).
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)


def gateway_server(gateway: Any) -> Any:
    """The JVM's py4j server behind ``gateway`` (py4j's ``GATEWAY_SERVER`` object)."""
    from py4j.java_gateway import JavaObject

    return JavaObject("GATEWAY_SERVER", gateway._gateway_client)


def send_without_delay(gateway: Any) -> None:
    """Turns off Nagle's algorithm on the JVM's end of ``gateway``'s connections (a SparkContext's
    ``_gateway``); idempotent. A py4j without the hooks this needs keeps its default, slower only."""
    from py4j.protocol import Py4JError

    try:
        gateway.jvm.io.icebergdoris.spark.Py4jNoDelay.apply(gateway_server(gateway))
    except Py4JError as error:  # another py4j's server class: its answers keep Nagle's delay
        log.debug("py4j connections keep Nagle's algorithm: %s", error)


def connections_with_delay(gateway: Any) -> int:
    """How many of ``gateway``'s open connections still wait for acknowledgements (for checks)."""
    return int(gateway.jvm.io.icebergdoris.spark.Py4jNoDelay.connectionsWithDelay(gateway_server(gateway)))
