"""The SNIA PTS tests' report (pts.md §4): `build_pts_document` lays the stored verdicts of
analysis/profiles/pts.py out as tables and charts, with each round loop's steady-state
determination and its tracking variables by round."""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ssdlab.analysis.steady_state import SteadyStateVerdict
from ssdlab.analysis.step_tails import window_tails
from ssdlab.analysis.tail_intervals import TailEstimate
from ssdlab.model.finding_names import PTS_CONFORMANCE, PTS_RESULTS, PTS_STEADY_STATE
from ssdlab.model.profile import ProfilePlan, ProfileResults, RoundLoop
from ssdlab.model.step import StepResult
from ssdlab.model.units import (
    GB,
    format_count,
    format_latency_us,
    format_mb_per_s,
    format_number,
    format_size,
)
from ssdlab.report import document as doc
from ssdlab.report.interval_text import interval_of, plus_minus
from ssdlab.report.method_notes import STEADY_STATE_METHOD, method_note
from ssdlab.report.profile_common import compose, visible_series, zero_or_log
from ssdlab.report.tail_text import passes_data, tail_cell_in

MIXES = (100, 95, 65, 50, 35, 5, 0)  # the R/W mixes in the spec's order
LAT_TAILS = (99.0, 99.9, 99.99, 99.999)  # PTS LAT's percentiles from p99 up (plan/pts.py)
LAT_TAIL_NOTE = (
    "p99 and up: the mean over the window's rounds, its 95 % interval from fio's percentile "
    "tables (each round's interval from the values fio lists at the percentiles bracketing the "
    "order statistics' ranks of that round's total_ios, and the window's from the lowest to the "
    "highest of them; '?' where a table lists none, as for 99.999 %'s upper end) and the I/Os "
    "above it of the window's I/Os; 'needs ≥ N I/Os' where a round had too few I/Os to bound "
    "the percentile; for a mix, each round's slower direction"
)
WINDOW_INTERVAL_NOTE = (
    "±: half the 95 % interval of the window mean, relative to it: Student's t over the "
    "rounds of the steady-state window (n = its rounds, n − 1 degrees of freedom); it says how "
    "much the window's rounds still vary"
)
# a tracking variable's metric (its name's first word) as an axis: quantity, unit, scale
METRIC_AXES = {
    "iops": ("I/O rate", "IOPS", 1.0),
    "bw_bytes_per_s": ("throughput", "MB/s", 1e-6),
    "lat_mean_ns": ("mean latency", "µs", 1e-3),
}


@dataclass(frozen=True, slots=True)
class LoopRounds:
    """A round loop as its report shows it: the steady-state verdict over its rounds (None when
    the loop tracks nothing) and each tracking variable's value by round."""

    steady: SteadyStateVerdict | None
    tracking: Mapping[str, Sequence[float]]


def _param_number(plan: ProfilePlan, name: str) -> float | None:
    value = plan.param(name)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _size_label(size: object) -> str:
    if not isinstance(size, int):
        return "?"
    return format_size(size)


def _setup_section(plan: ProfilePlan, label: Mapping[str, Any]) -> doc.Section:
    active = plan.param("active_range_bytes")
    active = active if isinstance(active, int) and not isinstance(active, bool) else 0
    element = _param_number(plan, "element_s")
    facts = (
        ("specification", f"SNIA PTS {plan.param('pts_version')}, {plan.param('device_class')}"),
        ("result", str(label["label"])),
        ("purge", f"{plan.param('purge_method')} ({plan.param('purge_reason') or 'no purge'})"),
        ("ActiveRange", f"{plan.param('active_range_pct')} % "
         f"({format_number(active / GB, 'GB', 3)})"),
        ("TC / QD", f"{plan.param('threads')} / {plan.param('iodepth')}"),
        ("element", "n/a" if element is None else f"{element:g} s"),
        ("write cache", f"{plan.param('write_cache')}, set by ssdlab"
         if plan.param("write_cache_step")
         else f"left as it was (the class requires it {plan.param('write_cache')})"),
        ("data pattern", "random (refill_buffers), fixed seed"),
    )  # fmt: skip
    notes = tuple(f"deviation: {d}" for d in label["deviations"])
    return doc.Section("Set-up parameters", facts=facts, notes=notes)


