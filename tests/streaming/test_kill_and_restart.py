"""Exactly once across a real crash: the driver is SIGKILLed right after a micro-batch's commits,
before Spark checkpoints the batch, and the query restarts from its checkpoint.

The streaming query runs in a process of its own, writing one UNIQUE table with a sequence column,
one AGGREGATE SUM table and one DUPLICATE table per batch. ``ICEBERG_DORIS_CRASH_AT`` names the
crash point the sink reaches after batch 1's commit into the last of them: the JVM and the Python
process are killed there (``iceberg_doris.engine.faults``), leaving batch 1 committed to all three
tables but not finished in the checkpoint. The test's own session then restarts the query from
the checkpoint, which runs batch 1 again and then batch 2: batch 1 must be skipped everywhere.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from iceberg_doris import doris
from iceberg_doris.engine.faults import CRASH_ENV

from tests.faults.crash_harness import REPO_ROOT, SHORT_LIVED_JVM
from tests.streaming.streams import committed_batches, run_stream, write_batch

SCHEMA = "k INT, v STRING, seq INT, n BIGINT"

# The query as the application runs it: three sinks, one foreachBatch.
_QUERY = textwrap.dedent(
    """
    import sys
    import iceberg_doris
    from tests.streaming.test_kill_and_restart import run_query

    spark = iceberg_doris.session(home=sys.argv[1])
    query = run_query(spark, sys.argv[2], sys.argv[3], sys.argv[4])
    print("finished", query.id, flush=True)
    """
)


def three_tables(namespace: str):
    """A foreachBatch function loading each batch into the namespace's three tables."""
    unique = doris.stream_to(f"{namespace}.latest")
    totals = doris.stream_to(f"{namespace}.totals")
    events = doris.stream_to(f"{namespace}.events")

    def each_batch(batch, batch_id):
        unique(batch.select("k", "v", "seq"), batch_id)
        totals(batch.select("k", "n"), batch_id)
        events(batch.select("k", "v", "n"), batch_id)

    return each_batch


def run_query(spark, namespace: str, source: str, checkpoint: str):
    return run_stream(spark, Path(source), SCHEMA, Path(checkpoint), three_tables(namespace))


@pytest.mark.spark
def test_a_batch_committed_just_before_the_driver_was_killed_is_applied_once(spark, namespace, lake_home, tmp_path):
    doris.create_table(spark, ddl=f"""CREATE TABLE {namespace}.latest (k INT NOT NULL, v VARCHAR(10), seq INT)
        UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("function_column.sequence_col" = "seq")""")
    doris.create_table(spark, ddl=f"""CREATE TABLE {namespace}.totals (k INT NOT NULL, n BIGINT SUM)
        AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1""")
    doris.create_table(spark, ddl=f"""CREATE TABLE {namespace}.events (k INT NOT NULL, v VARCHAR(10), n BIGINT)
        DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1""")
    source, checkpoint = tmp_path / "in", tmp_path / "checkpoint"
    write_batch(source, 0, [{"k": 1, "v": "a0", "seq": 1, "n": 1}, {"k": 2, "v": "b0", "seq": 1, "n": 10}])
    write_batch(source, 1, [{"k": 1, "v": "a1", "seq": 2, "n": 100}, {"k": 3, "v": "c1", "seq": 1, "n": 1000}])

    crashed = run_killed_at(lake_home, namespace, source, checkpoint, f"stream.batch-committed.{namespace}.events.1")

    assert crashed.returncode == -signal.SIGKILL, crashed.stderr[-3000:]
    assert f"crash point stream.batch-committed.{namespace}.events.1 reached" in crashed.stderr
    assert (checkpoint / "offsets" / "1").exists() and not (checkpoint / "commits" / "1").exists()
    killed_query = {stream for table in ("latest", "totals", "events") for stream, _ in committed_batches(spark, f"{namespace}.{table}")}
    assert len(killed_query) == 1
    (query_id,) = killed_query
    for table in ("latest", "totals", "events"):
        assert committed_batches(spark, f"{namespace}.{table}") == [(query_id, 0), (query_id, 1)], table

    write_batch(source, 2, [{"k": 2, "v": "b2", "seq": 5, "n": 10000}, {"k": 1, "v": "old", "seq": 0, "n": 100000}])
    restarted = run_query(spark, namespace, str(source), str(checkpoint))

    assert str(restarted.id) == query_id  # the restart is the same query: its batch 1 was recognised
    for table in ("latest", "totals", "events"):
        assert committed_batches(spark, f"{namespace}.{table}") == [(query_id, 0), (query_id, 1), (query_id, 2)], table
    latest = sorted(tuple(r) for r in spark.table(f"{namespace}.latest").collect())
    assert latest == [(1, "a1", 2), (2, "b2", 5), (3, "c1", 1)]  # one row per key, the largest seq
    totals = {row.k: row.n for row in spark.table(f"{namespace}.totals").collect()}
    assert totals == {1: 1 + 100 + 100000, 2: 10 + 10000, 3: 1000}  # no sum doubled
    assert spark.table(f"{namespace}.events").count() == 6  # 2 rows per batch, each batch once


def run_killed_at(home: Path, namespace: str, source: Path, checkpoint: Path, point: str) -> subprocess.CompletedProcess:
    scratch = tempfile.mkdtemp(prefix="iceberg-doris-stream-crash-")
    env = dict(os.environ)
    env.update({CRASH_ENV: point, "JAVA_TOOL_OPTIONS": SHORT_LIVED_JVM, "SPARK_LOCAL_DIRS": scratch, "TMPDIR": scratch})
    try:
        return subprocess.run(
            [sys.executable, "-c", _QUERY, str(home), namespace, str(source), str(checkpoint)],
            cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=1800,
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
