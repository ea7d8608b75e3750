"""The SNIA PTS tests' round checks, verdicts and report (pts.md §2, §3, §4).

`check_pts_round` decides after each round whether a loop stops: steady state of every
tracking variable (IOPS, TP, LAT, HIR preconditioning) or WSAT's bytes-written limit.
`analyse_pts` turns the stored rounds into the spec's results — window means over the
measurement window, the conformance label with every deviation — and `build_pts_document`
lays them out as tables and charts.
"""

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from ssdlab.analysis.steady_state import SteadyStateVerdict, detect_steady_state
from ssdlab.model.profile import ProfilePlan, ProfileResults, RoundLoop, RoundVerdict
from ssdlab.model.step import StepResult
from ssdlab.report import document as doc
from ssdlab.report.profile_common import compose, fmt_count, fmt_latency_us, fmt_mbps

GB = 10**9
HIR_MIN_FILLS = 2  # [IMPL] pts.md §2.4: no steady state before 2 drive fills on a fresh drive
MIXES = (100, 95, 65, 50, 35, 5, 0)


def _number(plan: ProfilePlan, name: str) -> float | None:
    value = plan.param(name)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _whole(plan: ProfilePlan, name: str) -> int | None:
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


def _loop_results(loop: RoundLoop, steps: Sequence[StepResult]) -> list[StepResult]:
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
    results = {(s.step_key, s.round_index): s for s in _loop_results(loop, steps)}
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
        max_data_excursion_pct=_number(plan, "ss_max_data_excursion_pct") or 20.0,
        max_slope_excursion_pct=_number(plan, "ss_max_slope_excursion_pct") or 10.0,
        max_rounds=max(loop.max_rounds, window),
    )


def _finding_name(loop: RoundLoop) -> str:
    return "pts-steady-state" + (f"-{loop.name}" if loop.name else "")


def check_pts_round(
    plan: ProfilePlan, loop: RoundLoop, steps: Sequence[StepResult], round_index: int
) -> RoundVerdict:
    """After round `round_index` of `loop`: stop, and why, with every number."""
    last = round_index >= loop.max_rounds
    results = _loop_results(loop, steps)
    active = _whole(plan, "active_range_bytes")
    if plan.profile == "pts-wsat":
        written = _written_bytes(results, round_index)
        limit = _whole(plan, "stop_bytes") or 0
        fills = None if active is None else written / active
        stop = written >= limit or last
        summary = f"round {round_index}: {written / GB:.3f} GB written of {limit / GB:.3f} GB"
        counted = {"loop": loop.name, "round": round_index, "written_bytes": written,
                   "stop_bytes": limit, "drive_fills": fills, "stop": stop}  # fmt: skip
        return RoundVerdict(stop, summary, counted)
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
    rounds = sorted({s.round_index for s in _loop_results(loop, steps)})
    if not rounds:
        return range(0), None
    verdict = steady_verdict(plan, loop, steps, rounds[-1])
    window = _whole(plan, "ss_window_rounds") or 5
    if verdict is not None and verdict.measurement_window is not None:
        first, last = verdict.measurement_window
    else:
        last = rounds[-1]
        first = max(1, last - window + 1)
    return range(first, last + 1), verdict


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.fmean(known) if known else None


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
    for s in _loop_results(loop, steps):
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
            }
        )
    return rows


def _wsat_rounds(loop: RoundLoop, steps: Sequence[StepResult], active: int) -> list[dict[str, Any]]:
    written = 0
    elapsed = 0.0
    rows = []
    for s in sorted(_loop_results(loop, steps), key=lambda s: s.round_index):
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


def conformance(plan: ProfilePlan) -> dict[str, Any]:
    deviations = [d for d in str(plan.param("deviations") or "").split("\n") if d]
    version = plan.param("pts_version")
    device_class = plan.param("device_class")
    label = (
        f"conformant to SNIA PTS {version}, {device_class} class"
        if not deviations
        else "trial run, not conformant to SNIA PTS"
    )
    return {"conformant": not deviations, "label": label, "deviations": deviations,
            "pts_version": version, "device_class": device_class,
            "purge_method": plan.param("purge_method")}  # fmt: skip


