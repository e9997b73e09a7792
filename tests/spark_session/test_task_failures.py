"""A Spark task that fails because of the user's own query is one clean message with its cause,
never "report it"; the console stays free of Spark's per-task traces; each doris.* call is a
named Spark job group (issue 39)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from iceberg_doris import doris
from iceberg_doris.errors import EngineError, QueryAnalysisError, QueryValueError
from iceberg_doris.spark_session.job_groups import DESCRIPTION, GROUP_ID

pytestmark = pytest.mark.spark

REPOSITORY = Path(__file__).resolve().parents[2]
DDL = "CREATE TABLE {table} (k INT NOT NULL, v STRING) {model} KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1"


@pytest.fixture
def unique_table(spark, namespace):
    table = f"{namespace}.u"
    doris.create_table(spark, ddl=DDL.format(table=table, model="UNIQUE"))
    return table


def test_a_users_assert_true_is_a_query_error_naming_it(spark, unique_table):
    query = "SELECT CAST(id AS INT) AS k, CAST(assert_true(id < 3) AS STRING) AS v FROM range(5)"
    with pytest.raises(QueryValueError) as raised:
        doris.load(spark, table=unique_table, query=query)
    message = str(raised.value)
    assert message.startswith("doris.load failed: the query raised an error (")
    assert "'(id < 3)' is not true!" in message
    assert "report it" not in message and "\tat " not in message
    assert spark.table(unique_table).count() == 0


def test_a_failing_cast_in_ansi_mode_names_the_value_and_the_expression(spark, unique_table, request):
    previous = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", "true")
    request.addfinalizer(lambda: spark.conf.set("spark.sql.ansi.enabled", previous))
    with pytest.raises(EngineError) as raised:
        doris.load(spark, table=unique_table, query="SELECT CAST(concat('x', id) AS INT) AS k, 'v' AS v FROM range(3)")
    assert isinstance(raised.value, QueryValueError)
    message = str(raised.value)
    assert "CAST_INVALID_INPUT" in message and "'x" in message
    assert "report it" not in message
    assert "CAST(concat('x', id) AS INT)" in message.split("nothing was committed", 1)[1]  # the expression, after the fix


def test_each_call_runs_in_a_job_group_named_after_it_and_the_callers_comes_back(spark, namespace):
    table = f"{namespace}.d"
    doris.create_table(spark, ddl=DDL.format(table=table, model="DUPLICATE"))
    context = spark.sparkContext
    context.setJobGroup("mine", "my own work")
    try:
        doris.load(spark, table=table, query="SELECT 1 AS k, 'a' AS v", label="grouped_1")
        assert (context.getLocalProperty(GROUP_ID), context.getLocalProperty(DESCRIPTION)) == ("mine", "my own work")
    finally:
        context.setLocalProperty(GROUP_ID, None)
        context.setLocalProperty(DESCRIPTION, None)
    jobs = context._jsc.sc().statusStore().jobsList(None).iterator()  # what the UI and history server show
    described = {}
    while jobs.hasNext():
        job = jobs.next()
        if job.description().isDefined():
            described[str(job.description().get())] = str(job.jobGroup().get()) if job.jobGroup().isDefined() else None
    description = f"doris.load {table} label=grouped_1"
    assert description in described
    assert described[description].startswith("doris.load-")


SCRIPT = textwrap.dedent(
    """
    import sys
    import iceberg_doris
    from iceberg_doris import doris

    spark = iceberg_doris.session()
    spark.sql("CREATE NAMESPACE n")
    doris.create_table(spark, ddl="CREATE TABLE n.u (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    print("== ok", file=sys.stderr, flush=True)
    doris.load(spark, table="n.u", query="SELECT CAST(id AS INT) AS k, 'a' AS v FROM range(5)")
    print("== failing", file=sys.stderr, flush=True)
    try:
        doris.load(spark, table="n.u", query="SELECT CAST(id AS INT) AS k, CAST(assert_true(id < 3) AS STRING) AS v FROM range(5)")
    except iceberg_doris.DorisError as error:
        print(f"{type(error).__name__}: {error}", file=sys.stderr, flush=True)
    print("== quiet", file=sys.stderr, flush=True)
    iceberg_doris.session(progress=False)
    doris.load(spark, table="n.u", query="SELECT CAST(id AS INT) AS k, 'b' AS v FROM range(5)")
    print("== end", file=sys.stderr, flush=True)
    """
)


def test_a_script_shows_progress_and_one_clean_failure_on_stderr(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ICEBERG_DORIS_")}
    env.update(ICEBERG_DORIS_HOME=str(tmp_path / "home"), PYTHONPATH=str(REPOSITORY))
    script = tmp_path / "job.py"
    script.write_text(SCRIPT)
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    stderr = done.stderr
    loading = stderr.split("== ok\n", 1)[1].split("== failing\n", 1)[0]
    failing = stderr.split("== failing\n", 1)[1].split("== quiet\n", 1)[0]
    quiet = stderr.split("== quiet\n", 1)[1].split("== end\n", 1)[0]
    # progress by default, with no logging set up, and none of py4j's lines
    assert "load n.u: read started" in loading and "load n.u: commit done in" in loading
    assert "py4j" not in stderr and "Received command" not in stderr
    # the failure: its own progress lines, then one message
    others = [line for line in failing.splitlines() if not line.split(" ", 1)[-1].startswith("load n.u: ")]
    [message] = [line for line in others if line.startswith("QueryValueError: ")]
    assert message.startswith("QueryValueError: doris.load failed: the query raised an error ("), failing
    # a busy machine may add one of Spark's own environment warnings (a slow heartbeat, say); the
    # failure itself appears once, in our message, never in a task line or a second report
    noise = [line for line in others if line != message]
    assert all(" WARN " in line and "assert_true" not in line and "Lost task" not in line for line in noise), failing
    assert "Traceback" not in stderr and "\tat " not in stderr and "Exception in task" not in stderr
    # progress=False: nothing
    assert quiet == ""


def test_an_error_spark_raises_analysing_a_query_is_an_analysis_error_naming_it(spark):
    """SQLSTATE class 42 (here 42703, an unresolved column) from Spark itself: our error names
    Spark's message and is never "not a known user error"."""
    from pyspark.errors import AnalysisException

    from iceberg_doris.spark_session.java_errors import translate

    with pytest.raises(AnalysisException) as raised:
        spark.sql("SELECT no_such_column FROM range(3)")
    translated = translate(raised.value, "doris.load")
    assert isinstance(translated, QueryAnalysisError)
    message = str(translated)
    assert message.startswith("doris.load failed: Spark could not analyse a query or an expression (")
    assert "no_such_column" in message and "nothing was committed" in message
    assert "not a known user error" not in message and "\tat " not in message
