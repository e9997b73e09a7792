"""Suites (g) small loads and (h) scale curve, and the per-load breakdown they report: tiny scale on
the shared test session, the suites' own checks (each contender holds the expected rows) must
pass. Timings are not asserted."""

from __future__ import annotations

import dataclasses

import pytest

from benchmarks import suite_scale_curve, suite_small_loads
from benchmarks.load_breakdown import Breakdown, LoadBreakdown, _union_length, median_breakdown
from tests.benchmarks.test_benchmark_smoke import TINY, bench, check  # noqa: F401 - bench is a fixture


def test_job_time_is_the_union_of_overlapping_jobs():
    assert _union_length([(0.0, 1.0), (0.5, 2.0), (3.0, 4.0)]) == pytest.approx(3.0)
    assert _union_length([]) == 0.0
    # Driver time is the wall time no job covered.
    assert Breakdown(wall=5.0, job_seconds=3.0).driver_seconds == pytest.approx(2.0)


def test_median_breakdown_takes_each_fields_median():
    parts = [Breakdown(wall=w, jobs=j, executions=e) for w, j, e in [(1.0, 3, 2), (3.0, 5, 2), (2.0, 4, 9)]]
    middle = median_breakdown(parts)
    assert (middle.wall, middle.jobs, middle.executions) == (2.0, 4, 2)


def test_reference_statements_do_what_the_doris_load_does():
    by_name = {case.name: case for case in suite_small_loads.CASES}
    seq = suite_small_loads.merge_sql("db.t", "src", by_name["UNIQUE DATE+BIGINT + seq"])
    assert "ON t.dt = s.dt AND t.k = s.k" in seq and "WHEN MATCHED AND s.seq >= t.seq THEN UPDATE SET *" in seq
    partial = suite_small_loads.merge_sql("db.t", "src", by_name["partial update (UNIQUE BIGINT; k, v1)"])
    assert "UPDATE SET v1 = s.v1" in partial and "VALUES (s.k, s.v1, NULL, NULL, NULL)" in partial
    # The reference tables are plain Iceberg tables (no Doris model), so Spark's statement rule leaves them alone.
    assert "USING iceberg" in suite_small_loads.plain_ddl("db.t", "VARCHAR")
    assert suite_scale_curve.default_sizes(200_000) == [2_000, 20_000, 200_000]