def analyse_pts(
    plan: ProfilePlan,
    steps: Sequence[StepResult],
    facts: Mapping[str, Any],
    outputs: Mapping[int, str],
) -> dict[str, Any]:
    found: dict[str, Any] = {"pts-conformance": conformance(plan)}
    loops = []
    for loop in plan.loops:
        rounds, verdict = _window_rounds(plan, loop, steps)
        entry: dict[str, Any] = {
            "loop": loop.name,
            "rounds_run": max((s.round_index for s in _loop_results(loop, steps)), default=0),
            "measurement_window": [rounds.start, rounds.stop - 1] if rounds else None,
            "steady_state_reached": None if verdict is None else verdict.steady,
            "elements": element_table(loop, steps, rounds),
        }
        if verdict is not None:
            found[_finding_name(loop)] = {"loop": loop.name, **asdict(verdict)}
        if plan.profile == "pts-wsat":
            entry["wsat"] = _wsat_rounds(loop, steps, _whole(plan, "active_range_bytes") or 0)
        loops.append(entry)
    after = _after_results(plan, steps)
    results: dict[str, Any] = {"test": plan.param("test"), "loops": loops}
    if plan.profile == "pts-hir":
        results["wait_states"] = _hir_summary(after)
        results["after"] = after
    if plan.profile == "pts-xsr":
        results["access_groups"] = after
        results["recovery"] = _xsr_recovery(after)
    found["pts-results"] = results
    return found


# ------------------------------------------------------------------------------------ document


def _size_label(size: object) -> str:
    if not isinstance(size, int):
        return "?"
    return f"{size // 1024}KiB" if size % 1024 == 0 else f"{size / 1024:g}KiB"


def _setup_section(plan: ProfilePlan, label: Mapping[str, Any]) -> doc.Section:
    active = _whole(plan, "active_range_bytes") or 0
    element = _number(plan, "element_s")
    facts = (
        ("specification", f"SNIA PTS {plan.param('pts_version')}, {plan.param('device_class')}"),
        ("result", str(label["label"])),
        ("purge", f"{plan.param('purge_method')} ({plan.param('purge_reason') or 'no purge'})"),
        ("ActiveRange", f"{plan.param('active_range_pct')} % "
         f"({active / GB:.3f} GB)"),
        ("TC / QD", f"{plan.param('threads')} / {plan.param('iodepth')}"),
        ("element", "n/a" if element is None else f"{element:g} s"),
        ("write cache", f"{plan.param('write_cache')}, set by ssdlab"
         if plan.param("write_cache_step")
         else f"left as it was (the class requires it {plan.param('write_cache')})"),
        ("data pattern", "random (refill_buffers), fixed seed"),
    )  # fmt: skip
    notes = tuple(f"deviation: {d}" for d in label["deviations"])
    return doc.Section("Set-up parameters", facts=facts, notes=notes)


def _determination(verdict: SteadyStateVerdict | None, name: str) -> tuple[doc.Section, ...]:
    if verdict is None:
        return ()
    rows = []
    for check in verdict.checks:
        rows.append(
            (
                check.variable,
                f"{check.average:,.1f}",
                f"{check.data_excursion:,.1f} (≤ {check.allowed_data_excursion:,.1f})",
                f"{check.slope_excursion:,.1f} (≤ {check.allowed_slope_excursion:,.1f})",
                f"{check.slope:,.3f}·R + {check.intercept:,.1f}",
                f"{check.rounds[0]}–{check.rounds[1]}",
                "pass" if check.passes else "fail",
            )
        )
    state = (
        f"steady state in rounds {verdict.window[0]}–{verdict.window[1]}"
        if verdict.steady and verdict.window
        else f"steady state NOT achieved ({verdict.reason})"
    )
    table = doc.Table(
        f"Steady-state determination{name}: {state}",
        ("tracking variable", "average", "data excursion (allowed)",
         "slope excursion (allowed)", "fit m·R + b", "rounds", "result"),
        tuple(rows),
        notes=("data excursion = max − min ≤ 20 % of the average; slope excursion = |m| × "
               "(last − first round) ≤ 10 % of the average",),
    )  # fmt: skip
    charts = []
    for check in verdict.checks:
        xs = tuple(float(r) for r in range(check.rounds[0], check.rounds[1] + 1))
        fit = tuple(check.slope * x + check.intercept for x in xs)
        key = "pts-window-" + "".join(c if c.isalnum() else "-" for c in check.variable.lower())
        charts.append(
            doc.Chart(
                key=key + (name.replace(" ", "-").lower() if name else ""),
                title=f"Measurement window: {check.variable}",
                x_label="round",
                y_label=check.variable.split()[0],
                series=(
                    doc.Series("value", xs, check.values, "points"),
                    doc.Series("least-squares fit", xs, fit),
                ),
                markers=(
                    doc.Marker("hline", "average", y=check.average),
                    doc.Marker("hline", "110 % of average", y=check.average * 1.1),
                    doc.Marker("hline", "90 % of average", y=check.average * 0.9),
                ),
            )
        )
    return (doc.Section(f"Steady state{name}", tables=(table,), charts=tuple(charts)),)


