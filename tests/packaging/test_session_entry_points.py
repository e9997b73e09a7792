"""Every way into a Spark session, each in a process of its own as a user would run it:
spark-submit of a Python job, and a process whose JVM already ran a session without our jars
(a notebook or pyspark shell after spark.stop())."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

import pyspark
from tests.packaging.helpers import REPOSITORY, UNIQUE_KEY_JOB, printed, run, share_jar_caches

pytestmark = pytest.mark.spark

SPARK_SUBMIT = Path(pyspark.__file__).parent / "bin" / "spark-submit"
EXPECTED_ROWS = ["1 a", "2 B", "3 c"]


def _environment(tmp_path: Path) -> dict[str, str]:
    """This checkout's package (not whatever the virtualenv has installed), a fresh home and lake."""
    home = tmp_path / "user-home"
    home.mkdir()
    share_jar_caches(home)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ICEBERG_DORIS_", "PYSPARK", "SPARK_"))}
    env.update(HOME=str(home), ICEBERG_DORIS_HOME=str(tmp_path / "lake"), PYTHONPATH=str(REPOSITORY))
    if "ICEBERG_DORIS_JAR_CACHE" in os.environ:  # jars already built for this checkout
        env["ICEBERG_DORIS_JAR_CACHE"] = os.environ["ICEBERG_DORIS_JAR_CACHE"]
    return env


def _write_job(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "jobs"
    folder.mkdir(exist_ok=True)
    job = folder / "job.py"
    job.write_text(text)
    return folder


def test_spark_submit_of_a_python_job(tmp_path):
    folder = _write_job(tmp_path, UNIQUE_KEY_JOB)
    env = _environment(tmp_path)
    env["PYSPARK_PYTHON"] = env["PYSPARK_DRIVER_PYTHON"] = sys.executable

    result = run([str(SPARK_SUBMIT), "--master", "local[2]", "job.py"], cwd=folder, env=env)

    assert printed(result.stdout, "STATUS") == ["FINISHED"]
    assert printed(result.stdout, "ROW") == EXPECTED_ROWS
    # The job really ran the spark-submit way: PySpark imported from pyspark.zip, no jars beside it.
    assert "pyspark.zip" in (folder / "pyspark-origin.txt").read_text()


PLAIN_SESSION_FIRST = '''
import iceberg_doris
from pyspark.sql import SparkSession

plain = SparkSession.builder.master("local[1]").getOrCreate()   # a notebook's own session
print("PLAIN", plain.range(3).count())
try:
    iceberg_doris.install(plain)
except iceberg_doris.DorisError as error:
    print("REFUSED", type(error).__name__, str(error))
plain.stop()
'''


def test_session_after_a_stopped_plain_session_in_the_same_process(tmp_path):
    folder = _write_job(tmp_path, PLAIN_SESSION_FIRST + UNIQUE_KEY_JOB)

    result = run([sys.executable, "job.py"], cwd=folder, env=_environment(tmp_path))

    assert printed(result.stdout, "PLAIN") == ["3"]
    [refused] = printed(result.stdout, "REFUSED")
    assert refused.startswith(
        "ConfigurationError This Spark session was created without the iceberg-doris SQL extensions"
    )
    assert "spark.stop(); spark = iceberg_doris.session()" in refused
    assert printed(result.stdout, "STATUS") == ["FINISHED"]
    assert printed(result.stdout, "ROW") == EXPECTED_ROWS


OWN_BUILDER_JOB = PLAIN_SESSION_FIRST + '''
from pyspark.sql import SparkSession
from iceberg_doris import doris

settings = iceberg_doris.CatalogSettings.resolve()
spark = SparkSession.builder.master("local[1]").config(map=iceberg_doris.spark_conf(settings)).getOrCreate()
iceberg_doris.install(spark, settings)
spark.sql("CREATE NAMESPACE shop")
spark.sql("""CALL doris.create_table('CREATE TABLE shop.users (id BIGINT NOT NULL, name VARCHAR(20))
    UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1')""")
spark.sql("""CALL doris.load(table => 'shop.users', query => "SELECT * FROM VALUES (1, 'a') AS t(id, name)")""")
spark.sql("""CALL doris.load(table => 'shop.users', query => "SELECT * FROM VALUES (1, 'z') AS t(id, name)")""")
for row in spark.sql("SELECT id, name FROM shop.users").collect():
    print("ROW", row.id, row.name)
'''


def test_own_builder_and_install_after_a_stopped_plain_session(tmp_path):
    folder = _write_job(tmp_path, OWN_BUILDER_JOB)

    result = run([sys.executable, "job.py"], cwd=folder, env=_environment(tmp_path))

    assert printed(result.stdout, "ROW") == ["1 z"]


LOCAL_JARS_JOB = """
import json, sys
import iceberg_doris
from iceberg_doris import doris

jars = ",".join(json.loads(open("jars.json").read()))
spark = iceberg_doris.session(conf={"spark.jars": jars})
print("PACKAGES", spark.sparkContext.getConf().get("spark.jars.packages", "none"))
spark.sql("CREATE NAMESPACE shop")
doris.create_table(spark, ddl=\"\"\"CREATE TABLE shop.users (id BIGINT NOT NULL, name VARCHAR(20))
    UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1\"\"\")
doris.load(spark, table="shop.users", query="SELECT * FROM VALUES (1, 'a') AS t(id, name)")
doris.load(spark, table="shop.users", query="SELECT * FROM VALUES (1, 'z') AS t(id, name)")
for row in spark.sql("SELECT id, name FROM shop.users").collect():
    print("ROW", row.id, row.name)
"""


def test_local_jars_in_spark_jars_replace_the_maven_packages(spark, tmp_path):
    """The override for machines without Maven Central: the jars a user downloaded, under their
    Maven file names, listed in spark.jars. The job's home has no jar cache, so nothing it runs
    could come from Ivy."""
    from iceberg_doris.spark_session.spark_lines import POSTGRES_JDBC_PACKAGE, SQLITE_JDBC_PACKAGE, running_line

    jvm = spark.sparkContext._jvm
    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()  # where spark.jars land
    downloaded = tmp_path / "downloaded"
    downloaded.mkdir()
    jars = []
    for class_name, package in (
        ("org.apache.iceberg.spark.SparkCatalog", running_line().iceberg_package),
        ("org.sqlite.JDBC", SQLITE_JDBC_PACKAGE),
        ("org.postgresql.Driver", POSTGRES_JDBC_PACKAGE),
    ):
        source = jvm.java.lang.Class.forName(class_name, False, loader).getProtectionDomain().getCodeSource().getLocation().getPath()
        _group, artifact, version = package.split(":")
        jar = downloaded / f"{artifact}-{version}.jar"
        jar.write_bytes(Path(source).read_bytes())
        jars.append(str(jar))
    folder = _write_job(tmp_path, LOCAL_JARS_JOB)
    (folder / "jars.json").write_text(json.dumps(jars))
    env = _environment(tmp_path)
    for cache in (".ivy2", ".ivy2.5.2", ".m2"):
        (Path(env["HOME"]) / cache).unlink()

    result = run([sys.executable, "job.py"], cwd=folder, env=env)

    assert printed(result.stdout, "PACKAGES") == ["none"]
    assert printed(result.stdout, "ROW") == ["1 z"]
    assert not (Path(env["HOME"]) / ".ivy2.5.2").exists() and not (Path(env["HOME"]) / ".ivy2").exists()
