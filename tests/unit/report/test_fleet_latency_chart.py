"""`fleet compare`'s chart of a group's merged latency per second: p50 drawn every second it
has, p99 and p99.9 only in the seconds whose I/Os support them (a gap, never a number n
cannot carry), in µs, keeping the chart rules."""

from ssdlab.analysis.fleet import DriveGroup, GroupLatency
from ssdlab.analysis.merged_latency import MergedLatency, SecondLatency
from ssdlab.report.chart_rules import chart_problems
from ssdlab.report.fleet import build_fleet_compare_document


def _second(second: int, ios: int, p50: float, p99: float | None) -> SecondLatency:
    return SecondLatency(second, ios, ((50.0, p50), (99.0, p99), (99.9, None)))


def _document(seconds: tuple[SecondLatency, ...]):  # type: ignore[no-untyped-def]
    merged = MergedLatency(
        "read", sum(s.ios for s in seconds), ((50.0, 80_000.0), (99.0, 400_000.0), (99.9, None)),
        (), seconds,
    )  # fmt: skip
    group = DriveGroup("SSD X", "1.0", (), ())
    latency = GroupLatency("SSD X", "1.0", "rnd4k-q1t1", 2, 2, {"read": merged})
    return build_fleet_compare_document("quick", (group,), 5.0, 0.05, (latency,))


def test_p99_is_drawn_only_in_the_seconds_that_support_it() -> None:
    seconds = (
        _second(0, 120, 90_000.0, None),  # 120 I/Os: no p99
        _second(1, 900, 85_000.0, 300_000.0),
        _second(2, 950, 70_000.0, 500_000.0),
    )
    (chart,) = _document(seconds).charts
    by_label = {series.label: series for series in chart.series}
    assert set(by_label) == {"read p50", "read p99"}  # p99.9: no second supports it
    assert by_label["read p50"].xs == (0.0, 1.0, 2.0)
    assert by_label["read p50"].ys == (90.0, 85.0, 70.0)  # µs
    assert by_label["read p99"].xs == (1.0, 2.0)
    assert by_label["read p99"].ys == (300.0, 500.0)
    assert by_label["read p99"].style == "points"
    assert chart.key == "fleet-latency-SSD_X-1_0-rnd4k-q1t1"
    assert chart_problems(chart) == ()


def test_no_chart_without_seconds() -> None:
    assert _document(()).charts == ()
