"""The `cachefit` analysis and document, on synthetic step results with known numbers."""

import json
from dataclasses import replace

import pytest

from ssdlab.analysis.cachefit_table import CachefitTable
from ssdlab.analysis.profiles.cachefit import EFFECT_RATIO, VERDICT, analyse_cachefit
from ssdlab.model.profile import ProfilePlan, ProfileResults, StepRole
from ssdlab.model.result import DirectionMetrics
from ssdlab.model.run import RunKind, RunRecord, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.target import TargetKind
from ssdlab.model.units import MB, MiB
from ssdlab.plan.cachefit import plan_cachefit
from ssdlab.report.cachefit import build_cachefit_document
from ssdlab.report.chart_spec import render_chart
from ssdlab.report.document import document_json, render_markdown
from ssdlab.store.lifecycle import to_json
from tests.unit.plan.profile_golden import DEVICE_TARGET
from tests.unit.report.chart_checks import breaches
from tests.unit.report.stored_findings import with_stored_verdicts

CACHE = 256 * MiB

# MB/s (SEQ1M Q1T1) or IOPS (RND4K Q1T1) by (direction, io_mode, region): the page cache
# multiplies buffered figures, the drive's write cache makes inside writes 3× beyond.
FIGURES = {
    ("read", "direct", "inside"): (2000.0, 10_000.0),
    ("read", "direct", "beyond"): (2000.0, 10_000.0),
    ("read", "buffered", "inside"): (8000.0, 200_000.0),
    ("read", "buffered", "beyond"): (2400.0, 11_000.0),
    ("write", "direct", "inside"): (1500.0, 30_000.0),
    ("write", "direct", "beyond"): (500.0, 10_000.0),
    ("write", "buffered", "inside"): (1800.0, 36_000.0),
    ("write", "buffered", "beyond"): (600.0, 12_000.0),
}


def make_plan(cache_size: int = CACHE) -> ProfilePlan:
    return plan_cachefit({"cache_size": cache_size, "preset": "real"}, DEVICE_TARGET)


def synthetic_steps(
    plan: ProfilePlan, *, short: bool = False, rounds: tuple[float, ...] = (1.0,)
) -> list[StepResult]:
    """A result for every measured step in each round (its figures × the round's factor);
    `short` makes every test move half its region."""
    return [
        replace(step, round_index=index, iops=step.iops * factor,
                bw_bytes_per_s=step.bw_bytes_per_s * factor)
        for index, factor in enumerate(rounds, 1)
        for step in _one_round(plan, short=short)
    ]  # fmt: skip


def _one_round(plan: ProfilePlan, *, short: bool) -> list[StepResult]:
    steps = []
    for number, step in enumerate(plan.all_steps, 1):
        if step.role is not StepRole.MEASURE:
            continue
        seq_mbps, rnd_iops = FIGURES[
            (step.direction, str(step.param("io_mode")), str(step.param("region")))
        ]
        bs = step.param("block_size_bytes")
        region = step.param("region_bytes")
        assert isinstance(bs, int)
        assert isinstance(region, int)
        iops = seq_mbps * MB / bs if step.param("pattern") == "seq" else rnd_iops
        bw = iops * bs
        moved = region // 2 if short else region * 3
        metrics = DirectionMetrics(
            moved, moved // bs, 1.0, bw, iops, 1e9 / iops, None, None, None, None
        )
        steps.append(
            StepResult(
                step_key=step.key,
                step_label=step.label,
                direction=step.direction,
                round_index=number,
                discarded=False,
                bw_bytes_per_s=bw,
                iops=iops,
                lat_mean_ns=1e9 / iops,
                read=metrics if step.direction == "read" else None,
                write=metrics if step.direction == "write" else None,
                capture_id=number,
            )
        )
    return steps


def analysed(plan: ProfilePlan, steps: list[StepResult]) -> CachefitTable:
    return analyse_cachefit(plan, steps, {}, {})[VERDICT]


def test_rows_hold_the_four_combinations_and_their_ratios() -> None:
    plan = make_plan()
    table = analysed(plan, synthetic_steps(plan))
    assert [row.name for row in table.rows] == [
        "SEQ1M Q1T1 read",
        "RND4K Q1T1 read",
        "SEQ1M Q1T1 write",
        "RND4K Q1T1 write",
    ]
    seq_read = table.rows[0]
    assert seq_read.figure == "mb_per_s"
    assert len(seq_read.cells) == 4
    assert seq_read.value("buffered", "inside") == pytest.approx(8000.0)
    assert seq_read.buffered_over_direct_inside == pytest.approx(4.0)
    assert seq_read.buffered_over_direct_beyond == pytest.approx(1.2)
    assert seq_read.inside_over_beyond_direct == pytest.approx(1.0)
    rnd_write = table.rows[3]
    assert rnd_write.figure == "iops"
    assert rnd_write.value("direct", "inside") == pytest.approx(30_000.0)
    assert rnd_write.inside_over_beyond_direct == pytest.approx(3.0)
    assert rnd_write.inside_over_beyond_buffered == pytest.approx(3.0)
    assert rnd_write.buffered_over_direct_inside == pytest.approx(1.2)
    cell = rnd_write.cell("direct", "inside")
    assert cell is not None
    assert cell.lat_mean_ns == pytest.approx(1e9 / 30_000)
    assert cell.region_bytes == 128 * MiB
    assert cell.covered_region is True


