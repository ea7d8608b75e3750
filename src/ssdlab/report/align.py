"""The `align` report: IOPS per block size at aligned and misaligned offsets, and the stored
verdict (analysis/profiles/align.py makes it)."""

import math

from ssdlab.analysis.alignment import AlignmentRow, AlignmentVerdict
from ssdlab.analysis.verdict_state import at_least
from ssdlab.model.finding_names import ALIGNMENT
from ssdlab.model.json_fields import decode_fields
from ssdlab.model.profile import ProfileResults
from ssdlab.model.profile_settings import AlignSettings
from ssdlab.model.typed_settings import decode_settings
from ssdlab.model.units import format_count, format_latency_us, format_size
from ssdlab.report import document as doc
from ssdlab.report.interval_text import (
    MEASURED_ONCE,
    error_bar,
    interval_data,
    plus_minus,
    ratio_text,
    state_text,
)
from ssdlab.report.method_notes import ALIGN_METHOD, method_note
from ssdlab.report.profile_common import compose


def _yes_no(value: bool | None) -> str:
    return "unknown" if value is None else ("yes" if value else "no")


def build_align_document(results: ProfileResults) -> doc.Document:
    verdict = decode_fields(AlignmentVerdict, results.findings[ALIGNMENT])
    latency = _latencies(results)
    keys = {
        (s.param("block_size_bytes"), s.param("offset_align_bytes")): s.key
        for s in results.plan.all_steps
    }
    rows = []
    for row in verdict.rows:
        a_key = keys.get((row.block_size_bytes, row.aligned_offset_bytes))
        m_key = keys.get((row.block_size_bytes, row.misaligned_offset_bytes))
        rows.append(
            (
                format_size(row.block_size_bytes),
                plus_minus(row.aligned_iops, row.aligned_interval, format_count),
                format_latency_us(latency.get(a_key or "")),
                plus_minus(row.misaligned_iops, row.misaligned_interval, format_count),
                format_latency_us(latency.get(m_key or "")),
                ratio_text(row.ratio, row.ratio_interval),
                _penalty(row, verdict.min_penalty_ratio),
            )
        )
    misalign = verdict.rows[0].misaligned_offset_bytes if verdict.rows else None
    judged = any(r.passes is not None for r in verdict.rows)  # stored with intervals
    table = doc.Table(
        "Random-write IOPS by block size and offset alignment",
        (
            "block",
            "4K-aligned IOPS",
            "mean µs",
            f"+{misalign or '?'} B IOPS",
            "mean µs",
            "aligned/misaligned",
            *(("penalty",) if judged else ()),
        ),
        tuple(row if judged else row[:-1] for row in rows),
        notes=(
            f"queue depth {decode_settings(AlignSettings, results.plan.settings).iodepth}; "
            "a ratio of "
            f"{verdict.min_penalty_ratio:g}× or more counts as a penalty",
            _interval_note(verdict),
            method_note(ALIGN_METHOD),
        ),
    )
    chart = _chart(verdict, misalign)
    facts = results.facts
    start = verdict.partition_start_bytes
    fact_rows = (
        ("partition", str(facts.get("partition") or "none (whole device or no partition)")),
        ("partition start", "n/a" if start is None else f"{start:,} B ({format_size(start)})"),
        ("4 KiB-aligned start", _yes_no(verdict.partition_aligned_4k)),
        ("1 MiB-aligned start", _yes_no(verdict.partition_aligned_1m)),
        ("logical / physical sector", _sectors(verdict)),
        ("LBA formats", _formats(verdict)),
    )
    sections = [
        doc.Section(
            "Alignment and sub-4 KiB writes",
            tables=(table,),
            charts=(chart,) if chart.series else (),
        ),
        doc.Section("Device layout", facts=fact_rows, notes=tuple(facts.get("notes") or ())),
    ]
    data = {
        "rows": [
            {
                "block_size_bytes": r.block_size_bytes,
                "aligned_offset_bytes": r.aligned_offset_bytes,
                "aligned_iops": r.aligned_iops,
                "misaligned_offset_bytes": r.misaligned_offset_bytes,
                "misaligned_iops": r.misaligned_iops,
                "ratio": r.ratio,
                "reason": r.reason,
                "passes": r.passes,
                "aligned_interval": interval_data(r.aligned_interval),
                "misaligned_interval": interval_data(r.misaligned_interval),
                "ratio_interval": interval_data(r.ratio_interval),
            }
            for r in verdict.rows
        ],
        "misaligned_ratio": verdict.misaligned_ratio,
        "misaligned_ratio_interval": interval_data(verdict.misaligned_ratio_interval),
        "misaligned_state": verdict.misaligned_state,
        "sub_4k_ratio": verdict.sub_4k_ratio,
        "sub_4k_ratio_interval": interval_data(verdict.sub_4k_ratio_interval),
        "sub_4k_state": verdict.sub_4k_state,
        "works_in_4k_units": verdict.works_in_4k_units,
        "works_in_4k_units_state": verdict.works_in_4k_units_state,
        "partition_start_bytes": start,
        "partition_aligned_4k": verdict.partition_aligned_4k,
        "partition_aligned_1m": verdict.partition_aligned_1m,
        "min_penalty_ratio": verdict.min_penalty_ratio,
    }
    return compose(
        results,
        title=f"ssdlab align — {results.run.target_path}",
        verdict=verdict.sentences,
        sections=sections,
        data=data,
    )


