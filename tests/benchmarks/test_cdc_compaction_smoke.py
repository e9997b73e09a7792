"""Smoke test of suite (f), the CDC stream with automatic compaction beside it: tiny scale, its own
checks (both tables hold the expected rows, no load failed) must pass; timings are not asserted."""

from __future__ import annotations

import pytest

from benchmarks import suite_cdc_compaction
from tests.benchmarks.test_benchmark_smoke import TINY, bench, check  # noqa: F401 - bench is a fixture

pytestmark = pytest.mark.spark


def test_cdc_stream_with_automatic_compaction_matches_expected_rows(bench):  # noqa: F811
    result = suite_cdc_compaction.run(bench, TINY, batches=3, warmup=False)
    check(result)
    [latency, side_by_side, scans] = result.tables
    assert side_by_side.rows[0][1] == 0  # no load failed
    assert side_by_side.rows[0][5] == 0  # no compaction pass failed (it runs in another thread)
    assert len(result.targets) == 3