def test_verdict_names_each_cache_effect_and_keeps_its_criterion() -> None:
    plan = make_plan()
    table = analysed(plan, synthetic_steps(plan))
    assert table.effect_ratio == EFFECT_RATIO == 1.5
    assert table.page_cache_effect == ("SEQ1M Q1T1 read", "RND4K Q1T1 read")
    assert table.drive_cache_effect == ("SEQ1M Q1T1 write", "RND4K Q1T1 write")
    assert (table.cache_bytes, table.inside_bytes, table.beyond_bytes) == (
        CACHE,
        128 * MiB,
        768 * MiB,
    )
    assert "2 of 4 tests" in table.sentences[0]
    assert "20.0×" in table.sentences[0]
    assert "2 tests of direct writes" in table.sentences[1]
    assert "3.0×" in table.sentences[1]
    assert table.not_covered == ()
    body = json.loads(to_json(table))  # stored as a finding: plain JSON, no NaN
    assert body["effect_ratio"] == 1.5
    assert len(body["rows"]) == 4


def test_tests_that_move_less_than_their_region_are_flagged() -> None:
    plan = make_plan()
    table = analysed(plan, synthetic_steps(plan, short=True))
    assert len(table.not_covered) == 8  # the write steps; reads fill no write cache
    assert all("-write" in key for key in table.not_covered)
    assert any("8 tests of writes wrote fewer bytes" in s for s in table.sentences)


def test_missing_beyond_region_is_said_and_ratios_are_none() -> None:
    plan = make_plan(cache_size=2 * 1024 * MiB)  # 3 × 2 GiB does not fit the 4 GiB device
    table = analysed(plan, synthetic_steps(plan))
    assert table.beyond_bytes is None
    assert table.drive_cache_effect == ()
    assert all(row.inside_over_beyond_direct is None for row in table.rows)
    assert any("did not fit" in s for s in table.sentences)


def test_no_effect_below_the_criterion() -> None:
    plan = make_plan()
    flat = [
        replace(s, bw_bytes_per_s=1e8, iops=1000.0, lat_mean_ns=1e6) for s in synthetic_steps(plan)
    ]
    table = analysed(plan, flat)
    assert table.page_cache_effect == ()
    assert table.drive_cache_effect == ()
    assert "within 1.5×" in table.sentences[0]
    assert "within 1.5×" in table.sentences[1]


def results_of(plan: ProfilePlan, steps: list[StepResult]) -> ProfileResults:
    run = RunRecord(
        run_id=3, kind=RunKind.PROFILE, profile="cachefit", profile_version=1, preset=None,
        status=RunStatus.COMPLETE, status_reason=None, target_kind=TargetKind.DEVICE,
        target_path=DEVICE_TARGET.path, target={"kind": "device"}, settings={}, plan={},
        environment={"fio_version": "fio-3.33"}, started_at_s=1.0, ended_at_s=2.0,
        host="bench", pid=1, boot_id=None,
    )  # fmt: skip
    results = ProfileResults(run=run, plan=plan, steps=tuple(steps), facts={}, outputs={})
    return with_stored_verdicts(results)


