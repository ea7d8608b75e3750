"""The `cache` verdict from step results: bytes series, cliff, recovery, document."""

import random
from dataclasses import replace

import pytest

from ssdlab.analysis.profiles.cache import CLIFF, RECOVERY, analyse_cache
from ssdlab.analysis.write_series import bytes_series
from ssdlab.model.profile import ProfilePlan, ProfileResults
from ssdlab.model.result import DirectionMetrics, SeriesPoint
from ssdlab.model.run import RunRecord, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.plan.cache import plan_cache
from ssdlab.plan.cachefit import cache_size_from_finding
from ssdlab.report.cache import build_cache_document
from ssdlab.report.document import Document, render_markdown
from tests.unit.plan.profile_golden import FILE_TARGET
from tests.unit.report.chart_checks import breaches
from tests.unit.report.stored_findings import with_stored_verdicts

MB = 10**6


def _write(key: str, levels: list[tuple[int, float]], seed: int = 1) -> StepResult:
    """A write step logged every 0.5 s: `count` intervals at each MB/s level, 5 % noise."""
    rng = random.Random(seed)
    points = []
    t = 0.0
    for count, mbps in levels:
        for _ in range(count):
            t += 0.5
            bw = mbps * MB * (1 + rng.gauss(0, 0.05))
            points.append(SeriesPoint(t, "write", bw, None, None))
    mean = sum(p.bw_bytes_per_s or 0 for p in points) / len(points)
    return StepResult(key, key, "write", 1, False, mean, 0.0, None, None, None,
                      series=tuple(points))  # fmt: skip


def test_bytes_series_integrates_each_interval() -> None:
    step = _write("write", [(4, 100.0)])
    series = bytes_series(step)
    assert len(series) == 4
    assert series[-1][0] == pytest.approx(sum(bw * 0.5 for _, bw in series))


def test_a_known_cliff_is_found_and_readable_by_cachefit() -> None:
    plan = plan_cache({}, FILE_TARGET)
    # 40 intervals at 2000 MB/s (40 GB in cache), then 60 at 450 MB/s
    step = _write("write", [(40, 2000.0), (60, 450.0)])
    found = analyse_cache(plan, [step], {}, {})
    cliff = found[CLIFF]
    assert cliff["cliff_bytes"] == pytest.approx(40 * 0.5 * 2000 * MB, rel=0.05)
    assert cliff["in_cache_bw_bytes_per_s"] == pytest.approx(2000 * MB, rel=0.05)
    assert cliff["post_cache_bw_bytes_per_s"] == pytest.approx(450 * MB, rel=0.05)
    assert cache_size_from_finding(cliff) == cliff["cliff_bytes"]  # a whole number of bytes


def test_flat_noisy_write_has_no_cliff() -> None:
    found = analyse_cache(plan_cache({}, FILE_TARGET), [_write("write", [(80, 900.0)])], {}, {})
    assert found[CLIFF]["cliff_bytes"] is None
    assert found[CLIFF]["reason"]


def test_recovery_probe_and_document() -> None:
    plan = plan_cache({"recovery_idle": 30.0}, FILE_TARGET)
    write = _write("write", [(40, 2000.0), (60, 450.0)])
    probe = _write("probe", [(20, 2000.0), (60, 450.0)], seed=2)  # half the cache came back
    found = analyse_cache(plan, [write, probe], {}, {})
    assert found[RECOVERY]["fraction"] == pytest.approx(0.5, abs=0.08)
    run = RunRecord(1, "profile", "cache", 1, None, RunStatus.COMPLETE, None, "file",
                    FILE_TARGET.path, {}, {}, {}, {}, 0.0, 1.0, "host", 1, None)  # fmt: skip
    results = ProfileResults(run, plan, (write, probe), {}, {}, (), {})
    document = build_cache_document(with_stored_verdicts(results))
    assert {c.key for c in document.charts} == {"cache-cliff", "cache-recovery"}
    assert document.verdict[0].startswith("Write-cache cliff: yes — write cache ≈ 40")
    assert "95 % interval" in document.verdict[0]
    assert found[CLIFF]["state"] == "yes"
    assert found[CLIFF]["uncertainty"]["draws"] == 1000
    assert [b for chart in document.charts for b in breaches(chart)] == []
    cliff = next(c for c in document.charts if c.key == "cache-cliff")
    assert (cliff.x_label, cliff.x_unit, cliff.y_label, cliff.y_unit) == (
        "data written", "GB", "throughput", "MB/s",
    )  # fmt: skip
    assert cliff.y_zero  # 450 to 2,000 MB/s: linear from zero, the drop at its true size
    assert max(cliff.series[0].xs) == pytest.approx(40 * 0.5 * 2 + 60 * 0.5 * 0.45, rel=0.05)
    # the segments as one step line, each labelled with its median: two colours, not one per
    # segment
    assert [s.label for s in cliff.series] == ["MB/s per interval", "segment medians"]
    labels = cliff.series[1].point_labels
    assert labels[-1] == ""
    assert all(label.endswith(" MB/s") for label in labels[:-1])
    assert "came back" in render_markdown(document)


def _document(plan: ProfilePlan, *steps: StepResult) -> Document:
    run = RunRecord(1, "profile", "cache", 1, None, RunStatus.COMPLETE, None, "file",
                    FILE_TARGET.path, {}, {}, {}, {}, 0.0, 1.0, "host", 1, None)  # fmt: skip
    return build_cache_document(
        with_stored_verdicts(ProfileResults(run, plan, steps, {}, {}, (), {}))
    )


