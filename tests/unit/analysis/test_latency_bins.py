"""Merged histograms give the percentiles of reads and writes together."""

import pytest

from ssdlab.analysis.latency_bins import merge_bins, percentile_ns


def test_merge_is_bucketwise_and_percentiles_follow_the_running_count() -> None:
    reads = {100: 90, 200: 10}  # p99 of reads alone: 200
    writes = {1000: 100}  # p99 of writes alone: 1000
    merged = merge_bins([reads, writes])
    assert merged == {100: 90, 200: 10, 1000: 100}
    assert percentile_ns(merged, 45) == 100  # 90 of 200 I/Os
    assert percentile_ns(merged, 50) == 200  # 100 of 200
    assert percentile_ns(merged, 50.5) == 1000
    assert percentile_ns(merged, 100) == 1000
    # not the mean of the two p99s (600), and not either one's p50
    assert percentile_ns(merged, 99) == 1000


def test_empty_and_bad_input() -> None:
    assert percentile_ns({}, 99) is None
    with pytest.raises(ValueError, match="a percentile is in"):
        percentile_ns({1: 1}, 0)
    with pytest.raises(ValueError, match="cannot be negative"):
        merge_bins([{1: -1}])
