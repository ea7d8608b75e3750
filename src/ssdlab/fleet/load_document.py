"""What `ssdlab fleet load` reports: its JSON document (the load's run id and status, fio's
versions, per host and for all hosts together each direction's rates, mean latency and p99,
all hosts' latency over time from their merged histograms, and the hosts left out with why),
and the rows of its tables. All hosts' p99 is the merged histograms' (fio gives none)."""

from collections.abc import Callable, Mapping
from typing import Any

from ssdlab.analysis.passes import clat_p99_ns
from ssdlab.fleet.load import ALL_HOSTS, ALL_HOSTS_LABEL, LoadOutcome
from ssdlab.model.result import DirectionMetrics
from ssdlab.model.step import StepResult
from ssdlab.model.units import (
    format_cdm_iops,
    format_cdm_latency_us,
    format_cdm_mb_per_s,
    format_count,
    format_latency,
    format_needs_ios,
)

FORMAT = "ssdlab-fleet-load"
COLUMNS = ("host", "direction", "MB/s", "IOPS", "mean µs", "p99 µs (clat)")
LATENCY_COLUMNS = ("second", "direction", "I/Os", "p50", "p99", "p99.9")
NOT_SUPPORTED = "–"  # a tail the second's I/Os cannot support


def _direction_json(metrics: DirectionMetrics | None) -> dict[str, object] | None:
    if metrics is None:
        return None
    return {
        "bw_bytes_per_s": metrics.bw_bytes_per_s,
        "iops": metrics.iops,
        "io_bytes": metrics.io_bytes,
        "total_ios": metrics.total_ios,
        "runtime_s": metrics.runtime_s,
        "lat_mean_ns": metrics.lat_mean_ns,
        "clat_p99_ns": clat_p99_ns(metrics),
    }


def _step_json(step: StepResult) -> dict[str, object]:
    return {
        "host": step.step_key,
        "direction": step.direction,
        "bw_bytes_per_s": step.bw_bytes_per_s,
        "iops": step.iops,
        "lat_mean_ns": step.lat_mean_ns,
        "read": _direction_json(step.read),
        "write": _direction_json(step.write),
    }


def load_document(outcome: LoadOutcome) -> dict[str, object]:
    hosts = [s for s in outcome.steps if s.step_key != ALL_HOSTS]
    total = [s for s in outcome.steps if s.step_key == ALL_HOSTS]
    return {
        "format": FORMAT,
        "format_version": 1,
        "run_id": outcome.run_id,
        "status": outcome.status.value,
        "status_reason": outcome.reason,
        "fio_version": outcome.local_fio,
        "fio_versions": outcome.versions,
        "ran_on": list(outcome.ran),
        "hosts": [_step_json(s) for s in hosts],
        "all_hosts": _step_json(total[0]) if total else None,
        "all_hosts_latency": outcome.latency,
        "left_out": [{"host": h, "reason": why} for h, why in outcome.left_out.items()],
    }


def _merged_p99_ns(outcome: LoadOutcome, direction: str) -> float | None:
    """All hosts' p99 of a direction from the merged histograms (None: none, or too few I/Os)."""
    found = _directions(outcome.latency).get(direction)
    return None if found is None else found["percentiles_ns"].get("99")


def _directions(latency: Mapping[str, Any] | None) -> dict[str, Any]:
    return dict(latency.get("directions") or {}) if latency else {}


def load_rows(outcome: LoadOutcome) -> list[tuple[tuple[str, ...], bool]]:
    """The table's rows, one per host (then all hosts) and direction, one cell per column of
    COLUMNS, each with whether it is its host's last."""
    rows: list[tuple[tuple[str, ...], bool]] = []
    for step in outcome.steps:
        every = step.step_key == ALL_HOSTS
        name = ALL_HOSTS_LABEL if every else step.step_key
        for direction, metrics in (("read", step.read), ("write", step.write)):
            if metrics is None:
                continue
            p99 = _merged_p99_ns(outcome, direction) if every else clat_p99_ns(metrics)
            cells = (
                name,
                direction,
                format_cdm_mb_per_s(metrics.bw_bytes_per_s),
                format_cdm_iops(metrics.iops),
                format_cdm_latency_us(metrics.lat_mean_ns),
                format_cdm_latency_us(p99),
            )
            rows.append((cells, direction == "write" or step.write is None))
    return rows


def _second_cell(value: float | None) -> str:
    return NOT_SUPPORTED if value is None else format_latency(value)


TailCell = Callable[[Mapping[str, Any] | None, float | None], str]


def plain_tail_cell(tail: Mapping[str, Any] | None, value: float | None) -> str:
    """A percentile of the whole run: its value, or the I/Os it needs."""
    if tail is not None and not tail.get("estimable"):
        return format_needs_ios(int(tail["needs_ios"]))
    return format_latency(value)


def latency_rows(
    outcome: LoadOutcome, tail_cell: TailCell = plain_tail_cell
) -> list[tuple[tuple[str, ...], bool]]:
    """All hosts' latency over time, one row per second and direction (a tail the second's
    I/Os cannot support is NOT_SUPPORTED), then the whole run's per direction (each
    percentile as `tail_cell` writes it: report/tail_text.tail_cell adds the interval), one
    cell per column of LATENCY_COLUMNS, each with whether it ends its group."""
    directions = _directions(outcome.latency)
    by_second: dict[int, list[tuple[str, dict[str, Any]]]] = {}
    for direction, data in directions.items():
        for second in data["seconds"]:
            by_second.setdefault(int(second["second"]), []).append((direction, second))
    rows: list[tuple[tuple[str, ...], bool]] = []
    for second, entries in sorted(by_second.items()):
        for index, (direction, data) in enumerate(entries):
            values = data["percentiles_ns"]
            cells = (
                str(second),
                direction,
                format_count(data["ios"]),
                *(_second_cell(values.get(k)) for k in ("50", "99", "99.9")),
            )
            rows.append((cells, index == len(entries) - 1))
    for index, (direction, data) in enumerate(directions.items()):
        values, tails = data["percentiles_ns"], data["tails"]
        cells = (
            "whole run",
            direction,
            format_count(data["ios"]),
            *(tail_cell(tails.get(k), values.get(k)) for k in ("50", "99", "99.9")),
        )
        rows.append((cells, index == len(directions) - 1))
    return rows
