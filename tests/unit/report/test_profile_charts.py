"""The charts of the fill, trim, endurance, health and simulated-drive reports meet the chart
rules: units on every quantitative axis, amounts from zero, a log axis only where the values
span more than two decades, and no series too short to be seen."""

from contextlib import closing
from pathlib import Path

from ssdlab.analysis.endurance import Iteration, endurance_status
from ssdlab.app.runs import run_document, stored_run
from ssdlab.model.profile import ProfileResults
from ssdlab.model.profile_settings import EnduranceSettings
from ssdlab.model.result import DirectionMetrics
from ssdlab.model.run import RunRecord, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.typed_settings import decode_settings
from ssdlab.model.units import GB, TB
from ssdlab.plan.endurance import plan_endurance
from ssdlab.plan.fill import plan_fill
from ssdlab.plan.trim import plan_trim
from ssdlab.registry import profile_record
from ssdlab.registry.record import fill_verdicts
from ssdlab.report.document import Chart, Document
from ssdlab.report.endurance import build_endurance_document
from ssdlab.report.health_document import build_health_document
from ssdlab.store.db import open_store
from tests.unit.analysis.health_samples import make_sample
from tests.unit.plan.profile_golden import DEVICE_TARGET
from tests.unit.report.chart_checks import breaches
from tests.unit.sim_report.test_sim_store import _plan, _simulated, _spec


def _run(profile: str) -> RunRecord:
    return RunRecord(1, "profile", profile, 1, None, RunStatus.COMPLETE, None, "device",
                     DEVICE_TARGET.path, {}, {}, {}, {}, 0.0, 1.0, "host", 1, None)  # fmt: skip


def _write(key: str, iops: float, round_index: int = 1) -> StepResult:
    write = DirectionMetrics(10**9, 10**5, 1.0, iops * 4096, iops, 900.0, 10.0, 9e5, 5.0, 800.0,
                             ((50.0, 700), (99.0, 4000)))  # fmt: skip
    return StepResult(key, key, "write", round_index, False, iops * 4096, iops, 900.0, None,
                      write)  # fmt: skip


def _profile_document(profile: str, steps: list[StepResult]) -> Document:
    plans = {"fill": plan_fill, "trim": plan_trim}
    plan = plans[profile]({}, DEVICE_TARGET)
    facts = {"discard_max_bytes": 2**31, "discard_granularity_bytes": 4096}
    results = ProfileResults(_run(profile), plan, tuple(steps), facts, {}, (), {})
    record = profile_record(profile)
    analyse = record.parts().analyse
    assert analyse is not None
    return record.build_document(fill_verdicts(results, analyse))


def _charts(document: Document) -> dict[str, Chart]:
    return {chart.key: chart for chart in document.charts}


def _breaches(charts: dict[str, Chart]) -> dict[str, list[str]]:
    """The charts that break a rule, with what they break."""
    return {key: found for key, chart in charts.items() if (found := breaches(chart))}


def test_fill_iops_from_zero_with_units() -> None:
    steps = [_write("randwrite-0", 62_000), _write("randwrite-50", 50_000),
             _write("randwrite-90", 20_000)]  # fmt: skip
    chart = _charts(_profile_document("fill", steps))["fill-iops"]
    assert breaches(chart) == []
    assert (chart.x_unit, chart.y_unit, chart.y_zero, chart.y_log) == ("%", "IOPS", True, False)
    assert chart.series[0].ys == (62_000, 50_000, 20_000)


def test_fill_levels_three_decades_apart_get_a_log_axis() -> None:
    steps = [_write("randwrite-0", 62_000), _write("randwrite-90", 40)]
    chart = _charts(_profile_document("fill", steps))["fill-iops"]
    assert breaches(chart) == []
    assert chart.y_log
    assert not chart.y_zero


def test_a_single_fill_level_is_a_point_not_an_invisible_line() -> None:
    chart = _charts(_profile_document("fill", [_write("randwrite-0", 62_000)]))["fill-iops"]
    assert breaches(chart) == []
    assert chart.series[0].style == "points"


def test_trim_bars_from_zero() -> None:
    steps = [_write("dirty", 20_000), _write("discarded", 50_000)]
    chart = _charts(_profile_document("trim", steps))["trim-effect"]
    assert breaches(chart) == []
    assert (chart.y_unit, chart.y_zero) == ("IOPS", True)
    assert [label for _, label in chart.x_ticks] == ["dirty", "discarded"]


