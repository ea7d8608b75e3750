"""Tidy CSV tables of any stored run: pure writers from model objects to RFC 4180 text.

One row per observation, a header row, units in the column names (SI base units: bytes,
bytes/s, ns, s), an empty cell for a value that is unknown. The tables:

- `steps`: one row per stored step result (a quick pass, a sweep's QD × threads point, a PTS
  round of a test point, an endurance iteration, a simulated point, a fleet host);
- `series`: one row per stored per-interval log point (a cache run's log, a sim's intervals);
- `health`: one row per stored health sample (a health or watch series, an endurance run's
  samples), with the write amplification since the previous sample;
- `windows`: one row per PTS steady-state window and tracking variable.
"""

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ssdlab.model.finding_names import PTS_STEADY_STATE
from ssdlab.model.health import HEALTH_METRICS, HealthSample
from ssdlab.model.result import DirectionMetrics
from ssdlab.model.step import StepResult

Cell = str | int | float | bool | None

STEP_COLUMNS = (
    "run_id",
    "step_key",
    "step_label",
    "direction",
    "round_index",
    "discarded",
    "queue_depth",
    "threads",
    "block_size_bytes",
    "bw_bytes_per_s",
    "iops",
    "lat_mean_ns",
    "read_bw_bytes_per_s",
    "read_iops",
    "read_lat_mean_ns",
    "read_io_bytes",
    "write_bw_bytes_per_s",
    "write_iops",
    "write_lat_mean_ns",
    "write_io_bytes",
    "runtime_s",
)

SERIES_COLUMNS = (
    "run_id",
    "step_key",
    "round_index",
    "discarded",
    "direction",
    "elapsed_s",
    "bw_bytes_per_s",
    "iops",
    "lat_mean_ns",
    "written_bytes",
)

HEALTH_COLUMNS = (
    "run_id",
    "phase",
    "taken_at_s",
    "model",
    "serial",
    "firmware",
    *HEALTH_METRICS,
    "waf",
    "verdict",
)

WINDOW_COLUMNS = (
    "run_id",
    "loop",
    "steady",
    "rounds_examined",
    "max_rounds",
    "first_round",
    "last_round",
    "variable",
    "average",
    "data_excursion",
    "allowed_data_excursion",
    "data_excursion_pct",
    "slope_per_round",
    "slope_excursion",
    "allowed_slope_excursion",
    "slope_excursion_pct",
)


@dataclass(frozen=True, slots=True)
class StepShape:
    """What the plan says about a step: its queue depth, threads and block size."""

    queue_depth: int | None = None
    threads: int | None = None
    block_size_bytes: int | None = None


def _cell(value: Cell) -> str | int | float:
    """A value as the csv module writes it: unknown is an empty cell, a flag 0 or 1, a whole
    float as an integer."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)  # a whole number of bytes or IOs, written without ".0"
    return value


def write_table(columns: Sequence[str], rows: Iterable[Sequence[Cell]]) -> str:
    """RFC 4180 text: the header, then one line per row (quoted where a cell needs it)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(columns)
    for row in rows:
        if len(row) != len(columns):
            raise ValueError(f"a row of {len(row)} cells under {len(columns)} columns")
        writer.writerow([_cell(value) for value in row])
    return out.getvalue()


def _direction_cells(metrics: DirectionMetrics | None) -> list[Cell]:
    if metrics is None:
        return [None, None, None, None]
    return [metrics.bw_bytes_per_s, metrics.iops, metrics.lat_mean_ns, metrics.io_bytes]


def _runtime_s(step: StepResult) -> float | None:
    runtimes = [m.runtime_s for m in (step.read, step.write) if m is not None]
    return max(runtimes) if runtimes else None


def step_rows(
    run_id: int, steps: Sequence[StepResult], shapes: Mapping[str, StepShape]
) -> list[list[Cell]]:
    rows = []
    for step in steps:
        shape = shapes.get(step.step_key, StepShape())
        rows.append(
            [
                run_id,
                step.step_key,
                step.step_label,
                step.direction,
                step.round_index,
                step.discarded,
                shape.queue_depth,
                shape.threads,
                shape.block_size_bytes,
                step.bw_bytes_per_s,
                step.iops,
                step.lat_mean_ns,
                *_direction_cells(step.read),
                *_direction_cells(step.write),
                _runtime_s(step),
            ]
        )
    return rows


def steps_csv(
    run_id: int, steps: Sequence[StepResult], shapes: Mapping[str, StepShape] | None = None
) -> str:
    """One row per stored step result; queue depth, threads and block size from the plan."""
    return write_table(STEP_COLUMNS, step_rows(run_id, steps, shapes or {}))


def _series_rows(run_id: int, step: StepResult) -> list[list[Cell]]:
    """A step's log points; `written_bytes` sums bandwidth × interval of the write log
    (empty for reads, and from a point without bandwidth on)."""
    rows: list[list[Cell]] = []
    written: dict[str, float | None] = {}
    previous: dict[str, float] = {}
    for point in step.series:
        start = previous.get(point.direction, 0.0)
        previous[point.direction] = point.elapsed_s
        total = written.get(point.direction, 0.0)
        if point.direction != "write" or point.bw_bytes_per_s is None or total is None:
            total = None
        else:
            total += point.bw_bytes_per_s * max(point.elapsed_s - start, 0.0)
        written[point.direction] = total
        rows.append(
            [
                run_id,
                step.step_key,
                step.round_index,
                step.discarded,
                point.direction,
                point.elapsed_s,
                point.bw_bytes_per_s,
                point.iops,
                point.lat_mean_ns,
                None if total is None else round(total),
            ]
        )
    return rows