def _convergence(
    plan: ProfilePlan, loop: RoundLoop, steps: Sequence[StepResult]
) -> doc.Chart | None:
    rounds = max((s.round_index for s in _loop_results(loop, steps)), default=0)
    series = tracking_series(loop, steps, rounds)
    if not series:
        return None
    suffix = f"-{loop.name}" if loop.name else ""
    return doc.Chart(
        key=f"pts-convergence{suffix}",
        title="Steady-state convergence: tracking variables by round",
        x_label="round",
        y_label="value",
        series=tuple(
            doc.Series(name, tuple(float(i) for i in range(1, len(v) + 1)), tuple(v), "line")
            for name, v in series.items()
        ),
    )


def _element_section(plan: ProfilePlan, entry: Mapping[str, Any]) -> doc.Section:
    elements = [e for e in entry["elements"] if e["rounds"]]
    window = entry["measurement_window"]
    where = f" (means over rounds {window[0]}–{window[1]})" if window else ""
    tables: list[doc.Table] = []
    charts: list[doc.Chart] = []
    if plan.profile == "pts-iops":
        sizes = sorted({e["block_size_bytes"] for e in elements}, reverse=True)
        mixes = [m for m in MIXES if any(e["rwmix_read_pct"] == m for e in elements)]
        cell = {(e["block_size_bytes"], e["rwmix_read_pct"]): e["iops"] for e in elements}
        tables.append(doc.Table(
            f"IOPS by block size and R/W mix{where}",
            ("block size", *(f"{m}/{100 - m}" for m in mixes)),
            tuple((_size_label(s), *(fmt_count(cell.get((s, m))) for m in mixes)) for s in sizes),
        ))  # fmt: skip
        charts.append(doc.Chart(
            key="pts-iops-2d", title="IOPS against block size, one line per R/W mix",
            x_label="block size (KiB)", y_label="IOPS", x_log=True, y_log=True,
            series=tuple(
                doc.Series(f"{m}/{100 - m}",
                           tuple(s / 1024 for s in sizes if cell.get((s, m))),
                           tuple(cell[(s, m)] for s in sizes if cell.get((s, m))), "line")
                for m in mixes
            ),
        ))  # fmt: skip
        charts.append(doc.Chart(
            key="pts-iops-map", title="IOPS by block size and R/W mix (the spec's 3D plot, "
            "as a map)",
            heat=doc.Heat("block size", "R/W mix", tuple(_size_label(z) for z in sizes),
                          tuple(f"{m}/{100 - m}" for m in mixes),
                          tuple(tuple(cell.get((z, m)) for m in mixes) for z in sizes), "IOPS"),
        ))  # fmt: skip
    elif plan.profile == "pts-tp":
        tables.append(doc.Table(
            f"Throughput {entry['loop']}{where}", ("element", "MB/s", "IOPS"),
            tuple((e["label"], fmt_mbps(e["bw_bytes_per_s"]), fmt_count(e["iops"]))
                  for e in elements),
        ))  # fmt: skip
    else:
        tables.append(doc.Table(
            f"Response times{where}",
            ("element", "mean µs", "99.999 % µs", "max µs", "IOPS"),
            tuple((e["label"], fmt_latency_us(e["lat_mean_ns"]),
                   fmt_latency_us(e["lat_99_999_ns"]), fmt_latency_us(e["lat_max_ns"]),
                   fmt_count(e["iops"])) for e in elements),
            notes=("for a mix, 99.999 % is the larger of the read and write values: an upper "
                   "bound",),
        ))  # fmt: skip
    return doc.Section(f"Results {entry['loop']}".strip(), tables=tuple(tables),
                       charts=tuple(charts))  # fmt: skip


