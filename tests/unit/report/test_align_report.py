"""The `align` report's chart over stored verdicts: IOPS bars per block size from zero, units,
and a log axis with dots when the block sizes' IOPS span more than two decades."""

from ssdlab.model.profile import ProfileResults, StepRole
from ssdlab.model.run import RunRecord, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.plan.align import plan_align
from ssdlab.report.align import build_align_document
from ssdlab.report.document import Chart, Document
from tests.unit.plan.profile_golden import DEVICE_TARGET
from tests.unit.report.chart_checks import breaches
from tests.unit.report.stored_findings import with_stored_verdicts


def _document(iops_of: dict[tuple[int, int], float], repeats: int = 1) -> Document:
    """The align document of a run whose steps did `iops_of[(block, offset)]` in each of
    `repeats` rounds (±1 % from round to round); a step left out of the mapping did not run."""
    plan = plan_align({"repeat": repeats}, DEVICE_TARGET)
    steps = []
    for round_index in range(1, repeats + 1):
        for step in plan.all_steps:
            if step.role is not StepRole.MEASURE:
                continue
            key = (step.param("block_size_bytes"), step.param("offset_align_bytes"))
            if key in iops_of:
                iops = iops_of[key] * (1 + 0.01 * (round_index - 2))
                steps.append(StepResult(step.key, step.label, "write", round_index, False,
                                        iops * 4096, iops, 1e9 / iops, None, None))  # fmt: skip
    run = RunRecord(1, "profile", "align", 1, None, RunStatus.COMPLETE, None, "device",
                    DEVICE_TARGET.path, {}, {}, {}, {}, 0.0, 1.0, "host", 1, None)  # fmt: skip
    facts = {"partition_start_bytes": 1 << 20, "logical_block_bytes": 512}
    return build_align_document(
        with_stored_verdicts(ProfileResults(run, plan, tuple(steps), facts, {}, (), {}))
    )


def _chart(iops_of: dict[tuple[int, int], float], repeats: int = 1) -> Chart:
    (chart,) = _document(iops_of, repeats).charts
    return chart


def _sizes() -> list[tuple[int, int]]:
    plan = plan_align({}, DEVICE_TARGET)
    sizes = []
    for step in plan.all_steps:
        block, offset = step.param("block_size_bytes"), step.param("offset_align_bytes")
        if step.role is StepRole.MEASURE and isinstance(block, int) and isinstance(offset, int):
            sizes.append((block, offset))
    return sizes


def test_aligned_and_misaligned_bars_from_zero_with_units() -> None:
    iops = {key: 40_000.0 if key[1] == 4096 else 12_000.0 for key in _sizes()}
    chart = _chart(iops)
    assert breaches(chart) == []
    assert (chart.y_label, chart.y_unit, chart.y_zero, chart.y_log) == ("I/O rate", "IOPS",
                                                                         True, False)  # fmt: skip
    assert [s.style for s in chart.series] == ["bars", "bars"]
    assert [s.label for s in chart.series] == ["4 KiB-aligned", "4 KiB + 512 B"]
    assert all(label for _, label in chart.x_ticks)


def test_a_step_that_did_not_run_is_left_out_not_drawn_as_zero() -> None:
    sizes = _sizes()
    iops = {key: 40_000.0 for key in sizes[1:]}
    chart = _chart(iops)
    assert 0.0 not in [y for s in chart.series for y in s.ys]
    assert sum(len(s.ys) for s in chart.series) == len(sizes) - 1
    assert breaches(chart) == []


def test_iops_over_two_decades_are_dots_on_a_log_axis() -> None:
    iops = {key: 100_000.0 if key[0] <= 4096 else 300.0 for key in _sizes()}
    chart = _chart(iops)
    assert (chart.y_log, chart.y_zero) == (True, False)
    assert {s.style for s in chart.series} == {"points"}
    assert breaches(chart) == []


def test_repeats_give_every_bar_its_interval_and_the_verdict_its_answer() -> None:
    iops = {key: 40_000.0 if key[1] == 4096 else 12_000.0 for key in _sizes()}
    document = _document(iops, repeats=3)
    (chart,) = document.charts
    assert all(len(s.errors) == len(s.ys) for s in chart.series)
    for series in chart.series:
        for y, (low, high) in zip(series.ys, series.errors, strict=True):
            assert low < y < high
    assert breaches(chart) == []
    assert document.verdict[0].startswith("Misalignment penalty: yes — 4 KiB writes")
    assert "95 % interval" in document.verdict[0]
    (table,) = document.sections[0].tables
    assert table.columns[-1] == "penalty"
    assert {row[-1] for row in table.rows} == {"yes"}
    assert "±" in table.rows[0][1]
    rows = document.data["result"]["rows"]
    assert all(r["passes"] == 3 for r in rows)
    assert all(r["ratio_interval"]["low"] < r["ratio"] < r["ratio_interval"]["high"] for r in rows)
    assert document.data["result"]["misaligned_state"] == "yes"
