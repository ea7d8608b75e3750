"""Wear rate, days to end of life and the comparison with a drive's rated endurance.

Wear is in % of rated life (0 new, 100 = rated end of life; reference/smart.md §6.4). The drive's
indicator (`wear_used_pct`: NVMe Percentage Used, ATA devstat page 7, vendor attributes) is an
integer: one step is 1 % of the drive's life, so a rate from it is off by up to one step.
**Rate rule:** a rate needs the wear to have moved at least `MIN_RATE_STEPS` (3) steps of its
counter (smart.md: "≥ 3 distinct integer steps"); its worst-case error, 100 × step / Δwear, is
carried with it (±33 % at 3 steps). When the indicator is too coarse, the rate falls back to the
average erase count against the rated P/E cycles (1 step = 1/P/E of the life, far finer), when
both are known.
"""

from dataclasses import dataclass, replace

from ssdlab.analysis.intervals import Interval
from ssdlab.analysis.verdict_state import at_least
from ssdlab.analysis.waf import CounterChange
from ssdlab.model.units import GB, TB, format_gb, format_number

MIN_RATE_STEPS = 3
"""Fewest counter steps a wear rate is computed from."""

S_PER_DAY = 86_400.0
DAYS_PER_YEAR = 365.0  # the convention of TBW = DWPD × capacity × 365 × warranty years
PE_BACKSOLVE_MIN_WEAR_PCT = 5.0
"""Back-solving rated P/E from the indicator needs this much wear (smart.md §6.4)."""


@dataclass(frozen=True, slots=True)
class RatedEndurance:
    """A drive's datasheet endurance; every field optional (none of it is in SMART).

    `pe_cycles`: rated program/erase cycles of the flash, when the datasheet gives it.
    """

    tbw_bytes: float | None
    dwpd: float | None
    warranty_years: float | None
    capacity_bytes: int | None
    pe_cycles: float | None = None

    def __post_init__(self) -> None:
        for name in ("tbw_bytes", "dwpd", "warranty_years", "capacity_bytes", "pe_cycles"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"rated {name} must be positive, not {value}")

    def rated_tbw_bytes(self) -> float | None:
        """TBW when given, else DWPD × capacity × 365 × warranty years; None if neither is known."""
        if self.tbw_bytes is not None:
            return self.tbw_bytes
        if self.dwpd is None or self.capacity_bytes is None or self.warranty_years is None:
            return None
        return self.dwpd * self.capacity_bytes * DAYS_PER_YEAR * self.warranty_years

    def rated_tbw_source(self) -> str:
        """How `rated_tbw_bytes()` was found, or why it is not known."""
        if self.tbw_bytes is not None:
            return "rated TBW as given"
        if self.rated_tbw_bytes() is not None:
            return "DWPD × capacity × 365 × warranty years"
        missing = [
            name
            for name, value in (
                ("DWPD", self.dwpd),
                ("capacity", self.capacity_bytes),
                ("warranty years", self.warranty_years),
            )
            if value is None
        ]
        return (
            "no rated TBW: give TBW, or DWPD with capacity and warranty "
            f"(missing {', '.join(missing)})"
        )

    def rated_dwpd(self) -> float | None:
        """DWPD when given, else TBW / (capacity × 365 × warranty years)."""
        if self.dwpd is not None:
            return self.dwpd
        if self.tbw_bytes is None or self.capacity_bytes is None or self.warranty_years is None:
            return None
        return self.tbw_bytes / (self.capacity_bytes * DAYS_PER_YEAR * self.warranty_years)

    def warranty_days(self) -> float | None:
        return None if self.warranty_years is None else self.warranty_years * DAYS_PER_YEAR


def estimate_rated_pe_cycles(erase_count_avg: float, wear_used_pct: float) -> float | None:
    """Rated P/E ≈ erase count / (wear / 100), once wear ≥ 5 % (860 EVO: 278 / 0.19 ≈ 1,460)."""
    if wear_used_pct < PE_BACKSOLVE_MIN_WEAR_PCT or erase_count_avg <= 0:
        return None
    return erase_count_avg / (wear_used_pct / 100.0)


