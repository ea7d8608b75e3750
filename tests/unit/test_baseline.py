"""Named per-drive baselines (analysis/baseline.py): which runs are the reference, and how a
run is judged against them by the comparison's Welch test and threshold."""

from ssdlab.analysis.baseline import (
    BaselineAction,
    BaselineRole,
    StoredBaseline,
    drive_key,
    judge,
    plan_role,
    pooled,
    reference_judgement,
    reference_set,
)
from ssdlab.analysis.compare import MetricSamples, Verdict
from ssdlab.report.quick_document import baseline_lines


def _stored(run_id: int, name: str, drive: str, role: str, refs: list[int]) -> StoredBaseline:
    body = {"name": name, "drive": drive, "role": role, "reference_run_ids": refs, "tests": []}
    return StoredBaseline(run_id, body)


def _mbps(*values: float, key: str = "rnd4k-q1t1-read") -> MetricSamples:
    return MetricSamples(
        key, "RND4K Q1T1 read", "bytes_per_s", True, tuple(v * 1e6 for v in values)
    )


HISTORY = (
    _stored(1, "nightly", "S1", "reference", [1]),
    _stored(2, "nightly", "S2", "reference", [2]),
    _stored(3, "nightly", "S1", "judged", [1]),
    _stored(4, "weekly", "S1", "reference", [4]),
)


def test_the_first_run_of_a_name_on_a_drive_becomes_its_reference() -> None:
    assert plan_role((), "nightly", "S1", 7, BaselineAction.JUDGE) == (BaselineRole.REFERENCE, (7,))
    # another drive's or another name's reference does not count
    assert plan_role(HISTORY, "nightly", "S3", 7, BaselineAction.JUDGE) == (
        BaselineRole.REFERENCE,
        (7,),
    )
    assert plan_role(HISTORY, "monthly", "S1", 7, BaselineAction.JUDGE)[1] == (7,)


def test_a_later_run_is_judged_against_its_own_drive_and_name() -> None:
    assert reference_set(HISTORY, "nightly", "S1") == (1,)
    assert reference_set(HISTORY, "nightly", "S2") == (2,)
    assert reference_set(HISTORY, "weekly", "S1") == (4,)
    assert plan_role(HISTORY, "nightly", "S1", 9, BaselineAction.JUDGE) == (
        BaselineRole.JUDGED,
        (1,),
    )


def test_reset_makes_the_run_the_only_reference_from_then_on() -> None:
    role, refs = plan_role(HISTORY, "nightly", "S1", 9, BaselineAction.RESET)
    assert (role, refs) == (BaselineRole.REFERENCE, (9,))
    later = (*HISTORY, _stored(9, "nightly", "S1", role.value, list(refs)))
    assert plan_role(later, "nightly", "S1", 10, BaselineAction.JUDGE) == (
        BaselineRole.JUDGED,
        (9,),
    )
    assert reference_set(later, "nightly", "S2") == (2,)  # other drives keep theirs


def test_add_appends_the_run_to_the_reference_set() -> None:
    role, refs = plan_role(HISTORY, "nightly", "S1", 9, BaselineAction.ADD)
    assert (role, refs) == (BaselineRole.REFERENCE, (1, 9))
    later = (*HISTORY, _stored(9, "nightly", "S1", role.value, list(refs)))
    assert reference_set(later, "nightly", "S1") == (1, 9)


def test_reference_runs_pool_their_passes() -> None:
    merged = pooled([[_mbps(100, 101)], [_mbps(99, 102), _mbps(5, key="other")]])
    assert [m.key for m in merged] == ["rnd4k-q1t1-read", "other"]
    assert merged[0].values == (100e6, 101e6, 99e6, 102e6)


def _verdict(reference: MetricSamples, new: MetricSamples) -> tuple[str, bool]:
    judgement = judge("nightly", "S1", (1,), [[reference]], 2, [new])
    (test,) = judgement.tests
    return test.verdict, test.regression


def test_a_clear_drop_is_worse_and_a_regression() -> None:
    verdict, regression = _verdict(_mbps(100, 101, 99, 100), _mbps(80, 81, 79, 80))
    assert verdict == Verdict.WORSE.value
    assert regression


def test_a_clear_rise_is_better_not_a_regression() -> None:
    assert _verdict(_mbps(100, 101, 99), _mbps(130, 131, 129)) == ("better", False)


def test_noise_within_the_threshold_is_not_a_regression() -> None:
    # 3 % down, every pass apart: within the 5 % threshold, whatever the p-value
    assert _verdict(_mbps(100, 100.1, 99.9), _mbps(97, 97.1, 96.9)) == ("not significant", False)


