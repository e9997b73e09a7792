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


def s3a_endpoint(spark: "SparkSession", path: str) -> str | None:
    """The endpoint Hadoop's ``s3a`` serves ``path``'s bucket from (its per-bucket setting, else
    the global one), or None when ``path`` is not on S3 or names none (AWS's own)."""
    from urllib.parse import urlsplit

    parts = urlsplit(path)
    if parts.scheme.lower() not in ("s3", "s3a") or not parts.netloc:
        return None
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    endpoint = conf.get(f"fs.s3a.bucket.{parts.netloc}.endpoint") or conf.get("fs.s3a.endpoint")
    return str(endpoint) if endpoint else None


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


def expression_calls(frame: "DataFrame") -> tuple[str | None, tuple[str, ...]]:
    """For a one-column ``frame`` (an expression selected over a relation): the first aggregate,
    window, non-deterministic or user-defined function its analysed plan calls (None if none),
    and the names of the relation's columns it reads. Read on Spark's analysed plan, where names
    and functions are resolved."""
    plan = frame._jdf.queryExecution().analyzed()
    found: list[str] = []
    nodes = [plan]
    while nodes and not found:
        node = nodes.pop()
        nodes.extend(_seq(node.children()))
        for expression in _seq(node.expressions()):
            name = _disallowed_call(expression)
            if name is not None:
                found.append(name)
                break
    leaf = plan
    while len(_seq(leaf.children())) > 0:
        leaf = _seq(leaf.children())[0]
    read = {str(a.exprId().id()) for a in _seq(plan.references().toSeq())}
    read |= {str(a.exprId().id()) for node in _plan_nodes(plan) for a in _seq(node.references().toSeq())}
    columns = tuple(str(a.name()) for a in _seq(leaf.output()) if str(a.exprId().id()) in read)
    return (found[0] if found else None), columns


def _plan_nodes(plan: Any) -> list[Any]:
    nodes, pending = [], [plan]
    while pending:
        node = pending.pop()
        nodes.append(node)
        pending.extend(_seq(node.children()))
    return nodes


def _disallowed_call(expression: Any) -> str | None:
    """The name of the first aggregate, window, non-deterministic or user-defined function in
    ``expression`` (depth first), None if there is none."""
    pending = [expression]
    while pending:
        node = pending.pop(0)
        kind = str(node.getClass().getSimpleName())
        if kind == "AggregateExpression":
            return str(node.aggregateFunction().prettyName())
        if kind == "WindowExpression":
            return str(node.windowFunction().prettyName())
        if "UDF" in kind or "UserDefined" in kind:
            return str(node.prettyName())
        children = _seq(node.children())
        if not node.deterministic() and all(child.deterministic() for child in children):
            return str(node.prettyName())
        pending[0:0] = children
    return None


def _seq(seq: Any) -> list[Any]:
    """A Scala Seq as a Python list."""
    return [seq.apply(i) for i in range(seq.size())]
