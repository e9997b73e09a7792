"""Smoke test of suite (s), the stream through ``doris.stream_to`` and the change feed of one batch:
tiny scale, its own checks (the stream's rows, each batch committed once, both change contenders
equal to the changes computed from the input files) must pass; timings are not asserted."""

from __future__ import annotations

import pytest

from benchmarks import suite_stream_changes
from tests.benchmarks.test_benchmark_smoke import TINY, bench, check  # noqa: F401 - bench is a fixture

pytestmark = pytest.mark.spark


def test_stream_and_change_feed_match_their_expected_rows(bench):  # noqa: F811
    result = suite_stream_changes.run(bench, TINY, batches=3, warmup=False)
    check(result)
    [stream, feed] = result.tables
    assert [row[0] for row in stream.rows] == ["first 3", "last 3", "all"]
    assert [row[0] for row in feed.rows] == [f"{TINY} (N)", f"{TINY // 10} (N/10)", "N vs N/10"]
    assert feed.rows[0][1] == feed.rows[1][1] > 0  # the same number of changed keys at both sizes
    assert len(result.targets) == 3
