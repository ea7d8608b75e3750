"""The sweep's p99 and p99.9 per cell: each repeat's n and order-statistic interval from fio's
json+ bins (synthetic bins at fio's own bucket values), spanning the repeats, or 'needs ≥ N
I/Os' when a repeat had too few I/Os; fio's percentile table where no bins were stored."""

import json

from ssdlab.model.profile import ProfileResults
from ssdlab.model.result import DirectionMetrics
from ssdlab.model.run import RunRecord, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.plan.sweep import plan_sweep
from ssdlab.registry import profile_record
from ssdlab.report.document import document_json, render_markdown
from tests.unit.plan.profile_golden import FILE_TARGET
from tests.unit.report.stored_findings import with_stored_verdicts

# fio's bucket values (its buckets' midpoints) and the bounds of those buckets, ns:
# 99,840 spans 99,328–100,351; 301,056 spans 299,008–303,103; 897,024 spans 892,928–901,119
FAST, SLOW, SLOWER = 99_840, 301_056, 897_024


def _output(bins: dict[int, int]) -> str:
    read = {"clat_ns": {"bins": {str(k): v for k, v in bins.items()}}}
    return json.dumps({"jobs": [{"read": read}]})


def _document(
    passes: dict[int, list[dict[int, int] | None]],
) -> tuple[str, dict[str, object]]:
    """The sweep's document: per queue depth (1 thread), each repeat's bins (None: no bins
    stored, fio's table of 10,000 I/Os instead)."""
    plan = plan_sweep(
        {"threads": (1,), "iodepths": tuple(passes), "workloads": "randread:4KiB"}, FILE_TARGET
    )
    keys = {s.param("iodepth"): s.key for s in plan.all_steps if s.param("workload")}
    steps, outputs = [], {}
    capture = 10
    for depth, repeats in passes.items():
        for number, bins in enumerate(repeats, start=1):
            capture += 1
            table = ((50.0, FAST), (99.0, FAST), (99.9, SLOW))
            read = DirectionMetrics(4096 * 10_000, 10_000, 1.0, 4096e4, 1e4, 1e5, 1e3, 1e6, 1.0,
                                    1e5, table)  # fmt: skip
            steps.append(StepResult(keys[depth], keys[depth], "read", number, False, 4096e4, 1e4,
                                    1e5, read, None, capture_id=capture))  # fmt: skip
            if bins is not None:
                outputs[capture] = _output(bins)
    run = RunRecord(1, "profile", "sweep", 1, None, RunStatus.COMPLETE, None, "file",
                    plan.target_path, {}, {}, {}, {}, 0.0, 1.0, "host", 1, None)  # fmt: skip
    results = with_stored_verdicts(ProfileResults(run, plan, tuple(steps), {}, outputs, (), {}))
    document = profile_record("sweep").build_document(results)
    return render_markdown(document), json.loads(document_json(document))


def _row(text: str, cell: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(f"| {cell} |"))


def test_each_repeat_gives_n_and_its_interval_from_the_bins() -> None:
    ten_thousand = {FAST: 9_900, SLOW: 90, SLOWER: 10}
    text, data = _document({1: [ten_thousand, ten_thousand]})
    row = _row(text, "T1 Q1")
    # p99: ranks l, u ≈ 9,880 and 9,920 of 10,000 lie in the buckets of 99,840 and 301,056
    assert "(99.3–303.1; 200 of 20,000 above)" in row
    # p99.9: ranks ≈ 9,983 and 9,997 in the buckets of 301,056 and 897,024
    assert "301.1 (299.0–901.1; 20 of 20,000 above)" in row
    assert "spread = p99.9 / p50" in text
    result = data["result"]
    (cell,) = result["latency_tails"]  # type: ignore[index]
    p99 = cell["tails"]["99"]
    assert (p99["n"], p99["above"], p99["value_ns"]) == (20_000, 200, FAST)
    assert (p99["interval"]["low"], p99["interval"]["high"]) == (99_328.0, 303_103.0)
    assert p99["interval"]["basis"] == "fio's json+ histogram"
    assert [(p["pass"], p["n"]) for p in p99["passes"]] == [(1, 10_000), (2, 10_000)]
    # the stored cells keep every key and value
    (stored,) = result["sweep-cells"]["cells"]  # type: ignore[index]
    assert stored["lat_p99_ns"] == FAST


def test_too_few_ios_in_a_repeat_say_what_they_need() -> None:
    two_thousand = {FAST: 1_980, SLOW: 20}
    text, _ = _document({1: [two_thousand, {FAST: 290, SLOW: 10}], 8: [two_thousand]})
    # a repeat of 300 I/Os cannot bound p99 (it needs 368): the cell's p99 is not printed
    q1 = _row(text, "T1 Q1")
    assert "needs ≥ 368 I/Os" in q1
    assert "99.8" not in q1
    # 2,000 I/Os bound p99 but not p99.9 (it needs 3,688), and the spread p99.9 / p50 goes too
    q8 = _row(text, "T1 Q8")
    assert "(99.3–303.1; 20 of 2,000 above)" in q8
    assert q8.endswith("| needs ≥ 3,688 I/Os | 1,000.0 | n/a |")


def test_without_bins_fio_s_table_gives_the_interval() -> None:
    text, data = _document({1: [None]})
    # n = total_ios 10,000: p99's upper rank ≈ 9,920 lies between fio's 99 % and 99.9 %
    row = _row(text, "T1 Q1")
    assert "| 99.8 (99.8–301.1; 100 of 10,000 above) |" in row
    # p99.9's upper rank lies past the last percentile fio lists: unknown, not made up
    assert "| 301.1 (99.8–?; 10 of 10,000 above) |" in row
    (cell,) = data["result"]["latency_tails"]  # type: ignore[index]
    assert cell["tails"]["99"]["interval"]["basis"] == "fio's percentile table"
