"""The runtime jars: Maven packages matched to the Spark line, the bridge built per line, the
override for machines without Maven Central, and clear errors when a part is missing."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from iceberg_doris.errors import SetupError
from iceberg_doris.spark_session import spark_lines
from iceberg_doris.spark_session import runtime_jars
from iceberg_doris.spark_session.spark_lines import SUPPORTED, line_of


def test_each_line_resolves_its_own_iceberg_runtime_and_the_jdbc_drivers(monkeypatch):
    monkeypatch.setattr(runtime_jars, "bridge_jar", lambda line: Path(f"/bridge-{line.line}.jar"))
    for line in SUPPORTED:
        resolved = runtime_jars.resolve_runtime_jars(line=line)
        assert resolved.packages == (
            f"org.apache.iceberg:iceberg-spark-runtime-{line.line}_{line.scala}:{line.iceberg}",
            spark_lines.SQLITE_JDBC_PACKAGE,
            spark_lines.POSTGRES_JDBC_PACKAGE,
        )
        assert resolved.jars == (Path(f"/bridge-{line.line}.jar"),)


def test_spark_versions_map_to_their_line():
    assert line_of("4.1.4").line == "4.1" and line_of("4.1.4").scala == "2.13"
    assert line_of("4.0.0").iceberg == "1.11.0"
    assert line_of("3.5.9").scala == "2.12" and not line_of("3.5.9").native_call
    assert line_of("4.1.0").native_call


def test_an_unsupported_spark_is_refused_with_the_fix():
    with pytest.raises(SetupError, match=r"PySpark 4\.3\.0 is not a Spark line iceberg-doris supports \(4\.1, 4\.0, 3\.5\).*pip install 'pyspark>=4\.1,<4\.2'"):
        line_of("4.3.0")


def test_a_local_jar_in_spark_jars_replaces_its_package(monkeypatch):
    """The override for machines without Maven Central: the user's own jar wins over the package."""
    monkeypatch.setattr(runtime_jars, "bridge_jar", lambda line: Path("/bridge.jar"))
    line = line_of("4.1.4")
    conf = {"spark.jars": "/opt/jars/iceberg-spark-runtime-4.1_2.13-1.12.0.jar, /opt/jars/sqlite-jdbc-3.50.3.0.jar"}
    resolved = runtime_jars.resolve_runtime_jars(conf, line)
    assert resolved.packages == (spark_lines.POSTGRES_JDBC_PACKAGE,)


def test_a_jar_of_another_artifact_does_not_replace_a_package(monkeypatch):
    monkeypatch.setattr(runtime_jars, "bridge_jar", lambda line: Path("/bridge.jar"))
    line = line_of("3.5.9")
    # Another line's runtime and a name that merely starts like the driver's.
    conf = {"spark.jars": "/j/iceberg-spark-runtime-4.1_2.13-1.12.0.jar,/j/sqlite-jdbc-helper.jar"}
    resolved = runtime_jars.resolve_runtime_jars(conf, line)
    assert line.iceberg_package in resolved.packages
    assert spark_lines.SQLITE_JDBC_PACKAGE in resolved.packages


def test_missing_java_is_named_with_the_fix(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SetupError, match="^Java 17 is needed to run Spark and was not found on PATH"):
        runtime_jars.resolve_runtime_jars()


def test_missing_maven_in_a_checkout_is_named_with_the_fix(monkeypatch, tmp_path):
    monkeypatch.setenv(runtime_jars.JAR_CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(runtime_jars.MAVEN_ENV, "")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SetupError, match="^Maven is needed once to build the iceberg-doris bridge in a source checkout"):
        runtime_jars.bridge_jar(line_of("4.1.4"))


@pytest.mark.spark
def test_bridge_jar_holds_the_spark_side_classes_of_the_running_line():
    line = spark_lines.running_line()
    with zipfile.ZipFile(runtime_jars.bridge_jar()) as jar:
        names = set(jar.namelist())
    assert "io/icebergdoris/spark/DorisProcedureCatalog.class" in names
    assert "io/icebergdoris/keyindex/KeyIndex.class" in names
    # Spark 3.5 parses CALL with our extension; Spark 4 has CALL of its own.
    assert ("io/icebergdoris/spark/DorisCallParser.class" in names) is (not line.native_call)


# A Maven build (~30 s): kept out of the pure `-m "not spark"` run, which must take seconds.
@pytest.mark.spark
def test_builds_are_reproducible(tmp_path, monkeypatch):
    monkeypatch.setenv(runtime_jars.JAR_CACHE_ENV, str(tmp_path / "a"))
    first = runtime_jars.bridge_jar().read_bytes()
    monkeypatch.setenv(runtime_jars.JAR_CACHE_ENV, str(tmp_path / "b"))
    second = runtime_jars.bridge_jar()
    assert second.parent == tmp_path / "b"
    assert second.read_bytes() == first


def test_a_new_build_keeps_the_newest_builds_of_its_line_only(tmp_path):
    import os

    def build(name: str, age: int) -> Path:
        jar = tmp_path / name
        jar.write_bytes(b"jar")
        os.utime(jar, (1_000_000 - age, 1_000_000 - age))
        return jar

    older = [build(f"iceberg-doris-bridge-spark4.1_2.13-0.1.0-{i:016x}.jar", age=10 + i) for i in range(4)]
    other_line = build("iceberg-doris-bridge-spark3.5_2.12-0.1.0-00000000000000aa.jar", age=99)
    newest = build("iceberg-doris-bridge-spark4.1_2.13-0.1.0-ffffffffffffffff.jar", age=0)
    removed = runtime_jars.prune_older_builds(newest, keep=3)
    assert sorted(removed) == sorted(older[2:])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([newest.name, older[0].name, older[1].name, other_line.name])


def test_a_source_edited_during_the_build_builds_again_and_names_the_jar_by_the_saved_sources(tmp_path, monkeypatch):
    module = tmp_path / "jvm"
    source = module / "src" / "main" / "java" / "A.java"
    source.parent.mkdir(parents=True)
    (module / "pom.xml").write_text("<project/>")
    source.write_text("class A { int v = 1; }")
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setattr(runtime_jars, "JVM_MODULE_DIR", module)
    monkeypatch.setattr(runtime_jars, "_cache_dir", lambda: cache)
    monkeypatch.setattr(runtime_jars, "shipped_jar", lambda line: None)
    builds: list[str] = []

    def build(line):
        builds.append(source.read_text())
        if len(builds) == 1:
            source.write_text("class A { int v = 2; }")  # the edit lands while the first build runs
        built = module / "built.jar"
        built.write_text(f"build {len(builds)}")
        return built

    monkeypatch.setattr(runtime_jars, "_maven_package", build)
    line = SUPPORTED[0]

    jar = runtime_jars.bridge_jar(line)

    assert len(builds) == 2
    assert jar.read_text() == "build 2"
    assert jar.name.endswith(f"-{runtime_jars._digest(runtime_jars._module_inputs(), line.line)}.jar")
    assert [p.name for p in cache.iterdir()] == [jar.name]
