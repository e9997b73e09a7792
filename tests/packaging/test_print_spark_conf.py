"""`iceberg-doris --print-spark-conf`: a properties file spark-sql (and the Thrift server,
spark-submit) launch with, holding every setting but no secret."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import pyspark
from iceberg_doris.cli import main
from iceberg_doris.lake.pyiceberg_catalog import catalog
from tests.packaging.helpers import run
from iceberg_doris.spark_session.spark_lines import running_line
from tests.packaging.test_session_entry_points import _environment


def test_properties_file_for_postgres_keeps_the_password_out(tmp_path, capsys):
    password_file = tmp_path / "pw"
    password_file.write_text("s3cr3t-pw\n")

    code = main(["--print-spark-conf", "--catalog-uri", "postgresql://lake@db.example:5432/lake",
                 "--catalog-password-file", str(password_file)])

    out = capsys.readouterr().out
    assert code == 0
    assert "s3cr3t-pw" not in out
    assert "jdbc.password" not in out
    assert "# No password is in this file. The PostgreSQL JDBC driver reads it from ~/.pgpass" in out
    assert "spark.sql.catalog.iceberg.uri=jdbc:postgresql://db.example:5432/lake" in out
    assert f"spark.sql.extensions={','.join(running_line().sql_extensions)}\n" in out
    # CALL doris.* in spark-sql starts its Python side with this interpreter (docs/doors.md).
    assert f"spark.doris.python={sys.executable}\n" in out


@pytest.mark.spark
def test_spark_sql_with_the_printed_properties_writes_to_our_catalog(tmp_path):
    env = _environment(tmp_path)
    properties = tmp_path / "doris.conf"
    printed = run([sys.executable, "-m", "iceberg_doris.cli", "--print-spark-conf", "--master", "local[1]"],
                  cwd=tmp_path, env=env)
    properties.write_text(printed.stdout)
    spark_sql = Path(pyspark.__file__).parent / "bin" / "spark-sql"

    run([str(spark_sql), "--properties-file", str(properties), "-e",
         "CREATE NAMESPACE plain; CREATE TABLE plain.t (id INT) USING iceberg; INSERT INTO plain.t VALUES (7), (8);"],
        cwd=tmp_path, env=env)

    table = catalog(home=tmp_path / "lake").load_table("plain.t")
    assert sorted(table.scan().to_arrow().column("id").to_pylist()) == [7, 8]
