"""The `cache` profile's report: the cliff(s) in a sustained write's bandwidth, drawn against
the bytes written, and the recovery after an idle pause (the verdicts are
analysis/profiles/cache.py's). A write too short to find a cliff is said in words in the
verdict and the cache section, never reported as "no cliff".
"""

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ssdlab.analysis.cliff import CacheCliffVerdict, ShortSeries
from ssdlab.analysis.cliff_uncertainty import CliffUncertainty
from ssdlab.analysis.intervals import Interval
from ssdlab.analysis.verdict_state import interval_words
from ssdlab.analysis.write_series import bytes_series, seconds_text, writes_of
from ssdlab.model.finding_names import CACHE_CLIFF, CACHE_RECOVERY
from ssdlab.model.json_fields import decode_fields
from ssdlab.model.profile import ProfileResults
from ssdlab.model.step import StepResult
from ssdlab.model.units import format_gb, format_mb_per_s
from ssdlab.report import document as doc
from ssdlab.report.interval_text import plus_minus
from ssdlab.report.method_notes import CLIFF_METHOD, method_note
from ssdlab.report.profile_common import compose, zero_or_log

MB = 10**6
GB = 10**9


def _uncertainty(body: Mapping[str, Any]) -> CliffUncertainty | None:
    """The stored uncertainty of a cliff (None: stored before ssdlab gave one)."""
    found = body.get("uncertainty")
    return decode_fields(CliffUncertainty, found) if isinstance(found, Mapping) else None


def _gb_words(interval: Interval | None) -> str:
    return interval_words(interval, " GB", digits=3, scale=1 / GB)


def _sentences(verdict: CacheCliffVerdict, body: Mapping[str, Any]) -> list[str]:
    state = body.get("state")
    said = f"Write-cache cliff: {state} — " if isinstance(state, str) else ""
    uncertain = _uncertainty(body)
    if verdict.short is not None:  # inconclusive, and its sentence says why in full
        return [str(body.get("reason") or verdict.reason)]
    if verdict.cliff_bytes is None:
        total = verdict.total_bytes or 0.0
        return [
            f"{said}no cliff in {format_gb(total)} written: the speed stayed within "
            f"{verdict.criteria.min_drop_pct:g} % ({verdict.reason}); the cache is larger than "
            "the write, or there is none" + _writes_words(uncertain)
        ]
    cache = format_gb(verdict.cliff_bytes)
    if uncertain is not None:
        cache += f" ({_gb_words(uncertain.cliff_bytes_interval)})"
    lines = [
        f"{said}write cache ≈ {cache}: "
        f"{format_mb_per_s(verdict.in_cache_bw_bytes_per_s)} MB/s in the cache, "
        f"{format_mb_per_s(verdict.post_cache_bw_bytes_per_s)} MB/s after it "
        f"({verdict.drop_pct or 0:.0f} % slower)" + _writes_words(uncertain)
    ]
    later = [s for s in verdict.segments[(verdict.cliff_segment or 0) + 1 :] if s.step]
    for segment in later:
        lines.append(
            f"a further step at {format_gb(segment.start_bytes)}: "
            f"{format_mb_per_s(segment.median_bw_bytes_per_s)} MB/s"
        )
    return lines


def _writes_words(uncertain: CliffUncertainty | None) -> str:
    """'; a cliff in 2 of 3 writes' for repeated writes, '' for one."""
    if uncertain is None or uncertain.writes < 2:
        return ""
    return f"; a cliff in {uncertain.cliffs_found} of {uncertain.writes} writes (the first shown)"