def test_a_large_drop_the_passes_do_not_support_is_not_a_regression() -> None:
    # −20 % on the means, but the passes scatter far more than that
    verdict, regression = _verdict(_mbps(60, 140, 100), _mbps(40, 120, 80))
    assert verdict == Verdict.NOT_SIGNIFICANT.value
    assert not regression


def test_a_drop_that_may_be_within_the_threshold_is_inconclusive() -> None:
    """8 % down, but the interval of the change reaches inside the 5 % threshold: the run may
    still hold the baseline, so it is not called a regression."""
    judgement = judge("n", "S1", (1,), [[_mbps(100, 104, 96)]], 2, [_mbps(92, 95, 89)])
    (test,) = judgement.tests
    assert test.outcome == "inconclusive"
    assert not test.regression
    held = judge("n", "S1", (1,), [[_mbps(100, 100.5, 99.5)]], 2, [_mbps(99, 99.5, 98.5)])
    assert held.tests[0].outcome == "pass"


def test_too_few_passes_is_untested_not_a_regression() -> None:
    verdict, regression = _verdict(_mbps(100), _mbps(50))
    assert verdict == Verdict.UNTESTED.value
    assert not regression


def test_a_test_the_new_run_lacks_is_missing() -> None:
    judgement = judge("nightly", "S1", (1,), [[_mbps(100, 101)]], 2, [])
    assert [(t.verdict, t.regression) for t in judgement.tests] == [("missing", False)]


def test_the_finding_body_has_the_exporters_schema() -> None:
    judgement = judge("nightly", "S1", (1, 3), [[_mbps(100, 101, 99)], []], 5, [_mbps(80, 81, 79)])
    body = judgement.body()
    assert body == {
        "name": "nightly",
        "drive": "S1",
        "role": "judged",
        "reference_run_ids": [1, 3],
        "tests": [
            {
                "key": "rnd4k-q1t1-read",
                "label": "RND4K Q1T1 read",
                "verdict": "worse",
                "change_pct": body["tests"][0]["change_pct"],
                "p_value": body["tests"][0]["p_value"],
                "regression": True,
                "outcome": "fail",
                "ratio_interval": body["tests"][0]["ratio_interval"],
            }
        ],
    }
    interval = body["tests"][0]["ratio_interval"]
    assert interval["low"] < 0.8 < interval["high"] < 0.95  # wholly worse than 5 %
    assert round(body["tests"][0]["change_pct"], 1) == -20.0
    assert 0 <= body["tests"][0]["p_value"] < 0.05
    assert reference_judgement("nightly", "S1", (5,)).body() == {
        "name": "nightly",
        "drive": "S1",
        "role": "reference",
        "reference_run_ids": [5],
        "tests": [],
    }


def test_the_lines_name_each_regression_and_sum_up() -> None:
    worse = judge("nightly", "S1", (12,), [[_mbps(100, 101, 99)]], 13, [_mbps(80, 81, 79)])
    lines = baseline_lines(worse.body())
    assert lines[0].startswith("RND4K Q1T1 read −20.0 % (p ")
    assert lines[0].endswith("): a regression")
    assert lines[-1] == "against baseline nightly on drive S1 (run 12): 1 of 1 tests regressed"
    same = judge("nightly", "S1", (12,), [[_mbps(100, 101, 99)]], 13, [_mbps(100, 99, 101)])
    assert baseline_lines(same.body()) == (
        "against baseline nightly on drive S1 (run 12): no significant drop",
    )
    reference = reference_judgement("nightly", "/srv/t", (3, 5)).body()
    assert baseline_lines(reference) == (
        "baseline nightly on /srv/t (a path: the target has no device serial): reference runs "
        "3, 5 (their passes are pooled)",
    )


def test_the_drive_is_its_serial_else_the_target_path() -> None:
    device = {"kind": "device", "device": {"serial": " S3Z1NX0K ", "path": "/dev/nvme0n1"}}
    assert drive_key(device, "/dev/nvme0n1") == ("S3Z1NX0K", True)
    loop = {"kind": "device", "device": {"serial": None, "path": "/dev/loop3"}}
    assert drive_key(loop, "/dev/loop3") == ("/dev/loop3", False)
    # a test file ssdlab makes in a folder has a new name each run: the folder is the key
    made = {"kind": "file", "created_file": True, "device": None}
    assert drive_key(made, "/srv/t/ssdlab-0123.tmp") == ("/srv/t", False)
    given = {"kind": "file", "created_file": False}
    assert drive_key(given, "/srv/t/bench.bin") == ("/srv/t/bench.bin", False)
