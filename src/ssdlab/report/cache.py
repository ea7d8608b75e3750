"""The `cache` profile's verdict and report: the cliff(s) in a sustained write's bandwidth.

The bandwidth log becomes (bytes written so far, B/s) points: each interval's bytes are its
mean bandwidth times its length, so the x axis is what the drive had absorbed, not time.
"""

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from ssdlab.analysis.cliff import (
    CacheCliffVerdict,
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
    if step is None:
        return None
    series = bytes_series(step)
    return detect_cache_cliff(series) if series else None


def _body(verdict: CacheCliffVerdict) -> dict[str, Any]:
    body = asdict(verdict)
    body["cliff_bytes"] = None if verdict.cliff_bytes is None else round(verdict.cliff_bytes)
    body["total_bytes"] = verdict.total_bytes
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
    write = _verdict(found.get("write"))
    if write is None:
        return {CLIFF: {"cliff_bytes": None, "reason": "the write logged no bandwidth"}}
    verdicts: dict[str, Any] = {CLIFF: _body(write)}
    probe = _verdict(found.get("probe"))
    if probe is not None:
        verdicts[RECOVERY] = {
            **asdict(recovery_fraction(write, probe)),
            "idle_s": next((s.idle_s for s in plan.steps if s.key == "idle"), None),
            "probe": _body(probe),
        }
    return verdicts


def _sentences(verdict: CacheCliffVerdict) -> list[str]:
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


def build_cache_document(results: ProfileResults) -> doc.Document:
    found = _steps(results.steps)
    write = _verdict(found.get("write"))
    probe = _verdict(found.get("probe"))
    sections: list[doc.Section] = []
    verdict: list[str] = []
    data = analyse_cache(results.plan, results.steps, results.facts, results.outputs)
    if write is not None:
        verdict += _sentences(write)
        facts = (
            ("written", describe_gb(write.total_bytes or 0.0)),
            (
                "cache size",
                "no cliff" if write.cliff_bytes is None else describe_gb(write.cliff_bytes),
            ),
            ("in-cache MB/s", fmt_mbps(write.in_cache_bw_bytes_per_s)),
            ("post-cache MB/s", fmt_mbps(write.post_cache_bw_bytes_per_s)),
            ("slowest MB/s after the cliff", fmt_mbps(write.floor_bw_bytes_per_s)),
            ("sustained MB/s after the cliff", fmt_mbps(write.sustained_bw_bytes_per_s)),
        )
        sections.append(
            doc.Section(
                "Write-cache cliff",
                facts=facts,
                tables=(_segments_table(write),),
                charts=(_chart("cache-cliff", "MB/s against GB written", write),),
            )
        )
    recovery = data.get(RECOVERY)
    if probe is not None and isinstance(recovery, dict):
        fraction = recovery.get("fraction")
        line = (
            f"after {recovery.get('idle_s') or 0:g} s idle, "
            + ("the recovery could not be told" if fraction is None
               else f"{fraction * 100:.0f} % of the fast cache came back")
        )  # fmt: skip
        verdict.append(line)
        sections.append(
            doc.Section(
                "Recovery",
                facts=(("recovered", line),),
                charts=(
                    _chart("cache-recovery", "Recovery write: MB/s against GB written", probe),
                ),
                notes=tuple(recovery.get("notes") or ()),
            )
        )
    return compose(
        results, title="Write-cache cliff", verdict=verdict, sections=sections, data=data
    )
