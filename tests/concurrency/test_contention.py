"""Writer processes (each its own Spark driver) loading overlapping keys of one table at once:
every load commits, each label once, with at most two lookups, and Spark, pyiceberg and DuckDB
all read the serial result by Doris's rules (see tests/concurrency/contention.py).

CI runs 2 processes x 2 threads x 2 loads each per catalog, four writers at once (2 processes:
the commit lock is proved across processes as well as threads; each process costs about 10 s of
Spark start-up on 2 cores); the full target, 8 processes x 10 loads, runs by hand with
``python -m tests.concurrency.contention`` (numbers in benchmarks/RESULTS.md)."""

from __future__ import annotations

import pytest

from iceberg_doris import doris
from tests.concurrency.contention import make_workload, readers_rows, run_writers
from tests.concurrency.writer import load_arguments
from tests.support.postgres_server import postgres_server

PROCESSES, THREADS, LOADS_PER_PROCESS = 2, 2, 2


def check(workload, outcome, spark_rows) -> None:
    assert outcome.failures == []
    assert len(outcome.results) == len(workload.labels)
    assert sorted(outcome.label_counts) == sorted(workload.labels)  # every load committed ...
    assert set(outcome.label_counts.values()) == {1}  # ... exactly once
    # Among iceberg-doris writers a load looks up again at most once, under the lock.
    assert set(outcome.lookups.values()) <= {1, 2}
    expected = workload.expected_rows(outcome.commit_order)
    assert readers_rows(outcome, workload.table, spark_rows) == {"spark": expected, "pyiceberg": expected, "duckdb": expected}


@pytest.mark.spark
def test_writer_processes_on_a_sqlite_catalog_all_commit(spark, namespace, lake_home, tmp_path):
    # A sequence column: the serial result does not depend on the commit order; deletes leave tombstones.
    workload = make_workload(
        f"{namespace}.contended", sequence=True, processes=PROCESSES, threads=THREADS, loads_per_process=LOADS_PER_PROCESS,
    )

    def create() -> None:  # this test's session is on the same catalog
        doris.create_table(spark, ddl=workload.ddl)
        doris.load(spark, table=workload.table, label="initial", **load_arguments(workload.initial))

    outcome = run_writers(workload, {"home": str(lake_home), "catalog_uri": None, "warehouse": None}, tmp_path, create=create)
    rows = [tuple(r) for r in spark.sql(f"SELECT k, v, s FROM {workload.table} ORDER BY k").collect()]
    assert outcome.spark_rows == rows  # another driver's Spark reads the same
    check(workload, outcome, rows)


@pytest.mark.postgres
@pytest.mark.spark  # Spark sessions in the writer processes
def test_writer_processes_on_a_postgres_catalog_all_commit(tmp_path):
    # No sequence column: the serial result is the loads applied in their commit order.
    workload = make_workload(
        "contention.plain", sequence=False, processes=PROCESSES, threads=THREADS, loads_per_process=LOADS_PER_PROCESS,
    )
    with postgres_server() as url:
        place = {"home": str(tmp_path / "home"), "catalog_uri": url, "warehouse": str(tmp_path / "warehouse")}
        outcome = run_writers(workload, place, tmp_path)
        check(workload, outcome, outcome.spark_rows)
