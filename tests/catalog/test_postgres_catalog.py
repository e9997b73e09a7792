"""The same code on a shared PostgreSQL catalog: a real server, Spark (through the CLI) and pyiceberg."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import iceberg_doris
from tests.support.postgres_server import postgres_server

pytestmark = [pytest.mark.postgres, pytest.mark.spark]  # a Spark session in a subprocess


def test_postgres_catalog_round_trip(tmp_path):
    with postgres_server() as url:
        warehouse = tmp_path / "warehouse"
        script = tmp_path / "job.sql"
        script.write_text(
            "CREATE NAMESPACE sales;\n"
            "CREATE TABLE sales.orders (id bigint, amount int) USING iceberg;\n"
            "INSERT INTO sales.orders VALUES (1, 10), (2, 20);\n"
            "DELETE FROM sales.orders WHERE id = 1;\n"
        )
        cli = Path(sys.executable).parent / "iceberg-doris"
        env = dict(os.environ, ICEBERG_DORIS_HOME=str(tmp_path / "home"))
        run = subprocess.run(
            [str(cli), "--catalog-uri", url, "--warehouse", str(warehouse), "-f", str(script),
             "-e", "SELECT id, amount FROM sales.orders"],
            capture_output=True, text=True, env=env, timeout=300,
        )
        assert run.returncode == 0, run.stderr
        assert "| 2  | 20     |" in run.stdout

        catalog = iceberg_doris.catalog(catalog_uri=url, warehouse=warehouse)
        table = catalog.load_table("sales.orders")
        assert table.metadata.format_version == 3
        assert table.scan().to_arrow().to_pylist() == [{"id": 2, "amount": 20}]
        # Hadoop writes file:/path where we configured file:///path; the folder is what matters.
        assert str(table.metadata_location).removeprefix("file:").lstrip("/").startswith(str(warehouse).lstrip("/"))


_LOAD_WHILE_DOWN = r'''
import sys
import iceberg_doris
from iceberg_doris import doris
url, warehouse = sys.argv[1], sys.argv[2]
spark = iceberg_doris.session(catalog_uri=url, warehouse=warehouse)
spark.sql("CREATE NAMESPACE n")
doris.create_table(spark, ddl="CREATE TABLE n.u (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
doris.load(spark, table="n.u", query="SELECT 1 AS k, 'a' AS v")
print("ready", flush=True)
sys.stdin.readline()  # the server is stopped now
try:
    doris.load(spark, table="n.u", query="SELECT 2 AS k, 'b' AS v")
    print("loaded")
except Exception as error:
    print(f"{type(error).__name__}: {error}")
'''


def test_a_catalog_database_that_is_down_while_a_load_plans_is_named(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(_LOAD_WHILE_DOWN)
    env = dict(os.environ, ICEBERG_DORIS_HOME=str(tmp_path / "home"), PYTHONPATH=str(Path(__file__).parents[2]))
    with postgres_server() as url:
        job = subprocess.Popen(
            [sys.executable, str(script), url, str(tmp_path / "warehouse")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
        )
        assert job.stdout is not None
        assert job.stdout.readline().strip() == "ready"
    # the server is stopped (leaving the with block stops it) while the session is configured for it
    out, _ = job.communicate("go\n", timeout=600)
    assert out.startswith("EngineError: doris.load failed: the catalog database is unreachable ("), out
    assert out.rstrip().endswith(
        "nothing was committed. Check that the catalog's database server is running and reachable at the catalog URI "
        "the session was started with, then run it again"
    ), out
    assert "report it" not in out and "lake:" not in out  # no "please report", no password
