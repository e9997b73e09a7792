"""Remembered py4j name lookups on the session's JVM view.

Every ``jvm.org.apache.x.Y`` walk and every ``pyspark.sql.functions`` call (``F.col``, ``F.lit``:
``sc._jvm.functions``) asks the JVM to resolve a name. A package name or a name found through the
view's imports is a failed ``Class.forName`` first, and each failure searches every jar on the
driver's class path (about 270 with Spark and Iceberg): 0.5-1 ms per lookup, about 200 lookups and
0.1-0.2 s per load (Java Flight Recorder on the driver: 40% of the py4j thread's busy time in a
1%-upsert load). What a name resolves to does not change while the JVM runs (its class path is
fixed at launch), so the view remembers each answer.
"""

from __future__ import annotations

from typing import Any

from py4j.java_gateway import JavaClass, JavaPackage, JVMView


class _RememberingPackage(JavaPackage):
    """A package whose sub-packages and classes are looked up once."""

    def __getattr__(self, name: str) -> Any:
        found = super().__getattr__(name)
        return _remember(self, name, found)


class _RememberingView(JVMView):
    """The JVM view whose names (classes and packages, through its imports) are looked up once."""

    def __getattr__(self, name: str) -> Any:
        found = super().__getattr__(name)
        return _remember(self, name, found)


def _remember(owner: Any, name: str, found: Any) -> Any:
    if isinstance(found, JavaPackage) and not isinstance(found, _RememberingPackage):
        found.__class__ = _RememberingPackage
    if isinstance(found, (JavaClass, JavaPackage)) and not name.startswith("__"):
        # Later reads find it as a plain attribute: __getattr__ (the JVM round trip) is not called.
        owner.__dict__[name] = found
    return found


def remember_lookups(jvm: Any) -> None:
    """Makes ``jvm`` (a SparkContext's ``_jvm``, shared by PySpark and iceberg-doris) remember
    what each name resolves to. Idempotent; names reached from it before are looked up once more."""
    if isinstance(jvm, JVMView) and not isinstance(jvm, _RememberingView):
        jvm.__class__ = _RememberingView
