"""Smoke test of the soak run (benchmarks/soak.py): two writer processes for a quarter of a minute on the
test session's SQLite catalog, checked by that session; the report has its fields and no
invariant broke. The real run (8 processes x 30 minutes, SQLite and PostgreSQL) is by hand."""

from __future__ import annotations

import pytest

from benchmarks import soak

pytestmark = pytest.mark.spark  # Spark sessions here and in the writer processes


def test_soak_of_two_writers_breaks_no_invariant(spark, namespace, lake_home, tmp_path):
    args = soak.parse_args(["--processes", "2", "--minutes", "0.25", "--catalogs", "sqlite"])
    place = {"home": str(lake_home), "catalog_uri": None, "warehouse": None}
    summary = soak.soak_catalog("sqlite", args, tmp_path, None, lambda message: None, spark=spark, place=place, namespace=namespace)
    assert summary["violations"] == 0, summary
    assert summary["errors"] == 0, summary["error_samples"]
    assert summary["statements"] >= 2 and summary["commits"] >= 1
    # Every snapshot the writers put on main was read by the checker.
    assert summary["checks"] >= summary["commits"] - summary["by_kind"]["compact"].get("committed", 0)
    assert set(summary["tables"]) == {"seq", "plain"}
    for key in ("conflicts_retried", "conflicts_failed", "lock_timeouts", "writers_seconds"):
        assert summary[key] >= 0
