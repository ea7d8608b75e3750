"""Measured against claimed: a quick run's best numbers beside the vendor's spec sheet, as
analysis/spec_claims.py sets each claim against a test (the table names which test it used).
"""

from collections.abc import Callable, Sequence

from ssdlab.analysis.spec_claims import ClaimCheck, claim_checks, spec_of_target
from ssdlab.model.spec import ClaimedIops, SpecSheet
from ssdlab.model.units import format_count, format_mb_per_s, format_size, format_tb
from ssdlab.report import document as doc
from ssdlab.report.quick import QuickReport


def _claim_text(claim: ClaimedIops) -> str:
    where = []
    if claim.queue_depth is not None:
        where.append(f"QD{claim.queue_depth}")
    if claim.threads is not None:
        where.append(f"T{claim.threads}")
    shape = " ".join(where) or "queue depth not stated"
    return f"{format_count(claim.iops, 'IOPS')} ({format_size(claim.block_bytes)}, {shape})"


def _mean_text(check: ClaimCheck) -> str:
    """'6,950 MB/s (6,880–7,030)': the mean of the passes with its 95 % interval; 'one figure'
    when the run kept one."""
    if check.mean is None or check.interval is None:
        return "one figure"
    figure: Callable[[float | None, str], str]
    figure, unit = (
        (format_count, "IOPS") if check.claimed_iops is not None else (format_mb_per_s, "MB/s")
    )
    low = "…" if check.interval.low is None else figure(check.interval.low, "")
    high = "…" if check.interval.high is None else figure(check.interval.high, "")
    return f"{figure(check.mean, unit)} ({low}–{high})"


def _claim_row(check: ClaimCheck) -> tuple[str, ...]:
    """(claim, claimed, measured, test used, measured ÷ claimed, mean (95 % interval), met)."""
    name = f"{'sequential' if check.claimed_iops is None else 'random'} {check.direction}"
    if check.claimed_iops is not None:
        claimed = _claim_text(check.claimed_iops)
        measured = "" if check.measured is None else format_count(check.measured, "IOPS")
    else:
        claimed = format_mb_per_s(check.claimed_bytes_per_s or 0.0, "MB/s", digits=0)
        measured = "" if check.measured is None else format_mb_per_s(check.measured, "MB/s")
    if check.test is None or check.ratio is None:
        return (name, claimed, "not run", "—", "—", "—", "—")
    return (name, claimed, measured, check.test.label, f"{check.ratio * 100:.0f} %",
            _mean_text(check), check.outcome or "—")  # fmt: skip


def spec_facts(spec: SpecSheet) -> tuple[tuple[str, str], ...]:
    facts = [("spec sheet", f"{spec.vendor} {spec.model} ({spec.key})")]
    facts.append(("capacity", format_size(spec.capacity_bytes)))
    if spec.tbw_bytes is not None:
        facts.append(("rated endurance", format_tb(spec.tbw_bytes, "TBW", digits=0)))
    if spec.dwpd is not None:
        facts.append(("rated DWPD", f"{spec.dwpd:g}"))
    if spec.warranty_years is not None:
        facts.append(("warranty", f"{spec.warranty_years:g} years"))
    if spec.cache_bytes is not None:
        facts.append(("write cache (published)", format_size(spec.cache_bytes)))
    facts.extend(("source", source) for source in spec.sources)
    return tuple(facts)


def spec_sections(report: QuickReport, specs: Sequence[SpecSheet]) -> tuple[doc.Section, ...]:
    """'Against the spec sheet' when the run's drive matches one, else nothing."""
    spec = spec_of_target(report.run.target, specs)
    if spec is None:
        return ()
    bw: dict[str, list[float]] = {}
    iops: dict[str, list[float]] = {}
    for step in report.steps:
        if not step.discarded:
            bw.setdefault(step.step_key, []).append(step.bw_bytes_per_s)
            iops.setdefault(step.step_key, []).append(step.iops)
    rows = tuple(_claim_row(check) for check in claim_checks(report.summaries, spec, bw, iops))
    table = doc.Table(
        "Measured (best pass) against claimed",
        ("claim", "claimed", "measured", "test", "measured ÷ claimed", "mean (95 % interval)",
         "claim met"),
        rows,
        notes=(
            "claim met: pass when the whole 95 % interval of the mean over the passes is at or "
            "above the claim, fail when all of it is below, inconclusive when it straddles the "
            "claim; a run with one figure per test (one figure) is judged by that figure",
        ),
    )  # fmt: skip
    return (
        doc.Section(
            "Against the spec sheet",
            facts=spec_facts(spec),
            tables=(table,) if rows else (),
            notes=(
                "vendors measure on a fresh, empty drive, usually inside its write cache; "
                "a file target measures the file system too",
            ),
        ),
    )