@pytest.mark.spark
def test_breakdown_counts_the_jobs_of_a_doris_load(spark, namespace):
    from iceberg_doris import doris

    table = f"{namespace}.breakdown"
    doris.create_table(spark, ddl=f"CREATE TABLE {table} (k BIGINT NOT NULL, v BIGINT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    with LoadBreakdown(spark) as recorder:
        doris.load(spark, table=table, query="SELECT id AS k, id AS v FROM range(10)")
    found = recorder.result
    # doris.load runs its jobs in a job group of its own: they are found by id, not by a group set around it.
    assert found.jobs >= 1 and found.executions >= 1 and found.tasks >= 1 and found.py4j_calls > 0
    assert 0 < found.job_seconds <= found.wall


@pytest.mark.spark
def test_small_loads_hold_the_expected_rows(bench):  # noqa: F811
    cases = tuple(c for c in suite_small_loads.CASES if c.name in ("DUPLICATE", "UNIQUE DATE+BIGINT + seq", "partial update (UNIQUE BIGINT; k, v1)", "AGGREGATE"))
    result = suite_small_loads.run(dataclasses.replace(bench, profile=True), [TINY], batches=(1, 10), cases=cases, reps=1, warmup=False)
    check(result)
    latency, breakdown = result.tables
    assert len(latency.rows) == len(cases) * 2 and len(breakdown.rows) == len(cases) * 2 * 2
    # the 1-row DUPLICATE load is profiled, next to INSERT INTO's jobs (UNIQUE BIGINT is not among these cases)
    titles = [title for title, _ in result.profiles]
    assert titles == ["doris.load, DUPLICATE: 1 row(s) into 2,000 rows", "INSERT INTO, DUPLICATE: 1 row(s) into 2,000 rows"]
    ours = result.profiles[0][1]
    assert "py4j round trips" in ours and "prepare rows (mapping, conversion)" in ours and "publish appended rows" in ours


@pytest.mark.spark
def test_scale_curve_holds_the_expected_rows(bench):  # noqa: F811
    result = suite_scale_curve.run(bench, [TINY, 2 * TINY], kinds=(suite_scale_curve.KINDS[0], suite_scale_curve.KINDS[3]), batch_rows=20, loads=2,
                                   compact_every=1, chunk_rows=1500, reps=1, warmup=False)
    check(result)
    assert len(result.targets) == 2  # flat cost, per key kind
    assert result.tables[-1].title.startswith(f"Full scan of the {2 * TINY:,}-row")


@pytest.mark.spark
def test_a_merge_into_past_its_bound_is_reported_as_not_finished(bench, monkeypatch):  # noqa: F811
    # Every MERGE INTO counts as cancelled at the bound (run_bounded's own test shows the cancelling).
    monkeypatch.setattr(suite_scale_curve, "run_bounded", lambda spark, action, limit: False)
    result = suite_scale_curve.run(bench, [TINY, 2 * TINY], kinds=(suite_scale_curve.KINDS[0],), batch_rows=20, loads=0,
                                   reps=1, warmup=True, merge_limit=90)
    check(result)
    timings, growth = result.tables[0], result.tables[1]
    for row in timings.rows:
        assert row[3] == "did not finish in 1.5 min" and row[4].startswith("> ") and row[6] == "cancelled"
    assert growth.rows[0][3] == "did not finish at either size"
    breakdown = result.tables[2]
    assert {row[2] for row in breakdown.rows} == {suite_scale_curve.DORIS}  # nothing timed for MERGE INTO


@pytest.mark.spark
def test_a_bounded_step_is_cancelled_at_its_limit_and_commits_nothing(spark):
    from benchmarks.common import run_bounded

    # Sleeps in its task for ten minutes unless cancelled: only the bound can end it in time.
    sleeping = "SELECT reflect('java.lang.Thread', 'sleep', CAST(600000 AS BIGINT))"
    assert run_bounded(spark, lambda: spark.sql(sleeping).collect(), 1.0) is False
    # The job group is gone: later work runs, and a step within its bound finishes.
    assert run_bounded(spark, lambda: spark.range(3).count(), 60.0) is True
    assert spark.range(5).count() == 5
    # A step that fails on its own is not taken for a cancelled one.
    with pytest.raises(Exception, match="no such step"):
        run_bounded(spark, lambda: spark.sql("SELECT raise_error('no such step')").collect(), 60.0)


def test_key_kinds_are_chosen_by_name():
    assert [k.name for k in suite_scale_curve.kinds_named("BIGINT, varchar + seq")] == ["BIGINT", "VARCHAR + seq"]
    with pytest.raises(ValueError, match="choose from BIGINT"):
        suite_scale_curve.kinds_named("INT")


def test_a_run_of_the_sized_suites_reports_its_largest_size_as_its_scale():
    import argparse

    from benchmarks.run import reported_scale

    def args(suites: str, sizes: list[int] | None) -> argparse.Namespace:
        return argparse.Namespace(scale=200_000, sizes=sizes, suite_list=suites.split(","))

    assert reported_scale(args("g,h", [1_000_000, 10_000_000])) == 10_000_000
    assert reported_scale(args("g", None)) == 200_000
    assert reported_scale(args("a,g", [1_000_000])) == 200_000  # suite a runs at --scale


@pytest.mark.spark
def test_the_driver_profile_attributes_every_round_trip_of_a_load(spark, namespace, tmp_path):
    from benchmarks import driver_profile
    from benchmarks.load_breakdown import OUTSIDE

    actions = driver_profile.contenders(spark, namespace, TINY, tmp_path)
    medians = driver_profile.profile(spark, actions, reps=1, warmups=0)
    assert set(medians) == {"INSERT INTO", "MERGE INTO (MoR)", *(f"doris.load, {name}" for name in driver_profile.PROFILED)}
    duplicate = medians["doris.load, DUPLICATE"]
    # every round trip of the load has a call site, and most are iceberg-doris's own
    assert sum(count for count, _ in duplicate.sites.values()) == duplicate.py4j_calls > 100
    assert any(site.startswith("loading/prepare.py:") for site in duplicate.sites)
    assert set(medians["INSERT INTO"].sites) <= {OUTSIDE}
    text = driver_profile.report(TINY, 1, medians)
    assert "| doris.load, UNIQUE BIGINT + seq |" in text and "round trips by call site" in text
    # the loads were rolled back: each table holds its TINY rows
    assert spark.table(actions["doris.load, DUPLICATE"][0]).count() == TINY
