"""The `cache` profile's report: the cliff(s) in a sustained write's bandwidth, drawn against
the bytes written, and the recovery after an idle pause (the verdicts are
analysis/profiles/cache.py's). A write too short to find a cliff is said in words in the
verdict and the cache section, never reported as "no cliff".
"""

import dataclasses
from collections.abc import Mapping
from typing import Any

from ssdlab.analysis.cliff import CacheCliffVerdict, ShortSeries
from ssdlab.analysis.write_series import seconds_text
from ssdlab.model.finding_names import CACHE_CLIFF, CACHE_RECOVERY
from ssdlab.model.json_fields import decode_fields
from ssdlab.model.profile import ProfileResults
from ssdlab.model.step import StepResult
from ssdlab.model.units import format_gb, format_mb_per_s
from ssdlab.report import document as doc
from ssdlab.report.method_notes import CLIFF_METHOD, method_note
from ssdlab.report.profile_common import compose, zero_or_log

MB = 10**6
GB = 10**9


def _sentences(verdict: CacheCliffVerdict, body: Mapping[str, Any]) -> list[str]:
    if verdict.short is not None:
        return [str(body.get("reason") or verdict.reason)]
    if verdict.cliff_bytes is None:
        total = verdict.total_bytes or 0.0
        return [
            f"no cliff in {format_gb(total)} written: the speed stayed within "
            f"{verdict.criteria.min_drop_pct:g} % ({verdict.reason}); the cache is larger than "
            "the write, or there is none"
        ]
    lines = [
        f"write cache ≈ {format_gb(verdict.cliff_bytes)}: "
        f"{format_mb_per_s(verdict.in_cache_bw_bytes_per_s)} MB/s in the cache, "
        f"{format_mb_per_s(verdict.post_cache_bw_bytes_per_s)} MB/s after it "
        f"({verdict.drop_pct or 0:.0f} % slower)"
    ]
    later = [s for s in verdict.segments[(verdict.cliff_segment or 0) + 1 :] if s.step]
    for segment in later:
        lines.append(
            f"a further step at {format_gb(segment.start_bytes)}: "
            f"{format_mb_per_s(segment.median_bw_bytes_per_s)} MB/s"
        )
    return lines


def _chart(key: str, title: str, verdict: CacheCliffVerdict) -> doc.Chart:
    """MB/s per log interval against the data written (in GB, or MB for a write under 1 GB),
    the segments' medians as one step line over it, and the cliff as a vertical line."""
    total = max((b for b, _ in verdict.series), default=0.0)
    size_unit, size = ("GB", GB) if total >= GB else ("MB", MB)
    xs = tuple(b / size for b, _ in verdict.series)
    ys = tuple(bw / MB for _, bw in verdict.series)
    segments = verdict.segments
    # a step line of two points or more (the last segment's end closes it), each segment
    # labelled with its median
    levels = (
        (
            doc.Series(
                "segment medians",
                (*(s.start_bytes / size for s in segments), segments[-1].end_bytes / size),
                (*(s.median_bw_bytes_per_s / MB for s in segments),
                 segments[-1].median_bw_bytes_per_s / MB),
                "steps",
                point_labels=(*(format_mb_per_s(s.median_bw_bytes_per_s, "MB/s")
                                for s in segments), ""),
            ),
        )
        if segments
        else ()
    )  # fmt: skip
    markers: tuple[doc.Marker, ...] = ()
    if verdict.cliff_bytes is not None:
        markers = (
            doc.Marker(
                "vline", f"cliff {format_gb(verdict.cliff_bytes)}", x=verdict.cliff_bytes / size
            ),
        )
    y_log, y_zero = zero_or_log(ys)
    return doc.Chart(
        key=key,
        title=title,
        x_label="data written",
        x_unit=size_unit,
        y_label="throughput",
        y_unit="MB/s",
        series=(doc.Series("MB/s per interval", xs, ys, "points"), *levels),
        markers=markers,
        y_log=y_log,
        y_zero=y_zero,
    )


def _segments_table(verdict: CacheCliffVerdict) -> doc.Table:
    rows = tuple(
        (
            str(i + 1),
            format_gb(s.start_bytes),
            format_gb(s.end_bytes),
            format_mb_per_s(s.median_bw_bytes_per_s),
            "—" if s.change_pct is None else f"{s.change_pct:+.0f} %",
            "—" if s.step is None else ("step" if s.step else "slope"),
        )
        for i, s in enumerate(verdict.segments)
    )
    return doc.Table(
        "Segments of the write",
        ("segment", "from", "to", "median MB/s", "change", "kind"),
        rows,
        notes=(
            f"a change counts when the speed moves by {verdict.criteria.min_drop_pct:g} % or "
            f"more over at least {verdict.criteria.min_segment_points} points",
            method_note(CLIFF_METHOD),
        ),
    )


