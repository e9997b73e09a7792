"""A session holds a fixed number of PostgreSQL connections however many DataFrames it caches.

Spark plans every cached DataFrame in a copy of the session, and each copy initialises a catalog of
its own; Iceberg's JDBC catalog used to leave the connection of that start-up open (until garbage
collection), one per cache, so a few writer processes ran PostgreSQL out of connections. Real
server, real session (in a fresh process: a session of its own on this catalog)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.postgres_server import postgres_server

pytestmark = [pytest.mark.postgres, pytest.mark.spark]  # a Spark session in a subprocess

REPOSITORY = Path(__file__).resolve().parents[2]
JOB = """
import json, os, sys
import psycopg2
import iceberg_doris
from iceberg_doris import doris

url = os.environ["ICEBERG_DORIS_CATALOG_URI"]

def connections():
    probe = psycopg2.connect(url)
    try:
        cursor = probe.cursor()
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = 'lake' AND pid <> pg_backend_pid()")
        return cursor.fetchone()[0]
    finally:
        probe.close()

spark = iceberg_doris.session()
spark.sql("CREATE NAMESPACE n")
doris.create_table(spark, ddl="CREATE TABLE n.u (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
doris.load(spark, table="n.u", query="SELECT 1 AS k, 'a' AS v")
counts = []
for i in range(6):
    frame = spark.table("n.u").persist()
    frame.count()
    frame.unpersist()
    doris.load(spark, table="n.u", query=f"SELECT {i} AS k, 'b' AS v")  # a keyed load caches its batch too
    counts.append(connections())
print("COUNTS " + json.dumps(counts))
"""


def test_cached_dataframes_leave_no_connections_open(tmp_path):
    with postgres_server() as url:
        env = dict(os.environ, ICEBERG_DORIS_CATALOG_URI=url, ICEBERG_DORIS_HOME=str(tmp_path / "home"))
        env["PYTHONPATH"] = os.pathsep.join([str(REPOSITORY)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
        run = subprocess.run([sys.executable, "-c", JOB], capture_output=True, text=True, env=env, timeout=300, cwd=REPOSITORY)
        assert run.returncode == 0, run.stderr[-3000:]
        counts = json.loads(next(line for line in run.stdout.splitlines() if line.startswith("COUNTS "))[7:])
        # Before the fix: one more connection per cached DataFrame (1, 3, 5, ...).
        assert len(set(counts)) == 1, counts
        assert counts[0] <= 4, counts
