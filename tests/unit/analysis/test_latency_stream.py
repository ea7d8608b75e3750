"""The streaming latency-log reducer against numpy on generated logs, and exact series."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.analysis.latency_stream import (
    RELATIVE_ERROR,
    bucket_of,
    bucket_value,
    reduce_latency_log,
)
from ssdlab.errors import ParseError
from ssdlab.parse.fio_lat_log import iter_latency_entries


@given(st.integers(min_value=0, max_value=10**13))
@settings(max_examples=500)
def test_every_value_is_within_the_stated_error_of_its_bucket(value: int) -> None:
    assert abs(bucket_value(bucket_of(value)) - value) <= RELATIVE_ERROR * value + 0.5


def test_buckets_are_ordered_like_the_values() -> None:
    values = sorted({int(v) for v in np.geomspace(1, 1e12, 5000)})
    buckets = [bucket_of(v) for v in values]
    assert buckets == sorted(buckets)


def test_percentiles_agree_with_numpy_within_the_bucket_error() -> None:
    rng = np.random.default_rng(7)
    lat = rng.lognormal(mean=11.0, sigma=0.6, size=200_000).astype(np.int64)  # ~60 µs
    times = np.sort(rng.integers(0, 20_000, size=lat.size))
    lines = [f"{t}, {v}, 1, 4096, 0\n" for t, v in zip(times, lat, strict=True)]
    (write,) = reduce_latency_log(iter_latency_entries(lines)).values()
    assert write.count == lat.size
    assert write.max_ns == int(lat.max())
    assert write.mean_ns == pytest.approx(float(lat.mean()))
    for pct, got in write.percentiles_ns:
        want = float(np.percentile(lat, pct, method="inverted_cdf"))
        assert got is not None, pct
        assert abs(got - want) <= RELATIVE_ERROR * want + 1, pct


def test_the_per_second_series_is_exact() -> None:
    log = "0, 100, 0, 4096, 0\n999, 300, 0, 4096, 4096\n1000, 50, 0, 4096, 0\n10, 7, 1, 4096, 0\n"
    result = reduce_latency_log(iter_latency_entries(log.splitlines(keepends=True)))
    read = result["read"]
    assert [(p.elapsed_s, p.iops, p.lat_mean_ns) for p in read.series] == [
        (1.0, 2.0, 200.0),
        (2.0, 1.0, 50.0),
    ]
    assert result["write"].count == 1


@pytest.mark.parametrize(
    ("line", "words"),
    [("12, abc, 0, 4096, 0", "whole numbers"), ("12, 5", "expected"), ("1, 5, 7, 0, 0", "range")],
)
def test_malformed_lines_are_refused_with_their_number(line: str, words: str) -> None:
    with pytest.raises(ParseError, match=f"line 2: .*{words}|line 2: {words}"):
        list(iter_latency_entries(["1, 5, 0, 4096, 0", line]))


def test_an_empty_log_gives_nothing() -> None:
    assert reduce_latency_log(iter_latency_entries([])) == {}
