"""The compare charts over runs built from real fio captures (json+ latency bins): one series
per run, the median pass with the slowest and fastest as its error bar, throughput over time,
latency percentiles and histograms, and every chart within the chart rules."""

import dataclasses
import statistics

import pytest

from ssdlab.analysis.compare import compare_runs, log_histogram, measured_tests, median_pass
from ssdlab.analysis.run_metrics import step_metrics
from ssdlab.model.result import SeriesPoint
from ssdlab.model.step import StepResult
from ssdlab.model.units import MB
from ssdlab.parse.fio_histogram import clat_bins_of
from ssdlab.report.compare import build_compare_document, run_label
from ssdlab.report.document import Chart, Document
from tests.unit.report.chart_checks import breaches
from tests.unit.report.test_exports_golden import CASES, FIO, fixture_run, fixture_steps

CAPTURES = {number: name for number, (name, _, _) in enumerate(CASES, start=1)}


def _steps(scale: float = 1.0) -> list[StepResult]:
    """The fixture run's passes with three one-second intervals each and the capture whose
    json+ bins they stand for; `scale`: every rate × scale (a second, slower drive)."""
    capture = {name: number for number, name in CAPTURES.items()}
    keys = {f"{label.split()[0].lower()}-{label.split()[1].lower()}-{d}": capture[name]
            for name, label, d in CASES}  # fmt: skip
    steps = []
    for step in fixture_steps():
        sides = ("read", "write") if step.direction == "mix" else (step.direction,)
        series = tuple(
            SeriesPoint(float(second), side, step.bw_bytes_per_s * scale / len(sides) * f,
                        step.iops * scale / len(sides) * f, step.lat_mean_ns)
            for second, f in ((1, 0.9), (2, 1.0), (3, 1.1))
            for side in sides
        )  # fmt: skip
        steps.append(
            dataclasses.replace(
                step,
                bw_bytes_per_s=step.bw_bytes_per_s * scale,
                iops=step.iops * scale,
                series=series,
                capture_id=keys[step.step_key],
            )
        )
    return steps


def _bins() -> dict[int, tuple[dict[int, int], ...]]:
    return {n: clat_bins_of((FIO / name).read_text()) for n, name in CAPTURES.items()}


def _document() -> Document:
    base, other = fixture_run(), dataclasses.replace(fixture_run(), run_id=8)
    steps_a, steps_b = _steps(), _steps(0.6)
    comparison = compare_runs(7, step_metrics(steps_a), 8, step_metrics(steps_b))
    tests = [measured_tests(steps, _bins()) for steps in (steps_a, steps_b)]
    return build_compare_document([base, other], [comparison], (), tests)


def _charts() -> dict[str, Chart]:
    return {chart.key: chart for chart in _document().charts}


def test_a_chart_per_kind_and_three_per_test_each_with_one_series_per_run() -> None:
    charts = _charts()
    assert set(charts) == {
        "compare-sequential", "compare-random",
        *(f"compare-{key}-{kind}" for key in ("seq1m-q1t1-write", "rnd4k-q32t1-read",
                                               "rnd4k-q32t1-mix")
          for kind in ("time", "percentiles", "histogram")),
    }  # fmt: skip
    labels = [run_label(fixture_run()), run_label(dataclasses.replace(fixture_run(), run_id=8))]
    assert labels == [
        "run 7: /srv/ssd/ssdlab-0123456789ab.tmp",
        "run 8: /srv/ssd/ssdlab-0123456789ab.tmp",
    ]
    for chart in charts.values():
        assert [s.label for s in chart.series] == labels, chart.key
    assert {key: found for key, chart in charts.items() if (found := breaches(chart))} == {}


def test_per_test_bars_are_the_median_pass_with_the_slowest_and_fastest() -> None:
    charts = _charts()
    random = charts["compare-random"]
    assert (random.y_unit, random.y_zero, random.y_log) == ("IOPS", True, False)
    assert [label for _, label in random.x_ticks] == ["RND4K Q32T1 read", "RND4K Q32T1 mix"]
    base = [s for s in _steps() if s.step_key == "rnd4k-q32t1-read" and not s.discarded]
    passes = [s.iops for s in base]
    (first, _), (first_errors, _) = (
        (random.series[0].ys, random.series[1].ys),
        (random.series[0].errors, random.series[1].errors),
    )
    assert first[0] == statistics.median(passes)
    assert first_errors[0] == (min(passes), max(passes))
    assert random.series[1].ys[0] == pytest.approx(statistics.median(passes) * 0.6)
    sequential = charts["compare-sequential"]
    assert (sequential.y_unit, [s.style for s in sequential.series]) == ("MB/s", ["bars"] * 2)
    writes = [s.bw_bytes_per_s / MB for s in _steps() if s.step_key == "seq1m-q1t1-write"]
    assert sequential.series[0].errors[0] == (min(writes[1:]), max(writes[1:]))


