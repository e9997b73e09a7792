"""The iceberg-doris command line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from iceberg_doris.cli import main, render_table
from iceberg_doris.procedures import all_procedures
from iceberg_doris.cli.sql_script import split_statements

CLI = Path(sys.executable).parent / "iceberg-doris"


def test_split_statements_respects_quotes_and_comments():
    script = "SELECT 'a;b' AS x;\n-- a comment; with a semicolon\nCALL doris.help(procedure => \"x;\");\n/* c; */ SELECT 1;;"
    assert split_statements(script) == [
        "SELECT 'a;b' AS x",
        "-- a comment; with a semicolon\nCALL doris.help(procedure => \"x;\")",
        "/* c; */ SELECT 1",
    ]


def test_render_table_with_nulls_and_multiline_cells():
    text = render_table(["a", "b"], [(None, "x\ny"), (True, [1, 2])])
    assert text.splitlines() == [
        "+------+--------+",
        "| a    | b      |",
        "+------+--------+",
        "| NULL | x      |",
        "|      | y      |",
        "| true | [1, 2] |",
        "+------+--------+",
        "(2 rows)",
    ]


@pytest.mark.spark
def test_cli_runs_statements_on_the_session(spark, lake_home, capsys, namespace):
    code = main(["--home", str(lake_home), "-e", f"CREATE TABLE {namespace}.c (id int) USING iceberg; "
                 f"INSERT INTO {namespace}.c VALUES (3)", "-e", f"SELECT id FROM {namespace}.c"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[:2] == ["OK", "OK"]
    assert "| 3  |" in out


@pytest.mark.spark
def test_cli_reports_errors_without_stack_traces(spark, lake_home, capsys):
    code = main(["--home", str(lake_home), "-e", "CALL doris.help(colour => 'red')"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("ERROR: Unknown argument: colour. Usage: doris.help(procedure string = NULL)")
    assert "at org.apache" not in err


def test_cli_without_statements_is_a_usage_error(capsys):
    assert main([]) == 2
    assert "nothing to run" in capsys.readouterr().err


@pytest.mark.spark  # starts its own Spark session
def test_cli_help_procedure_in_a_fresh_process(tmp_path):
    env = dict(os.environ, ICEBERG_DORIS_HOME=str(tmp_path))
    run = subprocess.run([str(CLI), "-e", "CALL doris.help()"], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    listed = [line.split("|")[1].strip() for line in run.stdout.splitlines() if line.startswith("| ")][1:]
    assert listed == [p.name for p in all_procedures() if not p.name.startswith("test_")]


@pytest.mark.spark
def test_cli_dynamic_partition_scheduler_runs_passes(spark, lake_home, capsys, namespace):
    from iceberg_doris import doris

    doris.create_table(
        spark,
        ddl=f"""CREATE TABLE {namespace}.dyn (d DATE NOT NULL, id INT) DUPLICATE KEY(d) PARTITION BY RANGE(d) ()
        DISTRIBUTED BY HASH(id) BUCKETS AUTO PROPERTIES ("dynamic_partition.enable" = "true",
        "dynamic_partition.time_unit" = "DAY", "dynamic_partition.start" = "-3", "dynamic_partition.end" = "1",
        "dynamic_partition.prefix" = "p", "dynamic_partition.create_history_partition" = "true")""",
    )
    spark.sql(f"CALL doris.set_properties('{namespace}.dyn', map('dynamic_partition.start', '-1'))")
    assert len(spark.sql(f"CALL doris.show_partitions('{namespace}.dyn')").collect()) == 5
    code = main(["--home", str(lake_home), "--dynamic-partitions-every", "0.1", "--max-passes", "2"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.count("dynamic partition pass:") == 2
    assert out.count(f"| {namespace}.dyn") == 2 and out.count("| DROP ") >= 2  # the first pass drops two days
    assert len(spark.sql(f"CALL doris.show_partitions('{namespace}.dyn')").collect()) == 3
