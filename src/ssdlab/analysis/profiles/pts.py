"""The SNIA PTS tests' round checks and verdicts (pts.md §2, §3, §4).

`check_pts_round` decides after each round whether a loop stops: steady state of every
tracking variable (IOPS, TP, LAT, HIR preconditioning) or WSAT's bytes-written limit.
`analyse_pts` turns the stored rounds into the spec's results — window means over the
measurement window, the conformance label with every deviation.

Every window mean (IOPS, MB/s, mean latency of an element) carries Student's 95 % interval over
the rounds of the measurement window (n = its rounds, usually 5; analysis/intervals.py): how
much the rounds the spec accepted as steady still vary. The steady-state rule itself is the
spec's and deterministic (analysis/steady_state.py); its answer is stored as a state beside the
boolean: "yes" when the rule accepted a window, "no" when the loop ended without one.
"""

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from ssdlab.analysis.intervals import Basis, Interval, mean_interval, sample_of_repeats
from ssdlab.analysis.steady_state import SteadyStateVerdict, detect_steady_state
from ssdlab.analysis.verdict_state import State
from ssdlab.model.finding_names import PTS_CONFORMANCE, PTS_RESULTS, PTS_STEADY_STATE
from ssdlab.model.profile import ProfilePlan, RoundLoop, RoundVerdict, SettingValue
from ssdlab.model.step import StepResult
from ssdlab.model.units import GB, format_number

HIR_MIN_FILLS = 2  # [IMPL] pts.md §2.4: no steady state before 2 drive fills on a fresh drive


