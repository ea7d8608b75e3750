"""Whether a drive cleans blocks while the host is idle (idle GC), read from a SNIA PTS Host
Idle Recovery run (`ssdlab run pts-hir`, pts.md §3.5; docs/model-fit.md, *Idle GC*).

The HIR test writes 4 KiB random data until the drive is in steady state, then for each wait
state: `repeats` access periods of `access_s` seconds, each followed by the wait state's idle
time, then one baseline write with no idle at all, logged every `access_s`. A drive that
cleans blocks while idle starts each access period with free blocks and writes faster than
the baseline; one that does not writes as fast as the baseline.

**The gain** of a wait state is the mean access IOPS over the mean baseline IOPS. Its 95 %
interval is `intervals.ratio_interval` (Welch's on the logarithms) of two samples:

- the access periods that follow an idle of their wait state, one value each (fio's IOPS of
  the period): every access period but the wait state's first, which follows the previous
  wait state's baseline (or the preconditioning) with no idle before it;
- the baseline's logged points, one IOPS value per `access_s` of the baseline write, taken
  as repeats of the same length as an access period (the drive is in steady state, so one
  point says as much about the next as one access period does about the next) — all but the
  first: the baseline starts after the last access period's idle, so its first `access_s` is
  an access after an idle, not the baseline (at the trial's scale, six points, it alone could
  keep a recovering drive's interval below 1 + `MARGIN`).

**The verdict** is the longest wait state's (the most idle time, so the most recovery):
*present* when its interval lies wholly above 1 + `MARGIN`, *absent* when it lies wholly
within 1 ± `MARGIN`, else *inconclusive* — an interval that straddles a bound, lies below
1 − `MARGIN` (slower after idle: a power state's wake-up, not GC), or that the samples cannot
give (fewer than two values on a side, no spread).

It cannot say how much the drive cleans, how fast, or what it does with idle periods longer
than the longest wait state; a drive whose idle GC starts only after a longer idle reads
*absent*. Pure: rows in, verdict out.
"""

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from ssdlab.analysis.intervals import Interval, ratio_interval, sample_of_repeats

MARGIN = 0.10
"""A gain within 1 ± this is taken as no recovery, and only a gain surely above 1 + this as
idle GC: a stated choice, not a measured one, so that a few per cent from the host or a
drive's power state are not called garbage collection; smaller recoveries are not claimed."""


class IdleGcVerdict(StrEnum):
    PRESENT = "present"
    ABSENT = "absent"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True, slots=True)
class HirRow:
    """One measured step of a HIR run: an access period (after an idle of its wait state, or
    the wait state's first, which follows none) or the wait state's baseline with its logged
    IOPS (one point per access period's length)."""

    wait_state: int
    baseline: bool
    iops: float | None  # fio's IOPS over the whole step
    after_idle: bool = True  # an access period that follows an idle of its wait state
    logged_iops: tuple[float, ...] = ()  # the baseline's logged points


@dataclass(frozen=True, slots=True)
class WaitStateGain:
    """One wait state: the mean IOPS of its access periods after an idle and of its
    baseline's logged points, their ratio and its 95 % interval (None: too few values, or no
    spread)."""

    wait_state: int
    access_iops: float | None
    baseline_iops: float | None
    gain: float | None
    interval: Interval | None
    access_count: int  # access periods after an idle
    baseline_count: int  # the baseline's logged points counted (all but its first)


@dataclass(frozen=True, slots=True)
class IdleGc:
    """The drive's verdict, from its longest wait state, and every wait state's gain."""

    verdict: IdleGcVerdict
    gains: tuple[WaitStateGain, ...]  # by wait state, the shortest first
    margin: float
    reason: str


def wait_state_gain(wait_state: int, rows: Sequence[HirRow]) -> WaitStateGain:
    """The gain of one wait state from its rows (module text: which samples)."""
    access = _finite(
        r.iops for r in rows if r.wait_state == wait_state and not r.baseline and r.after_idle
    )
    baseline = _finite(
        v for r in rows if r.wait_state == wait_state and r.baseline for v in _baseline_points(r)
    )
    if not access or not baseline:
        mean_access = sample_of_repeats(access).mean if access else None
        mean_base = sample_of_repeats(baseline).mean if baseline else None
        return WaitStateGain(
            wait_state, mean_access, mean_base, None, None, len(access), len(baseline)
        )
    num, den = sample_of_repeats(access), sample_of_repeats(baseline)
    gain = num.mean / den.mean if den.mean > 0 else None
    interval = ratio_interval(num, den)
    return WaitStateGain(wait_state, num.mean, den.mean, gain, interval, len(access), len(baseline))


def _baseline_points(row: HirRow) -> tuple[float | None, ...]:
    """The baseline's logged points but its first, which follows the last access period's
    idle as every access period does (a drive with idle GC writes it on the blocks it freed);
    a single point, or the whole step's IOPS where nothing was logged, is all there is."""
    if len(row.logged_iops) > 1:
        return row.logged_iops[1:]
    return row.logged_iops or (row.iops,)


def _finite(values: Iterable[float | None]) -> list[float]:
    return [v for v in values if v is not None and math.isfinite(v)]


def wait_state_gains(rows: Sequence[HirRow]) -> tuple[WaitStateGain, ...]:
    """Every wait state's gain, the shortest wait state first."""
    return tuple(wait_state_gain(s, rows) for s in sorted({r.wait_state for r in rows}))


def judge_idle_gc(rows: Sequence[HirRow], margin: float = MARGIN) -> IdleGc:
    """Present, absent or inconclusive, from the longest wait state's gain interval."""
    gains = wait_state_gains(rows)
    if not gains:
        return IdleGc(IdleGcVerdict.INCONCLUSIVE, (), margin, "the run holds no wait state")
    longest = gains[-1]
    verdict, why = _verdict(longest, margin)
    return IdleGc(verdict, gains, margin, f"wait state {longest.wait_state}: {why}")


def _verdict(gain: WaitStateGain, margin: float) -> tuple[IdleGcVerdict, str]:
    interval = gain.interval
    if interval is None or interval.low is None or interval.high is None:
        return IdleGcVerdict.INCONCLUSIVE, (
            f"no interval from {gain.access_count} access periods after an idle and "
            f"{gain.baseline_count} baseline points (each side needs two or more, with spread)"
        )
    span = f"gain {interval.low:.3f}–{interval.high:.3f}"
    if interval.low > 1.0 + margin:
        return IdleGcVerdict.PRESENT, f"{span}, wholly above 1 + {100 * margin:.0f} %"
    if interval.low >= 1.0 - margin and interval.high <= 1.0 + margin:
        return IdleGcVerdict.ABSENT, f"{span}, wholly within 1 ± {100 * margin:.0f} %"
    if interval.high < 1.0 - margin:
        return IdleGcVerdict.INCONCLUSIVE, (
            f"{span}, wholly below 1 − {100 * margin:.0f} %: slower after an idle (a power state's "
            "wake-up, not garbage collection)"
        )
    return IdleGcVerdict.INCONCLUSIVE, f"{span}, reaching past 1 ± {100 * margin:.0f} %"
