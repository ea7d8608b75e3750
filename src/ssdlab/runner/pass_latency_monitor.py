"""The OCP Latency Monitor (C3h) read around a run's measured passes and reconciled with the
host's per-I/O latencies of the same pass (`--latency-monitor`, docs/ocp.md).

Before the run, the application read the page once (and set Feature C5h when asked): that
reading and the setting's captures are stored first, as the `latency-monitor` finding says
whether the drive has the page (a drive without it is recorded once; the run goes on). Then,
for every measured pass that keeps no per-second series (`run qos`):

  C3h read (raw page stored) → fio, with a per-I/O total-latency log (`write_lat_log`,
  `log_avg_msec=0`, compressed by fio as it runs: `log_store_compressed`) → the log counted
  against the page's thresholds block by block as fio has ended, then removed with fio's
  folder (only the counts are kept: a pass of 10^7 I/Os would store hundreds of MB) →
  C3h read again (raw page stored) → the reconciliation (analysis/latency_reconcile.py) as the
  `latency-monitor-pass:<step>:<round>` finding, with the ids of both pages' captures.

A measured pass that keeps a per-second series (`quick`, the characterisation profiles) cannot
have a per-I/O log too: fio writes one `log_avg_msec` per job, for its bw, iops and lat logs
alike. Its pages are read and stored all the same, and its finding keeps what is exact: the
drive's own counter increases (`device_only`), not reconciled, with the reason said.
"""

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ssdlab.analysis.latency_reconcile import (
    DeviceCounts,
    HostLatencyCounts,
    ReconcileRefusal,
    device_counts,
    reconcile_latency,
    reconciliation_data,
    threshold_bounds_ns,
)
from ssdlab.errors import ParseError, UsageError
from ssdlab.model.finding_names import LATENCY_MONITOR, LATENCY_MONITOR_PASS
from ssdlab.model.latency_monitor import MonitorSetting
from ssdlab.model.plan import FioJob
from ssdlab.model.profile import ProfileStep, StepRole
from ssdlab.model.run import Capture
from ssdlab.model.step import StepResult
from ssdlab.store.captures import add_capture
from ssdlab.store.findings import add_finding
from ssdlab.system.latency_monitor import PageRead

HOST_LOG_PREFIX = "ssdlab-c3"
PER_IO_OPTIONS = (
    ("write_lat_log", HOST_LOG_PREFIX),
    ("log_avg_msec", "0"),
    ("log_compression", "4M"),  # fio compresses the samples in memory as they come
    ("log_store_compressed", "1"),  # and writes them so: a .fz file (parse/fio_lat_log.py)
)
NO_PER_IO = (
    "this pass keeps a per-second series and fio writes one log_avg_msec per job, so it has no "
    "per-I/O latency log: the drive's counts are kept alone, not reconciled"
)

ReadPage = Callable[[], PageRead]


@dataclass(frozen=True, slots=True)
class MonitorStart:
    """What the application did before the run: the drive read, Feature C5h set (`setting`
    and its captures, when asked), and the first read of the page."""

    device: str
    probe: PageRead
    setting: MonitorSetting | None = None
    enable_captures: tuple[Capture, ...] = ()

    @property
    def available(self) -> bool:
        return self.probe.log is not None


def pass_finding_name(step_key: str, round_index: int) -> str:
    return f"{LATENCY_MONITOR_PASS}:{step_key}:{round_index}"


def per_io_job(job: FioJob) -> FioJob:
    """The pass's job with its per-I/O latency log (every section inherits it)."""
    return replace(job, global_options=(*job.global_options, *PER_IO_OPTIONS))


def host_log_paths(folder: Path) -> list[Path]:
    return sorted(folder.glob(f"{HOST_LOG_PREFIX}_lat.*.log*"))


@dataclass(slots=True)
class HostCount:
    """The per-I/O logs' counts, taken in fio's folder before it goes (or why not)."""

    counts: HostLatencyCounts | None = None
    files: int = 0
    stored_bytes: int = 0  # the compressed logs' size, as fio wrote them
    problem: str | None = None


def count_folder(folder: Path, bounds_ns: tuple[int, int, int, int], into: HostCount) -> None:
    """Count the pass's per-I/O logs and remove them (fio's folder goes next anyway)."""
    paths = host_log_paths(folder)
    into.files = len(paths)
    into.stored_bytes = sum(p.stat().st_size for p in paths)
    if not paths:
        into.problem = "fio wrote no per-I/O latency log"
        return
    from ssdlab.runner.host_latency_counts import count_host_latencies  # numpy: at first use

    try:
        into.counts = count_host_latencies(paths, bounds_ns)
    except (ParseError, UsageError) as error:
        into.problem = f"the per-I/O latency log could not be read ({error})"
    for path in folder.glob(f"{HOST_LOG_PREFIX}_*"):
        path.unlink(missing_ok=True)


def _span_s(before: PageRead, after: PageRead) -> float | None:
    """Seconds between the two reads (the pass in between), when both ran."""
    if before.capture is None or after.capture is None:
        return None
    return max(0.0, after.capture.started_at_s - before.capture.ended_at_s)


