"""The kind of a drive's SLC cache from its cliff at two or more known fill levels
(docs/model-fit.md, *Cache kind*). Pure: the cliffs are already found (analysis/cliff.py)
and the fill levels read from the runs' settings (`ssdlab run cache --prefill P`).

- **static**: a fixed pool of SLC blocks; the cliff stays where it is whatever the fill
  (every cliff's interval, widened by `KIND_TOLERANCE`, shares one value);
- **dynamic**: SLC borrowed from free native blocks; the cliff shrinks as the free native
  space does, and is gone on a full drive. Free native space is (α − f) of the logical
  capacity on a drive f full (α: physical ÷ logical, the fitted spare plus one), so a dynamic
  cliff at fill f is at most the emptiest run's × (α − f) ÷ (α − f₀); it is smaller still when
  the prefill still sits in the cache (no idle to fold it out: the simulator, or a real drive
  written without `--prefill-idle`);
- **hybrid**: a static pool with dynamic SLC on top; the cliff shrinks to a floor (the static
  pool): two fuller runs at the same cliff below the emptiest's, or a fuller run's cliff above
  what any dynamic cache keeps at that fill.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

KIND_TOLERANCE = 0.05
"""Relative slack on every cliff: the law "shrinks as the free space" is approximate (a drive
keeps some free blocks for GC and borrows whole blocks)."""
ALPHA_UNFITTED = (1.0, 1.5)
"""Physical ÷ logical when the spare is not fitted: no spare to 50 % of logical."""
FULL_FILL = 90
"""The --prefill the advice asks for next to an empty drive's run: the fuller the second run,
the more a static floor stands out of the dynamic part's shrink."""


class CacheKind:
    STATIC = "static"
    DYNAMIC = "dynamic"
    HYBRID = "hybrid"
    NONE = "none"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True, slots=True)
class CliffAtFill:
    """One cache run's cliff (bytes; 0: no cliff in its write) and 95 % interval, and the
    fraction of the drive written before its write."""

    fill: float
    cliff_bytes: float
    low: float
    high: float
    label: str


@dataclass(frozen=True, slots=True)
class KindFit:
    kind: str | None  # a CacheKind, or None: too few fill levels to say
    evidence: str
    next_fill: int | None = None  # the --prefill level of the run to add, when one would help
    floor_bytes: float | None = None  # hybrid: the static pool, as the fit estimates it


def _mb(value: float) -> str:
    return f"{value / 1e6:.1f} MB"


def _describe(points: Sequence[CliffAtFill]) -> str:
    return "; ".join(
        f"{p.label} at {p.fill:.0%} full: "
        + (
            "no cliff"
            if p.cliff_bytes <= 0
            else f"cliff {_mb(p.cliff_bytes)} ({_mb(p.low)}–{_mb(p.high)})"
        )
        for p in points
    )


def _lo(p: CliffAtFill) -> float:
    return p.low * (1.0 - KIND_TOLERANCE)


def _hi(p: CliffAtFill) -> float:
    return p.high * (1.0 + KIND_TOLERANCE)


def _distinct(points: Sequence[CliffAtFill]) -> list[CliffAtFill]:
    """One run per fill level (the first given), emptiest first."""
    seen: dict[int, CliffAtFill] = {}
    for p in points:
        seen.setdefault(round(p.fill * 100), p)
    return [seen[k] for k in sorted(seen)]