def plan_number(plan: ProfilePlan, name: str) -> float | None:
    value = plan.param(name)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def plan_whole(plan: ProfilePlan, name: str) -> int | None:
    value = plan.param(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _metric(step: StepResult, metric: str) -> float | None:
    if metric == "iops":
        return step.iops
    if metric == "bw_bytes_per_s":
        return step.bw_bytes_per_s
    if metric == "lat_mean_ns":
        return step.lat_mean_ns
    raise ValueError(f"unknown tracking metric {metric!r}")


def loop_results(loop: RoundLoop, steps: Sequence[StepResult]) -> list[StepResult]:
    keys = {s.key for s in loop.steps}
    return [s for s in steps if s.step_key in keys and not s.discarded]


def _written_bytes(results: Sequence[StepResult], upto: int | None = None) -> int:
    return sum(
        s.write.io_bytes
        for s in results
        if s.write is not None and (upto is None or s.round_index <= upto)
    )


def tracking_series(
    loop: RoundLoop, steps: Sequence[StepResult], upto: int
) -> dict[str, list[float]]:
    """Each tracking variable's value in rounds 1..upto (a round missing a value ends it)."""
    results = {(s.step_key, s.round_index): s for s in loop_results(loop, steps)}
    series: dict[str, list[float]] = {}
    for step in loop.steps:
        tracks = step.param("tracks")
        if not isinstance(tracks, str) or not tracks:
            continue
        for name in tracks.split(","):
            values: list[float] = []
            for round_index in range(1, upto + 1):
                found = results.get((step.key, round_index))
                value = None if found is None else _metric(found, name.split()[0])
                if value is None or not math.isfinite(value):
                    break
                values.append(value)
            series[name] = values
    shortest = min((len(v) for v in series.values()), default=0)
    return {name: values[:shortest] for name, values in series.items()}


def steady_verdict(
    plan: ProfilePlan, loop: RoundLoop, steps: Sequence[StepResult], upto: int
) -> SteadyStateVerdict | None:
    window = plan.param("ss_window_rounds")
    if not isinstance(window, int):
        return None
    series = tracking_series(loop, steps, upto)
    if not series:
        return None
    return detect_steady_state(
        series,
        window=window,
        max_data_excursion_pct=plan_number(plan, "ss_max_data_excursion_pct") or 20.0,
        max_slope_excursion_pct=plan_number(plan, "ss_max_slope_excursion_pct") or 10.0,
        max_rounds=max(loop.max_rounds, window),
    )


def steady_state_finding(loop: RoundLoop) -> str:
    """The name of a loop's steady-state verdict among the run's findings."""
    return PTS_STEADY_STATE + (f"-{loop.name}" if loop.name else "")


def check_pts_round(
    plan: ProfilePlan, loop: RoundLoop, steps: Sequence[StepResult], round_index: int
) -> RoundVerdict:
    """After round `round_index` of `loop`: stop, and why, with every number."""
    last = round_index >= loop.max_rounds
    results = loop_results(loop, steps)
    active = plan_whole(plan, "active_range_bytes")
    if plan.profile == "pts-wsat":
        written = _written_bytes(results, round_index)
        limit = plan_whole(plan, "stop_bytes") or 0
        fills = None if active is None else written / active
        stop = written >= limit or last
        summary = (
            f"round {round_index}: {format_number(written / GB, 'GB', 3)} written of "
            f"{format_number(limit / GB, 'GB', 3)}"
        )
        counted = {"loop": loop.name, "round": round_index, "written_bytes": written,
                   "stop_bytes": limit, "drive_fills": fills, "stop": stop}  # fmt: skip
        # the bound reached first: the bytes, or the time as its rounds
        bound = max(written / limit if limit else 0.0, round_index / loop.max_rounds)
        return RoundVerdict(stop, summary, counted, progress=min(bound, 1.0))
    verdict = steady_verdict(plan, loop, steps, round_index)
    if verdict is None:
        return RoundVerdict(last, f"round {round_index}", {"round": round_index})
    steady = verdict.steady
    body: dict[str, Any] = {"loop": loop.name, "round": round_index, **asdict(verdict)}
    if plan.profile == "pts-hir" and active is not None:
        written = _written_bytes(results, round_index)
        enough = written >= HIR_MIN_FILLS * active
        body["written_bytes"] = written
        body["min_written_bytes"] = HIR_MIN_FILLS * active
        body["mitigation"] = (
            "steady state is not accepted before 2 drive fills: a fresh drive is flat and fast "
            "before its write cliff (an implementation rule, pts.md §2.4, not spec text)"
        )
        steady = steady and enough
    body["stop"] = steady or last
    if steady and verdict.window is not None:
        summary = (
            f"round {round_index}: steady state in rounds {verdict.window[0]}–{verdict.window[1]}"
        )
    else:
        failing = [c for c in verdict.checks if not c.passes]
        why = verdict.reason or "waiting for 2 drive fills"
        if failing:
            check = failing[0]
            limits = verdict.criteria
            why = (
                f"{check.variable} range {_pct(check.data_excursion_pct)} "
                f"(≤ {limits.max_data_excursion_pct:g} %), slope "
                f"{_pct(check.slope_excursion_pct)} (≤ {limits.max_slope_excursion_pct:g} %)"
            )
        summary = f"round {round_index}: not steady: {why}"
    return RoundVerdict(steady or last, summary, body)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f} %"


# ------------------------------------------------------------------------------------ results


def _window_rounds(
    plan: ProfilePlan, loop: RoundLoop, steps: Sequence[StepResult]
) -> tuple[range, SteadyStateVerdict | None]:
    rounds = sorted({s.round_index for s in loop_results(loop, steps)})
    if not rounds:
        return range(0), None
    verdict = steady_verdict(plan, loop, steps, rounds[-1])
    window = plan_whole(plan, "ss_window_rounds") or 5
    if verdict is not None and verdict.measurement_window is not None:
        first, last = verdict.measurement_window
    else:
        last = rounds[-1]
        first = max(1, last - window + 1)
    return range(first, last + 1), verdict


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.fmean(known) if known else None


def window_interval(values: Sequence[float | None]) -> Interval | None:
    """Student's 95 % interval of a window mean over the rounds that measured the figure
    (n = those rounds, n − 1 degrees of freedom), its basis the rounds of the steady-state
    window; None with fewer than two such rounds."""
    known = [v for v in values if v is not None and math.isfinite(v)]
    if len(known) < 2:
        return None
    interval = mean_interval(sample_of_repeats(known))
    return None if interval is None else replace(interval, basis=Basis.WINDOW_ROUNDS.value)


