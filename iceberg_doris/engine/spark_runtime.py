"""Spark's own JVM objects we consult: its SQL parser and Hadoop's file systems."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

_DML_NAMES = {"InsertIntoStatement": "INSERT", "DeleteFromTable": "DELETE", "UpdateTable": "UPDATE",
              "MergeIntoTable": "MERGE"}


def statement_kind(spark: "SparkSession", text: str) -> str | None:
    """None for a query; else what kind of statement ``text`` is (checked on Spark's parse tree)."""
    plan = spark._jsparkSession.sessionState().sqlParser().parsePlan(text)
    command = spark.sparkContext._jvm.java.lang.Class.forName("org.apache.spark.sql.catalyst.plans.logical.Command")
    node = plan
    while node.getClass().getSimpleName() == "UnresolvedWith":  # WITH ... <statement>
        node = node.child()
    name = str(node.getClass().getSimpleName())
    if command.isInstance(node) or name.endswith("Statement") or name in _DML_NAMES:
        return _DML_NAMES.get(name, name)
    if "InsertIntoStatement" in str(plan.treeString()):  # FROM t INSERT ... INSERT ...
        return "INSERT"
    return None


def data_files_at(spark: "SparkSession", path: str) -> list[str] | None:
    """The names of the data files ``path`` (a file, folder or glob) names, through Hadoop's file
    system; None if it matches nothing. Java failures propagate (the caller words them)."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    hadoop_path = jvm.org.apache.hadoop.fs.Path(path)
    fs = hadoop_path.getFileSystem(conf)
    statuses = fs.globStatus(hadoop_path)
    if statuses is None or len(statuses) == 0:
        return None
    names: list[str] = []
    for status in statuses:
        if status.isDirectory():
            _list_data_files(fs, status.getPath(), names, depth=0)
        else:
            names.append(status.getPath().getName())
    return names


def _list_data_files(fs: Any, directory: Any, names: list[str], *, depth: int) -> None:
    """Data files under a directory (partition folders included; hidden and _ files skipped)."""
    if depth > 4 or len(names) >= 1000:
        return
    for child in fs.listStatus(directory):
        child_name = child.getPath().getName()
        if child_name.startswith(("_", ".")):
            continue
        if child.isDirectory():
            _list_data_files(fs, child.getPath(), names, depth=depth + 1)
        else:
            names.append(child_name)


def check_expression_syntax(text: str) -> None:
    """Parses ``text`` as a Spark SQL expression in the active session, raising PySpark's
    ``ParseException`` if it is not one. Spark 4's ``F.expr`` parses only when the query is
    analysed, so a syntax error would otherwise surface later, worded as an evaluation failure."""
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession()
    if spark is not None:
        spark._jsparkSession.sessionState().sqlParser().parseExpression(text)


_SEPARATOR = "\u0000"


def select_sql(frame: "DataFrame", expressions: Sequence[str]) -> "DataFrame":
    """``frame.selectExpr(*expressions)`` in a fixed number of py4j round trips.

    PySpark sends a list to the JVM one element at a time (and builds each ``Column`` in several
    calls), so a projection of 10,000 columns costs tens of thousands of round trips; here the
    expressions cross as one string, split in the JVM. Raises what ``selectExpr`` raises."""
    from pyspark.sql import DataFrame

    texts = list(expressions)
    if not texts or any(_SEPARATOR in text for text in texts):
        return frame.selectExpr(*texts)
    # a Java String[] (py4j would hand a returned String back as a Python str, but not an array),
    # which Dataset.selectExpr(String...) takes as it is
    parts = frame.sparkSession._jvm.java.util.regex.Pattern.compile(_SEPARATOR).split(_SEPARATOR.join(texts), -1)
    # PySpark's exception handler (installed on py4j) raises Spark's errors as its own, as selectExpr does
    jdf = frame._jdf.selectExpr(parts)
    return DataFrame(jdf, frame.sparkSession)


def as_doris_reads(frame: "DataFrame") -> "DataFrame":
    """``frame`` (a load's source) with integer arithmetic that fails on overflow instead of
    wrapping, and without the NOT NULL assertions of Spark's INSERT (the load's checks filter
    those rows in Doris's words): see ``jvm/.../LoadSources.java``."""
    from pyspark.sql import DataFrame

    spark = frame.sparkSession
    changed = spark.sparkContext._jvm.io.icebergdoris.spark.LoadSources.asDorisReads(frame._jdf)
    return frame if changed.equals(frame._jdf) else DataFrame(changed, spark)
