"""The runtime jars: found, built reproducibly, and clear errors when a part is missing."""

from __future__ import annotations

import zipfile

import pytest

from iceberg_doris.catalog import runtime_jars
from iceberg_doris.errors import SetupError


def test_relocated_jackson_has_the_names_iceberg_loads():
    with zipfile.ZipFile(runtime_jars.relocated_jackson_jar()) as jar:
        names = set(jar.namelist())
    assert "org/apache/iceberg/shaded/com/fasterxml/jackson/core/JsonFactoryBuilder.class" in names
    assert not any(n.startswith("com/fasterxml/") for n in names)


def test_bridge_jar_holds_the_spark_side_classes():
    with zipfile.ZipFile(runtime_jars.bridge_jar()) as jar:
        names = set(jar.namelist())
    assert "io/icebergdoris/spark/DorisSparkSessionExtensions.class" in names
    assert "io/icebergdoris/spark/DorisProcedureCatalog.class" in names


# Two javac builds (~15 s): kept out of the pure `-m "not spark"` run, which must take seconds.
@pytest.mark.spark
def test_builds_are_reproducible(tmp_path, monkeypatch):
    monkeypatch.setenv(runtime_jars.JAR_CACHE_ENV, str(tmp_path / "a"))
    first = runtime_jars.bridge_jar().read_bytes()
    monkeypatch.setenv(runtime_jars.JAR_CACHE_ENV, str(tmp_path / "b"))
    second = runtime_jars.bridge_jar()
    assert second.parent == tmp_path / "b"
    assert second.read_bytes() == first


def test_missing_java_is_named_with_the_fix(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SetupError, match="^Java 17 is needed to run Spark and was not found on PATH"):
        runtime_jars.resolve_runtime_jars()


def test_unknown_runtime_route(monkeypatch):
    monkeypatch.setenv(runtime_jars.ICEBERG_RUNTIME_ENV, "ivy")
    with pytest.raises(SetupError, match="is not a route: use 'pypi' or 'maven'"):
        runtime_jars.resolve_runtime_jars()


def test_maven_route_uses_spark_packages(monkeypatch):
    monkeypatch.setenv(runtime_jars.ICEBERG_RUNTIME_ENV, "maven")
    resolved = runtime_jars.resolve_runtime_jars()
    assert resolved.packages == ("org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.2",)
    assert runtime_jars.iceberg_runtime_jar() not in resolved.jars