def device_only_data(found: DeviceCounts, capture_ids: tuple[int, int]) -> dict[str, Any]:
    """The drive's counts of a pass without a per-I/O log, as JSON."""
    return {
        "c3_before": f"run capture {capture_ids[0]}",
        "c3_after": f"run capture {capture_ids[1]}",
        "thresholds_ms": {
            name: round(t * 1000, 3) for name, t in zip("ABCD", found.thresholds_s, strict=True)
        },
        "conclusive": found.conclusive,
        "reason": found.reason,
        "device_commands": {op: list(counts) for op, counts in found.increases.items()},
    }


def pass_body(
    step: StepResult,
    reads: tuple[PageRead, PageRead],
    host: HostCount | None,
    capture_ids: tuple[int, int],
) -> dict[str, Any]:
    """One pass's finding (pure): the reconciliation, or, for a pass without a per-I/O log
    (`host` None), the drive's counts alone; else why there is neither."""
    before, after = reads
    body: dict[str, Any] = {
        "step": step.step_key,
        "round": step.round_index,
        "label": step.step_label,
        "c3_before_capture_id": capture_ids[0],
        "c3_after_capture_id": capture_ids[1],
        "host_log_files": 0 if host is None else host.files,
        "host_log_stored_bytes": None if host is None else host.stored_bytes,
        "reconciliation": None,
        "device_only": None,
        "problem": None,
    }
    problem = before.problem or after.problem or (None if host is None else host.problem)
    if before.log is None or after.log is None or (host is not None and host.counts is None):
        body["problem"] = problem or "the C3h page was not read"
        return body
    try:
        if host is None or host.counts is None:
            found = device_counts(before.log, after.log, _span_s(before, after))
            body["device_only"] = device_only_data(found, capture_ids)
            body["problem"] = NO_PER_IO
            return body
        reconciled = reconcile_latency(before.log, after.log, host.counts)
    except ReconcileRefusal as error:
        body["problem"] = str(error)
        return body
    names = (f"run capture {capture_ids[0]}", f"run capture {capture_ids[1]}")
    body["reconciliation"] = reconciliation_data(reconciled, names, "lat")
    return body


class LatencyMonitorRecord:
    """A run's C3h reads around its measured passes and the findings they make."""

    def __init__(self, start: MonitorStart, read: ReadPage) -> None:
        self._start = start
        self._read = read
        self._begun = False

    def begin(self, conn: sqlite3.Connection, run_id: int) -> None:
        """Store what was done before the run (raw first) and say whether the drive has C3h."""
        if self._begun:
            return
        self._begun = True
        start = self._start
        enable_ids = [add_capture(conn, run_id, c) for c in start.enable_captures]
        probe_id = (
            0 if start.probe.capture is None else add_capture(conn, run_id, start.probe.capture)
        )
        body = {
            "device": start.device,
            "available": start.available,
            "reason": None
            if start.available
            else f"the drive has no C3h Latency Monitor page ({start.probe.problem})",
            "enabled_by_ssdlab": start.setting is not None,
            "thresholds_ms": None
            if start.probe.log is None
            else [round(t * 1000, 3) for t in start.probe.log.thresholds_s],
            "set_thresholds_ms": None
            if start.setting is None
            else list(start.setting.thresholds_ms),
            "timer_threshold": None if start.setting is None else start.setting.timer_threshold,
            "enable_capture_ids": enable_ids,
            "probe_capture_id": probe_id,
            "note": NO_PER_IO,
        }
        add_finding(conn, run_id, LATENCY_MONITOR, "facts", body, time.time())

    def wants(self, step: ProfileStep) -> bool:
        """A measured pass the drive's page can be reconciled with."""
        return (
            self._start.available
            and step.role is StepRole.MEASURE
            and step.keep_result
            and step.job is not None
        )

    def start_pass(
        self, conn: sqlite3.Connection, run_id: int, step: ProfileStep
    ) -> "PassReads | None":
        """For a pass it wants: the "before" page read and stored (raw first, before fio
        starts); None for any other pass."""
        if not self.wants(step):
            return None
        before = self._read()
        before_id = 0 if before.capture is None else add_capture(conn, run_id, before.capture)
        return PassReads(before, before_id, per_io=step.log_interval_ms is None)

    def add_pass(
        self, conn: sqlite3.Connection, run_id: int, step: StepResult, reads: "PassReads"
    ) -> None:
        """The "after" page read and stored, then the pass's reconciliation."""
        after = self._read()
        after_id = 0 if after.capture is None else add_capture(conn, run_id, after.capture)
        host = reads.host if reads.per_io else None
        body = pass_body(step, (reads.before, after), host, (reads.before_id, after_id))
        name = pass_finding_name(step.step_key, step.round_index)
        add_finding(conn, run_id, name, "verdict", body, time.time())


@dataclass(slots=True)
class PassReads:
    """One pass's "before" page and its host log's counts, taken as fio's folder closes."""

    before: PageRead
    before_id: int
    per_io: bool  # the pass keeps no per-second series: it can have a per-I/O log
    host: HostCount = field(default_factory=HostCount)

    def job(self, job: FioJob) -> FioJob:
        """The pass's job, with its per-I/O log when it can have one and the page gave
        thresholds to count at."""
        return per_io_job(job) if self.per_io and self.before.log is not None else job

    def read_folder(self, folder: Path) -> None:
        if self.per_io and self.before.log is not None:
            count_folder(folder, threshold_bounds_ns(self.before.log), self.host)