def _charts(key: str, title: str, verdict: CacheCliffVerdict) -> tuple[doc.Chart, ...]:
    """The chart of a write, none when it logged fewer than two points (nothing to draw)."""
    return (_chart(key, title, verdict),) if len(verdict.series) >= 2 else ()


def _write_section(
    verdict: CacheCliffVerdict, body: Mapping[str, Any], step: StepResult | None
) -> doc.Section:
    logged = verdict.total_bytes
    if logged is None and step is not None and step.write is not None:
        logged = float(step.write.io_bytes)  # no log point: fio's own count of what it wrote
    written = ("written", format_gb(logged or 0.0))
    charts = _charts("cache-cliff", "MB/s against data written", verdict)
    if verdict.short is not None:
        short = body.get("short") or {}
        write_s = short.get("write_s")
        facts: tuple[tuple[str, str], ...] = (
            written,
            ("write time", "n/a" if write_s is None else seconds_text(write_s)),
            ("log points", f"{verdict.short.points} of the {verdict.short.points_needed} needed"),
            ("cache size", "unknown: the write was too short to find a cliff"),
        )
        return doc.Section(
            "Write-cache cliff",
            facts=facts,
            tables=(_segments_table(verdict),) if verdict.segments else (),
            charts=charts,
            notes=(str(body.get("reason") or verdict.reason),),
        )
    facts = (
        written,
        (
            "cache size",
            "no cliff" if verdict.cliff_bytes is None else format_gb(verdict.cliff_bytes),
        ),
        ("in-cache MB/s", format_mb_per_s(verdict.in_cache_bw_bytes_per_s)),
        ("post-cache MB/s", format_mb_per_s(verdict.post_cache_bw_bytes_per_s)),
        ("slowest MB/s after the cliff", format_mb_per_s(verdict.floor_bw_bytes_per_s)),
        ("sustained MB/s after the cliff", format_mb_per_s(verdict.sustained_bw_bytes_per_s)),
    )
    return doc.Section(
        "Write-cache cliff", facts=facts, tables=(_segments_table(verdict),), charts=charts
    )


def _cliff_of(body: object) -> CacheCliffVerdict | None:
    """A stored cliff body as its verdict; None when the write was not run (no segments)."""
    if not isinstance(body, Mapping) or "segments" not in body:
        return None
    fields = {k: v for k, v in body.items() if k != "total_bytes"}  # total_bytes: a property
    short = body.get("short")
    if isinstance(short, Mapping):  # the verdict's ShortSeries, and what the analysis added
        fields["short"] = {f.name: short[f.name] for f in dataclasses.fields(ShortSeries)}
    return decode_fields(CacheCliffVerdict, fields)


def build_cache_document(results: ProfileResults) -> doc.Document:
    stored = results.findings
    data = {name: stored[name] for name in (CACHE_CLIFF, CACHE_RECOVERY) if name in stored}
    write = _cliff_of(data.get(CACHE_CLIFF))
    recovery = data.get(CACHE_RECOVERY)
    probe = _cliff_of(recovery.get("probe")) if isinstance(recovery, Mapping) else None
    sections: list[doc.Section] = []
    verdict: list[str] = []
    if write is not None:
        body = data[CACHE_CLIFF]
        verdict += _sentences(write, body)
        measured = {s.step_key: s for s in results.steps if not s.discarded}
        write_step = measured.get("write")
        sections.append(_write_section(write, body, write_step))
    if probe is not None and isinstance(recovery, Mapping):
        fraction = recovery.get("fraction")
        line = (
            f"after {recovery.get('idle_s') or 0:g} s idle, "
            + ("the recovery could not be told" if fraction is None
               else f"{fraction * 100:.0f} % of the fast cache came back")
        )  # fmt: skip
        verdict.append(line)
        notes = tuple(recovery.get("notes") or ())
        if probe.short is not None:
            notes = (str(recovery["probe"]["reason"]), *notes)
        sections.append(
            doc.Section(
                "Recovery",
                facts=(("recovered", line),),
                charts=_charts(
                    "cache-recovery", "Recovery write: MB/s against data written", probe
                ),
                notes=notes,
            )
        )
    return compose(
        results, title="Write-cache cliff", verdict=verdict, sections=sections, data=data
    )