def _wsat_section(rows: Sequence[Mapping[str, Any]]) -> doc.Section:
    iops = tuple(float(r["iops"]) for r in rows)

    def chart(key: str, title: str, x_label: str, field: str) -> doc.Chart:
        xs = tuple(float(r[field] or 0.0) for r in rows)
        return doc.Chart(key=key, title=title, x_label=x_label, y_label="IOPS",
                         series=(doc.Series("IOPS", xs, iops, "points"),))  # fmt: skip

    last = rows[-1] if rows else None
    facts = () if last is None else (
        ("rounds", str(len(rows))), ("total written", f"{last['tgbw_gb']:.3f} GB"),
        ("drive fills", "n/a" if last["drive_fills"] is None else f"{last['drive_fills']:.2f}"),
        ("last round IOPS", fmt_count(last["iops"])),
    )  # fmt: skip
    return doc.Section("Write saturation", facts=facts, charts=(
        chart("wsat-iops-time", "IOPS against time", "minutes", "elapsed_min"),
        chart("wsat-iops-tgbw", "IOPS against total GB written", "GB written", "tgbw_gb"),
        chart("wsat-iops-fills", "IOPS against drive fills", "drive fills", "drive_fills"),
    ))  # fmt: skip


def build_pts_document(results: ProfileResults) -> doc.Document:
    plan = results.plan
    found = analyse_pts(plan, results.steps, results.facts, results.outputs)
    label = found["pts-conformance"]
    data = found["pts-results"]
    sections = [_setup_section(plan, label)]
    verdict = [str(label["label"])]
    for loop, entry in zip(plan.loops, data["loops"], strict=True):
        name = f" {loop.name}" if loop.name else ""
        steady = steady_verdict(plan, loop, results.steps, entry["rounds_run"])
        determination = _determination(steady, name)
        convergence = _convergence(plan, loop, results.steps)
        if determination and convergence is not None:
            first = determination[0]
            determination = (doc.Section(first.title, tables=first.tables,
                                         charts=(convergence, *first.charts)),)  # fmt: skip
        sections.extend(determination)
        if entry["steady_state_reached"] is False:
            verdict.append(f"steady state NOT achieved{name} in {entry['rounds_run']} rounds")
        if plan.profile == "pts-wsat":
            sections.append(_wsat_section(entry["wsat"]))
        else:
            sections.append(_element_section(plan, entry))
    if plan.profile == "pts-hir":
        rows = tuple((str(s["wait_state"]), fmt_count(s["access_iops"]),
                      fmt_count(s["baseline_iops"]),
                      "n/a" if s["gain"] is None else f"{s['gain']:.2f}×")
                     for s in data["wait_states"])  # fmt: skip
        after = data["after"]
        points = doc.Series("IOPS", tuple(float(i) for i in range(len(after))),
                            tuple(float(r["iops"]) for r in after), "points")  # fmt: skip
        chart = doc.Chart(key="hir-iops-time", title="IOPS across the wait states",
                          x_label="access period", y_label="IOPS", series=(points,))  # fmt: skip
        sections.append(doc.Section("Host idle recovery", tables=(doc.Table(
            "IOPS per wait state", ("wait state", "access IOPS", "baseline IOPS", "gain"), rows),),
            charts=(chart,)))  # fmt: skip
    if plan.profile == "pts-xsr":
        recovery = data["recovery"]
        series = []
        offset = 0.0
        for row in data["access_groups"]:
            xs = tuple(offset + p[0] / 60 for p in row["series"])
            ys = tuple((p[1] or 0.0) / 1e6 for p in row["series"])
            series.append(doc.Series(f"access group {row['access_group']}", xs, ys, "line"))
            offset = xs[-1] if xs else offset
        rows = tuple((str(g["access_group"]), fmt_mbps(g["mean_bw_bytes_per_s"]),
                      fmt_mbps(g["end_bw_bytes_per_s"]), fmt_latency_us(g["peak_lat_mean_ns"]))
                     for g in recovery["groups"])  # fmt: skip
        minutes = recovery["recovery_min"]
        sections.append(doc.Section(
            "Cross stimulus recovery",
            facts=(("recovery", "not regained" if minutes is None else f"{minutes:.1f} min"),),
            tables=(doc.Table("Access groups", ("group", "mean MB/s", "end MB/s",
                                                "peak mean µs"), rows),),
            charts=(doc.Chart(key="xsr-tp-time", title="Throughput against time",
                              x_label="minutes", y_label="MB/s", series=tuple(series)),),
        ))  # fmt: skip
    title = f"SNIA PTS {plan.param('test')}".upper().replace("SNIA PTS", "SNIA PTS")
    return compose(results, title=title, verdict=verdict, sections=sections,
                   data={key: found[key] for key in found})  # fmt: skip