def _tracking_unit(variable: str) -> tuple[float, str]:
    """(divisor, unit) a tracking variable is shown in: bytes/s as MB/s, ns as µs."""
    if variable.startswith("bw_bytes_per_s"):
        return 1e6, "MB/s"
    if variable.split()[0].endswith("_ns"):
        return 1e3, "µs"
    return 1.0, "IOPS" if variable.startswith("iops") else ""


def _determination(verdict: SteadyStateVerdict | None, name: str) -> tuple[doc.Section, ...]:
    if verdict is None:
        return ()
    rows = []
    for check in verdict.checks:
        scale, unit = _tracking_unit(check.variable)
        rows.append(
            (
                check.variable,
                f"{check.average / scale:,.1f} {unit}",
                f"{check.data_excursion / scale:,.1f} "
                f"(≤ {check.allowed_data_excursion / scale:,.1f})",
                f"{check.slope_excursion / scale:,.1f} "
                f"(≤ {check.allowed_slope_excursion / scale:,.1f})",
                f"{check.slope / scale:,.3f}·R + {check.intercept / scale:,.1f}",
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
        notes=("data excursion: highest − lowest of the window; slope excursion: how far the "
               "fitted line rises or falls across it", method_note(STEADY_STATE_METHOD)),
    )  # fmt: skip
    charts = []
    for check in verdict.checks:
        quantity, unit, scale = _metric_axis(check.variable)
        xs = tuple(float(r) for r in range(check.rounds[0], check.rounds[1] + 1))
        fit = tuple((check.slope * x + check.intercept) * scale for x in xs)
        key = "pts-window-" + "".join(c if c.isalnum() else "-" for c in check.variable.lower())
        average = check.average * scale
        values = (*(v * scale for v in check.values), average * 1.1)
        y_log, y_zero = zero_or_log(values)
        charts.append(
            doc.Chart(
                key=key + (name.replace(" ", "-").lower() if name else ""),
                title=f"Measurement window: {quantity}, {_element_name(check.variable)}",
                x_label="round",
                x_ticks=_round_ticks(xs),
                y_label=quantity,
                y_unit=unit,
                y_log=y_log,
                y_zero=y_zero and unit != "µs",
                series=(
                    visible_series("value", xs, tuple(v * scale for v in check.values), "points"),
                    visible_series("least-squares fit", xs, fit),
                ),
                markers=(
                    doc.Marker("hline", "average", y=average),
                    doc.Marker("hline", "±10 % of average", y=average * 1.1),
                    doc.Marker("hline", "±10 % of average", y=average * 0.9),
                ),
            )
        )
    return (doc.Section(f"Steady state{name}", tables=(table,), charts=tuple(charts)),)


def _element_name(variable: str) -> str:
    """'0/100 4KiB' of the tracking variable 'iops 0/100 4KiB': its mix and block size."""
    return " ".join(variable.split()[1:]) or variable


def _round_ticks(rounds: Sequence[float]) -> tuple[tuple[float, str], ...]:
    """Round numbers as the x axis' ticks: whole rounds only, never 2.4."""
    return tuple((r, f"{r:g}") for r in rounds)


def _metric_axis(variable: str) -> tuple[str, str, float]:
    """(quantity, unit, scale) of a tracking variable named '<metric> <mix> <size>'."""
    return METRIC_AXES.get(variable.split()[0], ("value", "as measured", 1.0))


def _convergence(loop: RoundLoop, series: Mapping[str, Sequence[float]]) -> tuple[doc.Chart, ...]:
    """The tracking variables by round: one chart per metric (IOPS, MB/s and µs never share
    an axis), its series named by mix and block size."""
    suffix = f"-{loop.name}" if loop.name else ""
    metrics = list(dict.fromkeys(name.split()[0] for name in series))
    charts = []
    for metric in metrics:
        quantity, unit, scale = _metric_axis(metric)
        lines = [
            visible_series(_element_name(name),
                           tuple(float(i) for i in range(1, len(v) + 1)),
                           tuple(x * scale for x in v))
            for name, v in series.items()
            if name.split()[0] == metric and v
        ]  # fmt: skip
        for part, group in enumerate(doc.series_groups(lines)):
            rounds = max((s.xs for s in group), key=len)
            y_log, y_zero = zero_or_log(y for s in group for y in s.ys)
            key = "pts-convergence" + (f"-{metric.split('_')[0]}" if len(metrics) > 1 else "")
            charts.append(doc.Chart(
                key=key + suffix + (f"-{part + 1}" if part else ""),
                title=f"Steady-state convergence: {quantity} by round",
                x_label="round", x_ticks=_round_ticks(rounds), y_label=quantity,
                y_unit=unit, y_log=y_log,
                y_zero=y_zero and unit != "µs", series=group,
            ))  # fmt: skip
    return tuple(charts)


def _iops_by_size(
    sizes: Sequence[int],
    mixes: Sequence[int],
    cell: Mapping[tuple[int, int], float],
    errors: Mapping[tuple[int, int], tuple[float, float]],
) -> doc.Chart:
    """IOPS against block size, one line per R/W mix, the block sizes as ticks from the
    smallest (the spec's sizes, named as people write them: 512 B, 4 KiB … 1 MiB); each
    window mean with a bar from its slowest to its fastest round."""
    ordered = sorted(sizes)
    series = []
    for m in mixes:
        shown = [(float(i), s) for i, s in enumerate(ordered) if cell.get((s, m))]
        if shown:
            spread = [errors.get((s, m)) for _, s in shown]
            series.append(visible_series(
                f"{m}/{100 - m}", tuple(x for x, _ in shown),
                tuple(cell[(s, m)] for _, s in shown),
                errors=() if None in spread else tuple(e for e in spread if e is not None),
            ))  # fmt: skip
    y_log, y_zero = zero_or_log(y for s in series for y in s.ys)
    return doc.Chart(
        key="pts-iops-2d", title="IOPS against block size, one line per R/W mix",
        x_label="block size", y_label="I/O rate", y_unit="IOPS", y_log=y_log, y_zero=y_zero,
        x_ticks=tuple((float(i), _size_label(s)) for i, s in enumerate(ordered)),
        series=tuple(series),
    )  # fmt: skip


def _round_spread(
    elements: Sequence[Mapping[str, Any]], steps: Sequence[StepResult]
) -> dict[str, tuple[float, float]]:
    """Each element's (lowest, highest) IOPS over the rounds its mean is taken from."""
    spread = {}
    for element in elements:
        rounds = set(element["rounds"])
        values = [
            s.iops
            for s in steps
            if s.step_key == element["key"] and s.round_index in rounds and not s.discarded
        ]
        if values:
            spread[element["key"]] = (min(values), max(values))
    return spread  # fmt: skip


def _window_cell(
    element: Mapping[str, Any], field: str, shown: Callable[[float | None], str]
) -> str:
    """A window mean with ± half its interval over the window's rounds; the mean alone when
    the stored result has no interval (stored before ssdlab gave them, or one round)."""
    value = element.get(field)
    if value is None:
        return shown(None)
    return plus_minus(value, interval_of(element.get(f"{field}_interval")), shown)


def _interval_notes(elements: Sequence[Mapping[str, Any]], *fields: str) -> tuple[str, ...]:
    """The ± note, when any of the table's figures carries an interval."""
    given = any(e.get(f"{field}_interval") for e in elements for field in fields)
    return (WINDOW_INTERVAL_NOTE,) if given else ()


def steady_state_line(entry: Mapping[str, Any], name: str = "") -> str | None:
    """'Steady state: yes — rounds 3–7', or 'no — …' with the rounds the results are taken
    from; None when the loop tracks nothing. Results stored before the state was stored are
    read from their boolean, the same rule's answer."""
    state = entry.get("steady_state")
    if state is None:
        reached = entry.get("steady_state_reached")
        state = None if reached is None else ("yes" if reached else "no")
    if state is None:
        return None
    window = entry.get("measurement_window")
    rounds = f"rounds {window[0]}–{window[1]}" if window else None
    if state == "yes":
        return f"Steady state{name}: yes — {rounds or 'window not stored'}"
    run = f"not reached in {entry['rounds_run']} rounds"
    where = f"; results are the means of {rounds}" if rounds else ""
    return f"Steady state{name}: {state} — {run}{where}"


def _element_section(
    plan: ProfilePlan, entry: Mapping[str, Any], steps: Sequence[StepResult]
) -> doc.Section:
    elements = [e for e in entry["elements"] if e["rounds"]]
    window = entry["measurement_window"]
    where = f" (means over rounds {window[0]}–{window[1]})" if window else ""
    tables: list[doc.Table] = []
    charts: list[doc.Chart] = []
    if plan.profile == "pts-iops":
        sizes = sorted({e["block_size_bytes"] for e in elements}, reverse=True)
        mixes = [m for m in MIXES if any(e["rwmix_read_pct"] == m for e in elements)]
        cell = {(e["block_size_bytes"], e["rwmix_read_pct"]): e["iops"] for e in elements}
        shown = {(e["block_size_bytes"], e["rwmix_read_pct"]): _window_cell(e, "iops", format_count)
                 for e in elements}  # fmt: skip
        tables.append(doc.Table(
            f"IOPS by block size and R/W mix{where}",
            ("block size", *(f"{m}/{100 - m}" for m in mixes)),
            tuple((_size_label(s), *(shown.get((s, m), format_count(None)) for m in mixes))
                  for s in sizes),
            notes=_interval_notes(elements, "iops"),
        ))  # fmt: skip
        spread = _round_spread(elements, steps)
        errors = {(e["block_size_bytes"], e["rwmix_read_pct"]): spread[e["key"]]
                  for e in elements if e["key"] in spread}  # fmt: skip
        charts.append(_iops_by_size(sizes, mixes, cell, errors))
        charts.append(doc.Chart(
            key="pts-iops-map", title="IOPS by block size and R/W mix (the spec's 3D plot, "
            "as a map)",
            heat=doc.Heat("block size", "R/W mix", tuple(_size_label(z) for z in sizes),
                          tuple(f"{m}/{100 - m}" for m in mixes),
                          tuple(tuple(cell.get((z, m)) for m in mixes) for z in sizes),
                          "I/O rate", "IOPS"),
        ))  # fmt: skip
    elif plan.profile == "pts-tp":
        tables.append(doc.Table(
            f"Throughput {entry['loop']}{where}", ("element", "MB/s", "IOPS"),
            tuple((e["label"], _window_cell(e, "bw_bytes_per_s", format_mb_per_s),
                   _window_cell(e, "iops", format_count)) for e in elements),
            notes=_interval_notes(elements, "bw_bytes_per_s", "iops"),
        ))  # fmt: skip
    else:
        tails = {e["key"]: _element_tails(e, steps) for e in elements}

        def tail(e: Mapping[str, Any], pct: float, value: float | None = None) -> str:
            found = tails[e["key"]].get(pct)
            return tail_cell_in(None if found is None else found[0], value, format_latency_us)

        tables.append(doc.Table(
            f"Response times{where}",
            ("element", "mean µs", "99.999 % µs", "max µs", "IOPS"),
            tuple((e["label"], _window_cell(e, "lat_mean_ns", format_latency_us),
                   tail(e, 99.999, e["lat_99_999_ns"]), format_latency_us(e["lat_max_ns"]),
                   _window_cell(e, "iops", format_count)) for e in elements),
            notes=("for a mix, 99.999 % is the larger of the read and write values: an upper "
                   "bound", *((LAT_TAIL_NOTE,) if any(tails.values()) else ()),
                   *_interval_notes(elements, "lat_mean_ns", "iops")),
        ))  # fmt: skip
        if any(tails.values()):
            tables.append(doc.Table(
                f"Latency tails by block size and R/W mix{where}",
                ("element", *(f"p{p:g} µs" for p in LAT_TAILS[:-1])),
                tuple((e["label"], *(tail(e, p) for p in LAT_TAILS[:-1])) for e in elements),
            ))  # fmt: skip
    return doc.Section(f"Results {entry['loop']}".strip(), tables=tuple(tables),
                       charts=tuple(charts))  # fmt: skip


def _element_passes(element: Mapping[str, Any], steps: Sequence[StepResult]) -> list[StepResult]:
    """The element's measured rounds in the measurement window, in round order."""
    rounds = set(element["rounds"])
    found = [
        s
        for s in steps
        if s.step_key == element["key"] and s.round_index in rounds and not s.discarded
    ]
    return sorted(found, key=lambda s: s.round_index)


def _element_tails(
    element: Mapping[str, Any], steps: Sequence[StepResult]
) -> dict[float, tuple[TailEstimate, tuple[TailEstimate, ...]]]:
    """An element's tails over its window's rounds, from fio's tables (none: no total_ios)."""
    return window_tails(_element_passes(element, steps), LAT_TAILS)


def latency_tails_data(entry: Mapping[str, Any], steps: Sequence[StepResult]) -> dict[str, Any]:
    """PTS LAT's tails as JSON, per element key and percentile: n (the window's I/Os), the I/Os
    above, the interval or the I/Os needed, and under `passes` each round's own."""
    found: dict[str, Any] = {}
    for element in entry["elements"]:
        if not element["rounds"]:
            continue
        rounds = [s.round_index for s in _element_passes(element, steps)]
        tails = _element_tails(element, steps)
        if tails:
            found[element["key"]] = {
                f"{pct:g}": passes_data(together, each, rounds)
                for pct, (together, each) in tails.items()
            }
    return found


def _wsat_section(rows: Sequence[Mapping[str, Any]]) -> doc.Section:
    """IOPS by round against time, data written and drive fills; a short trial's time in
    seconds and its data in MB, so its axis does not read 0."""
    minutes = max((float(r["elapsed_min"] or 0.0) for r in rows), default=0.0)
    time_unit, per_unit_s = _time_unit(minutes * 60)
    written_gb = max((float(r["tgbw_gb"] or 0.0) for r in rows), default=0.0)
    size_unit, per_gb = ("GB", 1.0) if written_gb >= 1 else ("MB", 1000.0)

    def chart(
        key: str, title: str, x_label: str, x_unit: str, field: str, scale: float = 1.0
    ) -> doc.Chart | None:
        points = [(float(r[field]) * scale, float(r["iops"])) for r in rows
                  if r[field] is not None]  # fmt: skip
        if not points:
            return None
        ys = tuple(y for _, y in points)
        y_log, y_zero = zero_or_log(ys)
        return doc.Chart(key=key, title=title, x_label=x_label, x_unit=x_unit,
                         y_label="I/O rate", y_unit="IOPS", y_log=y_log, y_zero=y_zero,
                         series=(doc.Series("IOPS", tuple(x for x, _ in points), ys,
                                            "points"),))  # fmt: skip

    last = rows[-1] if rows else None
    facts = () if last is None else (
        ("rounds", str(len(rows))), ("total written", f"{last['tgbw_gb']:,.3f} GB"),
        ("drive fills", "n/a" if last["drive_fills"] is None else f"{last['drive_fills']:.2f}"),
        ("last round IOPS", format_count(last["iops"])),
    )  # fmt: skip
    charts = (
        chart("wsat-iops-time", "IOPS against time", "time", time_unit, "elapsed_min",
              60 / per_unit_s),
        chart("wsat-iops-tgbw", "IOPS against total data written", "data written", size_unit,
              "tgbw_gb", per_gb),
        chart("wsat-iops-fills", "IOPS against drive fills", "capacity written", "drive fills",
              "drive_fills"),
    )  # fmt: skip
    return doc.Section("Write saturation", facts=facts,
                       charts=tuple(c for c in charts if c is not None))  # fmt: skip


def _time_unit(longest_s: float) -> tuple[str, float]:
    """(unit, seconds per unit) of a time axis: minutes from 2 min, else seconds (a trial's
    minutes would tick 0.004, 0.005 …)."""
    return ("min", 60.0) if longest_s >= 120 else ("s", 1.0)


def _xsr_chart(groups: Sequence[Mapping[str, Any]]) -> doc.Chart | None:
    """MB/s of the access groups end to end over time, one colour per group."""
    logged: list[tuple[str, list[tuple[float, float]]]] = []
    offset_s = 0.0
    for row in groups:
        points = [(offset_s + p[0], p[1] / 1e6) for p in row["series"] if p[1] is not None]
        if points:
            logged.append((f"access group {row['access_group']}", points))
        offset_s = offset_s + row["series"][-1][0] if row["series"] else offset_s
    if not logged:
        return None
    unit, per_unit = _time_unit(offset_s)
    series = tuple(
        visible_series(label, tuple(x / per_unit for x, _ in points), tuple(y for _, y in points))
        for label, points in logged
    )
    y_log, y_zero = zero_or_log(y for s in series for y in s.ys)
    return doc.Chart(key="xsr-tp-time", title="Throughput against time", x_label="time",
                     x_unit=unit, y_label="throughput", y_unit="MB/s", y_log=y_log,
                     y_zero=y_zero, series=series)  # fmt: skip


TICKED_PERIODS = 30  # up to this many access periods, each gets a tick of its own


def _hir_chart(after: Sequence[Mapping[str, Any]]) -> doc.Chart:
    """IOPS of each access period in run order, the baseline periods in a colour of their
    own; a short trial's periods ticked one by one."""
    periods = [(float(i), r) for i, r in enumerate(after, start=1)]
    series = tuple(
        doc.Series(label, tuple(x for x, _ in chosen), tuple(float(r["iops"]) for _, r in chosen),
                   "points")
        for label, baseline in (("after a wait state", False), ("baseline", True))
        if (chosen := [(x, r) for x, r in periods if bool(r["baseline"]) is baseline])
    )  # fmt: skip
    y_log, y_zero = zero_or_log(y for s in series for y in s.ys)
    ticked = len(periods) <= TICKED_PERIODS
    return doc.Chart(key="hir-iops-time", title="IOPS across the wait states",
                     x_label="access period", x_unit="" if ticked else "#",
                     x_ticks=_round_ticks([x for x, _ in periods]) if ticked else (),
                     y_label="I/O rate", y_unit="IOPS", y_log=y_log, y_zero=y_zero,
                     series=series)  # fmt: skip


def build_pts_document(results: ProfileResults, loop_rounds: Sequence[LoopRounds]) -> doc.Document:
    """The document of a PTS run from its stored verdicts; `loop_rounds`: one per round loop."""
    plan = results.plan
    found = {
        name: body
        for name, body in results.findings.items()
        if name in (PTS_CONFORMANCE, PTS_RESULTS) or name.startswith(PTS_STEADY_STATE)
    }
    label = found[PTS_CONFORMANCE]
    data = found[PTS_RESULTS]
    sections = [_setup_section(plan, label)]
    verdict = [str(label["label"])]
    for loop, entry, rounds in zip(plan.loops, data["loops"], loop_rounds, strict=True):
        name = f" {loop.name}" if loop.name else ""
        determination = _determination(rounds.steady, name)
        convergence = _convergence(loop, rounds.tracking) if rounds.tracking else ()
        if determination and convergence:
            first = determination[0]
            determination = (doc.Section(first.title, tables=first.tables,
                                         charts=(*convergence, *first.charts)),)  # fmt: skip
        sections.extend(determination)
        if (line := steady_state_line(entry, name)) is not None:
            verdict.append(line)
        if plan.profile == "pts-wsat":
            sections.append(_wsat_section(entry["wsat"]))
        else:
            sections.append(_element_section(plan, entry, results.steps))
    if plan.profile == "pts-hir":
        rows = tuple((str(s["wait_state"]), format_count(s["access_iops"]),
                      format_count(s["baseline_iops"]),
                      "n/a" if s["gain"] is None else f"{s['gain']:.2f}×")
                     for s in data["wait_states"])  # fmt: skip
        chart = _hir_chart(data["after"])
        sections.append(doc.Section("Host idle recovery", tables=(doc.Table(
            "IOPS per wait state", ("wait state", "access IOPS", "baseline IOPS", "gain"), rows),),
            charts=(chart,)))  # fmt: skip
    if plan.profile == "pts-xsr":
        recovery = data["recovery"]
        throughput = _xsr_chart(data["access_groups"])
        rows = tuple((str(g["access_group"]), format_mb_per_s(g["mean_bw_bytes_per_s"]),
                      format_mb_per_s(g["end_bw_bytes_per_s"]),
                      format_latency_us(g["peak_lat_mean_ns"]))
                     for g in recovery["groups"])  # fmt: skip
        minutes = recovery["recovery_min"]
        sections.append(doc.Section(
            "Cross stimulus recovery",
            facts=(("recovery", "not regained" if minutes is None else f"{minutes:.1f} min"),),
            tables=(doc.Table("Access groups", ("group", "mean MB/s", "end MB/s",
                                                "peak mean µs"), rows),),
            charts=() if throughput is None else (throughput,),
        ))  # fmt: skip
    title = f"SNIA PTS {plan.param('test')}".upper().replace("SNIA PTS", "SNIA PTS")
    data = {key: found[key] for key in found}
    if plan.profile == "pts-lat":
        data["latency_tails"] = {
            entry["loop"]: latency_tails_data(entry, results.steps) for entry in data_loops(data)
        }
    return compose(results, title=title, verdict=verdict, sections=sections,
                   data=data)  # fmt: skip


def data_loops(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The stored results' loop entries."""
    return list(data[PTS_RESULTS]["loops"])
