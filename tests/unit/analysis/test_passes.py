"""Best-of-N and spread, checked against numpy as an independent oracle."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssdlab.analysis.passes import (
    MixedP99,
    clat_p99_ns,
    p99_ns,
    pass_metrics,
    summarize_tests,
)
from ssdlab.model.result import DirectionMetrics, FioJobResult, FioResult
from ssdlab.model.step import StepResult
from ssdlab.parse.fio_json import parse_fio_json
from tests.conftest import ROOT

FIO = ROOT / "tests" / "data" / "fio"


def step(bw: float, iops: float, lat: float | None, index: int, warmup: bool = False) -> StepResult:
    return StepResult("k", "SEQ1M Q1T1", "read", index, warmup, bw, iops, lat, None, None)


def test_best_pass_is_max_throughput_and_min_latency_warmup_excluded() -> None:
    steps = [
        step(9e9, 9e3, 1.0, 0, warmup=True),  # warm-up: never counted, however good
        step(500e6, 500.0, 2000.0, 1),
        step(520e6, 490.0, 2100.0, 2),
        step(480e6, 510.0, 1900.0, 3),
    ]
    (summary,) = summarize_tests(steps)
    assert summary.passes == 3
    assert summary.best_bw_bytes_per_s == 520e6
    assert summary.best_iops == 510.0
    assert summary.best_lat_mean_ns == 1900.0
    values = np.array([500e6, 520e6, 480e6])
    assert summary.mean_bw_bytes_per_s == pytest.approx(values.mean())
    assert summary.stdev_bw_bytes_per_s == pytest.approx(values.std(ddof=1))
    assert summary.cv_pct == pytest.approx(100 * values.std(ddof=1) / values.mean())
    assert (summary.min_bw_bytes_per_s, summary.max_bw_bytes_per_s) == (480e6, 520e6)


def test_one_pass_has_unknown_spread_not_zero() -> None:
    (summary,) = summarize_tests([step(1e6, 1.0, None, 1)])
    assert summary.stdev_bw_bytes_per_s is None
    assert summary.cv_pct is None
    assert summary.best_lat_mean_ns is None
    assert summary.mean_lat_mean_ns is None


@given(st.lists(st.floats(min_value=1.0, max_value=1e10), min_size=2, max_size=20))
def test_spread_matches_numpy(bws: list[float]) -> None:
    (summary,) = summarize_tests([step(bw, 1.0, 1.0, i + 1) for i, bw in enumerate(bws)])
    assert summary.stdev_bw_bytes_per_s == pytest.approx(
        np.std(bws, ddof=1), rel=1e-9, abs=1e-9 * max(bws)
    )
    assert summary.best_bw_bytes_per_s == max(bws)


def test_mix_is_a_total_and_latency_is_io_weighted() -> None:
    result = parse_fio_json((FIO / "randrw-70-30.json").read_text())
    metrics = pass_metrics(result)
    read, write = result.jobs[0].read, result.jobs[0].write
    assert read is not None
    assert write is not None
    assert metrics.bw_bytes_per_s == read.bw_bytes_per_s + write.bw_bytes_per_s
    assert metrics.iops == pytest.approx(read.iops + write.iops)
    assert read.lat_mean_ns is not None
    assert write.lat_mean_ns is not None
    expected = (read.lat_mean_ns * read.total_ios + write.lat_mean_ns * write.total_ios) / (
        read.total_ios + write.total_ios
    )
    assert metrics.lat_mean_ns == pytest.approx(expected)


def test_no_io_at_all_is_an_error() -> None:
    with pytest.raises(ValueError, match="no I/O"):
        pass_metrics(FioResult("fio-3.33", 0, (FioJobResult("x", 0, None, None),)))
    with pytest.raises(ValueError, match="no jobs"):
        pass_metrics(FioResult("fio-3.33", 0, ()))


def test_read_only_result_keeps_its_direction() -> None:
    d = DirectionMetrics(1, 1, 1.0, 1.0, 1.0, None, None, None, None, None)
    metrics = pass_metrics(FioResult(None, None, (FioJobResult("x", 0, d, None),)))
    assert metrics.read == d
    assert metrics.write is None
    assert metrics.lat_mean_ns is None


def test_passes_that_vary_more_than_the_limit_are_flagged_noisy() -> None:
    varied = [step(bw, 100.0, None, i) for i, bw in enumerate((100e6, 300e6, 150e6), start=1)]
    (summary,) = summarize_tests(varied)
    assert summary.cv_pct is not None
    assert summary.cv_pct > 10
    assert summary.noisy is True
    assert summary.noisy_cv_limit_pct == 10.0
    steady = [step(bw, 100.0, None, i) for i, bw in enumerate((100e6, 101e6, 99e6), start=1)]
    assert summarize_tests(steady)[0].noisy is False
    assert summarize_tests(varied, noisy_cv_pct=90.0)[0].noisy is False


def test_one_pass_is_neither_noisy_nor_steady() -> None:
    (summary,) = summarize_tests([step(100e6, 100.0, None, 1)])
    assert summary.noisy is None


def _side(p99_ns: int | None) -> DirectionMetrics:
    percentiles = ((50.0, 1000), (99.0, p99_ns), (99.9, 9000)) if p99_ns is not None else ()
    return DirectionMetrics(1, 1, 1.0, 1.0, 1.0, None, None, None, None, None, percentiles)


def _pass(direction: str, read: int | str | None, write: int | str | None) -> StepResult:
    """A pass whose sides report the given p99 (None: no percentiles, "-": not measured)."""
    sides = [None if v == "-" else _side(v if isinstance(v, int) else None) for v in (read, write)]
    return StepResult("k", "K", direction, 1, False, 1.0, 1.0, None, sides[0], sides[1])


def test_p99_is_fios_99th_clat_percentile_of_real_output() -> None:
    result = parse_fio_json((FIO / "randrw-70-30.json").read_text())
    read, write = result.jobs[0].read, result.jobs[0].write
    assert read is not None
    assert write is not None
    expected = {pct: float(ns) for pct, ns in read.clat_percentiles_ns}[99.0]
    assert clat_p99_ns(read) == expected
    mix = StepResult("k", "K", "mix", 1, False, 1.0, 1.0, None, read, write)
    assert p99_ns(mix) == max(expected, clat_p99_ns(write) or 0.0)


def test_a_mix_has_the_slower_directions_p99_or_none() -> None:
    mix = _pass("mix", 4000, 9000)
    assert p99_ns(mix) == 9000.0  # the card's and the fill analysis' figure
    assert p99_ns(mix, mixed="none") is None  # metrics: two distributions, no one p99
    # a mix that measured one direction only has that one's
    assert p99_ns(_pass("mix", 4000, "-"), mixed="none") == 4000.0
    assert p99_ns(_pass("mix", "-", 0), mixed="none") == 0.0  # 0 is a value, not unknown


def test_a_read_or_write_test_has_its_own_directions_p99() -> None:
    modes: tuple[MixedP99, ...] = ("slower", "none")
    for mixed in modes:
        assert p99_ns(_pass("read", 4000, "-"), mixed=mixed) == 4000.0
        assert p99_ns(_pass("write", "-", 7000), mixed=mixed) == 7000.0
        assert p99_ns(_pass("read", None, "-"), mixed=mixed) is None
        assert p99_ns(_pass("read", "-", "-"), mixed=mixed) is None
    assert p99_ns(_pass("read", "-", 7000), mixed="none") is None  # not the test's direction
