"""The `cache` profile's verdict and report: the cliff(s) in a sustained write's bandwidth.

The bandwidth log becomes (bytes written so far, B/s) points: each interval's bytes are its
mean bandwidth times its length, so the x axis is what the drive had absorbed, not time.

A write too short to be cut into two levels (a fast target, a small --size) is said in words
(how long it took, how many log points it left, how many the search needs, and what to change),
in the verdict, the stored finding (`reason`, `short`) and the report's cache section: a short
write is never reported as "no cliff".
"""

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from ssdlab.analysis.cliff import (
    CacheCliffVerdict,
    ShortSeries,
    detect_cache_cliff,
    recovery_fraction,
)
from ssdlab.analysis.waf import describe_gb
from ssdlab.model.profile import ProfilePlan, ProfileResults
from ssdlab.model.step import StepResult
from ssdlab.report import document as doc
from ssdlab.report.profile_common import compose, fmt_mbps

CLIFF = "cache-cliff"  # cachefit --from-run reads cliff_bytes from this finding
RECOVERY = "cache-recovery"
MB = 10**6
GB = 10**9


def bytes_series(step: StepResult) -> tuple[tuple[float, float], ...]:
    """(cumulative bytes, B/s) per log interval of a write step."""
    points: list[tuple[float, float]] = []
    written = 0.0
    previous = 0.0
    for point in step.series:
        if point.direction != "write" or point.bw_bytes_per_s is None:
            continue
        written += point.bw_bytes_per_s * max(point.elapsed_s - previous, 0.0)
        previous = point.elapsed_s
        points.append((written, point.bw_bytes_per_s))
    return tuple(points)


def _verdict(step: StepResult | None) -> CacheCliffVerdict | None:
    """The cliff verdict of a write step; a step with no log point at all is a short series."""
    return None if step is None else detect_cache_cliff(bytes_series(step))


def write_seconds(step: StepResult) -> float | None:
    """How long fio wrote: its runtime, else the end of the last logged interval."""
    if step.write is not None and step.write.runtime_s > 0:
        return step.write.runtime_s
    ends = [p.elapsed_s for p in step.series if p.direction == "write"]
    return max(ends) if ends else None


def _seconds(value: float) -> str:
    return f"{value:.2g} s" if value < 10 else f"{value:,.0f} s"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def too_short_sentence(
    short: ShortSeries, write_s: float | None, log_interval_s: float | None, what: str = "write"
) -> str:
    """Why a write was too short to find a cliff, in words, with what to change."""
    took = f"the {what} took {_seconds(write_s)}" if write_s is not None else f"the {what}"
    points = "no log point" if short.points == 0 else _plural(short.points, "log point")
    every = "" if log_interval_s is None else f" (one every {log_interval_s:g} s)"
    if short.points >= short.points_needed and short.bytes_needed is not None:
        had = (
            f"{describe_gb(short.written_bytes)} written, less than the "
            f"{describe_gb(short.bytes_needed)} the cliff detection needs"
        )
    else:
        had = f"{points}{every}, fewer than the {short.points_needed} the cliff detection needs"
    advice = "write more (--size), log more often (--log-interval) or cap the speed (--rate)"
    if log_interval_s is not None:
        # one more interval than the points needed: fio may drop the last partial one
        advice += f" so that it lasts at least {(short.points_needed + 1) * log_interval_s:g} s"
    return (
        f"{took} — {had}: too short to tell whether the speed falls, so nothing is known "
        f"about the cache; {advice}"
    )


def _log_interval_s(plan: ProfilePlan, key: str) -> float | None:
    for step in plan.steps:
        if step.key == key and step.log_interval_ms is not None:
            return step.log_interval_ms / 1000
    return None


def _body(
    verdict: CacheCliffVerdict, step: StepResult, plan: ProfilePlan, what: str = "write"
) -> dict[str, Any]:
    body = asdict(verdict)
    body["cliff_bytes"] = None if verdict.cliff_bytes is None else round(verdict.cliff_bytes)
    body["total_bytes"] = verdict.total_bytes
    if verdict.short is not None:
        write_s = write_seconds(step)
        interval_s = _log_interval_s(plan, step.step_key)
        body["reason"] = too_short_sentence(verdict.short, write_s, interval_s, what)
        body["short"] = {
            **asdict(verdict.short),
            "write_s": write_s,
            "log_interval_s": interval_s,
            "analysis_reason": verdict.reason,
        }
    return body


def _steps(steps: Sequence[StepResult]) -> dict[str, StepResult]:
    return {s.step_key: s for s in steps if not s.discarded}