def _iteration(index: int, start_s: float, seconds: float) -> Iteration:
    return Iteration(index, start_s, start_s + seconds, seconds, 10 * GB, 10 * GB / seconds)


def test_endurance_charts_with_units_and_health_over_days() -> None:
    day = 86400.0
    iterations = [_iteration(n, n * day / 8, 600.0 + 10 * n) for n in range(1, 9)]
    samples = [
        make_sample(n * day / 2, host=(100 + n) * TB, nand=(110 + 2 * n) * TB, wear=3 + n)
        for n in range(6)
    ]
    plan = plan_endurance({}, DEVICE_TARGET)
    status = endurance_status(
        decode_settings(EnduranceSettings, plan.settings), iterations, samples
    )
    results = ProfileResults(_run("endurance"), plan, (), {}, {})
    charts = _charts(build_endurance_document(results, status))
    assert set(charts) == {
        "endurance-throughput", "endurance-iteration-times", "endurance-waf", "endurance-wear",
    }  # fmt: skip
    assert _breaches(charts) == {}
    throughput = charts["endurance-throughput"]
    assert (throughput.x_unit, throughput.y_unit, throughput.y_zero) == ("h", "MB/s", True)
    assert charts["endurance-wear"].y_unit == "%"
    assert charts["endurance-waf"].x_unit == "days"


def test_endurance_of_one_iteration_shows_it_as_a_point() -> None:
    plan = plan_endurance({}, DEVICE_TARGET)
    status = endurance_status(
        decode_settings(EnduranceSettings, plan.settings), [_iteration(1, 100.0, 60.0)], []
    )
    results = ProfileResults(_run("endurance"), plan, (), {}, {})
    charts = _charts(build_endurance_document(results, status))
    assert _breaches(charts) == {}
    assert [s.style for s in charts["endurance-throughput"].series] == ["points"]


def test_health_counters_grow_from_zero_since_the_first_sample() -> None:
    samples = [
        make_sample(n * 86400.0, host=(150 + 0.2 * n) * TB, nand=(160 + 3 * n) * TB, wear=4)
        for n in range(5)
    ]
    document = build_health_document(_run("watch"), samples)
    charts = _charts(document)
    assert set(charts) == {"health-host-written", "health-nand-written"}
    assert _breaches(charts) == {}
    host = charts["health-host-written"]
    assert (host.x_unit, host.y_unit, host.y_zero) == ("days", "GB", True)
    assert host.series[0].ys[0] == 0.0
    assert round(host.series[0].ys[-1], 6) == 800.0  # 0.2 TB a day over four days
    assert charts["health-nand-written"].y_unit == "TB"  # 12 TB
    # a counter that did not move is said, not drawn as a line on the chart's top edge
    (section,) = [s for s in document.sections if s.title == "Counters over time"]
    assert section.notes == ("wear used stayed at 4 % over the 5 samples",)


def test_health_samples_hours_apart_on_an_axis_in_hours() -> None:
    samples = [make_sample(n * 3600.0, host=(150 + n) * TB, wear=4 + n) for n in range(5)]
    charts = _charts(build_health_document(_run("watch"), samples))
    assert _breaches(charts) == {}
    assert {chart.x_unit for chart in charts.values()} == {"h"}
    assert charts["health-wear"].series[0].ys == (4.0, 5.0, 6.0, 7.0, 8.0)


def test_simulated_drive_and_sweep_charts(tmp_path: Path) -> None:
    with closing(open_store(tmp_path / "sim.db")) as conn:
        run_id, _ = _simulated(conn, _spec(_plan()))
        points = [_plan(f"p{n}", spare) for n, spare in enumerate((0.07, 0.28), 1)]
        sweep_id, _ = _simulated(conn, _spec(*points, parameter="spare"))
        documents = [run_document(stored_run(conn, n)) for n in (run_id, sweep_id)]
    charts = {chart.key: chart for document in documents for chart in document.charts}
    assert set(charts) == {
        "sim-throughput", "sim-waf", "sim-erase", "sim-sweep-waf", "sim-sweep-lifetime",
    }  # fmt: skip
    assert _breaches(charts) == {}
    # 48 MiB written: the axis in MB, not in steps of 0.01 GB
    assert (charts["sim-throughput"].x_unit, charts["sim-throughput"].y_unit) == ("MB", "MB/s")
    assert charts["sim-sweep-lifetime"].y_zero
