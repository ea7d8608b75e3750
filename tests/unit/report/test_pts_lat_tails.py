"""PTS LAT's percentiles from p99 up: the window's mean with n, the I/Os above and a 95 %
interval from fio's percentile tables (synthetic rounds of known tables and total_ios), or
'needs ≥ N I/Os' when a round had too few I/Os."""

import json
from dataclasses import replace

from ssdlab.model.profile import ProfilePlan, ProfileResults
from ssdlab.model.result import DirectionMetrics
from ssdlab.model.run import RunRecord, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.target import PurgeSupport
from ssdlab.model.units import KiB
from ssdlab.plan.pts import plan_pts_lat
from ssdlab.registry import profile_record
from ssdlab.report.document import document_json, render_markdown
from tests.unit.plan.profile_golden import DEVICE_TARGET
from tests.unit.report.stored_findings import with_stored_verdicts

NVME = replace(
    DEVICE_TARGET,
    transport="nvme",
    purge_support=PurgeSupport("nvme", nvme_format_erase=True, discard=True),
)
# fio's table for percentile_list 50:99:99.9:99.99:99.999 (plan/pts.py), in ns
TABLE = ((50.0, 100_000), (99.0, 200_000), (99.9, 400_000), (99.99, 800_000), (99.999, 1_600_000))


def _step(key: str, round_index: int, total_ios: int) -> StepResult:
    metrics = DirectionMetrics(total_ios * 4096, total_ios, 60.0, 1e8, total_ios / 60, 150_000.0,
                               50_000.0, 2_000_000.0, 10.0, 140_000.0, TABLE)  # fmt: skip
    return StepResult(key, key, "write", round_index, False, 1e8, total_ios / 60, 150_000.0,
                      None, metrics)  # fmt: skip


def _document(ios_by_round: list[int]) -> tuple[ProfilePlan, str, dict[str, object]]:
    plan = plan_pts_lat({"block_sizes": (4 * KiB,), "mixes": (0,)}, NVME)
    steps = [
        _step(step.key, r, ios)
        for r, ios in enumerate(ios_by_round, start=1)
        for loop in plan.loops
        for step in loop.steps
    ]
    run = RunRecord(1, "profile", plan.profile, 1, None, RunStatus.COMPLETE, None, "device",
                    plan.target_path, {}, {}, {}, {}, 0.0, 1.0, "host", 1, None)  # fmt: skip
    results = with_stored_verdicts(ProfileResults(run, plan, tuple(steps), {}, {}, (), {}))
    document = profile_record(plan.profile).build_document(results)
    return plan, render_markdown(document), json.loads(document_json(document))


def _row(text: str, table: str) -> str:
    """The first data row of the table titled `table` (after its title, header and rule)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if table in line)
    return next(line for line in lines[start + 1 :] if line.startswith("| RND"))


def test_a_million_ios_a_round_give_each_tail_its_interval_and_n() -> None:
    plan, text, data = _document([1_000_000] * 5)
    tails = _row(text, "Latency tails by block size and R/W mix")
    # p99: ranks l, u ≈ 989,805 and 990,196 of 10^6: fio's 50 % and 99.9 % bracket them
    assert "200.0 (100.0–400.0; 50,000 of 5,000,000 above)" in tails
    assert "400.0 (200.0–800.0; 5,000 of 5,000,000 above)" in tails
    # 99.999 %: nothing fio lists lies past the upper rank: that end is unknown, not made up
    response = _row(text, "Response times")
    assert "1,600.0 (800.0–?; 50 of 5,000,000 above)" in response
    assert "'?' where a table lists none" in text
    key = plan.loops[0].steps[0].key
    (loop_tails,) = data["result"]["latency_tails"].values()  # type: ignore[index, union-attr]
    p99 = loop_tails[key]["99"]
    assert (p99["n"], p99["above"], p99["estimable"]) == (5_000_000, 50_000, True)
    assert (p99["interval"]["low"], p99["interval"]["high"]) == (100_000.0, 400_000.0)
    assert p99["interval"]["basis"] == "fio's percentile table"
    assert [(r["pass"], r["n"]) for r in p99["passes"]] == [(r, 1_000_000) for r in range(1, 6)]
    five_nines = loop_tails[key]["99.999"]
    assert five_nines["interval"]["high"] is None
    assert (
        five_nines["interval_unknown"] == "fio's percentile table does not reach the "
        "interval's upper rank"
    )
    # the stored results keep their keys and values: the spec's 99.999 % mean is still there
    (entry,) = data["result"]["pts-results"]["loops"]  # type: ignore[index]
    assert entry["elements"][0]["lat_99_999_ns"] == 1_600_000.0


def test_too_few_ios_in_any_round_say_what_they_need() -> None:
    _, text, data = _document([1_000_000, 1_000_000, 2_000, 1_000_000, 1_000_000])
    tails = _row(text, "Latency tails by block size and R/W mix")
    # p99 needs 368 I/Os: 2,000 bound it; p99.9 and p99.99: the round of 2,000 cannot
    assert tails == (
        "| RND 4KiB 0/100 | 200.0 (100.0–400.0; 40,020 of 4,002,000 above) "
        "| needs ≥ 3,688 I/Os | needs ≥ 36,887 I/Os |"
    )
    assert "needs ≥ 368,887 I/Os" in _row(text, "Response times")
    assert "1,600.0" not in _row(text, "Response times")
    (loop_tails,) = data["result"]["latency_tails"].values()  # type: ignore[index, union-attr]
    p999 = next(iter(loop_tails.values()))["99.9"]
    assert (p999["estimable"], p999["needs_ios"], p999["n"], p999["value_ns"]) == (
        False, 3_688, 2_000, None,
    )  # fmt: skip