def analyse_cache(
    plan: ProfilePlan,
    steps: Sequence[StepResult],
    facts: Mapping[str, Any],
    outputs: Mapping[int, str],
) -> dict[str, Any]:
    found = _steps(steps)
    write_step = found.get("write")
    write = _verdict(write_step)
    if write is None or write_step is None:
        return {CLIFF: {"cliff_bytes": None, "reason": "the write was not run"}}
    verdicts: dict[str, Any] = {CLIFF: _body(write, write_step, plan)}
    probe_step = found.get("probe")
    probe = _verdict(probe_step)
    if probe is not None and probe_step is not None:
        probe_body = _body(probe, probe_step, plan, "recovery write")
        recovery = asdict(recovery_fraction(write, probe))
        if write.short is None and probe.short is not None and recovery["reason"] is not None:
            recovery["reason"] = probe_body["reason"]
        verdicts[RECOVERY] = {
            **recovery,
            "idle_s": next((s.idle_s for s in plan.steps if s.key == "idle"), None),
            "probe": probe_body,
        }
    return verdicts


def _sentences(verdict: CacheCliffVerdict, body: Mapping[str, Any]) -> list[str]:
    if verdict.short is not None:
        return [str(body.get("reason") or verdict.reason)]
    if verdict.cliff_bytes is None:
        total = verdict.total_bytes or 0.0
        return [
            f"no cliff in {describe_gb(total)} written: the speed stayed within "
            f"{verdict.criteria.min_drop_pct:g} % ({verdict.reason}); the cache is larger than "
            "the write, or there is none"
        ]
    lines = [
        f"write cache ≈ {describe_gb(verdict.cliff_bytes)}: "
        f"{fmt_mbps(verdict.in_cache_bw_bytes_per_s)} MB/s in the cache, "
        f"{fmt_mbps(verdict.post_cache_bw_bytes_per_s)} MB/s after it "
        f"({verdict.drop_pct or 0:.0f} % slower)"
    ]
    later = [s for s in verdict.segments[(verdict.cliff_segment or 0) + 1 :] if s.step]
    for segment in later:
        lines.append(
            f"a further step at {describe_gb(segment.start_bytes)}: "
            f"{fmt_mbps(segment.median_bw_bytes_per_s)} MB/s"
        )
    return lines


def _chart(key: str, title: str, verdict: CacheCliffVerdict) -> doc.Chart:
    xs = tuple(b / GB for b, _ in verdict.series)
    ys = tuple(bw / MB for _, bw in verdict.series)
    levels = tuple(
        doc.Series(
            f"segment {i + 1}: {fmt_mbps(s.median_bw_bytes_per_s)} MB/s",
            (s.start_bytes / GB, s.end_bytes / GB),
            (s.median_bw_bytes_per_s / MB,) * 2,
            "line",
        )
        for i, s in enumerate(verdict.segments)
    )
    markers: tuple[doc.Marker, ...] = ()
    if verdict.cliff_bytes is not None:
        markers = (
            doc.Marker(
                "vline", f"cliff {describe_gb(verdict.cliff_bytes)}", x=verdict.cliff_bytes / GB
            ),
        )
    return doc.Chart(
        key=key,
        title=title,
        x_label="GB written",
        y_label="MB/s",
        series=(doc.Series("MB/s per interval", xs, ys, "points"), *levels),
        markers=markers,
    )


def _segments_table(verdict: CacheCliffVerdict) -> doc.Table:
    rows = tuple(
        (
            str(i + 1),
            describe_gb(s.start_bytes),
            describe_gb(s.end_bytes),
            fmt_mbps(s.median_bw_bytes_per_s),
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
            f"more over at least {verdict.criteria.min_segment_points} points "
            f"({verdict.criteria.method})",
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
    written = ("written", describe_gb(logged or 0.0))
    charts = _charts("cache-cliff", "MB/s against GB written", verdict)
    if verdict.short is not None:
        short = body.get("short") or {}
        write_s = short.get("write_s")
        facts: tuple[tuple[str, str], ...] = (
            written,
            ("write time", "n/a" if write_s is None else _seconds(write_s)),
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
            "no cliff" if verdict.cliff_bytes is None else describe_gb(verdict.cliff_bytes),
        ),
        ("in-cache MB/s", fmt_mbps(verdict.in_cache_bw_bytes_per_s)),
        ("post-cache MB/s", fmt_mbps(verdict.post_cache_bw_bytes_per_s)),
        ("slowest MB/s after the cliff", fmt_mbps(verdict.floor_bw_bytes_per_s)),
        ("sustained MB/s after the cliff", fmt_mbps(verdict.sustained_bw_bytes_per_s)),
    )
    return doc.Section(
        "Write-cache cliff", facts=facts, tables=(_segments_table(verdict),), charts=charts
    )


def build_cache_document(results: ProfileResults) -> doc.Document:
    found = _steps(results.steps)
    write = _verdict(found.get("write"))
    probe = _verdict(found.get("probe"))
    sections: list[doc.Section] = []
    verdict: list[str] = []
    data = analyse_cache(results.plan, results.steps, results.facts, results.outputs)
    if write is not None:
        body = data[CLIFF]
        verdict += _sentences(write, body)
        sections.append(_write_section(write, body, found.get("write")))
    recovery = data.get(RECOVERY)
    if probe is not None and isinstance(recovery, dict):
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
                charts=_charts("cache-recovery", "Recovery write: MB/s against GB written", probe),
                notes=notes,
            )
        )
    return compose(
        results, title="Write-cache cliff", verdict=verdict, sections=sections, data=data
    )