def _with_runtime(step: StepResult, runtime_s: float) -> StepResult:
    metrics = DirectionMetrics(MB, 1, runtime_s, 0.0, 0.0, None, None, None, None, None)
    return replace(step, write=metrics)


def test_a_write_too_short_for_a_cliff_says_so_everywhere() -> None:
    """A fast target finished the write in 5 log points: no search, and the words say why."""
    plan = plan_cache({"log_interval": 0.1, "recovery_idle": 5.0}, FILE_TARGET)
    step = _with_runtime(_write("write", [(5, 2000.0)]), 0.52)
    probe = _with_runtime(_write("probe", [(3, 2000.0)]), 0.31)
    found = analyse_cache(plan, [step, probe], {}, {})
    cliff = found[CLIFF]
    assert cliff["cliff_bytes"] is None
    assert cliff["reason"].startswith(
        "the write took 0.52 s — 5 log points (one every 0.1 s), fewer than the 10 the cliff "
        "detection needs: too short to tell whether the speed falls"
    )
    assert "--size" in cliff["reason"]
    assert "at least 1.1 s" in cliff["reason"]
    assert cliff["short"]["points"] == 5
    assert cliff["short"]["points_needed"] == 10
    assert cliff["short"]["write_s"] == 0.52
    assert cliff["short"]["log_interval_s"] == 0.1
    assert found[RECOVERY]["probe"]["reason"].startswith("the recovery write took 0.31 s")

    document = _document(plan, step, probe)
    assert document.verdict[0] == cliff["reason"]  # first, and not "no cliff"
    assert cliff["state"] == "inconclusive"
    assert not any("no cliff" in line for line in document.verdict)
    (section, recovery) = document.sections[:2]
    assert section.title == "Write-cache cliff"
    assert section.notes == (cliff["reason"],)
    assert ("log points", "5 of the 10 needed") in section.facts
    assert [c.key for c in section.charts] == ["cache-cliff"]  # the points it has are drawn
    assert [b for chart in section.charts for b in breaches(chart)] == []
    assert recovery.notes[0] == found[RECOVERY]["probe"]["reason"]
    markdown = render_markdown(document)
    assert "fewer than the 10 the cliff detection needs" in markdown
    assert "unknown: the write was too short to find a cliff" in markdown


def test_a_write_that_logged_no_point_still_has_its_section() -> None:
    """Shorter than one log interval: fio logged nothing; the section says so, no empty chart."""
    plan = plan_cache({"log_interval": 1.0}, FILE_TARGET)
    step = _with_runtime(replace(_write("write", [(1, 900.0)]), series=()), 0.4)
    found = analyse_cache(plan, [step], {}, {})
    assert found[CLIFF]["reason"].startswith(
        "the write took 0.4 s — no log point (one every 1 s), fewer than the 10"
    )
    document = _document(plan, step)
    (section,) = document.sections[:1]
    assert section.title == "Write-cache cliff"
    assert section.charts == ()
    assert section.notes == (found[CLIFF]["reason"],)
    assert ("written", "0.001 GB") in section.facts  # fio's count: the log has none
    assert "no log point" in render_markdown(document)


def test_a_long_enough_flat_write_is_no_cliff_not_too_short() -> None:
    plan = plan_cache({}, FILE_TARGET)
    found = analyse_cache(plan, [_write("write", [(20, 900.0)])], {}, {})
    assert found[CLIFF]["short"] is None
    assert "larger than the write" in found[CLIFF]["reason"]
    assert (
        _document(plan, _write("write", [(20, 900.0)]))
        .verdict[0]
        .startswith("Write-cache cliff: no — no cliff in")
    )


def test_a_write_under_a_gigabyte_is_drawn_in_megabytes() -> None:
    """300 MB written: an axis of 0.05, 0.1 … GB would be hard to read."""
    document = _document(plan_cache({}, FILE_TARGET), _write("write", [(20, 30.0)]))
    (chart,) = document.charts
    assert (chart.x_label, chart.x_unit) == ("data written", "MB")
    assert max(chart.series[0].xs) == pytest.approx(20 * 0.5 * 30, rel=0.1)
    assert chart.series[1].xs[-1] == pytest.approx(max(chart.series[0].xs))  # the step line
    assert breaches(chart) == []


def test_repeated_writes_give_intervals_over_the_writes_and_draw_every_write() -> None:
    plan = plan_cache({"repeat": 3, "recovery_idle": 60.0}, FILE_TARGET)
    writes = [
        replace(_write("write", [(count, 2000.0), (60, 450.0)], seed=count), round_index=number)
        for number, count in enumerate((40, 42, 38), start=1)
    ]
    found = analyse_cache(plan, writes, {}, {})
    cliff = found[CLIFF]
    assert cliff["state"] == "yes"
    uncertainty = cliff["uncertainty"]
    assert (uncertainty["writes"], uncertainty["cliffs_found"], uncertainty["basis"]) == (
        3, 3, "repeats",
    )  # fmt: skip
    interval = uncertainty["cliff_bytes_interval"]
    assert interval["low"] < 40 * 0.5 * 2000 * MB < interval["high"]
    document = _document(plan, *writes)
    chart = next(c for c in document.charts if c.key == "cache-cliff")
    assert [s.label for s in chart.series] == [
        "write 1: MB/s per interval", "write 2: MB/s per interval",
        "write 3: MB/s per interval", "segment medians",
    ]  # fmt: skip
    assert breaches(chart) == []
    assert "a cliff in 3 of 3 writes" in document.verdict[0]
