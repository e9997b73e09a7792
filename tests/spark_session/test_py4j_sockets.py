"""The driver's py4j connections send each answer at once (TCP_NODELAY on the JVM's end): with
Nagle's algorithm an answer over 8 KiB waited 40 ms for the Python side's delayed acknowledgement.
Real session; the option is read back from the JVM's sockets."""

from __future__ import annotations

import threading

import pytest

from iceberg_doris.spark_session.py4j_sockets import connections_with_delay, gateway_server, send_without_delay

pytestmark = pytest.mark.spark


def test_the_session_connections_send_without_delay(spark) -> None:
    gateway = spark.sparkContext._gateway
    assert connections_with_delay(gateway) == 0
    # What the option is for: a long answer (here 64 KiB) comes back whole.
    builder = spark.sparkContext._jvm.java.lang.StringBuilder()
    builder.append("x" * 65536)
    assert builder.toString() == "x" * 65536


def test_a_connection_a_new_thread_opens_is_set_too(spark) -> None:
    """Each Python thread reaches the JVM through a connection of its own, opened on its first call
    (PySpark's pinned-thread mode): the one opened after the session started must be set as well."""
    gateway = spark.sparkContext._gateway
    called, release = threading.Event(), threading.Event()
    answers: list[int] = []

    def caller() -> None:
        answers.append(int(spark.sparkContext._jvm.java.lang.Integer.valueOf(7)))
        called.set()
        release.wait(30)  # keeps the thread, and so its connection, open while it is checked

    thread = threading.Thread(target=caller, daemon=True)
    thread.start()
    try:
        assert called.wait(30), "the thread's call into the JVM did not return"
        assert answers == [7]
        assert connections_with_delay(gateway) == 0
    finally:
        release.set()
        thread.join(30)


def test_setting_it_again_adds_no_second_listener(spark) -> None:
    gateway = spark.sparkContext._gateway
    send_without_delay(gateway)
    send_without_delay(gateway)
    assert connections_with_delay(gateway) == 0
    listeners = [listener.getClass().getName() for listener in gateway_server(gateway).getListeners()]
    assert listeners.count("io.icebergdoris.spark.Py4jNoDelay") == 1
