"""Smoke test of the benchmark suites: each runs at a tiny scale on the shared test session, and
its own checks (the contenders hold the same rows) must pass. Timings are not asserted."""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks import report, suite_auto_partition, suite_bulk, suite_cdc, suite_partition_ops, suite_upsert
from benchmarks.common import Bench, ContendersDisagree, Digest, SuiteResult, Target, percentile, require_same

TINY = 2000


@pytest.fixture
def bench(spark, lake_home: Path, tmp_path: Path) -> Iterator[Bench]:
    namespace = f"bench_{uuid.uuid4().hex[:10]}"
    spark.sql(f"CREATE NAMESPACE {namespace}")
    # Tiny inputs: one shuffle partition keeps the many small Spark jobs short (restored after).
    previous = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", "1")
    try:
        yield Bench(spark, namespace, tmp_path / "inputs", lake_home, reps=1, profile=False, log=lambda message: None)
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", previous)


def check(result: SuiteResult) -> None:
    assert result.checks, "a suite must record what it checked"
    assert result.targets and all(not math.isnan(t.measured) and t.measured > -1 for t in result.targets)
    text = report.render([result], report.RunInfo("python -m benchmarks.run", TINY, 1.0, {}, "0.1.0"))
    assert f"## ({result.suite})" in text and ("| met |" in text or "**missed**" in text)
    assert "| iceberg-doris | 0.1.0 |" in text  # a version, not a commit: history lives in git


@pytest.mark.spark
def test_upsert_contenders_agree(bench):
    result = suite_upsert.run(bench, TINY, fractions=(0.05,), measure_memory=False)
    check(result)
    assert len(result.targets) == 5  # MoR, CoW, MERGE INTO a Doris table, pyiceberg, first load of a new session vs warm


@pytest.mark.spark
def test_cdc_stream_matches_expected_rows(bench):
    result = suite_cdc.run(bench, TINY, batches=1, warmup=False)
    check(result)


@pytest.mark.spark
def test_partition_operations_produce_the_payload(bench):
    result = suite_partition_ops.run(bench, TINY, reps=1, warmup=False, loads=1)
    check(result)
    assert len(result.targets) == 3


@pytest.mark.spark
def test_auto_and_precreated_partitions_hold_the_same_rows(bench):
    result = suite_auto_partition.run(bench, TINY, reps=1, warmup=False)
    check(result)


def test_disagreeing_contenders_fail_loudly():
    same = Digest(3, 3, "42")
    assert require_same("x", {"a": same, "b": Digest(3, 3, "42")}) == same
    with pytest.raises(ContendersDisagree, match="different rows"):
        require_same("x", {"a": same, "b": Digest(3, 3, "43")})
    with pytest.raises(ContendersDisagree, match="more than one row per key"):
        require_same("x", {"a": Digest(3, 2, "1"), "b": Digest(3, 2, "1")})


def test_targets_and_percentiles():
    assert percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95) == pytest.approx(9.55)
    faster = Target("t", 1.2, ">=", 1.5)
    assert not faster.met and faster.shortfall.startswith("1.25x too slow")
    within = Target("t", 1.05, "<=", 1.1)
    assert within.met and within.shortfall == ""
    overhead = Target("t", 0.031, "<=", 0.02, kind="percent")
    assert overhead.shortfall == "1.1 percentage points over"


@pytest.mark.spark
def test_bulk_loads_hold_the_source_rows(bench):
    result = suite_bulk.run(bench, TINY, reps=1)
    check(result)
    assert len(result.targets) == 4


@pytest.mark.spark
def test_spark_jobs_counts_the_jobs_of_a_doris_operation(spark, namespace):
    """Every doris.* operation runs in a job group of its own; the benchmarks' job count must still
    see its jobs (it follows a job tag, which the operation's group does not replace)."""
    from benchmarks.common import SparkJobs
    from iceberg_doris import doris

    table = f"{namespace}.jobs_counted"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k BIGINT, v STRING) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    source = spark.createDataFrame([(1, "a"), (2, "b")], "k BIGINT, v STRING")
    before = set(_load_job_ids(spark))
    with SparkJobs(spark) as jobs:
        doris.load(spark, table=table, source=source)
    load_jobs = set(_load_job_ids(spark)) - before
    assert load_jobs, "the load ran no Spark job in a doris.load job group"
    assert load_jobs <= set(jobs.job_ids), jobs.text()
    assert spark.table(table).count() == 2


def _load_job_ids(spark) -> list[int]:
    """Ids of every job Spark ran in a ``doris.load-...`` job group, read from Spark's status store."""
    jobs = spark.sparkContext._jsc.sc().statusStore().jobsList(None)
    ids = []
    for i in range(jobs.size()):
        job = jobs.apply(i)
        if job.jobGroup().isDefined() and str(job.jobGroup().get()).startswith("doris.load-"):
            ids.append(int(job.jobId()))
    return ids
