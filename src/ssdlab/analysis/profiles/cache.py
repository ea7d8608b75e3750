"""The `cache` profile's verdicts: the cliff(s) in a sustained write's bandwidth, and how much
of the fast cache an idle pause gave back.

The bandwidth log is read as (bytes written so far, B/s) points (analysis/write_series.py).

A write too short to be cut into two levels (a fast target, a small --size) is said in words
(how long it took, how many log points it left, how many the search needs, and what to change)
in the stored finding (`reason`, `short`): a short write is never reported as "no cliff".

The cliff finding is the first write's verdict, with `state` (is there a cliff: yes, no,
inconclusive) and `uncertainty`: the 95 % intervals of the cache size and speeds, from the
write's own log, or over the writes of `--repeat N` (analysis/cliff_uncertainty.py).
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
from ssdlab.analysis.cliff_uncertainty import cliff_uncertainty
from ssdlab.analysis.write_series import bytes_series, seconds_text, write_seconds, writes_of
from ssdlab.model.finding_names import CACHE_CLIFF, CACHE_RECOVERY
from ssdlab.model.json_fields import encode
from ssdlab.model.profile import ProfilePlan
from ssdlab.model.step import StepResult
from ssdlab.model.units import format_gb

CLIFF = CACHE_CLIFF  # cachefit --from-run reads cliff_bytes from this finding
RECOVERY = CACHE_RECOVERY


def cliff_verdict(step: StepResult | None) -> CacheCliffVerdict | None:
    """The cliff verdict of a write step; a step with no log point at all is a short series."""
    return None if step is None else detect_cache_cliff(bytes_series(step))


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def too_short_sentence(
    short: ShortSeries, write_s: float | None, log_interval_s: float | None, what: str = "write"
) -> str:
    """Why a write was too short to find a cliff, in words, with what to change."""
    took = f"the {what} took {seconds_text(write_s)}" if write_s is not None else f"the {what}"
    points = "no log point" if short.points == 0 else _plural(short.points, "log point")
    every = "" if log_interval_s is None else f" (one every {log_interval_s:g} s)"
    if short.points >= short.points_needed and short.bytes_needed is not None:
        had = (
            f"{format_gb(short.written_bytes)} written, less than the "
            f"{format_gb(short.bytes_needed)} the cliff detection needs"
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


def measured_steps(steps: Sequence[StepResult]) -> dict[str, StepResult]:
    """The steps that are results (not preparation), by step key (of a repeated write, the
    first)."""
    found: dict[str, StepResult] = {}
    for step in sorted(steps, key=lambda s: s.round_index):
        if not step.discarded:
            found.setdefault(step.step_key, step)
    return found


def analyse_cache(
    plan: ProfilePlan,
    steps: Sequence[StepResult],
    _facts: Mapping[str, Any],
    _outputs: Mapping[int, str],
) -> dict[str, Any]:
    found = measured_steps(steps)
    write_step = found.get("write")
    write = cliff_verdict(write_step)
    if write is None or write_step is None:
        return {CLIFF: {"cliff_bytes": None, "reason": "the write was not run"}}
    writes = writes_of(steps)
    every = [v for v in (cliff_verdict(w) for w in writes) if v is not None]
    uncertainty = cliff_uncertainty(every or [write])
    verdicts: dict[str, Any] = {
        CLIFF: {
            **_body(write, write_step, plan),
            "state": uncertainty.state,
            "uncertainty": encode(uncertainty),
        }
    }
    probe_step = found.get("probe")
    probe = cliff_verdict(probe_step)
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
