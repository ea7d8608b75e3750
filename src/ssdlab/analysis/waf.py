"""Write amplification (WAF) from health counters: over a window, a drive's life, or erases.

WAF = NAND bytes written / host bytes written (reference/smart.md §6.1). SMART counters are
quantised: a counter with resolution r (the smallest step it shows: 512 B, 512,000 B, 32 MiB,
1 GiB, one erase cycle) hides up to one step of the truth, so the difference of two readings is
off by less than r, and a relative error of up to r / Δ.

**Refusal rule.** A ratio of two quantised deltas is off by up to the sum of their relative
errors (first order): `e = r_host / Δhost + r_nand / Δnand`. WAF is refused (value None, with a
reason) when `e` exceeds `MAX_WAF_ERROR_PCT` (5 %). Each counter on its own must therefore have
moved at least 20 steps (a 32 MiB NAND counter: ≥ 20 × 32 MiB = 640 MiB; a 1 GiB counter:
≥ 20 GiB), and more when the other counter is coarse too. The reason says how much more host
writing the window needs, assuming the WAF stays where it is (1.0 when it is not known yet):
`Δhost_needed = (r_host + r_nand / WAF) / 5 %`. smart.md asks for 100 steps (1 %); 5 % is the
budget chosen for ssdlab, and every result carries its worst-case error so a reader can be stricter.
When a counter's resolution is unknown the error cannot be bounded: WAF is still computed, the
error is None and an assumption says so (it is still refused if the known part alone is > 5 %).
"""

from dataclasses import dataclass

from ssdlab.model.health import HEALTH_METRICS, HealthSample, HealthValue
from ssdlab.model.units import format_counter_value, format_gb

MAX_WAF_ERROR_PCT = 5.0
"""Largest worst-case quantisation error (%) a WAF may carry before it is refused."""

_U32 = 2**32


@dataclass(frozen=True, slots=True)
class CounterChange:
    """How one counter moved between two samples, in the unit its `metric` name ends with.

    `resolution` is the counter's smallest step (from the values' provenance; the coarser of the
    two), or a default for integer counters when `resolution_assumed`; None when unknown.
    `delta` is `after - before`; None when either value is unknown or the counter went down
    (`decreased`; a wrap or a reset), and then `reason` says why.
    """

    metric: str
    before: float | None
    after: float | None
    resolution: float | None
    resolution_assumed: bool
    delta: float | None
    decreased: bool
    reason: str | None

    @property
    def quantisation_error_pct(self) -> float | None:
        """Worst-case relative error of `delta` from the counter's step: 100 × resolution / Δ."""
        return quantisation_error_pct(self.delta, self.resolution)

    @property
    def steps(self) -> float | None:
        """How many resolution steps the counter moved."""
        if self.delta is None or self.resolution is None:
            return None
        return self.delta / self.resolution


def quantisation_error_pct(delta: float | None, resolution: float | None) -> float | None:
    """100 × resolution / |Δ|: None when either is unknown or Δ is 0 (no bound exists)."""
    if delta is None or resolution is None or delta == 0:
        return None
    return 100.0 * resolution / abs(delta)


def health_value(sample: HealthSample, metric: str) -> HealthValue:
    """The named metric of a sample; ValueError for a name that is not in HEALTH_METRICS."""
    if metric not in HEALTH_METRICS:
        raise ValueError(f"unknown health metric {metric!r}; known: {', '.join(HEALTH_METRICS)}")
    value: HealthValue = getattr(sample, metric)
    return value


def value_resolution(value: HealthValue) -> float | None:
    """The value's counter resolution from its provenance; None when not known or not positive."""
    if value.provenance is None or value.provenance.resolution is None:
        return None
    resolution = value.provenance.resolution
    return resolution if resolution > 0 else None


def counter_change(
    before: HealthSample,
    after: HealthSample,
    metric: str,
    *,
    default_resolution: float | None = None,
    refusal: str | None = None,
) -> CounterChange:
    """The change of `metric` from `before` to `after`.

    `default_resolution` stands in when neither value's provenance gives one (1 for integer
    counters such as erase counts and wear %); `refusal` refuses the change outright (e.g. the
    samples come from different drives).
    """
    old, new = health_value(before, metric), health_value(after, metric)
    resolutions = [r for r in (value_resolution(old), value_resolution(new)) if r is not None]
    resolution = max(resolutions) if resolutions else default_resolution
    assumed = not resolutions and default_resolution is not None
    if refusal is not None:
        return CounterChange(
            metric, old.value, new.value, resolution, assumed, None, False, refusal
        )
    if old.value is None or new.value is None:
        which = " and ".join(
            name for name, v in (("before", old.value), ("after", new.value)) if v is None
        )
        reason = f"{metric} is unknown in the {which} sample"
        return CounterChange(metric, old.value, new.value, resolution, assumed, None, False, reason)
    if new.value < old.value:
        reason = (
            f"{metric} went down from {format_counter_value(metric, old.value)} to "
            f"{format_counter_value(metric, new.value)}: the counter wrapped or was reset"
            f"{_wrap_hint(old.value, resolution)}"
        )
        return CounterChange(metric, old.value, new.value, resolution, assumed, None, True, reason)
    return CounterChange(
        metric, old.value, new.value, resolution, assumed, new.value - old.value, False, None
    )