def _chart(
    key: str,
    title: str,
    verdict: CacheCliffVerdict,
    others: Sequence[StepResult] = (),
    uncertain: CliffUncertainty | None = None,
) -> doc.Chart:
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
        where = None if uncertain is None else uncertain.cliff_bytes_interval
        low, high = (None, None) if where is None else (where.low, where.high)
        if low is not None and high is not None and high > low:  # the interval, as a band
            markers += (doc.Marker("band", "cliff: 95 % interval", x=low / size, x2=high / size),)
    repeats = []
    for number, step in enumerate(others, start=2):  # every further write, its own colour
        points = bytes_series(step)
        repeats.append(
            doc.Series(
                f"write {number}: MB/s per interval",
                tuple(b / size for b, _ in points),
                tuple(bw / MB for _, bw in points),
                "points",
            )
        )
    y_log, y_zero = zero_or_log([*ys, *(y for s in repeats for y in s.ys)])
    first = "MB/s per interval" if not others else "write 1: MB/s per interval"
    return doc.Chart(
        key=key,
        title=title,
        x_label="data written",
        x_unit=size_unit,
        y_label="throughput",
        y_unit="MB/s",
        series=(doc.Series(first, xs, ys, "points"), *repeats, *levels),
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


def _charts(
    key: str,
    title: str,
    verdict: CacheCliffVerdict,
    others: Sequence[StepResult] = (),
    uncertain: CliffUncertainty | None = None,
) -> tuple[doc.Chart, ...]:
    """The chart of a write (and of the writes repeated after it, and the cliff's interval as
    a band), none when it logged fewer than two points (nothing to draw)."""
    if len(verdict.series) < 2:
        return ()
    return (_chart(key, title, verdict, others, uncertain),)


def _write_section(
    verdict: CacheCliffVerdict,
    body: Mapping[str, Any],
    step: StepResult | None,
    others: Sequence[StepResult] = (),
) -> doc.Section:
    logged = verdict.total_bytes
    if logged is None and step is not None and step.write is not None:
        logged = float(step.write.io_bytes)  # no log point: fio's own count of what it wrote
    written = ("written", format_gb(logged or 0.0))
    uncertain = _uncertainty(body)
    charts = _charts("cache-cliff", "MB/s against data written", verdict, others, uncertain)
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
    size = "no cliff" if verdict.cliff_bytes is None else format_gb(verdict.cliff_bytes)
    fast = verdict.in_cache_bw_bytes_per_s
    slow = verdict.post_cache_bw_bytes_per_s
    if uncertain is not None and verdict.cliff_bytes is not None:
        size += f" ({_gb_words(uncertain.cliff_bytes_interval)})"
    facts = (
        written,
        *((("cliff", str(body["state"])),) if isinstance(body.get("state"), str) else ()),
        ("cache size", size),
        ("in-cache MB/s", plus_minus(fast, _interval(uncertain, "in_cache"), format_mb_per_s)),
        ("post-cache MB/s", plus_minus(slow, _interval(uncertain, "post_cache"), format_mb_per_s)),
        ("slowest MB/s after the cliff", format_mb_per_s(verdict.floor_bw_bytes_per_s)),
        ("sustained MB/s after the cliff", format_mb_per_s(verdict.sustained_bw_bytes_per_s)),
    )
    return doc.Section(
        "Write-cache cliff",
        facts=facts,
        tables=(_segments_table(verdict),),
        charts=charts,
        notes=_uncertainty_notes(uncertain),
    )


def _interval(uncertain: CliffUncertainty | None, which: str) -> Interval | None:
    """The interval of the in-cache or post-cache speed, when it belongs to the first write's
    own figure (one write); over repeats the figures shown are the first write's."""
    if uncertain is None or uncertain.writes > 1:
        return None
    return uncertain.in_cache_interval if which == "in_cache" else uncertain.post_cache_interval


def _uncertainty_notes(uncertain: CliffUncertainty | None) -> tuple[str, ...]:
    if uncertain is None:
        return ()
    if uncertain.writes > 1:
        speeds = ", ".join(
            f"{name} {interval_words(interval, ' MB/s', digits=1, scale=1 / MB)}"
            for name, interval in (
                ("in the cache", uncertain.in_cache_interval),
                ("after it", uncertain.post_cache_interval),
            )
            if interval is not None
        )
        return (
            f"{uncertain.writes} writes of the region: the cache size above is the first "
            f"write's, its interval over the writes that showed a cliff; MB/s {speeds}",
        )
    if uncertain.draws:
        return (
            f"± and intervals: {uncertain.draws:,} moving-block bootstrap draws of the write's "
            f"own log (seed {uncertain.seed}): how clearly this write shows its cliff, not how "
            "the next write would differ (--repeat N for that)",
        )
    return ()


def _cliff_of(body: object) -> CacheCliffVerdict | None:
    """A stored cliff body as its verdict; None when the write was not run (no segments)."""
    if not isinstance(body, Mapping) or "segments" not in body:
        return None
    # total_bytes: a property; state and uncertainty: beside the verdict, not of it
    fields = {k: v for k, v in body.items() if k not in ("total_bytes", "state", "uncertainty")}
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
        writes = writes_of(results.steps)
        write_step = writes[0] if writes else None
        sections.append(_write_section(write, body, write_step, writes[1:]))
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