def series_csv(run_id: int, steps: Sequence[StepResult]) -> str:
    """One row per stored log interval of every step, in stored order."""
    rows = [row for step in steps for row in _series_rows(run_id, step)]
    return write_table(SERIES_COLUMNS, rows)


def _value(sample: HealthSample, name: str) -> float | None:
    value: float | None = getattr(sample, name).value
    return value


def _waf(sample: HealthSample, before: HealthSample | None) -> float | None:
    """NAND bytes over host bytes written since the previous sample; None when unknown."""
    if before is None:
        return None
    host = [_value(s, "host_written_bytes") for s in (before, sample)]
    nand = [_value(s, "nand_written_bytes") for s in (before, sample)]
    if None in host or None in nand:
        return None
    host_delta = float(host[1] or 0) - float(host[0] or 0)
    nand_delta = float(nand[1] or 0) - float(nand[0] or 0)
    return nand_delta / host_delta if host_delta > 0 and nand_delta >= 0 else None


def health_csv(run_id: int, samples: Sequence[tuple[str, HealthSample]]) -> str:
    """One row per stored health sample, oldest first, every value in its named unit."""
    rows: list[list[Cell]] = []
    before: HealthSample | None = None
    for phase, sample in samples:
        identity = sample.identity
        rows.append(
            [
                run_id,
                phase,
                sample.taken_at_s,
                identity.model,
                identity.serial,
                identity.firmware,
                *(_value(sample, name) for name in HEALTH_METRICS),
                _waf(sample, before),
                sample.verdict,
            ]
        )
        before = sample
    return write_table(HEALTH_COLUMNS, rows)


def _number(value: Any) -> Cell:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _window_rows(run_id: int, body: Mapping[str, Any]) -> list[list[Cell]]:
    head: list[Cell] = [
        run_id,
        str(body.get("loop") or ""),
        bool(body.get("steady")),
        _number(body.get("rounds_examined")),
        _number(body.get("max_rounds")),
    ]
    rows = []
    for check in body.get("checks") or ():
        rounds = check.get("rounds") or (None, None)
        rows.append(
            [
                *head,
                _number(rounds[0]),
                _number(rounds[-1]),
                str(check.get("variable", "")),
                *(
                    _number(check.get(name))
                    for name in (
                        "average",
                        "data_excursion",
                        "allowed_data_excursion",
                        "data_excursion_pct",
                        "slope",
                        "slope_excursion",
                        "allowed_slope_excursion",
                        "slope_excursion_pct",
                    )
                ),
            ]
        )
    return rows


def steady_state_bodies(findings: Mapping[str, Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The PTS steady-state verdicts among a run's findings, in name order."""
    return [body for name, body in sorted(findings.items()) if name.startswith(PTS_STEADY_STATE)]


def windows_csv(run_id: int, findings: Mapping[str, Mapping[str, Any]]) -> str:
    """One row per steady-state (or last examined) measurement window and tracking variable."""
    rows = [row for body in steady_state_bodies(findings) for row in _window_rows(run_id, body)]
    return write_table(WINDOW_COLUMNS, rows)


COMPARE_COLUMNS = (
    "baseline_run_id",
    "run_id",
    "metric",
    "label",
    "unit",
    "higher_is_better",
    "basis",
    "baseline_mean",
    "baseline_passes",
    "mean",
    "passes",
    "ratio",
    "change_pct",
    "p_value",
    "verdict",
    "threshold_pct",
    "alpha",
)


def _side(samples: Any) -> list[Cell]:
    if not isinstance(samples, Mapping):
        return [None, None]
    values = samples.get("values")
    return [_number(samples.get("mean")), len(values) if isinstance(values, list) else None]


def _unit(change: Mapping[str, Any]) -> str:
    """The metric's unit: the change's own, else its samples' (bytes_per_s, ns, ...)."""
    sides = [change.get(side) for side in ("baseline", "other")]
    units = [change.get("unit"), *(s.get("unit") for s in sides if isinstance(s, Mapping))]
    return next((str(u) for u in units if u), "")


def _compare_rows(baseline: Cell, comparison: Mapping[str, Any]) -> list[list[Cell]]:
    return [
        [
            baseline,
            _number(comparison.get("run")),
            str(change.get("metric", "")),
            str(change.get("label", "")),
            _unit(change),
            bool(change.get("higher_is_better")),
            str(change.get("basis", "")),
            *_side(change.get("baseline")),
            *_side(change.get("other")),
            _number(change.get("ratio")),
            _number(change.get("change_pct")),
            _number(change.get("p_value")),
            str(change.get("verdict", "")),
            _number(comparison.get("threshold_pct")),
            _number(comparison.get("alpha")),
        ]
        for change in comparison.get("changes") or ()
    ]


def compare_csv(data: Mapping[str, Any]) -> str:
    """One row per compared run and metric, from a comparison document's data (`compare
    --json`): the means in the row's `unit`, how many passes each side had, the verdict."""
    baseline = _number(data.get("baseline_run"))
    rows = [row for c in data.get("comparisons") or () for row in _compare_rows(baseline, c)]
    return write_table(COMPARE_COLUMNS, rows)
