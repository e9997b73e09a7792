"""Failures inside Spark's JVM reach the user as our errors, with the cause in words and the fix,
in the Python form and through CALL, and nothing is committed."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from urllib.parse import urlparse

import pytest
from pyspark.errors import IllegalArgumentException

from iceberg_doris import doris
from iceberg_doris.engine import key_index
from iceberg_doris.errors import EngineError
from iceberg_doris.spark_session.java_errors import translate
from tests.concurrency import readers_agree, snapshot_count, unique_table, values

pytestmark = pytest.mark.spark


def test_a_data_file_deleted_by_hand_is_named_with_the_fix(spark, namespace, request):
    table = unique_table(spark, namespace, buckets=1)
    doris.load(spark, table=table, query=values(["(1,'a',1)", "(2,'b',1)"]))
    [path] = [r[0] for r in spark.sql(f"SELECT file_path FROM {table}.data_files").collect()]
    os.remove(urlparse(path).path)
    before = snapshot_count(spark, table)
    # The first load stored and cached the file's key-index entry, so an indexed lookup would not
    # read the data file at all: scan, so that Spark meets the missing file.
    spark.conf.set(key_index.ENABLED_CONF, "false")
    request.addfinalizer(lambda: spark.conf.unset(key_index.ENABLED_CONF))
    with pytest.raises(EngineError) as raised:
        doris.load(spark, table=table, query=values(["(1,'new',2)"]))
    message = str(raised.value)
    assert message.startswith("doris.load failed: a file the table references is missing (")
    assert message.endswith(
        "nothing was committed. Its files were deleted outside Iceberg (by hand, or by a cleanup of another tool); "
        "restore the file, or roll the table back to a snapshot whose files exist (CALL <catalog>.system.rollback_to_snapshot)"
    )
    assert "Py4JJavaError" not in message and "\tat " not in message
    assert snapshot_count(spark, table) == before
    with pytest.raises(IllegalArgumentException) as through_sql:
        spark.sql(f"CALL doris.load(table => '{table}', query => \"SELECT 1 AS k, 'n' AS v, 3 AS s\")").collect()
    assert str(through_sql.value).startswith("doris.load failed: a file the table references is missing (")


def test_a_value_spark_cannot_compute_is_named_with_the_fix(spark, namespace):
    table = f"{namespace}.dup"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k INT NOT NULL, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    doris.load(spark, table=table, query=values(["(1,'a')"], "k, v"))
    before = snapshot_count(spark, table)
    previous = spark.conf.get("spark.sql.ansi.enabled")  # the session's default (false), not Spark 4's
    spark.conf.set("spark.sql.ansi.enabled", "true")
    try:
        with pytest.raises(EngineError) as raised:
            doris.delete(spark, table=table, where="k / 0 > 1")
    finally:
        spark.conf.set("spark.sql.ansi.enabled", previous)
    message = str(raised.value)
    assert message.startswith("doris.delete failed: Spark could not compute a value (")
    assert "DIVIDE_BY_ZERO" in message
    assert (
        "nothing was committed. Fix the expression or the data (e.g. try_divide, try_cast), or turn off spark.sql.ansi.enabled"
    ) in message  # then, when Spark gives it, the failing expression on lines of its own
    assert snapshot_count(spark, table) == before


def test_an_unrecognised_java_failure_names_its_innermost_cause(spark):
    jvm = spark.sparkContext._jvm
    try:
        jvm.java.lang.Integer.parseInt("twelve")
    except Exception as error:  # PySpark hands it over as its captured NumberFormatException
        translated = translate(error, "doris.load into db.t")
    assert isinstance(translated, EngineError)
    assert str(translated) == (
        "doris.load into db.t failed inside Spark/Iceberg (NumberFormatException: For input string: \"twelve\"); nothing "
        "was committed. This is not a known user error: run it again, and if it fails the same way report it with the "
        "stack trace iceberg_doris.spark_session.java_errors logs at DEBUG "
        "(logging.getLogger('iceberg_doris').setLevel(logging.DEBUG))"
    )
    assert translate(ValueError("a Python bug"), "doris.load") is None


def _make_read_only(folder: str) -> Callable[[], None]:
    """Makes ``folder`` (and everything in it) unwritable; returns the undo.

    As root, permission bits do not stop a write (CAP_DAC_OVERRIDE), so root uses the immutable
    attribute (``chattr +i``), which stops root too; the test is skipped where neither works."""
    if os.geteuid() != 0:
        for root, dirs, files in os.walk(folder):
            for name in dirs + files:
                os.chmod(os.path.join(root, name), 0o555 if name in dirs else 0o444)
        os.chmod(folder, 0o555)

        def undo() -> None:
            os.chmod(folder, 0o755)
            for root, dirs, files in os.walk(folder):
                for name in dirs + files:
                    os.chmod(os.path.join(root, name), 0o755 if name in dirs else 0o644)

        return undo
    chattr = shutil.which("chattr")
    if chattr is None:
        pytest.skip("running as root without chattr: no way to make a folder read-only for root")
    made = subprocess.run([chattr, "-R", "+i", folder], capture_output=True, text=True)
    if made.returncode != 0:
        subprocess.run([chattr, "-R", "-i", folder], capture_output=True)
        pytest.skip(f"running as root and chattr +i is refused here ({made.stderr.strip()}): cannot make a folder read-only")
    return lambda: subprocess.run([chattr, "-R", "-i", folder], check=True)


def test_read_only_storage_is_named_and_never_sent_to_a_rollback(spark, namespace, py_catalog):
    table = unique_table(spark, namespace, buckets=1)
    doris.load(spark, table=table, query=values(["(1,'a',1)", "(2,'b',1)"]))
    folder = urlparse(spark.sql(f"SELECT file_path FROM {table}.data_files").first()[0]).path
    folder = folder[: folder.index("/data/")]
    before = snapshot_count(spark, table)
    undo = _make_read_only(folder)
    try:
        with pytest.raises(EngineError) as raised:
            doris.load(spark, table=table, query=values(["(1,'new',2)", "(3,'c',1)"]))
    finally:
        undo()
    message = str(raised.value)
    assert message.startswith("doris.load failed: the storage refused to write (FileNotFoundException: ")
    assert message.endswith(
        "permission denied or a read-only file system); nothing was committed and the table is unchanged. Let the user "
        "running Spark write to the table's folder (its permissions, or mount it read-write), then run it again"
    )
    assert "missing" not in message and "roll" not in message and "\tat " not in message
    assert snapshot_count(spark, table) == before
    assert readers_agree(spark, py_catalog, table) == [(1, "a", 1), (2, "b", 1)]
    # writable again: the same load commits, once
    doris.load(spark, table=table, query=values(["(1,'new',2)", "(3,'c',1)"]))
    assert readers_agree(spark, py_catalog, table) == [(1, "new", 2), (2, "b", 1), (3, "c", 1)]
    assert snapshot_count(spark, table) == before + 1


def test_out_of_memory_points_to_the_real_driver_memory_settings(spark):
    jvm = spark.sparkContext._jvm
    try:  # an array Java refuses to allocate: an OutOfMemoryError without using the memory
        jvm.java.lang.reflect.Array.newInstance(jvm.java.lang.Long.TYPE, 2**31 - 1)
    except Exception as error:
        translated = translate(error, "doris.load into db.t")
    message = str(translated)
    assert message.startswith("doris.load into db.t failed: Spark ran out of memory (OutOfMemoryError: ")
    assert message.endswith(
        "nothing was committed. Give Spark more memory: start a new Python process with iceberg_doris.session("
        "conf={'spark.driver.memory': '8g'}) or SPARK_DRIVER_MEMORY=8g in its environment (the driver's heap is fixed "
        "when its JVM starts), or spark.executor.memory on a cluster; or load in smaller batches"
    )
    assert "driver_memory=" not in message
