"""Remembered py4j name lookups on the session's JVM view.

Every ``jvm.org.apache.x.Y`` walk and every ``pyspark.sql.functions`` call (``F.col``, ``F.lit``:
``sc._jvm.functions``) asks the JVM to resolve a name. A package name or a name found through the
view's imports is a failed ``Class.forName`` first, and each failure searches every jar on the
driver's class path (about 270 with Spark and Iceberg): 0.5-1 ms per lookup, about 200 lookups and
0.1-0.2 s per load (Java Flight Recorder on the driver: 40% of the py4j thread's busy time in a
1%-upsert load). A class, once loaded, is what its name resolves to for the life of the JVM, so the
view remembers each class it finds, and each package once it has found a class in it.
"""

from __future__ import annotations

from typing import Any

from py4j.java_gateway import JavaClass, JavaPackage, JVMView


class _RememberingPackage(JavaPackage):
    """A package whose sub-packages and classes are looked up once."""

    def __getattr__(self, name: str) -> Any:
        return _remember(self, name, super().__getattr__(name))


class _RememberingView(JVMView):
    """The JVM view whose names (classes and packages, through its imports) are looked up once."""

    def __getattr__(self, name: str) -> Any:
        return _remember(self, name, super().__getattr__(name))


def _remember(owner: Any, name: str, found: Any) -> Any:
    """Keeps ``found`` as a plain attribute of ``owner`` (later reads skip ``__getattr__``, the JVM
    round trip). A class is kept at once. py4j answers "package" for any name it cannot load as a
    class, so a package is kept only once a class is found beneath it: a name looked up before
    its jar was added (``ADD JAR``) is looked up again."""
    if name.startswith("__"):
        return found
    if isinstance(found, JavaClass):
        owner.__dict__[name] = found
        _confirm(owner)
    elif isinstance(found, JavaPackage):
        found.__class__ = _RememberingPackage
        found.__dict__["_iceberg_doris_reached_from"] = (owner, name)
    return found


def _confirm(package: Any) -> None:
    """``package`` holds a class: it, and every package above it, is kept where it was reached."""
    while isinstance(package, _RememberingPackage):
        reached = package.__dict__.pop("_iceberg_doris_reached_from", None)
        if reached is None:
            return  # kept already, with the packages above it
        parent, name = reached
        parent.__dict__[name] = package
        package = parent


def remember_lookups(jvm: Any) -> None:
    """Makes ``jvm`` (a SparkContext's ``_jvm``, shared by PySpark and iceberg-doris) remember
    what each name resolves to. Idempotent; names reached from it before are looked up once more."""
    if isinstance(jvm, JVMView) and not isinstance(jvm, _RememberingView):
        jvm.__class__ = _RememberingView