def test_time_series_run_the_passes_end_to_end_in_the_tests_unit() -> None:
    charts = _charts()
    seq = charts["compare-seq1m-q1t1-write-time"]
    assert (seq.x_unit, seq.y_unit, seq.y_zero) == ("s", "MB/s", True)
    assert seq.series[0].xs == (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)  # two measured passes of 3 s
    first = next(s for s in _steps() if s.step_key == "seq1m-q1t1-write" and not s.discarded)
    assert seq.series[0].ys[1] == pytest.approx(first.bw_bytes_per_s / MB)
    mix = charts["compare-rnd4k-q32t1-mix-time"]
    assert mix.y_unit == "IOPS"  # reads and writes of a mix added up
    first_mix = next(s for s in _steps() if s.step_key == "rnd4k-q32t1-mix" and not s.discarded)
    assert mix.series[0].ys[1] == pytest.approx(first_mix.iops)


def test_percentiles_and_histogram_of_the_median_pass() -> None:
    charts = _charts()
    pct = charts["compare-rnd4k-q32t1-read-percentiles"]
    assert [label for _, label in pct.x_ticks] == ["p50", "p90", "p99", "p99.9", "p99.99"]
    middle = median_pass([s for s in _steps() if s.step_key == "rnd4k-q32t1-read"][1:])
    assert middle.read is not None
    fio = dict(middle.read.clat_percentiles_ns)
    assert pct.series[0].ys == tuple(fio[p] / 1e3 for p in (50.0, 90.0, 99.0, 99.9, 99.99))
    assert pct.y_unit == "µs"
    histogram = charts["compare-rnd4k-q32t1-read-histogram"]
    assert (histogram.x_unit, histogram.y_unit, histogram.y_log) == ("µs", "% of I/Os", True)
    assert sum(histogram.series[0].ys) == pytest.approx(100.0)
    assert histogram.series[0].ys == histogram.series[1].ys  # the same capture's bins


def test_log_histogram_buckets_a_tenth_of_a_decade_with_gaps_as_zero() -> None:
    buckets = log_histogram({1000: 60, 1100: 20, 10_000: 20, 0: 5})
    assert [edge for edge, _ in (buckets[0], buckets[-1])] == pytest.approx([1000.0, 10_000.0])
    assert [share for _, share in (buckets[0], buckets[-1])] == [80.0, 20.0]
    assert len(buckets) == 11
    assert [share for _, share in buckets[1:-1]] == [0.0] * 9
    assert log_histogram({}) == ()


def test_runs_without_series_or_bins_get_only_the_summary_charts() -> None:
    steps = fixture_steps()
    base, other = fixture_run(), dataclasses.replace(fixture_run(), run_id=8)
    comparison = compare_runs(7, step_metrics(steps), 8, step_metrics(steps))
    tests = [measured_tests(steps, {}) for _ in range(2)]
    document = build_compare_document([base, other], [comparison], (), tests)
    keys = {chart.key for chart in document.charts}
    assert {"compare-sequential", "compare-random"} <= keys
    assert not any(key.endswith(("-time", "-histogram")) for key in keys)
    no_charts = build_compare_document([base, other], [comparison])
    assert no_charts.charts == ()


def test_a_test_of_one_run_only_is_in_the_summary_not_drawn_one_by_one() -> None:
    base, other = fixture_run(), dataclasses.replace(fixture_run(), run_id=8)
    steps_a = _steps()
    steps_b = [s for s in _steps(0.6) if s.step_key != "rnd4k-q32t1-mix"]
    comparison = compare_runs(7, step_metrics(steps_a), 8, step_metrics(steps_b))
    tests = [measured_tests(steps, _bins()) for steps in (steps_a, steps_b)]
    document = build_compare_document([base, other], [comparison], (), tests)
    keys = {chart.key for chart in document.charts}
    assert not any(key.startswith("compare-rnd4k-q32t1-mix") for key in keys)
    assert "compare-rnd4k-q32t1-read-time" in keys
    random = next(c for c in document.charts if c.key == "compare-random")
    assert [len(s.xs) for s in random.series] == [2, 1]  # the mix: a bar of run 7 only
    (note,) = [n for s in document.sections if s.title == "Charts: further tests" for n in s.notes]
    assert note.startswith("1 more test (measured in one run only")


def test_a_pass_without_log_points_is_one_point_of_the_time_series() -> None:
    steps = _steps()
    first = next(s for s in steps if not s.discarded)
    runtime = first.read or first.write
    assert runtime is not None
    without = [dataclasses.replace(first, round_index=first.round_index + 10, series=()),
               *steps]  # fmt: skip
    (test,) = [t for t in measured_tests(without, {}) if t.key == first.step_key]
    assert first.bw_bytes_per_s in test.interval_bw_bytes_per_s
    assert len(test.elapsed_s) == len(test.interval_bw_bytes_per_s)