@dataclass(frozen=True, slots=True)
class WearRate:
    """How fast the drive wears over a window, in % of rated life.

    `source`: "wear_used_pct" (the drive's indicator) or "erase_count_avg" (100 × erases ÷ rated
    P/E). `wear_before_pct` / `wear_after_pct` / `wear_step_pct`: the inputs in that source, as %.
    `quantisation_error_pct`: worst-case relative error of the rate from the counter's step.
    `notes` explain a rate that is None while the other is known, and fallbacks taken.
    """

    source: str | None
    wear_before_pct: float | None
    wear_after_pct: float | None
    wear_step_pct: float | None
    elapsed_s: float | None
    host_written_delta_bytes: float | None
    rated_pe_cycles: float | None
    pct_per_day: float | None
    pct_per_host_tb: float | None
    quantisation_error_pct: float | None
    notes: tuple[str, ...]
    reason: str | None

    @property
    def wear_delta_pct(self) -> float | None:
        if self.wear_before_pct is None or self.wear_after_pct is None:
            return None
        return self.wear_after_pct - self.wear_before_pct


@dataclass(frozen=True, slots=True)
class _Track:
    """A wear track in % of rated life: the indicator, or erases ÷ rated P/E."""

    source: str
    before_pct: float
    after_pct: float
    step_pct: float


def _indicator_track(wear: CounterChange) -> tuple[_Track | None, str | None]:
    if wear.delta is None or wear.before is None or wear.after is None:
        return None, f"wear indicator: {wear.reason}"
    step = wear.resolution if wear.resolution is not None else 1.0
    return _checked(_Track("wear_used_pct", wear.before, wear.after, step), "wear indicator")


def _erase_track(
    erase: CounterChange, rated_pe_cycles: float | None
) -> tuple[_Track | None, str | None]:
    if rated_pe_cycles is None:
        return None, "erase counts: the rated P/E cycles are unknown"
    if erase.delta is None or erase.before is None or erase.after is None:
        return None, f"erase counts: {erase.reason}"
    step = erase.resolution if erase.resolution is not None else 1.0
    scale = 100.0 / rated_pe_cycles
    track = _Track("erase_count_avg", erase.before * scale, erase.after * scale, step * scale)
    return _checked(track, "erase counts")


def _checked(track: _Track, label: str) -> tuple[_Track | None, str | None]:
    delta = track.after_pct - track.before_pct
    steps = delta / track.step_pct
    if delta == 0:
        return None, f"{label}: did not step (stayed at {track.after_pct:g} %)"
    if steps < MIN_RATE_STEPS - 1e-9:
        return None, (
            f"{label}: moved only {steps:.3g} step(s) of {track.step_pct:.3g} %, so a rate "
            f"could be off by {100.0 / steps:.0f} %; need ≥ {MIN_RATE_STEPS} steps"
        )
    return track, None


def wear_rate(
    wear: CounterChange,
    erase: CounterChange,
    host: CounterChange,
    elapsed_s: float | None,
    *,
    elapsed_reason: str | None = None,
    rated_pe_cycles: float | None = None,
    rated_pe_note: str | None = None,
) -> WearRate:
    """Wear rate per day and per TB of host writes over a window (see the module's rule)."""
    notes: list[str] = []
    track, primary_reason = _indicator_track(wear)
    if track is None:
        track, fallback_reason = _erase_track(erase, rated_pe_cycles)
        if track is not None:
            notes.append(f"{primary_reason}; used erase counts ÷ rated P/E instead")
            if rated_pe_note:
                notes.append(rated_pe_note)
        else:
            refused = f"wear rate n/a: {primary_reason}; {fallback_reason}"
            return WearRate(
                None,
                wear.before,
                wear.after,
                wear.resolution,
                elapsed_s,
                host.delta,
                rated_pe_cycles,
                None,
                None,
                None,
                (),
                refused,
            )
    if wear.resolution_assumed and track.source == "wear_used_pct":
        notes.append("wear indicator assumed to step by 1 %")
    if erase.resolution_assumed and track.source == "erase_count_avg":
        notes.append("erase count assumed to step by 1")
    delta_pct = track.after_pct - track.before_pct
    per_day = None
    if elapsed_s is not None and elapsed_s > 0:
        per_day = delta_pct / (elapsed_s / S_PER_DAY)
    else:
        notes.append(f"no rate per day: {elapsed_reason or 'no time passed between the samples'}")
    per_tb = None
    if host.delta is not None and host.delta > 0:
        per_tb = delta_pct / (host.delta / TB)
    else:
        notes.append(f"no rate per TB: {host.reason or 'no host writes between the samples'}")
    reason: str | None = None
    if per_day is None and per_tb is None:
        reason = "wear rate n/a: neither time nor host writes to divide the wear by"
    return WearRate(
        track.source,
        track.before_pct,
        track.after_pct,
        track.step_pct,
        elapsed_s,
        host.delta,
        rated_pe_cycles if track.source == "erase_count_avg" else None,
        per_day,
        per_tb,
        100.0 * track.step_pct / delta_pct,
        tuple(notes),
        reason,
    )


