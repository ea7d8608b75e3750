"""A run's thermal section, from what it stored (docs/thermal.md): the drive's temperatures read
once a second during its passes (`StoredRun.temperatures`), each pass's throttling as the run
found it (`thermal-pass:…` findings: analysis/thermal.py with analysis/thermal_checks.py), and
the `thermal` chart — throughput and temperature on one time axis.

Every kind of run whose drive gave temperatures gets the section and a `thermal` key in its
JSON (registry/kind.py adds it to the document its kind builds); a run whose drive gave none
(its `thermal` finding says why) is laid out as before.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ssdlab.analysis.throttling import Episode, ThermalSeries
from ssdlab.model.finding_names import THERMAL, THERMAL_PASS
from ssdlab.model.json_fields import FieldMismatch, decode_fields
from ssdlab.model.stored_run import StoredRun
from ssdlab.report.document import Chart, Document, Marker, Section, Series, Table, with_part
from ssdlab.report.interval_text import ratio_text

MB = 1e6
CHART_KEY = "thermal"


@dataclass(frozen=True, slots=True)
class PassThermal:
    """One pass's thermal finding, decoded; `series` None when its body is not one this
    ssdlab reads (the row is then said, not guessed at)."""

    body: Mapping[str, Any]
    series: ThermalSeries | None

    @property
    def label(self) -> str:
        warm = " (warm-up)" if self.body.get("discarded") else ""
        return f"{self.body.get('label', '?')} #{self.body.get('round', '?')}{warm}"


def _passes(stored: StoredRun) -> list[PassThermal]:
    """The run's pass findings in the order its steps were stored."""
    prefix = THERMAL_PASS + ":"
    found: dict[tuple[str, int], Mapping[str, Any]] = {}
    for name, body in stored.findings.items():
        if name.startswith(prefix) and isinstance(body, Mapping):
            found[(str(body.get("step")), int(body.get("round", 0)))] = body
    keys = [(s.step_key, s.round_index) for s in stored.steps]
    ordered = [found.pop(key) for key in keys if key in found]
    ordered.extend(found.values())  # a pass whose step was set aside by a resume: kept last
    passes = []
    for body in ordered:
        try:
            series: ThermalSeries | None = decode_fields(ThermalSeries, body.get("throttling"))
        except (FieldMismatch, TypeError):
            series = None
        passes.append(PassThermal(body, series))
    return passes


def _bracket(episodes: Sequence[Episode], exits: bool) -> str:
    texts = []
    for episode in episodes:
        boundary = episode.exit if exits else episode.onset
        threshold = None if boundary is None else boundary.threshold
        if threshold is None or threshold.low is None or threshold.high is None:
            continue
        if threshold.low == threshold.high:
            texts.append(f"{threshold.low:g} °C")
        else:
            texts.append(f"{threshold.low:g}–{threshold.high:g} °C")
    return ", ".join(dict.fromkeys(texts)) or "—"


def _throttling(series: ThermalSeries) -> str:
    if series.short:
        return "too short to tell"
    if not series.episodes:
        return "none"
    thermal = len(series.thermal_episodes)
    other = len(series.episodes) - thermal
    text = f"{thermal} episode{'s' if thermal != 1 else ''}"
    return text + (f" (+{other} not by temperature)" if other else "")


def _time_throttled(series: ThermalSeries) -> str:
    if not series.episodes:
        return "—"
    low, high = series.throttled_interval_s or (series.throttled_s, series.throttled_s)
    return f"{series.throttled_s:.0f} s ({low:.0f}–{high:.0f}), {series.throttled_share_pct:.1f} %"


def _row(item: PassThermal) -> tuple[str, ...]:
    body = item.body
    readings = f"{body.get('readings', 0)}"
    if body.get("failed_reads"):
        readings += f" ({body['failed_reads']} failed)"
    low, high = body.get("min_c"), body.get("max_c")
    temps = "—" if low is None or high is None else f"{low:g}–{high:g} °C"
    series = item.series
    if series is None:
        return (item.label, readings, temps, "not readable by this ssdlab", "—", "—", "—", "—")
    episodes = series.thermal_episodes
    ratio = ratio_text(series.throttled_ratio, series.throttled_ratio_interval) if episodes else "—"
    return (
        item.label,
        readings,
        temps,
        _throttling(series),
        _bracket(episodes, exits=False),
        _bracket(episodes, exits=True),
        ratio,
        _time_throttled(series),
    )


def _checks_table(passes: Sequence[PassThermal]) -> Table | None:
    """The OCP requirements the passes let be checked: those of every pass that throttled, or
    of the hottest pass when none did."""
    throttled = [p for p in passes if p.series is not None and p.series.thermal_episodes]
    shown = (
        throttled
        or sorted(
            (p for p in passes if p.body.get("max_c") is not None),
            key=lambda p: -float(p.body["max_c"]),
        )[:1]
    )
    rows = []
    for item in shown:
        for check in item.body.get("checks") or ():
            if not isinstance(check, Mapping):
                continue
            state = check.get("state") or "cannot be checked"
            rows.append(
                (str(check.get("requirement")), item.label, str(state), str(check.get("evidence")))
            )
    if not rows:
        return None
    note = (
        "OCP Datacenter NVMe SSD Specification 2.0, §8.2 and §6.5; docs/thermal.md says how each "
        "is judged. "
        + ("The passes that throttled." if throttled else "No pass throttled: the hottest pass.")
    )
    return Table(
        "OCP thermal requirements", ("requirement", "pass", "answer", "evidence"), tuple(rows),
        (note,),
    )  # fmt: skip


