"""The streaming latency-log reducer: bucket error bound, percentiles against numpy, exact
per-second series, and the compiled core (logcore/) giving the numpy reference's totals."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.analysis.latency_stream import (
    RELATIVE_ERROR,
    CompiledReducer,
    NumpyReducer,
    bucket_of,
    bucket_value,
    compiled_core_available,
    reduce_latency_rows,
)
from ssdlab.parse.fio_lat_log import parse_rows
from ssdlab.runner.latency_logs import reduce_latency_logs

needs_compiled = pytest.mark.skipif(
    not compiled_core_available(), reason="the compiled core (logcore/) is not built"
)


@given(st.integers(min_value=0, max_value=10**13))
@settings(max_examples=500)
def test_every_value_is_within_the_stated_error_of_its_bucket(value: int) -> None:
    assert abs(bucket_value(bucket_of(value)) - value) <= RELATIVE_ERROR * value + 0.5


def test_the_error_bound_is_the_one_promised() -> None:
    assert RELATIVE_ERROR <= 0.005


def test_buckets_are_ordered_like_the_values() -> None:
    values = sorted({int(v) for v in np.geomspace(1, 1e12, 5000)})
    buckets = [bucket_of(v) for v in values]
    assert buckets == sorted(buckets)


def _rows(n: int, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    lat = rng.lognormal(mean=11.0, sigma=0.6, size=n).astype(np.int64)  # ~60 µs
    times = np.sort(rng.integers(0, 20_000, size=n))
    ddir = rng.integers(0, 2, size=n)
    return np.stack([times, lat, ddir], axis=1).astype(np.int64)


def test_percentiles_agree_with_numpy_within_the_bucket_error() -> None:
    rows = _rows(200_000)
    result = reduce_latency_rows([rows[:50_000], rows[50_000:]])
    for ddir, name in ((0, "read"), (1, "write")):
        lat = rows[rows[:, 2] == ddir][:, 1]
        summary = result[name]
        assert summary.count == lat.size
        assert summary.max_ns == int(lat.max())
        assert summary.mean_ns == pytest.approx(float(lat.mean()))
        for pct, got in summary.percentiles_ns:
            want = float(np.percentile(lat, pct, method="inverted_cdf"))
            assert got is not None, pct
            assert abs(got - want) <= RELATIVE_ERROR * want + 1, pct


def test_the_per_second_series_is_exact() -> None:
    log = b"0, 100, 0, 4096, 0\n999, 300, 0, 4096, 4096\n1000, 50, 0, 4096, 0\n10, 7, 1, 4096, 0\n"
    result = reduce_latency_rows([parse_rows(log, 1)])
    read = result["read"]
    assert [(p.elapsed_s, p.ios, p.mean_ns) for p in read.series] == [
        (1.0, 2, 200.0),
        (2.0, 1, 50.0),
    ]
    assert result["write"].count == 1
    assert sum(bar.count for bar in read.histogram) == 3


def test_an_empty_log_gives_nothing() -> None:
    assert reduce_latency_rows([]) == {}


@needs_compiled
def test_the_compiled_core_fills_the_same_totals_as_numpy() -> None:
    rows = _rows(300_000, seed=3)
    rows[::1000, 2] = 2  # some trims
    rows[::777, 0] += 3_600_000  # seconds far apart: both cores grow their series
    text = "".join(f"{t}, {v}, {d}, 4096, 0\n" for t, v, d in rows.tolist()).encode()
    numpy_core = NumpyReducer()
    numpy_core.add_rows(rows)
    compiled = CompiledReducer()
    half = text.index(b"\n", len(text) // 2) + 1  # two blocks, each split over two threads
    assert compiled.feed(text[:half]) + compiled.feed(text[half:]) == len(rows)
    want, got = numpy_core.totals(), compiled.totals()
    assert list(got) == list(want) == [0, 1, 2]
    for ddir, mine in want.items():
        theirs = got[ddir]
        assert (theirs.count, theirs.sum_ns, theirs.min_ns, theirs.max_ns) == (
            mine.count,
            mine.sum_ns,
            mine.min_ns,
            mine.max_ns,
        )
        assert np.array_equal(theirs.histogram, mine.histogram)
        assert theirs.first_second == mine.first_second
        assert np.array_equal(theirs.second_counts, mine.second_counts)
        assert np.array_equal(theirs.second_sums, mine.second_sums)
        assert np.array_equal(theirs.second_histograms, mine.second_histograms)


@needs_compiled
def test_both_cores_summarise_a_file_identically(tmp_path: Path) -> None:
    rows = _rows(50_000, seed=5)
    path = tmp_path / "gen_clat.1.log"
    path.write_text("".join(f"{t}, {v}, {d}, 4096, 0, 0\n" for t, v, d in rows.tolist()))
    small_blocks = {"block_bytes": 64 * 1024}  # many blocks: lines cut between them
    python = reduce_latency_logs([path], "python", **small_blocks)  # type: ignore[arg-type]
    compiled = reduce_latency_logs([path], "compiled", **small_blocks)  # type: ignore[arg-type]
    assert (python.core, compiled.core) == ("python", "compiled")
    assert python.directions == compiled.directions
    assert python.lines == compiled.lines == len(rows)
