"""PTS round checks and results on synthetic rounds built against real plans."""

import json
import math
from dataclasses import replace

import pytest

from ssdlab.analysis.profiles.pts import PtsConformance, analyse_pts, check_pts_round
from ssdlab.model.profile import ProfilePlan, ProfileResults, RoundLoop
from ssdlab.model.result import DirectionMetrics, SeriesPoint
from ssdlab.model.run import RunRecord, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.target import PurgeSupport
from ssdlab.model.units import KiB
from ssdlab.plan.pts import plan_pts_hir, plan_pts_iops, plan_pts_tp, plan_pts_wsat, plan_pts_xsr
from ssdlab.registry import profile_record
from ssdlab.report.chart_spec import render_chart
from ssdlab.report.document import render_markdown
from ssdlab.report.pts import _size_label
from ssdlab.store.lifecycle import to_json
from tests.unit.plan.profile_golden import DEVICE_TARGET, FILE_TARGET
from tests.unit.report.chart_checks import breaches
from tests.unit.report.stored_findings import with_stored_verdicts

NVME = replace(
    DEVICE_TARGET,
    transport="nvme",
    purge_support=PurgeSupport("nvme", nvme_format_erase=True, discard=True),
)
TRIAL = {"block_sizes": (4 * KiB,), "mixes": (0,)}  # the three tracking elements + nothing


def _direction(iops: float, written: int = 0) -> DirectionMetrics:
    return DirectionMetrics(written, int(iops), 1.0, iops * 4096, iops, 1000.0, 10.0, 9000.0,
                            5.0, 900.0, ((99.999, 8000),))  # fmt: skip


def _result(key: str, round_index: int, iops: float, written: int = 0) -> StepResult:
    metrics = _direction(iops, written)
    return StepResult(key, key, "write", round_index, False, iops * 4096, iops, 1000.0,
                      None, metrics)  # fmt: skip


def _rounds(loop: RoundLoop, values: dict[str, list[float]], written: int = 0) -> list[StepResult]:
    """Each element's value per round; elements not named get a constant."""
    rounds = len(next(iter(values.values())))
    return [
        _result(step.key, r, values.get(step.key, [1000.0] * rounds)[r - 1], written)
        for r in range(1, rounds + 1)
        for step in loop.steps
    ]


def test_stops_at_the_first_window_where_every_variable_is_steady() -> None:
    plan = plan_pts_iops(TRIAL, NVME)
    (loop,) = plan.loops
    # 4 KiB writes settle from round 3: 100, 100, 100, 100, 100 in rounds 3-7
    steps = _rounds(loop, {"rnd-4kib-r0": [300, 200, 100, 100, 100, 100, 100]})
    verdicts = [check_pts_round(plan, loop, steps, r) for r in range(5, 8)]
    assert [v.stop for v in verdicts] == [False, False, True]
    assert verdicts[-1].body["window"] == (3, 7)
    assert "steady state in rounds 3–7" in verdicts[-1].summary


def test_range_passes_but_slope_fails_and_the_reverse() -> None:
    plan = plan_pts_iops(TRIAL, NVME)
    (loop,) = plan.loops
    # a steady climb: range 16 % of the average (≤ 20 %) but slope excursion 16 % (> 10 %)
    climb = _rounds(loop, {"rnd-4kib-r0": [92, 96, 100, 104, 108]})
    verdict = check_pts_round(plan, loop, climb, 5)
    assert not verdict.stop
    assert "slope" in verdict.summary
    (check,) = [c for c in verdict.body["checks"] if c["variable"] == "iops 0/100 4KiB"]
    assert check["passes_range"]
    assert not check["passes_slope"]
    # flat ends, one outlier: slope 0, range 30 % of the average
    spike = _rounds(loop, {"rnd-4kib-r0": [100, 100, 130, 100, 100]})
    (check,) = [
        c for c in check_pts_round(plan, loop, spike, 5).body["checks"]
        if c["variable"] == "iops 0/100 4KiB"
    ]  # fmt: skip
    assert check["passes_slope"]
    assert not check["passes_range"]


def test_gives_up_at_max_rounds_with_the_last_window() -> None:
    plan = plan_pts_iops({**TRIAL, "max_rounds": 6}, NVME)
    (loop,) = plan.loops
    steps = _rounds(loop, {"rnd-4kib-r0": [100, 200, 100, 200, 100, 200]})
    verdict = check_pts_round(plan, loop, steps, 6)
    assert verdict.stop
    assert verdict.body["steady"] is False
    assert verdict.body["measurement_window"] == (2, 6)