def thermal_chart(stored: StoredRun, passes: Sequence[PassThermal]) -> Chart | None:
    """Throughput (left axis) and composite temperature (right axis) over the run's time: each
    pass at the time it started, from the first pass read; throttled stretches shaded."""
    starts = {
        s.capture_id: stored.capture_times[s.capture_id][0]
        for s in stored.steps
        if s.capture_id is not None
        and s.capture_id in stored.temperatures
        and s.capture_id in stored.capture_times
    }
    if not starts:
        return None
    zero = min(starts.values())
    xs_bw: list[float] = []
    ys_bw: list[float] = []
    xs_t: list[float] = []
    ys_t: list[float] = []
    markers: list[Marker] = []
    by_key = {(str(p.body.get("step")), p.body.get("round")): p for p in passes}
    for step in sorted(
        (s for s in stored.steps if s.capture_id in starts), key=lambda s: starts[s.capture_id or 0]
    ):
        offset = starts[step.capture_id or 0] - zero
        totals: dict[float, float] = {}
        for point in step.series:
            if point.bw_bytes_per_s is not None:
                key = round(point.elapsed_s, 3)
                totals[key] = totals.get(key, 0.0) + point.bw_bytes_per_s
        for elapsed, bw in sorted(totals.items()):
            xs_bw.append(round(offset + elapsed, 3))
            ys_bw.append(bw / MB)
        for sample in stored.temperatures.get(step.capture_id or 0, ()):
            xs_t.append(round(offset + sample.elapsed_s, 3))
            ys_t.append(sample.composite_c)
        item = by_key.get((step.step_key, step.round_index))
        if item is not None and item.series is not None:
            for episode in item.series.episodes:
                end = episode.exit.elapsed_s if episode.exit is not None else None
                last = max(totals) if totals else episode.onset.elapsed_s
                markers.append(
                    Marker(
                        "band",
                        "throttled",
                        x=round(offset + episode.onset.elapsed_s, 3),
                        x2=round(offset + (end if end is not None else last), 3),
                    )
                )
    series = (
        Series("throughput", tuple(xs_bw), tuple(ys_bw)),
        Series("composite temperature", tuple(xs_t), tuple(ys_t), axis="y2"),
    )
    return Chart(
        CHART_KEY,
        "Throughput and drive temperature",
        x_label="time",
        x_unit="s",
        y_label="throughput",
        y_unit="MB/s",
        y_zero=True,
        y2_label="temperature",
        y2_unit="°C",
        series=series,
        markers=tuple(markers),
        caption=(
            "Each pass at the time it started, from the first pass read; the temperature read "
            "once a second while it ran (right axis). Shaded: throttled stretches found in a "
            "pass's throughput."
        ),
    )


def thermal_part(stored: StoredRun) -> tuple[Section, dict[str, Any]] | None:
    """The run's thermal section and its JSON; None when its drive gave no temperatures."""
    probe = stored.findings.get(THERMAL)
    if not isinstance(probe, Mapping) or not probe.get("sampled"):
        return None
    passes = _passes(stored)
    if not passes:
        return None
    temps = [v for p in passes for v in (p.body.get("min_c"), p.body.get("max_c")) if v is not None]
    throttled = [p for p in passes if p.series is not None and p.series.thermal_episodes]
    facts = [
        (
            "temperatures",
            f"read once a second by {probe.get('source')} during {len(passes)} "
            + ("pass" if len(passes) == 1 else "passes")
            + (f": {min(temps):g}–{max(temps):g} °C" if temps else ""),
        ),
        (
            "throttling",
            f"in {len(throttled)} of {len(passes)} passes" if throttled else "none found",
        ),
    ]
    table = Table(
        "Thermal throttling by pass",
        ("pass", "readings", "temperature", "throttling", "onset", "exit",
         "throttled throughput", "time throttled"),
        tuple(_row(p) for p in passes),
        (
            "Onset and exit: the temperature thresholds the readings bracket (95 %). Throttled "
            "throughput: throttled seconds over unthrottled ones, with its 95 % interval. Time "
            "throttled: with the bounds the boundaries' intervals give, and its share of the pass.",
        ),
    )  # fmt: skip
    tables = [table]
    checks = _checks_table(passes)
    if checks is not None:
        tables.append(checks)
    chart = thermal_chart(stored, passes)
    section = Section(
        "Thermal",
        facts=tuple(facts),
        tables=tuple(tables),
        charts=() if chart is None else (chart,),
    )
    data = {
        "source": probe.get("source"),
        "limits": probe.get("limits"),
        "passes": [dict(p.body) for p in passes],
    }
    return section, data


def with_thermal(document: Document, stored: StoredRun) -> Document:
    """`document` with the run's thermal section and its `thermal` JSON, when it has them."""
    part = thermal_part(stored)
    if part is None:
        return document
    section, data = part
    return with_part(document, (section,), "thermal", data)
