"""What a sweep's stored knee verdict says, in sentences: where the knee is and how sure (yes,
inconclusive, no), whether IOPS rise with every step of the matrix, and how much the cells
varied between repeats. A verdict stored before ssdlab repeated cells has no state: its knee is
said as it always was, with "measured once, no interval"."""

from ssdlab.analysis.knee import KneeVerdict, MatrixDip
from ssdlab.analysis.verdict_state import interval_words
from ssdlab.model.units import format_count, format_latency_us
from ssdlab.report.interval_text import plus_minus

MAX_NAMED = 4  # cells of a knee's 95 % set, or dips, named in a sentence


def _bound(knee: KneeVerdict) -> str:
    if knee.max_latency_ns is not None:
        return f"most IOPS with {knee.latency_metric} ≤ {knee.max_latency_ns / 1000:g} µs"
    return "best IOPS per latency"


def _measured(knee: KneeVerdict) -> str:
    """'45,303 IOPS ±2.1 % at 118.3 µs p99, 79 % of the peak'."""
    assert knee.knee is not None
    iops = plus_minus(knee.knee.iops, knee.knee_iops_interval, format_count)
    latency = plus_minus(knee.knee_latency_ns, knee.knee_latency_interval, format_latency_us)
    peak = (
        ""
        if knee.knee_iops_of_peak_pct is None
        else f", {knee.knee_iops_of_peak_pct:.0f} % of the peak"
    )
    return f"{iops} IOPS at {latency} µs {knee.latency_metric}{peak}"


def _shares(knee: KneeVerdict) -> str:
    """'T1 Q4 62 %, T2 Q4 30 %, T1 Q8 5 %'."""
    named = [s for s in knee.shares if s.label in knee.knee_set][:MAX_NAMED]
    return ", ".join(
        f"{'no cell within the bound' if s.label == 'none' else s.label} {s.share * 100:.0f} %"
        for s in named
    )


def knee_sentence(workload: str, knee: KneeVerdict) -> str:
    """Where the knee is, and whether the data single it out."""
    draws = f"{knee.draws:,} draws of the matrix from its repeats"
    if knee.knee is None:
        text = f"{workload}: no knee ({knee.reason})"
        if knee.state == "inconclusive":
            text += (
                f"; but a cell meets the bound in some of {draws} ({_shares(knee)}): inconclusive"
            )
        return text
    where = f"knee at {knee.knee.label} ({_bound(knee)}): {_measured(knee)}"
    if knee.state is None or not knee.draws:
        return f"{workload}: {where} (measured once, no interval)"
    if knee.state == "yes":
        share = next((s.share for s in knee.shares if s.label == knee.knee.label), 1.0)
        return f"{workload}: {where} — the knee in {share * 100:.0f} % of {draws}: yes"
    return (
        f"{workload}: knee inconclusive — {where} as measured, but {len(knee.knee_set)} cells "
        f"share 95 % of {draws} ({_shares(knee)}); more --repeat narrows it"
    )


def _dip(dip: MatrixDip) -> str:
    return (
        f"{dip.to_label} has {dip.ratio:.2f}× the IOPS of {dip.from_label} "
        f"({interval_words(dip.interval)})"
    )


def monotonic_sentence(workload: str, knee: KneeVerdict) -> str | None:
    """Whether IOPS rise (or hold) with more outstanding I/O; None for a verdict stored before
    ssdlab looked."""
    if knee.monotonic is None:
        return None
    if knee.monotonic == "yes":
        return (
            f"{workload}: monotonic: yes — IOPS rise or hold (within 5 %) with every step of "
            "threads and queue depth"
        )
    shown = [d for d in knee.dips if d.state == "yes"] if knee.monotonic == "no" else knee.dips
    named = "; ".join(_dip(d) for d in shown[:MAX_NAMED])
    more = f" and {len(shown) - MAX_NAMED} more" if len(shown) > MAX_NAMED else ""
    if knee.monotonic == "no":
        return (
            f"{workload}: monotonic: no — more outstanding I/O bought fewer IOPS: {named}{more}; "
            "a knee on such a matrix may move from run to run"
        )
    return (
        f"{workload}: monotonic: inconclusive — {named}{more}: a fall of more than 5 % the "
        "repeats cannot confirm; more --repeat tells"
    )


def noise_note(knees: dict[str, KneeVerdict]) -> str | None:
    """One line for the run: how much the cells' IOPS varied between repeats."""
    spreads = {w: k.iops_spread_pct for w, k in knees.items() if k.iops_spread_pct is not None}
    if not spreads:
        return None
    listed = ", ".join(f"{w} {pct:.1f} %" for w, pct in spreads.items())
    return (
        f"between repeats a cell's IOPS varied by {listed} (one standard deviation, pooled over "
        "the workload's cells); ± is half a cell's 95 % interval"
    )
