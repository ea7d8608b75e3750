"""Sanity checks on SMART counters: findings are plain sentences for ``HealthSample.flags``.

Real drives truncate counters to 32 bits (Crucial MX500 Device Statistics, very likely the
Samsung PM893 251/241 pair), report NAND writes in units nobody documented, or disagree with
their own Device Statistics (smart.md §6.6). These checks say so instead of passing nonsense on.
"""

import itertools
import math
from collections.abc import Sequence

from ssdlab.model.health import HealthValue
from ssdlab.model.units import format_counter_bytes

WRAP_32 = 2**32

ERASE_TOO_LOW_FACTOR = 0.2
"""NAND writes below this share of (avg_erase - 1) x raw NAND capacity are implausible.

SLC-mode erases inflate erase counts (Kingston A400: 17 x 128 GiB vs 979 GiB written = 0.45),
so the bound is loose; the Samsung PM893 sample sits at 0.016."""

ERASE_TOO_HIGH_FACTOR = 5.0
"""NAND writes above this multiple of (avg_erase + 1) x raw NAND capacity are implausible."""


def raw_nand_capacity_bytes(capacity_bytes: float) -> int:
    """Heuristic raw NAND capacity: the next power of two (240 GB -> 256 GiB, 1.92 TB -> 2 TiB)."""
    return int(2 ** math.ceil(math.log2(capacity_bytes)))


def check_counter_series(
    values: Sequence[tuple[float, float]], *, unit_bytes: float = 1.0
) -> tuple[str, ...]:
    """Flag a cumulative counter that goes down between (time_s, value) samples.

    A drop from near the top of a 32-bit range (in raw counts = value / unit_bytes) to a small
    value is reported as a likely 32-bit wrap (add 2^32 counts); any other drop as a reset or
    truncation. Samples are taken in time order; out-of-order input is flagged too.
    """
    findings: list[str] = []
    ordered = sorted(values, key=lambda pair: pair[0])
    if list(values) != ordered:
        findings.append("The samples were not in time order; they were checked sorted by time.")
    for (t0, v0), (t1, v1) in itertools.pairwise(ordered):
        if v1 >= v0:
            continue
        c0, c1 = v0 / unit_bytes, v1 / unit_bytes
        if c0 < WRAP_32 and c0 >= WRAP_32 / 2 and c1 < c0 - WRAP_32 / 4:
            findings.append(
                f"The counter went down from {v0:g} to {v1:g} between t={t0:g} s and t={t1:g} s; "
                f"it was near the top of a 32-bit range, so it most likely wrapped: add "
                f"2^32 counts ({WRAP_32 * unit_bytes:g}) to it and to every later value."
            )
        else:
            findings.append(
                f"The counter went down from {v0:g} to {v1:g} between t={t0:g} s and t={t1:g} s: "
                "it was reset or truncated; differences across this point are not meaningful."
            )
    return tuple(findings)


def check_nand_vs_host(host: HealthValue, nand: HealthValue) -> tuple[str, ...]:
    """NAND writes below host writes: impossible without compression; a unit or wrap problem."""
    if host.value is None or nand.value is None:
        return ()
    slack = _resolution(host) + _resolution(nand)
    if nand.value + slack >= host.value:
        return ()
    return (
        f"NAND writes ({format_counter_bytes(nand.value)}, {_source(nand)}) are below host "
        f"writes "
        f"({format_counter_bytes(host.value)}, {_source(host)}); flash cannot absorb fewer "
        f"bytes than "
        "the host wrote unless the controller compresses — one of the counters has the wrong "
        "unit, wrapped, or counts only part of the writes. WAF from these counters is not "
        "meaningful.",
    )


MAX_PE_CYCLES = 100_000
"""More program/erase cycles than any NAND is rated for (SLC: about 100,000): a drive whose
counters imply more full-drive writes per percent of wear than this allows reports one of the
two wrongly."""


def check_writes_vs_wear(
    written: HealthValue, wear_used_pct: HealthValue, capacity_bytes: int | None
) -> tuple[str, ...]:
    """Host (or NAND) writes implausible for the wear used: more full-drive writes than even
    SLC NAND could take at that wear (a wear step of 1 % is assumed when the counter reads 0).
    """
    if written.value is None or wear_used_pct.value is None or not capacity_bytes:
        return ()
    drive_writes = written.value / capacity_bytes
    ceiling = MAX_PE_CYCLES * max(wear_used_pct.value, 1.0) / 100
    if drive_writes <= ceiling:
        return ()
    return (
        f"{_source(written)} = {format_counter_bytes(written.value)} is {drive_writes:,.0f} full "
        f"writes of this {format_counter_bytes(capacity_bytes)} drive at "
        f"{wear_used_pct.value:g} % "
        f"wear used ({_source(wear_used_pct)}): more than NAND could take (at most "
        f"{ceiling:,.0f} at {MAX_PE_CYCLES:,} P/E cycles). The write counter's unit or the wear "
        "indicator is wrong for this drive; figures derived from them are not meaningful.",
    )