@dataclass(frozen=True, slots=True)
class LifeProjection:
    """Where the observed wear rate leads: days to 100 % and host bytes written by then.

    `days_to_eol` counts from the last sample; `host_written_at_eol_bytes` is the projected host
    total at 100 % (the drive's projected TBW at this workload).
    """

    wear_now_pct: float | None
    pct_per_day: float | None
    pct_per_host_tb: float | None
    host_written_now_bytes: float | None
    days_to_eol: float | None
    host_written_at_eol_bytes: float | None
    notes: tuple[str, ...]
    reason: str | None
    days_to_eol_interval: Interval | None = None


def days_interval(remaining_pct: float, rate: Interval | None) -> Interval | None:
    """The 95 % interval of the days to end of life from the wear rate's: remaining ÷ the
    rate's high end to remaining ÷ its low end (days fall as the rate rises, so the ends map
    one to one and the level is kept); `high` None (unbounded) when the rate's interval
    reaches zero or below: the data do not rule out a drive that barely wears."""
    if rate is None or rate.high is None or rate.high <= 0:
        return None
    remaining = max(remaining_pct, 0.0)
    high = None if rate.low is None or rate.low <= 0 else remaining / rate.low
    return Interval(remaining / rate.high, high, rate.level, rate.basis, rate.count)


def project_life(
    wear_now_pct: float | None,
    pct_per_day: float | None,
    pct_per_host_tb: float | None,
    host_written_now_bytes: float | None,
    *,
    reason: str | None = None,
    pct_per_day_interval: Interval | None = None,
) -> LifeProjection:
    """Linear projection of the wear to 100 % at the given rates; with the wear rate's 95 %
    interval, the days to end of life get theirs (`days_interval`)."""
    if reason is None and wear_now_pct is None:
        reason = "the current wear is unknown"
    if reason is not None or wear_now_pct is None:
        return LifeProjection(
            wear_now_pct,
            pct_per_day,
            pct_per_host_tb,
            host_written_now_bytes,
            None,
            None,
            (),
            f"projection n/a: {reason}",
        )
    remaining_pct = 100.0 - wear_now_pct
    notes: list[str] = []
    if remaining_pct <= 0:
        notes.append(f"already at {wear_now_pct:g} % of rated life: past the rated end of life")
    days = days_range = None
    if pct_per_day is not None and pct_per_day > 0:
        days = max(remaining_pct, 0.0) / pct_per_day
        days_range = days_interval(remaining_pct, pct_per_day_interval)
    else:
        notes.append("no days to end of life: no wear rate per day")
    host_at_eol = None
    if pct_per_host_tb is not None and pct_per_host_tb > 0 and host_written_now_bytes is not None:
        host_at_eol = host_written_now_bytes + remaining_pct / pct_per_host_tb * TB
    else:
        notes.append("no projected TBW: no wear rate per TB or no host-writes total")
    overall = None
    if days is None and host_at_eol is None:
        overall = "projection n/a: " + "; ".join(notes)
    return LifeProjection(
        wear_now_pct,
        pct_per_day,
        pct_per_host_tb,
        host_written_now_bytes,
        days,
        host_at_eol,
        tuple(notes),
        overall,
        days_range,
    )


