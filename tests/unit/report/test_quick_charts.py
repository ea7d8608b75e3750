"""The quick report's charts meet the chart rules on runs built from real fio captures: units,
rates from zero, a log axis only where the data spans more than two decades, sequential and
random tests apart, no series a reader cannot see, at most ten series per chart."""

import dataclasses

from ssdlab.model.result import SeriesPoint
from ssdlab.model.step import StepResult
from ssdlab.report.document import MAX_SERIES, Chart
from ssdlab.report.quick import build_quick_report
from ssdlab.report.quick_document import build_quick_document
from tests.unit.report.chart_checks import breaches
from tests.unit.report.test_exports_golden import fixture_run, fixture_steps


def _with_series(step: StepResult, points: int) -> StepResult:
    """`step` with `points` log intervals of one second at its own speed."""
    rate = step.bw_bytes_per_s / ({"read": 1, "write": 1, "mix": 2}[step.direction])
    sides = ("read", "write") if step.direction == "mix" else (step.direction,)
    series = tuple(
        SeriesPoint(float(second), side, rate, step.iops / len(sides), step.lat_mean_ns)
        for second in range(1, points + 1)
        for side in sides
    )
    return dataclasses.replace(step, series=series)


def _charts(steps: list[StepResult]) -> dict[str, Chart]:
    document = build_quick_document(build_quick_report(fixture_run(), steps))
    return {chart.key: chart for chart in document.charts}


def test_every_quick_chart_meets_the_rules() -> None:
    charts = _charts([_with_series(step, 5) for step in fixture_steps()])
    assert {key: breaches(chart) for key, chart in charts.items()} == {key: [] for key in charts}
    assert set(charts) == {
        "quick-bars",
        "quick-passes",
        "quick-series-mbps-seq",
        "quick-series-latency-seq",
        "quick-series-iops-rnd",
        "quick-series-latency-rnd",
        "quick-latency-percentiles",
    }


def test_sequential_and_random_tests_never_share_a_time_axis() -> None:
    charts = _charts([_with_series(step, 5) for step in fixture_steps()])
    for key, chart in charts.items():
        if key.startswith("quick-series"):
            kinds = {series.label[:3] for series in chart.series}
            assert len(kinds) == 1, (key, kinds)
    assert charts["quick-series-iops-rnd"].y_unit == "IOPS"
    assert charts["quick-series-mbps-seq"].y_unit == "MB/s"
    assert "(random tests)" in charts["quick-series-iops-rnd"].title
    # each chart's passes end to end from zero: the random tests do not wait for the sequential
    rnd = charts["quick-series-iops-rnd"].series
    assert [(s.xs[0], s.xs[-1]) for s in rnd] == [(1.0, 10.0), (11.0, 20.0)]


def test_passes_too_short_for_a_line_are_drawn_as_points() -> None:
    charts = _charts([_with_series(step, 1) for step in fixture_steps()])
    rate = charts["quick-series-iops-rnd"]
    assert [s.style for s in rate.series] == ["points", "points"]
    assert [b for chart in charts.values() for b in breaches(chart)] == []
    longer = _charts([_with_series(step, 4) for step in fixture_steps()])
    assert {s.style for s in longer["quick-series-iops-rnd"].series} == {"line"}


def test_every_pass_has_a_short_tick_per_test_and_a_colour_per_direction() -> None:
    chart = _charts(fixture_steps())["quick-passes"]
    assert [label for _, label in chart.x_ticks] == ["SEQ1M Q1T1", "RND4K Q32T1"]
    assert [s.label for s in chart.series] == ["read", "write", "mix"]
    assert sum(len(s.xs) for s in chart.series) == 6  # two measured passes of three tests
    assert chart.y_label == "throughput"
    assert chart.y_unit == "MB/s"


def test_best_pass_bars_carry_the_pass_spread() -> None:
    chart = _charts(fixture_steps())["quick-bars"]
    for series in chart.series:
        assert len(series.errors) == len(series.ys)
        for best, (low, high) in zip(series.ys, series.errors, strict=True):
            assert low < best == high  # passes at 1.0 and 0.9 of the capture's speed
            assert low == best * 0.9


def test_twelve_tests_are_split_so_no_colour_repeats() -> None:
    """Two sequential and two random shapes × read, write and mix: twelve tests, more than a
    chart has colours."""
    steps = []
    for step in fixture_steps():
        if step.direction == "mix":
            continue  # one capture per pattern: the sequential write, the random read
        shape = step.step_label.split()[0]
        for depth in ("Q1T1", "Q32T1"):
            for direction in ("read", "write", "mix"):
                key = f"{shape.lower()}-{depth.lower()}-{direction}"
                steps.append(
                    dataclasses.replace(
                        _with_series(step, 3),
                        step_label=f"{shape} {depth}",
                        step_key=key,
                        direction=direction,
                    )
                )
    charts = _charts(steps)
    assert len(charts["quick-passes"].x_ticks) == 4
    assert max(len(chart.series) for chart in charts.values()) <= MAX_SERIES
    percentiles = {key: c for key, c in charts.items() if key.startswith("quick-latency-perc")}
    assert {key: len(c.series) for key, c in percentiles.items()} == {
        "quick-latency-percentiles-seq": 6,
        "quick-latency-percentiles-rnd": 6,
    }
    assert [b for chart in charts.values() for b in breaches(chart)] == []


def test_values_over_two_decades_get_a_log_axis() -> None:
    """A random test at 1/500 of the sequential speed: linear bars would hide it."""
    steps = [
        dataclasses.replace(step, bw_bytes_per_s=step.bw_bytes_per_s / 500)
        if step.step_label.startswith("RND")
        else step
        for step in fixture_steps()
    ]
    bars = _charts(steps)["quick-bars"]
    assert bars.y_log
    assert not bars.y_zero
    assert {s.style for s in bars.series} == {"points"}  # a bar on a log axis stands on nothing
    assert breaches(bars) == []
    assert not _charts(fixture_steps())["quick-bars"].y_log


def test_a_pass_that_logged_no_interval_is_still_in_the_time_series() -> None:
    """A pass shorter than one log interval has no log point: it is drawn as one point, its
    own figure in the middle of its time, so every measured pass is in the time series."""
    steps = [_with_series(step, 5) for step in fixture_steps()]
    first_rnd = next(
        i for i, s in enumerate(steps) if s.step_label.startswith("RND") and not s.discarded
    )
    steps[first_rnd] = dataclasses.replace(steps[first_rnd], series=())
    charts = _charts(steps)
    rnd = charts["quick-series-iops-rnd"].series
    label = f"{steps[first_rnd].step_label} {steps[first_rnd].direction}"
    drawn = next(s for s in rnd if s.label == label)
    assert steps[first_rnd].iops in drawn.ys
    assert breaches(charts["quick-series-iops-rnd"]) == []
