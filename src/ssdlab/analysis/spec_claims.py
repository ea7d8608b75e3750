"""Measured against claimed: which of a quick run's tests each spec-sheet claim is set against.

Vendors quote sequential MB/s from a deep-queue sequential test on a fresh drive, and random
IOPS at a stated queue depth and thread count; each claim is set against the quick test of the
same kind that comes closest, never a made-up one.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ssdlab.analysis.passes import TestSummary
from ssdlab.analysis.spec_match import match_spec
from ssdlab.model.plan import Pattern, parse_test_shape
from ssdlab.model.spec import ClaimedIops, SpecSheet


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """One claim of a spec sheet and the test it is set against (None: no such test ran).
    `claimed_bytes_per_s` for a sequential claim, `claimed_iops` for a random one; `measured`
    is the test's best pass in the same unit, `ratio` measured ÷ claimed."""

    pattern: Pattern
    direction: str
    claimed_bytes_per_s: float | None
    claimed_iops: ClaimedIops | None
    test: TestSummary | None
    measured: float | None
    ratio: float | None


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


def claim_checks(summaries: Sequence[TestSummary], spec: SpecSheet) -> tuple[ClaimCheck, ...]:
    """Every claim of the sheet the run can be set against: sequential read and write, then
    random read and write."""
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
        checks.append(ClaimCheck(Pattern.SEQ, direction, claimed_bw, None, test, measured, ratio))
    for direction, claim in (("read", spec.random_read), ("write", spec.random_write)):
        if claim is None:
            continue
        test = closest_random(summaries, direction, claim)
        measured = None if test is None else test.best_iops
        ratio = None if measured is None else measured / claim.iops
        checks.append(ClaimCheck(Pattern.RND, direction, None, claim, test, measured, ratio))
    return tuple(checks)


def spec_of_target(target: Mapping[str, object], specs: Sequence[SpecSheet]) -> SpecSheet | None:
    """The spec sheet of the drive a run measured, by the model and capacity it reported."""
    device = target.get("device")
    model = device.get("model") if isinstance(device, dict) else None
    capacity = device.get("capacity_bytes") if isinstance(device, dict) else None
    if not isinstance(model, str):
        return None
    return match_spec(model, capacity if isinstance(capacity, int) else None, specs)
