"""The session's py4j view remembers what Java names resolve to: each lookup is a JVM round trip
that searches every jar on the class path, and PySpark makes one per ``F.col``."""

from __future__ import annotations

import pytest
from py4j.java_gateway import JavaClass, JavaPackage
from pyspark.sql import functions as F

pytestmark = pytest.mark.spark


@pytest.fixture
def counted(spark):
    """The session's JVM view, and every command sent to the JVM meanwhile. Counted on the
    gateway client itself: the classes and packages a view hands out (and remembers) keep it."""
    jvm = spark.sparkContext._jvm
    client = jvm._gateway_client
    commands: list[str] = []
    send = client.send_command

    def counting(command, *args, **kwargs):
        commands.append(command)
        return send(command, *args, **kwargs)

    client.send_command = counting
    try:
        yield jvm, commands
    finally:
        del client.send_command


def lookups_of(commands: list[str], name: str) -> int:
    """How many of ``commands`` asked the JVM what a name ending in ``name`` is."""
    return sum(1 for c in commands if c.startswith("r\nu\n") and c.split("\n")[2].endswith(name))


def test_names_are_looked_up_in_the_jvm_once(counted):
    jvm, commands = counted
    first = jvm.java.util.concurrent.ConcurrentSkipListSet
    seen = len(commands)
    again = jvm.java.util.concurrent.ConcurrentSkipListSet
    assert isinstance(first, JavaClass) and again is first
    assert isinstance(jvm.java.util, JavaPackage)
    assert [c for c in commands[seen:] if c.startswith("r\nu\n")] == []  # no lookup for the names seen before
    # What is remembered still works: the class makes objects, Spark's functions build columns.
    made = again()
    made.add("b")
    made.add("a")
    assert list(made.toArray()) == ["a", "b"]
    for _ in range(3):
        F.col("x")
        F.lit(1)
    assert lookups_of(commands, "functions") <= 1  # found through the view's imports, once at most


def test_a_name_without_a_class_is_looked_up_again(counted):
    # py4j answers "package" for any name it cannot load as a class: kept, a class added later
    # (ADD JAR) under that name would stay unreachable.
    jvm, commands = counted
    assert isinstance(jvm.io.icebergdoris.NotAClassYet, JavaPackage)
    once = lookups_of(commands, ".NotAClassYet")
    assert isinstance(jvm.io.icebergdoris.NotAClassYet, JavaPackage)
    assert once == 1 and lookups_of(commands, ".NotAClassYet") == 2


def test_a_missing_class_is_still_an_error(spark):
    from py4j.protocol import Py4JError

    jvm = spark.sparkContext._jvm
    with pytest.raises((Py4JError, TypeError)):
        jvm.java.util.NoSuchClassAnywhere()