def check_erase_vs_nand(
    avg_erase: HealthValue,
    nand: HealthValue,
    capacity_bytes: int | None,
    *,
    host: HealthValue | None = None,
) -> tuple[str, ...]:
    """NAND writes implausible for the average erase count (x estimated raw NAND capacity).

    When the NAND counter is below 2^32 counts and adding whole multiples of 2^32 counts makes
    it consistent, the finding names the likely 32-bit wrap (the Samsung PM893 case).
    """
    if avg_erase.value is None or nand.value is None or not capacity_bytes:
        return ()
    raw_capacity = raw_nand_capacity_bytes(capacity_bytes)
    expected = avg_erase.value * raw_capacity
    low_bound = ERASE_TOO_LOW_FACTOR * (avg_erase.value - 1) * raw_capacity
    high_bound = ERASE_TOO_HIGH_FACTOR * (avg_erase.value + 1) * raw_capacity
    basis = (
        f"the average erase count {avg_erase.value:g} ({_source(avg_erase)}) x "
        f"~{format_counter_bytes(raw_capacity)} raw NAND (estimated from the "
        f"{format_counter_bytes(capacity_bytes)} capacity) implies ≈ "
        f"{format_counter_bytes(expected)}"
    )
    if nand.value < low_bound:
        text = (
            f"NAND writes look far too small: {_source(nand)} = "
            f"{format_counter_bytes(nand.value)}, "
            f"but {basis}."
        )
        wrap = _wrap_explanation(nand, expected)
        if wrap:
            text += " " + wrap
        if host is not None and _below_32_bits(host):
            text += (
                f" Host writes ({_source(host)}, {format_counter_bytes(host.value or 0)}) are "
                f"below "
                "2^32 counts too and may have wrapped as well: the lifetime WAF from these "
                "counters is not meaningful."
            )
        return (text,)
    if nand.value > high_bound:
        return (
            f"NAND writes look far too large: {_source(nand)} = "
            f"{format_counter_bytes(nand.value)}, "
            f"but {basis}; the counter's unit may be wrong for this drive.",
        )
    return ()


def check_against_device_statistics(
    metric: str, devstat: HealthValue, vendor: HealthValue
) -> tuple[tuple[str, ...], HealthValue | None]:
    """Compare a vendor attribute with the Device Statistics value of the same quantity.

    Returns (findings, preferred): `preferred` is the value to use instead of the default
    choice when one of the two is the other modulo 2^32 counts (a truncated counter), else None.
    """
    if devstat.value is None or vendor.value is None:
        return (), None
    tolerance = max(
        2 * max(_resolution(devstat), _resolution(vendor)),
        0.01 * max(abs(devstat.value), abs(vendor.value)),
    )
    if abs(devstat.value - vendor.value) <= tolerance:
        return (), None
    for small, large in ((devstat, vendor), (vendor, devstat)):
        if _is_truncation_of(small, large):
            return (
                (
                    f"{metric}: {_source(small)} ({_show(metric, small)}) is {_source(large)} "
                    f"({_show(metric, large)}) modulo 2^32 counts — a 32-bit truncated counter; "
                    f"using {_source(large)}.",
                ),
                large,
            )
    return (
        (
            f"{metric}: {_source(vendor)} ({_show(metric, vendor)}) disagrees with Device "
            f"Statistics {_source(devstat)} ({_show(metric, devstat)}); one of them has a "
            "different unit or meaning on this drive.",
        ),
        None,
    )


def _is_truncation_of(small: HealthValue, large: HealthValue) -> bool:
    """small == large mod (2^32 x small's unit), within both resolutions."""
    if small.value is None or large.value is None or small.value >= large.value:
        return False
    unit = _resolution(small)
    if unit <= 0 or small.value / unit >= WRAP_32:
        return False
    modulus = WRAP_32 * unit
    remainder = large.value % modulus
    return abs(remainder - small.value) <= unit + _resolution(large)


def _wrap_explanation(nand: HealthValue, expected: float) -> str | None:
    if not _below_32_bits(nand) or nand.value is None:
        return None
    span = WRAP_32 * _resolution(nand)
    wraps = round((expected - nand.value) / span)
    if wraps < 1:
        return None
    corrected = nand.value + wraps * span
    return (
        f"The counter is below 2^32 counts and very likely 32-bit: {wraps} wraps of 2^32 x "
        f"{_resolution(nand):g} B would give {format_counter_bytes(corrected)}, consistent "
        f"with the "
        "erase count."
    )


def _below_32_bits(value: HealthValue) -> bool:
    unit = _resolution(value)
    return value.value is not None and unit > 0 and value.value / unit < WRAP_32


def _resolution(value: HealthValue) -> float:
    if value.provenance is None or value.provenance.resolution is None:
        return 0.0
    return value.provenance.resolution


def _source(value: HealthValue) -> str:
    return "unknown source" if value.provenance is None else value.provenance.source


def _show(metric: str, value: HealthValue) -> str:
    if value.value is None:
        return "unknown"
    if metric.endswith("_bytes"):
        return format_counter_bytes(value.value)
    return f"{value.value:g}"
