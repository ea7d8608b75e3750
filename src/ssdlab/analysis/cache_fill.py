"""The cliff on a drive that is already part full (`ssdlab model predict --fill P`): host bytes
written, starting at the drive's beginning, before the SLC cache runs out, from the fitted
cache kind and the cliffs the fit measured at each fill level (analysis/cache_kind.py;
docs/model-fit.md, *Predicting*). Pure.

- **static**: the cliff does not move: the empty drive's;
- **dynamic** and **hybrid**: the cliff is a line in the fill, c(f) = S + k·(α − f) (S = 0 for
  dynamic): through two measured cliffs with a cliff (the pair around f, else the two
  fullest), every end of their intervals; a dynamic cache with one such cliff shrinks as the
  free native space does, c₀·(α − f) ÷ (α − f₀), over the ends of α;
- **inconclusive**, or no kind fitted: the range from the dynamic answer's low end to the
  static answer's high end (a hybrid cache lies between them);
- a fill the fit measured: that run's cliff.

Every interval is widened by `KIND_TOLERANCE` (the law is approximate: a drive keeps free
blocks for GC and borrows whole blocks). The drive is taken as settled (its prefill folded out
of the cache, as after `--prefill-idle`); a prefill still in the cache makes the cliff smaller.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise, product

from ssdlab.analysis.cache_kind import ALPHA_UNFITTED, KIND_TOLERANCE, CacheKind, CliffAtFill

MAX_FILL_PCT = 99
"""The fullest drive a prediction takes (`--fill`): a full drive has no free space left."""


@dataclass(frozen=True, slots=True)
class CliffAt:
    """The cliff predicted at a fill: value (None: a range only) and interval ends, and how."""

    value: float | None
    low: float
    high: float
    how: str


def _mb(value: float) -> str:
    return f"{value / 1e6:.1f} MB"


def _widen(value: float | None, low: float, high: float, how: str) -> CliffAt:
    return CliffAt(
        value, max(low * (1.0 - KIND_TOLERANCE), 0.0), high * (1.0 + KIND_TOLERANCE), how
    )


def static_cliff(size: tuple[float, float, float]) -> CliffAt:
    value, low, high = size
    return CliffAt(value, low, high, "a static cache: the empty drive's cliff, whatever the fill")


def dynamic_cliff(
    size: tuple[float, float, float], empty_fill: float, fill: float,
    alpha: tuple[float, float] | None,
) -> CliffAt:  # fmt: skip
    """The empty run's cliff shrunk as the free native space, (α − f) ÷ (α − f₀)."""
    value, low, high = size
    low_alpha, high_alpha = alpha or ALPHA_UNFITTED

    def share(a: float) -> float:
        return max(a - fill, 0.0) / (a - empty_fill)

    ends = [share(low_alpha), share(high_alpha)]
    mid = share((low_alpha + high_alpha) / 2.0)
    return _widen(
        value * mid,
        low * min(ends),
        high * max(ends),
        f"a dynamic cache: the {empty_fill:.0%} full drive's cliff × (α − f) ÷ "
        + ("α" if empty_fill == 0 else f"(α − {empty_fill:.2f})")
        + f", the free native space, α {low_alpha:.3f}–{high_alpha:.3f}"
        + ("" if alpha else " (spare not fitted)"),
    )


def _pair(points: Sequence[CliffAtFill], fill: float) -> tuple[CliffAtFill, CliffAtFill] | None:
    """Two measured cliffs to draw the line through: those around `fill`, else the two
    nearest it on one side."""
    cliffs = sorted((p for p in points if p.cliff_bytes > 0), key=lambda p: p.fill)
    if len(cliffs) < 2:
        return None
    below = [p for p in cliffs if p.fill <= fill]
    above = [p for p in cliffs if p.fill > fill]
    if below and above:
        return below[-1], above[0]
    side = cliffs[-2:] if below else cliffs[:2]
    return side[0], side[1]


def line_cliff(points: Sequence[CliffAtFill], fill: float, kind: str) -> CliffAt | None:
    """The line c(f) through two measured cliffs, over every end of their intervals."""
    pair = _pair(points, fill)
    if pair is None:
        return None
    a, b = pair

    def at(ya: float, yb: float) -> float:
        return ya + (yb - ya) * (fill - a.fill) / (b.fill - a.fill)

    ends = [at(ya, yb) for ya, yb in product((a.low, a.high), (b.low, b.high))]
    return _widen(
        max(at(a.cliff_bytes, b.cliff_bytes), 0.0),
        min(ends),
        max(ends),
        f"a {kind} cache: the line through the cliffs at {a.fill:.0%} full ({_mb(a.cliff_bytes)})"
        f" and {b.fill:.0%} full ({_mb(b.cliff_bytes)}), every end of their intervals",
    )


def predict_cliff_at(
    kind: str | None,
    size: tuple[float, float, float],
    points: Sequence[CliffAtFill],
    fill: float,
    alpha: tuple[float, float] | None,
) -> CliffAt:
    """The cliff at `fill` (0–0.99) of a drive whose emptiest cache run's cliff (value, low,
    high) is `size`, cliffs measured at `points`, the fit's `kind` (None: not fitted) and α
    (physical ÷ logical; None: not fitted)."""
    measured = next((p for p in points if round(p.fill * 100) == round(fill * 100)), None)
    if measured is not None:
        return CliffAt(
            measured.cliff_bytes,
            measured.low,
            measured.high,
            f"measured: {measured.label} at {measured.fill:.0%} full",
        )
    empty_fill = min((p.fill for p in points), default=0.0)
    static = static_cliff(size)
    if kind == CacheKind.STATIC:
        return static
    if kind in (CacheKind.DYNAMIC, CacheKind.HYBRID):
        line = line_cliff(points, fill, kind)
        if line is not None:
            return line
    dynamic = dynamic_cliff(size, empty_fill, fill, alpha)
    if kind == CacheKind.DYNAMIC:
        return dynamic
    low, high = min(dynamic.low, static.low), max(dynamic.high, static.high)
    how = (
        f"from a dynamic cache's {_mb(low)} to a static one's {_mb(high)} (a hybrid lies "
        f"between): {dynamic.how}"
    )
    bounded = _monotone(points, fill, low, high)
    if bounded != (low, high):
        low, high = bounded
        how += (
            f"; no cache grows as the drive fills, so the measured cliffs bound it: "
            f"{_mb(low)}–{_mb(high)}"
        )
    return CliffAt(None, low, high, how)


def _monotone(
    points: Sequence[CliffAtFill], fill: float, low: float, high: float
) -> tuple[float, float]:
    """`low`–`high` within the measured cliffs of emptier (at most theirs) and fuller (at
    least theirs) drives, widened by `KIND_TOLERANCE`, when they shrink with fill as every
    kind's does (a cliff that grew says the runs are not to be trusted so: unchanged)."""
    ordered = sorted(points, key=lambda p: p.fill)
    tol = KIND_TOLERANCE
    if any(b.low * (1.0 - tol) > a.high * (1.0 + tol) for a, b in pairwise(ordered)):
        return low, high
    emptier = [p.high * (1.0 + tol) for p in ordered if p.fill < fill]
    fuller = [p.low * (1.0 - tol) for p in ordered if p.fill > fill]
    bounded = max([low, *fuller]), min([high, *emptier])
    return bounded if bounded[0] <= bounded[1] else (low, high)
