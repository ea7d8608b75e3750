"""Measured against claimed: which of a quick run's tests each spec-sheet claim is set against.

Vendors quote sequential MB/s from a deep-queue sequential test on a fresh drive, and random
IOPS at a stated queue depth and thread count; each claim is set against the quick test of the
same kind that comes closest, never a made-up one.

A claim is a target: it is *met* (pass) when the whole 95 % interval of the test's mean over its
passes is at or above the claim, *not met* (fail) when all of it is below, *inconclusive* when
the interval straddles the claim. A run that kept one figure per test (an import of a
CrystalDiskMark result, one pass) has no interval: its figure decides (`interval` None).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ssdlab.analysis.intervals import Interval, mean_interval, sample_of_repeats
from ssdlab.analysis.passes import TestSummary
from ssdlab.analysis.spec_match import match_spec
from ssdlab.analysis.verdict_state import at_least, outcome_of
from ssdlab.model.plan import Pattern, parse_test_shape
from ssdlab.model.spec import ClaimedIops, SpecSheet


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """One claim of a spec sheet and the test it is set against (None: no such test ran).
    `claimed_bytes_per_s` for a sequential claim, `claimed_iops` for a random one; `measured`
    is the test's best pass in the same unit, `ratio` measured ÷ claimed; `mean` the mean of
    its passes with its 95 % `interval`, and `outcome` whether the claim is met (pass, fail,
    inconclusive), from the interval, else (one figure) from the measured one."""

    pattern: Pattern
    direction: str
    claimed_bytes_per_s: float | None
    claimed_iops: ClaimedIops | None
    test: TestSummary | None
    measured: float | None
    ratio: float | None
    mean: float | None = None
    interval: Interval | None = None
    outcome: str | None = None


def _shape(summary: TestSummary) -> tuple[Pattern, int, int, int] | None:
    try:
        shape = parse_test_shape(summary.label)
    except ValueError:
        return None
    return shape.pattern, shape.block_size_bytes, shape.iodepth, shape.numjobs


def best_sequential(summaries: Sequence[TestSummary], direction: str) -> TestSummary | None:
    """The sequential test with the highest best-pass MB/s in that direction."""
    candidates = [
        s
        for s in summaries
        if s.direction == direction and (shape := _shape(s)) and shape[0] is Pattern.SEQ
    ]
    return max(candidates, key=lambda s: s.best_bw_bytes_per_s, default=None)


def closest_random(
    summaries: Sequence[TestSummary], direction: str, claim: ClaimedIops
) -> TestSummary | None:
    """The random test of the claim's block size whose outstanding I/Os (QD × threads) come
    closest to the claim's; the deepest one when the claim gives no queue depth."""
    target = (claim.queue_depth or 0) * (claim.threads or 1) if claim.queue_depth else None
    best: tuple[float, TestSummary] | None = None
    for s in summaries:
        shape = _shape(s)
        if s.direction != direction or shape is None or shape[0] is not Pattern.RND:
            continue
        if shape[1] != claim.block_bytes:
            continue
        depth = shape[2] * shape[3]
        score = -depth if target is None else abs(depth - target)
        if best is None or score < best[0]:
            best = (score, s)
    return None if best is None else best[1]


PassFigures = Mapping[str, Sequence[float]]  # test key → every pass's MB/s (B/s) or IOPS


def _judged(check: ClaimCheck, claimed: float, passes: Sequence[float]) -> ClaimCheck:
    """`check` with the mean of its passes, its interval and whether the claim is met."""
    if check.measured is None:
        return check
    if len(passes) < 2:
        state = at_least(check.measured, None, claimed)
        return replace(check, outcome=outcome_of(state).value)
    sample = sample_of_repeats(passes)
    interval = mean_interval(sample)
    state = at_least(sample.mean, interval, claimed)
    return replace(check, mean=sample.mean, interval=interval, outcome=outcome_of(state).value)


def claim_checks(
    summaries: Sequence[TestSummary],
    spec: SpecSheet,
    bw_passes: PassFigures | None = None,
    iops_passes: PassFigures | None = None,
) -> tuple[ClaimCheck, ...]:
    """Every claim of the sheet the run can be set against: sequential read and write, then
    random read and write; judged on the passes of each test (`bw_passes` in B/s, `iops_passes`
    by test key) when given, else on the measured figure."""
    checks: list[ClaimCheck] = []
    for direction, claimed_bw in (
        ("read", spec.seq_read_bytes_per_s),
        ("write", spec.seq_write_bytes_per_s),
    ):
        test = best_sequential(summaries, direction)
        if claimed_bw is None:
            continue
        measured = None if test is None else test.best_bw_bytes_per_s
        ratio = None if measured is None else measured / claimed_bw
        check = ClaimCheck(Pattern.SEQ, direction, claimed_bw, None, test, measured, ratio)
        passes = (bw_passes or {}).get(test.key, ()) if test is not None else ()
        checks.append(_judged(check, claimed_bw, passes))
    for direction, claim in (("read", spec.random_read), ("write", spec.random_write)):
        if claim is None:
            continue
        test = closest_random(summaries, direction, claim)
        measured = None if test is None else test.best_iops
        ratio = None if measured is None else measured / claim.iops
        check = ClaimCheck(Pattern.RND, direction, None, claim, test, measured, ratio)
        passes = (iops_passes or {}).get(test.key, ()) if test is not None else ()
        checks.append(_judged(check, claim.iops, passes))
    return tuple(checks)


def spec_of_target(target: Mapping[str, object], specs: Sequence[SpecSheet]) -> SpecSheet | None:
    """The spec sheet of the drive a run measured, by the model and capacity it reported."""
    device = target.get("device")
    model = device.get("model") if isinstance(device, dict) else None
    capacity = device.get("capacity_bytes") if isinstance(device, dict) else None
    if not isinstance(model, str):
        return None
    return match_spec(model, capacity if isinstance(capacity, int) else None, specs)