def _interval_data(values: Sequence[float | None]) -> dict[str, Any] | None:
    interval = window_interval(values)
    return None if interval is None else asdict(interval)


def steady_state_state(verdict: SteadyStateVerdict | None) -> str | None:
    """The spec's steady-state rule as a state: yes (a window was accepted), no (the loop
    ended without one); None when the loop tracks nothing. The rule is deterministic, so it is
    never inconclusive."""
    if verdict is None:
        return None
    return (State.YES if verdict.steady else State.NO).value


def _five_nines(step: StepResult) -> float | None:
    found = [
        ns
        for d in (step.read, step.write)
        if d is not None
        for pct, ns in d.clat_percentiles_ns
        if abs(pct - 99.999) < 1e-9
    ]
    return float(max(found)) if found else None


def _max_latency(step: StepResult) -> float | None:
    found = [d.lat_max_ns for d in (step.read, step.write) if d is not None and d.lat_max_ns]
    return max(found) if found else None


def element_table(
    loop: RoundLoop, steps: Sequence[StepResult], rounds: range
) -> list[dict[str, Any]]:
    """Per element, the means over the measurement window's rounds."""
    by_key: dict[str, list[StepResult]] = {}
    for s in loop_results(loop, steps):
        if s.round_index in rounds:
            by_key.setdefault(s.step_key, []).append(s)
    rows = []
    for step in loop.steps:
        found = by_key.get(step.key, [])
        rows.append(
            {
                "key": step.key,
                "label": step.label,
                "block_size_bytes": step.param("block_size_bytes"),
                "rwmix_read_pct": step.param("rwmix_read_pct"),
                "rounds": [s.round_index for s in found],
                "iops": _mean([s.iops for s in found]),
                "bw_bytes_per_s": _mean([s.bw_bytes_per_s for s in found]),
                "lat_mean_ns": _mean([s.lat_mean_ns for s in found]),
                "lat_99_999_ns": _mean([_five_nines(s) for s in found]),
                "lat_max_ns": max((m for s in found if (m := _max_latency(s))), default=None),
                "iops_interval": _interval_data([s.iops for s in found]),
                "bw_bytes_per_s_interval": _interval_data([s.bw_bytes_per_s for s in found]),
                "lat_mean_ns_interval": _interval_data([s.lat_mean_ns for s in found]),
            }
        )
    return rows


def _wsat_rounds(loop: RoundLoop, steps: Sequence[StepResult], active: int) -> list[dict[str, Any]]:
    written = 0
    elapsed = 0.0
    rows = []
    for s in sorted(loop_results(loop, steps), key=lambda s: s.round_index):
        written += s.write.io_bytes if s.write else 0
        elapsed += s.write.runtime_s if s.write else 0.0
        rows.append(
            {
                "round": s.round_index,
                "iops": s.iops,
                "lat_mean_ns": s.lat_mean_ns,
                "lat_max_ns": _max_latency(s),
                "written_bytes": written,
                "tgbw_gb": written / GB,
                "drive_fills": written / active if active else None,
                "elapsed_min": elapsed / 60,
            }
        )
    return rows


def _after_results(plan: ProfilePlan, steps: Sequence[StepResult]) -> list[dict[str, Any]]:
    """HIR wait states and XSR access groups: one row per measured step, in run order."""
    keys = {s.key: s for s in (*plan.steps, *plan.after)}
    rows = []
    for s in sorted(steps, key=lambda s: s.round_index):
        step = keys.get(s.step_key)
        if step is None or s.discarded:
            continue
        rows.append(
            {
                "key": s.step_key,
                "wait_state": step.param("wait_state"),
                "baseline": bool(step.param("baseline")),
                "access_group": step.param("access_group"),
                "iops": s.iops,
                "bw_bytes_per_s": s.bw_bytes_per_s,
                "lat_mean_ns": s.lat_mean_ns,
                "series": [
                    (p.elapsed_s, p.bw_bytes_per_s, p.iops, p.lat_mean_ns) for p in s.series
                ],
            }
        )
    return rows