def test_document_has_one_table_of_four_combinations_charts_and_notes() -> None:
    plan = make_plan()
    document = build_cachefit_document(results_of(plan, synthetic_steps(plan)))
    section = document.sections[0]
    figures, effects, latency = section.tables
    assert effects.columns == ("test", "ratio", "value (95 % interval)", "effect")
    assert ("SEQ1M Q1T1 read", "buffered/direct, inside", "4.00×", "yes") in effects.rows
    assert figures.columns[2:6] == (
        "direct inside (128 MiB)",
        "direct beyond (768 MiB)",
        "buffered inside (128 MiB)",
        "buffered beyond (768 MiB)",
    )
    rows = {row[0]: row for row in figures.rows}
    assert rows["SEQ1M Q1T1 read"][1:6] == ("MB/s", "2,000.0", "2,000.0", "8,000.0", "2,400.0")
    assert rows["RND4K Q1T1 write"][1:6] == ("IOPS", "30,000", "10,000", "36,000", "12,000")
    assert rows["SEQ1M Q1T1 read"][6] == "4.00× / 1.20×"
    assert rows["RND4K Q1T1 write"][7] == "3.00× / 3.00×"
    assert latency.rows[0][1] == "524.3"  # 2000 MB/s of 1 MiB blocks: 1907 IOPS, 524.3 µs
    assert {chart.key for chart in document.charts} == {"cachefit-seq", "cachefit-rnd"}
    seq = next(c for c in document.charts if c.key == "cachefit-seq")
    assert seq.series[0].label == "direct inside (128 MiB)"
    assert seq.series[2].ys == pytest.approx((8000.0, 1800.0))
    assert [b for chart in document.charts for b in breaches(chart)] == []
    assert (seq.y_label, seq.y_unit, seq.y_zero) == ("throughput", "MB/s", True)
    # one test shape per chart: named in the title, the ticks short enough to stand upright
    assert seq.title.startswith("SEQ1M Q1T1 (MB/s)")
    assert [label for _, label in seq.x_ticks] == ["read", "write"]
    rnd = next(c for c in document.charts if c.key == "cachefit-rnd")
    assert (rnd.y_label, rnd.y_unit, rnd.y_zero) == ("I/O rate", "IOPS", True)
    assert any("invalidate=1" in note for note in section.notes)
    assert any("end_fsync=1" in note for note in section.notes)
    assert document.verdict == analysed(plan, synthetic_steps(plan)).sentences
    data = json.loads(document_json(document))["result"]
    assert data["drive_cache_effect"] == ["SEQ1M Q1T1 write", "RND4K Q1T1 write"]
    assert "cachefit" in render_markdown(document)
    assert render_chart(seq, "svg").startswith(b"<?xml")


def test_document_of_a_run_without_results_still_builds() -> None:
    plan = make_plan()
    document = build_cachefit_document(results_of(plan, []))
    assert document.verdict == ("No test finished, so there is nothing to compare.",)
    assert document.charts == ()
    assert all(cell == "—" for row in document.sections[0].tables[0].rows for cell in row[2:6])


def test_page_cache_reads_two_decades_above_the_drive_go_on_a_log_axis() -> None:
    """Random reads from RAM at 200× the drive: bars from zero would flatten the drive's."""
    plan = make_plan()
    steps = [
        replace(step, iops=step.iops * 10, bw_bytes_per_s=step.bw_bytes_per_s * 10)
        if step.step_key == "buffered-inside-rnd4k-q1t1-read"
        else step
        for step in synthetic_steps(plan)
    ]
    document = build_cachefit_document(results_of(plan, steps))
    rnd = next(c for c in document.charts if c.key == "cachefit-rnd")
    assert (rnd.y_log, rnd.y_zero) == (True, False)
    assert {s.style for s in rnd.series} == {"points"}  # a bar on a log axis has no base
    assert max(y for s in rnd.series for y in s.ys) == pytest.approx(2_000_000.0)
    assert breaches(rnd) == []


def test_repeats_give_every_cell_an_interval_and_every_ratio_a_state() -> None:
    plan = make_plan()
    steady = analysed(plan, synthetic_steps(plan, rounds=(0.99, 1.0, 1.01)))
    seq_read = next(row for row in steady.rows if row.name == "SEQ1M Q1T1 read")
    cell = seq_read.cell("direct", "inside")
    assert cell is not None
    assert cell.passes == 3
    assert cell.mb_per_s_interval is not None
    assert cell.mb_per_s_interval.holds(2000.0)
    judged = seq_read.judged_ratio("buffered_over_direct_inside")
    assert judged is not None
    assert judged.state == "yes"
    assert steady.page_cache_inconclusive == ()
    # buffered/direct writes of 1.2× measured with 20 % scatter: the repeats cannot tell it
    # from the 1.5× of a page-cache effect
    noisy = analysed(plan, synthetic_steps(plan, rounds=(0.8, 1.0, 1.2)))
    assert "SEQ1M Q1T1 write" in noisy.page_cache_inconclusive
    assert any(s.startswith("Page-cache effect inconclusive for") for s in noisy.sentences)
    document = build_cachefit_document(
        results_of(plan, synthetic_steps(plan, rounds=(0.99, 1.0, 1.01)))
    )
    figures = document.sections[0].tables[0]
    assert "±" in figures.rows[0][2]
    seq = next(c for c in document.charts if c.key == "cachefit-seq")
    assert all(len(s.errors) == len(s.ys) for s in seq.series)
    assert [b for chart in document.charts for b in breaches(chart)] == []
