"""What `ssdlab fleet load` reports: its JSON document (the load's run id and status, fio's
versions, per host and for all hosts together each direction's rates, mean latency and p99,
all hosts' latency over time from their merged histograms, and the hosts left out with why),
and the rows of its first table (the latency table's are report/merged_latency_rows.py). All
hosts' p99 is the merged histograms' (fio gives none)."""

from collections.abc import Mapping
from typing import Any

from ssdlab.analysis.passes import clat_p99_ns
from ssdlab.fleet.load import ALL_HOSTS, ALL_HOSTS_LABEL, LoadOutcome
from ssdlab.model.result import DirectionMetrics
from ssdlab.model.step import StepResult
from ssdlab.model.units import (
    format_cdm_iops,
    format_cdm_latency_us,
    format_cdm_mb_per_s,
)

FORMAT = "ssdlab-fleet-load"
COLUMNS = ("host", "direction", "MB/s", "IOPS", "mean µs", "p99 µs (clat)")


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