def _wrap_hint(before: float, resolution: float | None) -> str:
    if resolution is None:
        return ""
    counts = before / resolution
    if 2**31 <= counts < _U32:
        return (
            f" (it stood at {counts:,.0f} counts, near the top of a 32-bit range: a 32-bit wrap "
            "is likely, see smart.md §6.6)"
        )
    return ""


@dataclass(frozen=True, slots=True)
class WafEstimate:
    """One WAF figure with the amounts it was taken over and how far to trust it.

    `method`: "window" (ΔNAND / Δhost between two samples), "lifetime" (NAND / host totals of one
    sample: the drive's whole history) or "erase count" (Δavg erase × raw NAND capacity / Δhost).
    `nand_written_bytes` / `host_written_bytes`: the amounts the ratio is over (deltas for a
    window, totals for lifetime). `quantisation_error_pct`: worst-case relative error of `waf` from
    the counters' resolutions; None when a resolution is unknown. `is_upper_bound`: True for an
    erase-count WAF on an SLC-cached drive (SLC-mode erases inflate it), None when it is not known
    whether the drive caches in SLC.
    """

    method: str
    waf: float | None
    nand_written_bytes: float | None
    host_written_bytes: float | None
    nand_resolution_bytes: float | None
    host_resolution_bytes: float | None
    quantisation_error_pct: float | None
    is_upper_bound: bool | None
    assumptions: tuple[str, ...]
    reason: str | None


def ratio_waf(
    method: str,
    nand_bytes: float,
    host_bytes: float,
    nand_resolution_bytes: float | None,
    host_resolution_bytes: float | None,
    *,
    assumptions: tuple[str, ...] = (),
    is_upper_bound: bool | None = False,
) -> WafEstimate:
    """WAF = nand / host under the refusal rule of this module (amounts must not be negative)."""

    def refuse(reason: str) -> WafEstimate:
        return WafEstimate(
            method,
            None,
            nand_bytes,
            host_bytes,
            nand_resolution_bytes,
            host_resolution_bytes,
            None,
            is_upper_bound,
            assumptions,
            reason,
        )

    if nand_bytes < 0 or host_bytes < 0:
        return refuse("a counter went down; no WAF over a wrap or reset")
    parts = [
        None if r is None else (100.0 * r / amount if amount > 0 else float("inf"))
        for amount, r in ((host_bytes, host_resolution_bytes), (nand_bytes, nand_resolution_bytes))
    ]
    known = [p for p in parts if p is not None]
    error = sum(known) if len(known) == len(parts) else None
    known_error = sum(known) if known else 0.0
    if host_bytes == 0 or nand_bytes == 0 or known_error > MAX_WAF_ERROR_PCT:
        return refuse(
            _too_little_writing(
                _LABELS.get(method, method),
                nand_bytes,
                host_bytes,
                nand_resolution_bytes,
                host_resolution_bytes,
                known_error,
            )
        )
    waf = nand_bytes / host_bytes
    notes = list(assumptions)
    for name, r in (("host", host_resolution_bytes), ("NAND", nand_resolution_bytes)):
        if r is None:
            notes.append(f"the {name} counter's resolution is unknown: the error is not bounded")
    if waf < 1:
        notes.append(
            "WAF below 1: the drive compresses, or the counters differ in scope or lag "
            "(sample again after the drive has been idle)"
        )
    return WafEstimate(
        method,
        waf,
        nand_bytes,
        host_bytes,
        nand_resolution_bytes,
        host_resolution_bytes,
        error,
        is_upper_bound,
        tuple(notes),
        None,
    )


_LABELS = {"window": "WAF", "lifetime": "lifetime WAF", "erase count": "erase-count WAF"}


def _too_little_writing(
    label: str,
    nand: float,
    host: float,
    nand_resolution: float | None,
    host_resolution: float | None,
    error_pct: float,
) -> str:
    nand_name = (
        "erase count (× raw capacity)" if label == _LABELS["erase count"] else "NAND counter"
    )
    moved = (
        f"the host counter moved {format_gb(host)}{_steps(host, host_resolution)}, "
        f"the {nand_name} {format_gb(nand)}{_steps(nand, nand_resolution)}"
    )
    if host == 0 and nand == 0:
        head = "neither counter moved"
    elif host == 0:
        head = f"the host counter did not move ({moved})"
    elif nand == 0:
        head = f"the {nand_name} did not move ({moved})"
    else:
        head = (
            f"{moved}: quantisation error up to {error_pct:.1f} % (limit {MAX_WAF_ERROR_PCT:g} %)"
        )
    if host_resolution is None and nand_resolution is None:
        return f"{label} n/a: {head}"
    assumed_waf = nand / host if host > 0 and nand > 0 else 1.0
    scope = "in total" if label == _LABELS["lifetime"] else "in the window"
    needed = ((host_resolution or 0.0) + (nand_resolution or 0.0) / assumed_waf) / (
        MAX_WAF_ERROR_PCT / 100.0
    )
    return (
        f"{label} n/a: {head}; write about {format_gb(max(needed - host, 0.0))} more "
        f"(≥ {format_gb(needed)} of host writes {scope}, assuming WAF {assumed_waf:.2f})"
    )


