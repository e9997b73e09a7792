"""The session's py4j view remembers what Java names resolve to: each lookup is a JVM round trip
that searches every jar on the class path, and PySpark makes one per ``F.col``."""

from __future__ import annotations

import pytest
from py4j.java_gateway import JavaClass, JavaPackage
from pyspark.sql import functions as F

pytestmark = pytest.mark.spark


class CountingClient:
    """The view's gateway client, counting the commands sent through it."""

    def __init__(self, client):
        self.client = client
        self.commands: list[str] = []

    def send_command(self, command, *args, **kwargs):
        self.commands.append(command)
        return self.client.send_command(command, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.client, name)


@pytest.fixture
def counted(spark):
    """Commands sent through the session's JVM view and the packages reached from it."""
    jvm = spark.sparkContext._jvm
    counting = CountingClient(jvm._gateway_client)
    jvm._gateway_client = counting
    try:
        yield jvm, counting.commands
    finally:
        jvm._gateway_client = counting.client


def test_names_are_looked_up_in_the_jvm_once(counted):
    jvm, commands = counted
    first = jvm.java.util.concurrent.ConcurrentSkipListSet
    looked_up = len(commands)
    again = jvm.java.util.concurrent.ConcurrentSkipListSet
    assert isinstance(first, JavaClass) and again is first
    assert isinstance(jvm.java.util, JavaPackage)
    assert len(commands) == looked_up  # no round trip for the names seen before
    # What is remembered still works: the class makes objects, Spark's functions build columns.
    made = again()
    made.add("b")
    made.add("a")
    assert list(made.toArray()) == ["a", "b"]
    names = len(commands)
    for _ in range(3):
        F.col("x")
        F.lit(1)
    lookups = [c for c in commands[names:] if c.startswith("r\nu\n")]
    assert len(lookups) <= 1, lookups  # `functions`, found through the view's imports, once at most


def test_a_name_without_a_class_is_looked_up_again(counted):
    # py4j answers "package" for any name it cannot load as a class: kept, a class added later
    # (ADD JAR) under that name would stay unreachable.
    jvm, commands = counted
    first = len(commands)
    assert isinstance(jvm.io.icebergdoris.NotAClassYet, JavaPackage)
    looked_up = len(commands) - first
    assert isinstance(jvm.io.icebergdoris.NotAClassYet, JavaPackage)
    assert len(commands) - first == 2 * looked_up >= 2


def test_a_missing_class_is_still_an_error(spark):
    from py4j.protocol import Py4JError

    jvm = spark.sparkContext._jvm
    with pytest.raises((Py4JError, TypeError)):
        jvm.java.util.NoSuchClassAnywhere()
