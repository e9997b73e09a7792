"""A Java application run by spark-submit with the properties iceberg-doris --print-spark-conf
prints: its driver JVM has no Python, and its spark.sql("CALL doris.*") and Spark's own INSERT
start the Python side as spark-sql's do. Scala jobs take the same path (a JVM driver's session)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.doors.scenario import EXPECTED, PYSPARK_BIN, STATEMENTS, properties_file, rows_in_catalog
from tests.packaging.helpers import run
from tests.packaging.test_session_entry_points import _environment

pytestmark = pytest.mark.spark

# The job runs the scenario's statements, one per line of its argument file, and prints the last one's rows.
JOB = """
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

public final class DorisJob {
  public static void main(String[] args) throws Exception {
    SparkSession spark = SparkSession.builder().appName("doris-job").getOrCreate();
    List<String> statements = Files.readAllLines(Path.of(args[0]));
    List<Row> rows = null;
    for (String statement : statements) {
      rows = spark.sql(statement).collectAsList();
    }
    for (Row row : rows) {
      System.out.println("ROW " + row.get(0) + "," + row.get(1));
    }
    spark.stop();
  }
}
"""


def _job_jar(folder: Path) -> Path:
    source = folder / "DorisJob.java"
    source.write_text(JOB)
    jars = str(PYSPARK_BIN.parent / "jars" / "*")
    subprocess.run(["javac", "-cp", jars, "-d", str(folder / "classes"), str(source)], check=True, timeout=300)
    jar = folder / "doris-job.jar"
    subprocess.run(["jar", "cf", str(jar), "-C", str(folder / "classes"), "."], check=True, timeout=120)
    return jar


def test_a_java_spark_submit_job_creates_loads_swaps_and_inserts(tmp_path):
    env = _environment(tmp_path)
    properties = properties_file(tmp_path, env)
    jar = _job_jar(tmp_path)
    (tmp_path / "statements.txt").write_text("\n".join(STATEMENTS) + "\n")

    result = run([str(PYSPARK_BIN / "spark-submit"), "--properties-file", str(properties), "--class", "DorisJob",
                  str(jar), "statements.txt"], cwd=tmp_path, env=env)

    printed = [line.removeprefix("ROW ") for line in result.stdout.splitlines() if line.startswith("ROW ")]
    assert printed == [f"{key},{amount}" for key, amount in EXPECTED], result.stderr[-4000:]
    assert rows_in_catalog(tmp_path) == EXPECTED