def _steps(amount: float, resolution: float | None) -> str:
    if resolution is None:
        return ""
    return f" = {amount / resolution:,.4g} steps of {format_gb(resolution)}"


def window_waf(nand: CounterChange, host: CounterChange) -> WafEstimate:
    """WAF between two samples: ΔNAND / Δhost, refused under the module's rule."""
    reason = host.reason or nand.reason
    if host.delta is None or nand.delta is None:
        return WafEstimate(
            "window",
            None,
            nand.delta,
            host.delta,
            nand.resolution,
            host.resolution,
            None,
            False,
            (),
            f"WAF n/a: {reason}",
        )
    return ratio_waf("window", nand.delta, host.delta, nand.resolution, host.resolution)


def lifetime_waf(sample: HealthSample) -> WafEstimate:
    """NAND / host totals of one sample: describes the drive's whole history, not a workload."""
    nand, host = sample.nand_written_bytes, sample.host_written_bytes
    nand_res, host_res = value_resolution(nand), value_resolution(host)
    if nand.value is None or host.value is None:
        missing = " and ".join(
            name
            for name, v in (("NAND-writes", nand.value), ("host-writes", host.value))
            if v is None
        )
        return WafEstimate(
            "lifetime",
            None,
            nand.value,
            host.value,
            nand_res,
            host_res,
            None,
            False,
            (),
            f"lifetime WAF n/a: the sample has no {missing} counter",
        )
    return ratio_waf(
        "lifetime",
        nand.value,
        host.value,
        nand_res,
        host_res,
        assumptions=("totals over the drive's whole history, not this workload",),
    )


def estimate_raw_nand_capacity_bytes(user_capacity_bytes: int) -> int:
    """Raw flash ≈ the next power of two of the user capacity (smart.md §6.4 heuristic).

    120 GB -> 128 GiB, 240 GB -> 256 GiB, 1.92 TB -> 2 TiB, 1.6 TB -> 2 TiB.
    """
    if user_capacity_bytes <= 0:
        raise ValueError(f"user capacity must be positive, not {user_capacity_bytes}")
    return 1 << (user_capacity_bytes - 1).bit_length()


def erase_count_waf(
    erase: CounterChange,
    host: CounterChange,
    raw_nand_capacity_bytes: int | None,
    *,
    capacity_note: str | None = None,
    slc_cached: bool | None = None,
) -> WafEstimate:
    """Δavg erase count × raw NAND capacity / Δhost (smart.md §6.5).

    One erase count is a full write of the raw flash, so its resolution in bytes is the raw
    capacity and the same refusal rule needs ≥ 20 erase cycles: this works for endurance runs,
    not benchmarks. On SLC-cached drives SLC-mode erases inflate the count: an upper bound.
    """
    upper = True if slc_cached else (False if slc_cached is False else None)
    notes = [capacity_note] if capacity_note else []
    if slc_cached:
        notes.append("SLC-cached drive: SLC-mode erases inflate the erase count (upper bound)")
    elif slc_cached is None:
        notes.append("an upper bound if the drive caches writes in SLC (not stated)")
    if erase.resolution_assumed:
        notes.append("erase count assumed to step by 1")
    nand_bytes = (
        erase.delta * raw_nand_capacity_bytes
        if erase.delta is not None and raw_nand_capacity_bytes is not None
        else None
    )
    nand_resolution = (
        erase.resolution * raw_nand_capacity_bytes
        if erase.resolution is not None and raw_nand_capacity_bytes is not None
        else None
    )
    reason = erase.reason or host.reason
    if reason is None and raw_nand_capacity_bytes is None:
        reason = "the raw NAND capacity is unknown (give raw_nand_capacity_bytes)"
    if reason is not None or nand_bytes is None or host.delta is None:
        return WafEstimate(
            "erase count",
            None,
            nand_bytes,
            host.delta,
            nand_resolution,
            host.resolution,
            None,
            upper,
            tuple(notes),
            f"erase-count WAF n/a: {reason}",
        )
    return ratio_waf(
        "erase count",
        nand_bytes,
        host.delta,
        nand_resolution,
        host.resolution,
        assumptions=tuple(notes),
        is_upper_bound=upper,
    )