def fit_cache_kind(
    points: Sequence[CliffAtFill], alpha: tuple[float, float] | None = None
) -> KindFit:
    """The cache's kind from cliffs at known fills; `alpha` the fitted physical ÷ logical
    interval (None: not fitted, `ALPHA_UNFITTED` assumed)."""
    runs = _distinct(points)
    if len(runs) < 2:
        level = runs[0].fill if runs else None
        ask = FULL_FILL if level is None or level < FULL_FILL / 200 else 0
        have = "no cache run with a known fill level" if not runs else _describe(runs)
        return KindFit(None, f"{have}: the kind needs two fill levels", ask)
    evidence = _describe(runs)
    empty, full = runs[0], runs[-1]
    if all(p.cliff_bytes <= 0 for p in runs):
        return KindFit(CacheKind.NONE, f"no cliff at any fill: no cache seen; {evidence}")
    if empty.cliff_bytes <= 0:
        return KindFit(
            CacheKind.INCONCLUSIVE,
            f"no cliff on the emptiest drive but one on a fuller: no cache kind does that; "
            f"{evidence}",
        )
    if max(_lo(p) for p in runs) <= min(_hi(p) for p in runs):
        return KindFit(CacheKind.STATIC, f"the cliff stays put as the drive fills; {evidence}")
    if any(_lo(b) > _hi(a) for a, b in pairwise(runs)):
        return KindFit(
            CacheKind.INCONCLUSIVE,
            f"the cliff grows as the drive fills: no cache kind does that (was the drive "
            f"idle long enough after the emptier run's prefill?); {evidence}",
        )
    if full.cliff_bytes <= 0:
        return KindFit(
            CacheKind.DYNAMIC,
            f"the cliff shrinks with fill and is gone at {full.fill:.0%} full; {evidence}",
        )
    if len(runs) >= 3:
        before = runs[-2]
        if max(_lo(before), _lo(full)) <= min(_hi(before), _hi(full)) and _hi(full) < _lo(empty):
            return KindFit(
                CacheKind.HYBRID,
                f"the cliff shrinks, then stays at {_mb(full.cliff_bytes)} from "
                f"{before.fill:.0%} to {full.fill:.0%} full (the static pool); {evidence}",
                floor_bytes=full.cliff_bytes,
            )
    return _against_free_space(empty, full, alpha, evidence)


def _against_free_space(
    empty: CliffAtFill, full: CliffAtFill, alpha: tuple[float, float] | None, evidence: str
) -> KindFit:
    """A cliff that shrank but not to none. Free native space falls by the fill's bytes, the
    dynamic part of the cache by those over the bits a cell holds, so the cliff is a line
    c(f) = S + k·(α − f) with S the static pool: S from the two runs' slope k, with every
    end of the runs' intervals and of α. Hybrid when S is above `KIND_TOLERANCE` of the empty
    drive's cliff, dynamic when it cannot be (a prefill still in the cache shrinks a dynamic
    cliff faster still: S below zero)."""
    low_alpha, high_alpha = alpha or ALPHA_UNFITTED
    span = full.fill - empty.fill
    steep = (empty.high - full.low) / span
    shallow = max(empty.low - full.high, 0.0) / span
    floor_low = full.low - steep * (high_alpha - full.fill)
    floor_high = full.high - shallow * (low_alpha - full.fill)
    floor = full.cliff_bytes - (empty.cliff_bytes - full.cliff_bytes) / span * (
        (low_alpha + high_alpha) / 2.0 - full.fill
    )
    least = KIND_TOLERANCE * empty.cliff_bytes
    how = (
        f"the cliff as a line c(f) = S + k·(α − f) through the emptiest and fullest runs puts "
        f"the static pool S at {_mb(floor)} ({_mb(floor_low)} to {_mb(floor_high)}, α "
        f"{low_alpha:.3f}–{high_alpha:.3f}{'' if alpha else ': spare not fitted'})"
    )
    if floor_low > least:
        return KindFit(CacheKind.HYBRID, f"{how}: a floor; {evidence}", floor_bytes=floor)
    if floor_high <= least:
        return KindFit(CacheKind.DYNAMIC, f"{how}: no floor; {evidence}")
    fuller = full.fill < FULL_FILL / 100 - 0.01
    more = (
        f"a run at {FULL_FILL} % full may tell them apart"
        if fuller
        else "the spare's fit (two uniform-write runs) narrows α"
        if alpha is None
        else "a static pool this small is below what the runs resolve"
    )
    return KindFit(
        CacheKind.INCONCLUSIVE,
        f"{how}: dynamic, or hybrid with a small static pool; {more}; {evidence}",
        FULL_FILL if fuller else None,
    )