def _hir_summary(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    states: dict[int, dict[str, list[float]]] = {}
    for row in rows:
        state = row["wait_state"]
        if not isinstance(state, int):
            continue
        kind = "baseline" if row["baseline"] else "access"
        states.setdefault(state, {"access": [], "baseline": []})[kind].append(row["iops"])
    summary = []
    for state, found in sorted(states.items()):
        access = _mean(found["access"])
        baseline = _mean(found["baseline"])
        gain = None if not access or not baseline else access / baseline
        summary.append({"wait_state": state, "access_iops": access, "baseline_iops": baseline,
                        "gain": gain})  # fmt: skip
    return summary


def _xsr_recovery(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    groups = {row["access_group"]: row for row in rows if row["access_group"]}
    first, third = groups.get(1), groups.get(3)
    recovery = None
    if first is not None and third is not None:
        target = first["bw_bytes_per_s"]
        for elapsed, bw, _iops, _lat in third["series"]:
            if bw is not None and bw >= target:
                recovery = elapsed / 60
                break
    return {
        "groups": [
            {
                "access_group": g,
                "mean_bw_bytes_per_s": row["bw_bytes_per_s"],
                "end_bw_bytes_per_s": row["series"][-1][1] if row["series"] else None,
                "peak_lat_mean_ns": max(
                    (p[3] for p in row["series"] if p[3] is not None), default=None
                ),
            }
            for g, row in sorted(groups.items())
        ],
        "recovery_min": recovery,
    }


@dataclass(frozen=True, slots=True)
class PtsConformance:
    """Whether the run follows SNIA PTS, with every deviation the planner recorded."""

    conformant: bool
    label: str
    deviations: tuple[str, ...]
    pts_version: SettingValue
    device_class: SettingValue
    purge_method: SettingValue


def conformance(plan: ProfilePlan) -> PtsConformance:
    deviations = tuple(d for d in str(plan.param("deviations") or "").split("\n") if d)
    version = plan.param("pts_version")
    device_class = plan.param("device_class")
    label = (
        f"conformant to SNIA PTS {version}, {device_class} class"
        if not deviations
        else "trial run, not conformant to SNIA PTS"
    )
    return PtsConformance(
        conformant=not deviations,
        label=label,
        deviations=deviations,
        pts_version=version,
        device_class=device_class,
        purge_method=plan.param("purge_method"),
    )


def analyse_pts(
    plan: ProfilePlan,
    steps: Sequence[StepResult],
    _facts: Mapping[str, Any],
    _outputs: Mapping[int, str],
) -> dict[str, Any]:
    found: dict[str, Any] = {PTS_CONFORMANCE: conformance(plan)}
    loops = []
    for loop in plan.loops:
        rounds, verdict = _window_rounds(plan, loop, steps)
        entry: dict[str, Any] = {
            "loop": loop.name,
            "rounds_run": max((s.round_index for s in loop_results(loop, steps)), default=0),
            "measurement_window": [rounds.start, rounds.stop - 1] if rounds else None,
            "steady_state_reached": None if verdict is None else verdict.steady,
            "steady_state": steady_state_state(verdict),
            "elements": element_table(loop, steps, rounds),
        }
        if verdict is not None:
            found[steady_state_finding(loop)] = {"loop": loop.name, **asdict(verdict)}
        if plan.profile == "pts-wsat":
            entry["wsat"] = _wsat_rounds(loop, steps, plan_whole(plan, "active_range_bytes") or 0)
        loops.append(entry)
    after = _after_results(plan, steps)
    results: dict[str, Any] = {"test": plan.param("test"), "loops": loops}
    if plan.profile == "pts-hir":
        results["wait_states"] = _hir_summary(after)
        results["after"] = after
    if plan.profile == "pts-xsr":
        results["access_groups"] = after
        results["recovery"] = _xsr_recovery(after)
    found[PTS_RESULTS] = results
    return found