def _latencies(results: ProfileResults) -> dict[str, float]:
    """Mean latency per step key: the mean over its measured passes."""
    found: dict[str, list[float]] = {}
    for r in results.steps:
        if not r.discarded and r.lat_mean_ns is not None:
            found.setdefault(r.step_key, []).append(r.lat_mean_ns)
    return {key: sum(values) / len(values) for key, values in found.items()}


def _penalty(row: AlignmentRow, min_penalty_ratio: float) -> str:
    """Whether this block size's ratio is a penalty: yes, no or inconclusive; '—' when the row
    was stored before ssdlab gave intervals, or has no ratio."""
    if row.ratio is None or row.passes is None:
        return "—"
    return state_text(at_least(row.ratio, row.ratio_interval, min_penalty_ratio).value)


def _interval_note(verdict: AlignmentVerdict) -> str:
    """What the ± and the brackets are, or that the run has no intervals."""
    passes = max((r.passes or 0 for r in verdict.rows), default=0)
    if passes == 0:
        return f"{MEASURED_ONCE}: this run was stored before ssdlab repeated its measurements"
    if passes == 1:
        return (
            "measured once: ± and brackets are 95 % intervals from each pass's per-second "
            "log (how steady the pass was, not how the next run would differ)"
        )
    return (
        f"IOPS: the mean of {passes} repeats ± half its 95 % interval; ratios with their 95 % "
        "interval in brackets"
    )


def _chart(verdict: AlignmentVerdict, misalign: int | None) -> doc.Chart:
    """IOPS bars per block size, aligned beside misaligned, from zero (dots on a log axis when
    the block sizes' IOPS span more than two decades), each with its 95 % interval as a
    whisker; an unmeasured cell is left out."""
    series = []
    offsets = (
        ("4 KiB-aligned", "aligned_iops", "aligned_interval"),
        (f"4 KiB + {misalign} B", "misaligned_iops", "misaligned_interval"),
    )
    for label, field, spread in offsets:
        values = [
            (float(i), getattr(r, field), error_bar(getattr(r, spread)))
            for i, r in enumerate(verdict.rows)
        ]
        measured = [(x, v, e) for x, v, e in values if v is not None]
        if measured:
            errors = tuple(e or (math.nan, math.nan) for _, _, e in measured)
            series.append(
                doc.Series(
                    label,
                    tuple(x for x, _, _ in measured),
                    tuple(v for _, v, _ in measured),
                    "bars",
                    errors=errors if any(e for _, _, e in measured) else (),
                )
            )
    shown, y_log = doc.bars_or_dots(series)
    return doc.Chart(
        key="align-iops",
        title="Random-write IOPS: 4 KiB-aligned against misaligned offsets",
        x_label="block size",
        y_label="I/O rate",
        y_unit="IOPS",
        y_log=y_log,
        y_zero=not y_log,
        series=shown,
        x_ticks=tuple(
            (float(i), format_size(r.block_size_bytes)) for i, r in enumerate(verdict.rows)
        ),
    )


def _sectors(verdict: AlignmentVerdict) -> str:
    logical, physical = verdict.logical_block_bytes, verdict.physical_block_bytes
    if logical is None and physical is None:
        return "n/a"
    return f"{logical or 'n/a'} / {physical or 'n/a'} bytes"


def _formats(verdict: AlignmentVerdict) -> str:
    if not verdict.lba_formats:
        return "n/a (not NVMe, or not reported)"
    parts = []
    for f in verdict.lba_formats:
        mark = " (in use)" if f.index == verdict.lba_format_in_use else ""
        perf = f", {f.performance_label}" if f.performance_label else ""
        parts.append(f"#{f.index}: {f.data_bytes}+{f.metadata_bytes}{perf}{mark}")
    return "; ".join(parts)
