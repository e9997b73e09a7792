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
    [latency, side_by_side, scans, throughput] = result.tables
    assert side_by_side.rows[0][1] == 0  # no load failed
    assert side_by_side.rows[0][5] == 0  # no compaction pass failed (it runs in another thread)
    # doris.compact and rewrite_data_files rewrote the same files into the same rows (checked by the suite).
    assert [row[0] for row in throughput.rows] == ["doris.compact", "CALL system.rewrite_data_files"]
    assert throughput.rows[0][1] == throughput.rows[1][1] > 0
    assert len(result.targets) == 4