def test_hir_preconditioning_waits_for_two_drive_fills() -> None:
    plan = plan_pts_hir({}, NVME)
    (loop,) = plan.loops
    capacity = NVME.size_bytes
    flat = [1000.0] * 5  # a fresh drive: flat and fast before its cliff
    early = _rounds(loop, {"pc": flat}, written=capacity // 10)
    assert not check_pts_round(plan, loop, early, 5).stop
    late = _rounds(loop, {"pc": flat}, written=capacity // 2)
    assert check_pts_round(plan, loop, late, 5).stop  # 5 × ½ capacity ≥ 2 fills


def test_wsat_stops_at_the_byte_limit() -> None:
    plan = plan_pts_wsat({"capacity_multiple": 1.0}, NVME)
    (loop,) = plan.loops
    quarter = NVME.size_bytes // 4
    steps = [_result("rnd-4kib-r0", r, 5000.0, quarter) for r in range(1, 5)]
    assert not check_pts_round(plan, loop, steps, 3).stop
    assert check_pts_round(plan, loop, steps, 3).progress == pytest.approx(0.75)  # of the bytes
    last = check_pts_round(plan, loop, steps, 4)
    assert last.stop
    assert last.body["drive_fills"] == pytest.approx(1.0)
    assert last.progress == pytest.approx(1.0)


def _results(plan: ProfilePlan, steps: list[StepResult]) -> ProfileResults:
    run = RunRecord(1, "profile", plan.profile, 1, None, RunStatus.COMPLETE, None, "device",
                    plan.target_path, {}, {}, {}, {}, 0.0, 1.0, "host", 1, None)  # fmt: skip
    return ProfileResults(run, plan, tuple(steps), {}, {}, (), {})


def _stored(plan: ProfilePlan, steps: list[StepResult]) -> ProfileResults:
    return with_stored_verdicts(_results(plan, steps))


def test_results_are_window_means_and_left_out_elements_are_absent() -> None:
    plan = plan_pts_iops(TRIAL, NVME)
    (loop,) = plan.loops
    steps = _rounds(loop, {"rnd-4kib-r0": [300, 200, 100, 100, 100, 100, 100],
                           "rnd-64kib-r65": [50, 50, 45, 55, 50, 50, 50]})  # fmt: skip
    found = analyse_pts(plan, steps, {}, {})
    (entry,) = found["pts-results"]["loops"]
    assert entry["measurement_window"] == [3, 7]
    assert entry["steady_state_reached"] is True
    cells = {e["key"]: e for e in entry["elements"]}
    assert cells["rnd-4kib-r0"]["iops"] == 100
    assert cells["rnd-64kib-r65"]["iops"] == pytest.approx((45 + 55 + 50 + 50 + 50) / 5)
    assert "rnd-8kib-r0" not in cells  # never planned, so never a 0
    document = profile_record(plan.profile).build_document(_stored(plan, steps))
    text = render_markdown(document)
    assert "IOPS by block size and R/W mix" in text
    assert "steady state in rounds 3–7" in text
    keys = {c.key for c in document.charts}
    assert {"pts-convergence", "pts-iops-2d", "pts-iops-map", "pts-window-iops-0-100-4kib"} <= keys
    for chart in document.charts:
        assert render_chart(chart, "svg").startswith(b"<?xml")


def test_conformance_label() -> None:
    clean = analyse_pts(plan_pts_tp({}, NVME), [], {}, {})["pts-conformance"]
    assert isinstance(clean, PtsConformance)
    assert clean.conformant
    assert clean.label == "conformant to SNIA PTS 2.0.2, enterprise class"
    trial = analyse_pts(plan_pts_tp({}, FILE_TARGET), [], {}, {})["pts-conformance"]
    assert isinstance(trial, PtsConformance)
    assert not trial.conformant
    assert "the target is a file, not a block device" in trial.deviations
    stored = json.loads(to_json(trial))
    assert set(stored) == {
        "conformant", "label", "deviations", "pts_version", "device_class", "purge_method",
    }  # fmt: skip
    assert stored["deviations"] == list(trial.deviations)


def test_pts_charts_meet_the_chart_rules() -> None:
    """IOPS, window and convergence charts with units and from zero; WSAT against time, GB and
    drive fills; nothing drawn as a 0 it did not measure."""
    plan = plan_pts_iops(TRIAL, NVME)
    (loop,) = plan.loops
    steps = _rounds(loop, {"rnd-4kib-r0": [300, 200, 100, 100, 100, 100, 100],
                           "rnd-64kib-r65": [50, 50, 45, 55, 50, 50, 50]})  # fmt: skip
    iops = profile_record(plan.profile).build_document(_stored(plan, steps))
    charts = {c.key: c for c in iops.charts}
    assert {key: breaches(c) for key, c in charts.items()} == {key: [] for key in charts}
    convergence = charts["pts-convergence"]
    # whole rounds as ticks (a quantitative axis would tick 1.2, 1.4 …)
    assert (convergence.x_label, [t for _, t in convergence.x_ticks]) == (
        "round", ["1", "2", "3", "4", "5", "6", "7"],
    )  # fmt: skip
    window = charts["pts-window-iops-0-100-4kib"]
    assert [t for _, t in window.x_ticks] == ["3", "4", "5", "6", "7"]
    assert window.title == "Measurement window: I/O rate, 0/100 4KiB"  # not 'iops 0/100 4KiB'
    # the ±10 % band is one legend entry, drawn at both edges
    assert [m.label for m in window.markers] == ["average", *["±10 % of average"] * 2]
    assert (convergence.y_label, convergence.y_unit, convergence.y_zero) == (
        "I/O rate", "IOPS", True,
    )  # fmt: skip
    assert "0/100 4KiB" in {s.label for s in convergence.series}
    assert charts["pts-iops-map"].heat.value_unit == "IOPS"  # type: ignore[union-attr]
    by_size = charts["pts-iops-2d"]  # block sizes as named ticks, smallest first
    assert [t for _, t in by_size.x_ticks] == [_size_label(s * KiB) for s in (4, 64, 1024)]
    # a window mean, with a bar from its slowest to its fastest round of rounds 3-7
    mixed = next(s for s in by_size.series if s.label == "65/35")
    assert (mixed.ys, mixed.errors) == ((50.0,), ((45.0, 55.0),))  # 64 KiB, its one size
    wsat = plan_pts_wsat({"capacity_multiple": 1.0}, NVME)
    quarter = NVME.size_bytes // 4
    rounds = [_result("rnd-4kib-r0", r, 5000.0 - 500 * r, quarter) for r in range(1, 5)]
    document = profile_record(wsat.profile).build_document(_stored(wsat, rounds))
    charts = {c.key: c for c in document.charts}
    assert {key: breaches(c) for key, c in charts.items()} == {key: [] for key in charts}
    # four rounds of 1 s, each writing a quarter of the 4 GiB drive: seconds, GB
    assert [(c.x_label, c.x_unit) for c in charts.values()] == [
        ("time", "s"), ("data written", "GB"), ("capacity written", "drive fills"),
    ]  # fmt: skip
    assert charts["wsat-iops-time"].series[0].xs == (1.0, 2.0, 3.0, 4.0)
    assert charts["wsat-iops-tgbw"].series[0].xs[-1] == pytest.approx(NVME.size_bytes / 1e9)


def test_xsr_access_groups_end_to_end_in_seconds_for_a_short_run() -> None:
    plan = plan_pts_xsr({}, NVME)
    groups = [s for s in plan.steps if s.param("access_group")]
    steps = []
    for number, (step, mbps) in enumerate(zip(groups, (2000, 300, 1900), strict=True), 1):
        log = tuple(SeriesPoint(float(t), "write", mbps * 1e6, None, 500e3) for t in (1, 2, 3))
        steps.append(replace(_result(step.key, number, 1000.0), series=log))
    document = profile_record(plan.profile).build_document(_stored(plan, steps))
    (chart,) = [c for c in document.charts if c.key == "xsr-tp-time"]
    assert breaches(chart) == []
    assert (chart.x_unit, chart.y_unit, chart.y_zero) == ("s", "MB/s", True)
    # the groups one after the other: each starts where the one before ended
    assert [(s.xs[0], s.xs[-1]) for s in chart.series] == [(1.0, 3.0), (4.0, 6.0), (7.0, 9.0)]


def test_hir_periods_in_run_order_with_the_baseline_apart() -> None:
    plan = plan_pts_hir({"repeats": 1}, NVME)
    (loop,) = plan.loops
    steps = _rounds(loop, {"pc": [1000.0] * 5}, written=NVME.size_bytes // 2)
    steps += [_result(step.key, 100 + i, 5000.0 + i) for i, step in enumerate(plan.after)]
    document = profile_record(plan.profile).build_document(_stored(plan, steps))
    chart = next(c for c in document.charts if c.key == "hir-iops-time")
    assert breaches(chart) == []
    assert [s.label for s in chart.series] == ["after a wait state", "baseline"]
    assert sum(len(s.xs) for s in chart.series) == len(plan.after)
    assert [t for _, t in chart.x_ticks] == [str(i) for i in range(1, len(plan.after) + 1)]


def test_window_means_carry_student_intervals_over_the_window_rounds() -> None:
    """Every window mean has its 95 % interval over the window's rounds, the steady-state rule's
    answer is a state beside its boolean, and the header says it with the window's rounds."""
    plan = plan_pts_iops(TRIAL, NVME)
    (loop,) = plan.loops
    steps = _rounds(loop, {"rnd-4kib-r0": [300, 200, 100, 100, 100, 100, 100],
                           "rnd-64kib-r65": [50, 50, 45, 55, 50, 50, 50]})  # fmt: skip
    (entry,) = analyse_pts(plan, steps, {}, {})["pts-results"]["loops"]
    assert entry["steady_state"] == "yes"
    assert entry["steady_state_reached"] is True
    cells = {e["key"]: e for e in entry["elements"]}
    varied = cells["rnd-64kib-r65"]["iops_interval"]
    # 45, 55, 50, 50, 50: mean 50, s = √12.5, t(0.975, 4) = 2.776
    half = 2.7764451 * math.sqrt(12.5) / math.sqrt(5)
    assert varied["low"] == pytest.approx(50 - half, rel=1e-6)
    assert varied["high"] == pytest.approx(50 + half, rel=1e-6)
    assert (varied["count"], varied["basis"]) == (5, "rounds of the steady-state window")
    assert cells["rnd-64kib-r65"]["bw_bytes_per_s_interval"]["count"] == 5
    assert cells["rnd-64kib-r65"]["lat_mean_ns_interval"] is not None
    flat = cells["rnd-4kib-r0"]["iops_interval"]
    assert flat["low"] == flat["high"] == 100
    text = render_markdown(profile_record(plan.profile).build_document(_stored(plan, steps)))
    assert "> Steady state: yes — rounds 3–7" in text
    assert "50 ±8.8 %" in text  # half of 44.4–55.6 over 50
    assert "rounds of the steady-state window" in text


def test_a_run_that_never_settles_says_no_with_the_rounds_its_results_come_from() -> None:
    plan = plan_pts_iops({**TRIAL, "max_rounds": 6}, NVME)
    (loop,) = plan.loops
    steps = _rounds(loop, {"rnd-4kib-r0": [100, 200, 100, 200, 100, 200]})
    (entry,) = analyse_pts(plan, steps, {}, {})["pts-results"]["loops"]
    assert (entry["steady_state"], entry["steady_state_reached"]) == ("no", False)
    text = render_markdown(profile_record(plan.profile).build_document(_stored(plan, steps)))
    assert "> Steady state: no — not reached in 6 rounds; results are the means of rounds 2–6" in (
        text
    )


def test_results_stored_before_intervals_show_the_means_alone() -> None:
    """A run analysed before ssdlab gave PTS intervals: no interval keys, no state key; its
    figures print as they did, its state is read from the stored boolean."""
    plan = plan_pts_tp({"block_sizes": (128 * KiB,)}, NVME)
    steps = [s for loop in plan.loops for s in _rounds(loop, {"x": [1000.0] * 5})]
    stored = _stored(plan, steps)
    old = json.loads(json.dumps(stored.findings["pts-results"]))
    for entry in old["loops"]:
        del entry["steady_state"]
        for element in entry["elements"]:
            for key in ("iops_interval", "bw_bytes_per_s_interval", "lat_mean_ns_interval"):
                del element[key]
    before = replace(stored, findings={**stored.findings, "pts-results": old})
    document = profile_record(plan.profile).build_document(before)
    text = render_markdown(document)
    assert "±" not in text
    assert "> Steady state" in text  # TP names its loop: 'Steady state 128KiB: yes — …'
    assert ": yes — rounds 1–5" in text
