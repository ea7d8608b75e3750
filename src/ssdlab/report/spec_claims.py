"""Measured against claimed: a quick run's best numbers beside the vendor's spec sheet.

Vendors quote sequential MB/s from a deep-queue sequential test on a fresh drive, and random
IOPS at a stated queue depth and thread count; each claim is set against the quick test of the
same kind that comes closest (the table names which test it used), never a made-up one.
"""

from collections.abc import Sequence

from ssdlab.analysis.passes import TestSummary
from ssdlab.analysis.spec_match import match_spec
from ssdlab.model.plan import Pattern, parse_test_shape
from ssdlab.model.spec import ClaimedIops, SpecSheet
from ssdlab.model.units import MB, TB, format_size
from ssdlab.report import document as doc
from ssdlab.report.quick import QuickReport


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


def _ratio(measured: float, claimed: float) -> str:
    return f"{measured / claimed * 100:.0f} %"


def _claim_text(claim: ClaimedIops) -> str:
    where = []
    if claim.queue_depth is not None:
        where.append(f"QD{claim.queue_depth}")
    if claim.threads is not None:
        where.append(f"T{claim.threads}")
    shape = " ".join(where) or "queue depth not stated"
    return f"{claim.iops:,.0f} IOPS ({format_size(claim.block_bytes)}, {shape})"


def claim_rows(
    summaries: Sequence[TestSummary], spec: SpecSheet
) -> tuple[tuple[str, str, str, str, str], ...]:
    """(claim, claimed, measured, test used, measured ÷ claimed) for every claim the run can
    be set against."""
    rows: list[tuple[str, str, str, str, str]] = []
    for direction, claimed_bw in (
        ("read", spec.seq_read_bytes_per_s),
        ("write", spec.seq_write_bytes_per_s),
    ):
        test = best_sequential(summaries, direction)
        if claimed_bw is None:
            continue
        if test is None:
            rows.append(
                (f"sequential {direction}", f"{claimed_bw / MB:,.0f} MB/s", "not run", "—", "—")
            )
            continue
        rows.append(
            (
                f"sequential {direction}",
                f"{claimed_bw / MB:,.0f} MB/s",
                f"{test.best_bw_bytes_per_s / MB:,.1f} MB/s",
                test.label,
                _ratio(test.best_bw_bytes_per_s, claimed_bw),
            )
        )
    for direction, claim in (("read", spec.random_read), ("write", spec.random_write)):
        if claim is None:
            continue
        test = closest_random(summaries, direction, claim)
        if test is None:
            rows.append((f"random {direction}", _claim_text(claim), "not run", "—", "—"))
            continue
        rows.append(
            (
                f"random {direction}",
                _claim_text(claim),
                f"{test.best_iops:,.0f} IOPS",
                test.label,
                _ratio(test.best_iops, claim.iops),
            )
        )
    return tuple(rows)


def spec_facts(spec: SpecSheet) -> tuple[tuple[str, str], ...]:
    facts = [("spec sheet", f"{spec.vendor} {spec.model} ({spec.key})")]
    facts.append(("capacity", format_size(spec.capacity_bytes)))
    if spec.tbw_bytes is not None:
        facts.append(("rated endurance", f"{spec.tbw_bytes / TB:,.0f} TBW"))
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
    device = report.run.target.get("device")
    model = device.get("model") if isinstance(device, dict) else None
    capacity = device.get("capacity_bytes") if isinstance(device, dict) else None
    if not isinstance(model, str):
        return ()
    spec = match_spec(model, capacity if isinstance(capacity, int) else None, specs)
    if spec is None:
        return ()
    rows = claim_rows(report.summaries, spec)
    table = doc.Table(
        "Measured (best pass) against claimed",
        ("claim", "claimed", "measured", "test", "measured ÷ claimed"),
        rows,
    )
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
