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
