"""Closed forms for write amplification under uniform random single-page writes (ftl.md §2).

α = physical ÷ logical pages. These are the oracles the simulator is tested against, and the
source of the analytic warm start (`initial_state="steady"`).
"""

from __future__ import annotations

import math


def lambertw0(x: float) -> float:
    """Principal branch of Lambert W for −1/e ≤ x < 0 (Halley iteration)."""
    if not -1.0 / math.e <= x < 0:
        raise ValueError(f"lambertw0 is used on [-1/e, 0) only, not {x}")
    if x < -0.3:
        p = math.sqrt(max(2.0 * (math.e * x + 1.0), 0.0))
        w = -1.0 + p - p * p / 3.0 + 11.0 / 72.0 * p**3
    else:
        w = math.log1p(x)
    for _ in range(100):
        ew = math.exp(w)
        f = w * ew - x
        if w == -1.0:
            return w
        wn = w - f / (ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0))
        if abs(wn - w) < 1e-15:
            return wn
        w = wn
    return w


def wa_agarwal(alpha: float) -> float:
    """Agarwal–Marrow (1 + ρ)/(2ρ), ρ = α − 1 (inaccurate at high spare)."""
    return alpha / (2.0 * (alpha - 1.0))


def wa_fifo(alpha: float) -> float:
    """FIFO / LRW cleaning: α / (α + W0(−α·e^−α))."""
    return alpha / (alpha + lambertw0(-alpha * math.exp(-alpha)))


def wa_random(alpha: float) -> float:
    """Random victim: α / (α − 1)."""
    return alpha / (alpha - 1.0)


def greedy_victim_valid(alpha: float, pages_per_block: int) -> float:
    """n: valid pages of a greedy victim in steady state (finite-Np model)."""
    c = 1.0 + 1.0 / (2.0 * pages_per_block)
    return -(pages_per_block / alpha) * lambertw0(-alpha * c * math.exp(-alpha * c)) - 0.5


def wa_greedy(alpha: float, pages_per_block: int) -> float:
    """Greedy, finite Np: Np / (Np − n)."""
    n = greedy_victim_valid(alpha, pages_per_block)
    return pages_per_block / (pages_per_block - n)


def wa_fifo_hotcold(alpha: float, hot_writes: float, hot_space: float) -> float:
    """FIFO with r of the writes to f of the LBAs: solve Σ rᵢ/(1 − e^(−rᵢu/fᵢ)) = α/u, WA = α/u."""
    groups = ((hot_writes, hot_space), (1.0 - hot_writes, 1.0 - hot_space))

    def excess(u: float) -> float:
        return sum(r / (1.0 - math.exp(-r * u / f)) for r, f in groups) - alpha / u

    lo, hi = 1e-9, alpha  # excess < 0 near 0 … > 0 at α (bisection on a monotone function)
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if excess(mid) < 0:
            lo = mid
        else:
            hi = mid
    return alpha / ((lo + hi) / 2.0)


def trim_live_fraction(trim_fraction: float) -> float:
    """Mean live fraction when each request TRIMs an in-use LBA with probability q."""
    q = trim_fraction
    return (1.0 - 2.0 * q) / (1.0 - q)


def lifetime_ratio(waf_base: float, waf_case: float) -> float:
    """Host writes until wear-out relative to the base case (raw capacity and P/E fixed)."""
    return waf_base / waf_case


def steady_levels(
    native_blocks: int, pages_per_block: int, logical_pages: int, free_blocks: int
) -> tuple[int, ...]:
    """Valid pages per closed block in greedy steady state (number of blocks at level v ∝ 1/v).

    Every logical page is placed exactly once; `free_blocks` + 1 (the frontier) stay empty.
    """
    closed = native_blocks - free_blocks - 1
    np_ = pages_per_block
    alpha = closed * np_ / logical_pages
    n = min(max(int(greedy_victim_valid(alpha, np_)), 0), np_ - 1) if alpha > 1 else np_ - 1
    weights = [1.0 / v for v in range(np_, n, -1)]
    scale = closed / sum(weights)
    levels: list[int] = []
    carry = 0.0
    for v, w in zip(range(np_, n, -1), weights, strict=True):
        carry += w * scale
        k = int(carry)
        carry -= k
        levels.extend([v] * k)
    levels = (levels + [n + 1] * closed)[:closed]
    diff = logical_pages - sum(levels)
    b = closed - 1
    while diff != 0:  # rounding error, a page at a time from the emptiest blocks up, 0 ≤ v ≤ Np
        if diff > 0 and levels[b] < np_:
            levels[b] += 1
            diff -= 1
        elif diff < 0 and levels[b] > 0:
            levels[b] -= 1
            diff += 1
        b = b - 1 if b > 0 else closed - 1
    return tuple(levels)