@dataclass(frozen=True, slots=True)
class RatingComparison:
    """The observed wear against the rated endurance.

    `tbw_ratio` = projected TBW ÷ rated TBW (> 1: the drive outlasts its TBW rating at this
    workload). `eol_vs_warranty_ratio` = days to end of life from now ÷ warranty length (> 1: it
    outlasts a full warranty period from now). `days_to_rated_tbw`: when host writes reach the
    rated TBW at the observed host write rate. `dwpd_ratio` = observed ÷ rated drive writes per day.
    `rated`: the rating used, its capacity filled in from the drive when it had none. `notes` say
    why a figure is None and where inputs came from.
    """

    rated: RatedEndurance
    rated_tbw_bytes: float | None
    rated_tbw_source: str
    projected_tbw_bytes: float | None
    tbw_ratio: float | None
    days_to_eol: float | None
    warranty_days: float | None
    eol_vs_warranty_ratio: float | None
    host_written_now_bytes: float | None
    host_written_bytes_per_day: float | None
    days_to_rated_tbw: float | None
    capacity_bytes: int | None
    observed_dwpd: float | None
    rated_dwpd: float | None
    dwpd_ratio: float | None
    notes: tuple[str, ...]
    reason: str | None
    # whether the days to end of life reach the warranty's length from now: yes when the whole
    # interval of the days does, no when none of it does, inconclusive when it straddles the
    # warranty (from the days alone when they have no interval); None without both figures
    outlasts_warranty: str | None = None


def rating_comparison(
    rated: RatedEndurance,
    projection: LifeProjection,
    host_written_bytes_per_day: float | None,
    *,
    host_rate_reason: str | None = None,
    capacity_bytes: int | None = None,
) -> RatingComparison:
    """Compare a projection and an observed host write rate with `rated`.

    `capacity_bytes` (the drive's own) is used when `rated` has no capacity.
    """
    notes: list[str] = []
    if rated.capacity_bytes is None and capacity_bytes is not None:
        rated = replace(rated, capacity_bytes=capacity_bytes)
        notes.append(f"capacity {format_number(capacity_bytes / GB, 'GB', 1)} from the drive")
    rated_tbw = rated.rated_tbw_bytes()
    if rated_tbw is None:
        notes.append(rated.rated_tbw_source())
    projected = projection.host_written_at_eol_bytes
    if projected is None:
        notes.append(f"no projected TBW: {projection.reason or '; '.join(projection.notes)}")
    tbw_ratio = projected / rated_tbw if projected is not None and rated_tbw is not None else None
    warranty_days = rated.warranty_days()
    if warranty_days is None:
        notes.append("no warranty length given")
    days = projection.days_to_eol
    eol_vs_warranty = days / warranty_days if days is not None and warranty_days else None
    outlasts = None
    if days is not None and warranty_days:
        outlasts = at_least(days, projection.days_to_eol_interval, warranty_days).value
    host_now = projection.host_written_now_bytes
    per_day = host_written_bytes_per_day
    if per_day is None or per_day <= 0:
        notes.append(f"no host write rate: {host_rate_reason or 'no host writes per day'}")
    days_to_tbw = None
    if rated_tbw is not None and host_now is not None and per_day is not None and per_day > 0:
        days_to_tbw = max(rated_tbw - host_now, 0.0) / per_day
        if host_now >= rated_tbw:
            notes.append(f"host writes ({format_gb(host_now)}) already exceed the rated TBW")
    capacity = rated.capacity_bytes
    if capacity is None:
        notes.append("no capacity: DWPD n/a")
    observed_dwpd = per_day / capacity if per_day is not None and capacity else None
    rated_dwpd = rated.rated_dwpd()
    if rated_dwpd is None:
        notes.append("no rated DWPD: give DWPD, or TBW with capacity and warranty")
    dwpd_ratio = (
        observed_dwpd / rated_dwpd if observed_dwpd is not None and rated_dwpd is not None else None
    )
    computed = (tbw_ratio, eol_vs_warranty, days_to_tbw, observed_dwpd, dwpd_ratio)
    reason = None
    if all(v is None for v in computed):
        reason = "rating comparison n/a: " + "; ".join(notes)
    return RatingComparison(
        rated,
        rated_tbw,
        rated.rated_tbw_source(),
        projected,
        tbw_ratio,
        days,
        warranty_days,
        eol_vs_warranty,
        host_now,
        per_day,
        days_to_tbw,
        capacity,
        observed_dwpd,
        rated_dwpd,
        dwpd_ratio,
        tuple(notes),
        reason,
        outlasts,
    )
