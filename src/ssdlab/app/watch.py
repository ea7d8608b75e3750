"""`ssdlab watch`: a drive's health sampled into the store on a schedule until stopped, the
device's series continued unless `--new`; each sample judged (app/watch_alerts.py: alerts
stored, `--on-alert` hooks run) and the store's metrics written to `--textfile` after it. A
recorded log replays in place of a drive (`--health-replay`).

The command line keeps the edges: the signal guard (the watch stops when `should_stop` says,
and its run records the signal that stopped it) and the console (`WatchNotices`)."""

import functools
import os
import shlex
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ssdlab.analysis.alerts import Alert, Thresholds
from ssdlab.app.health_readings import (
    WATCH_PHASE,
    is_readable_drive,
    new_drive_run,
    read_drive,
    store_reading,
    vendor_map,
)
from ssdlab.app.systemd_unit import watch_unit
from ssdlab.app.watch_alerts import AlertBook
from ssdlab.errors import SsdlabError, UsageError
from ssdlab.model.health import HealthSample
from ssdlab.model.run import RunKind, RunStatus
from ssdlab.model.units import format_time
from ssdlab.runner.session import HealthSource, RunSession
from ssdlab.store.health import load_health_samples
from ssdlab.store.lifecycle import finish_run, reopen_run
from ssdlab.store.listing import RunFilter, runs_matching
from ssdlab.system.environment import read_boot_id, read_pid_namespace
from ssdlab.system.health_replay import HealthReplay
from ssdlab.system.hooks import HookResult
from ssdlab.system.textfile import write_textfile

POLL_S = 0.5  # the wait between samples looks at the stop flag this often


@dataclass(frozen=True, slots=True)
class WatchRequest:
    """What to watch (a drive, or with `health_replay` a log: `device` then only its label),
    how often and for how long, and what to do with what it finds."""

    device: str | None = None
    every_s: float = 300.0
    duration_s: float | None = None
    count: int | None = None
    new: bool = False
    vendor_map: str | None = None
    thresholds: Thresholds = field(default_factory=Thresholds)
    on_alert: tuple[str, ...] = ()
    hook_timeout_s: float = 30.0
    textfile: str | None = None
    no_wake: bool = False
    health_replay: str | None = None


class WatchNotices(Protocol):
    """What a watch tells as it goes: a line of its log, a sample taken, an alert fired, a
    problem it goes on after (a hook that failed, a textfile not written)."""

    def said(self, text: str) -> None: ...

    def sampled(self, text: str) -> None: ...

    def alerted(self, alert: Alert) -> None: ...

    def warned(self, text: str) -> None: ...


@dataclass(frozen=True, slots=True)
class WatchSummary:
    run_id: int
    samples: int  # in the series, this watch's and those it continued
    fired: int  # alerts fired this time


def watch_target(request: WatchRequest) -> str:
    """The series' name: the device's real path; with a replay, the device given (only a
    name, never opened) or the log."""
    if request.health_replay:
        if request.device:
            return os.path.abspath(request.device)
        return f"replay:{os.path.abspath(request.health_replay)}"
    if not request.device:
        raise UsageError("name the block device to watch, or a log with --health-replay LOG")
    if not is_readable_drive(request.device):
        raise UsageError(
            f"{request.device} is not a block device, an NVMe controller or a virtual drive"
        )
    return os.path.realpath(request.device)


def hook_argvs(request: WatchRequest) -> list[list[str]]:
    """Each --on-alert split as a shell would (and run without one)."""
    hooks = []
    for text in request.on_alert:
        try:
            argv = shlex.split(text)
        except ValueError as error:
            raise UsageError(f"--on-alert {text!r}: {error}; quote it as a shell would") from None
        if not argv:
            raise UsageError("--on-alert needs a program, e.g. --on-alert '/usr/local/bin/page'")
        hooks.append(argv)
    if request.hook_timeout_s <= 0:
        raise UsageError("--hook-timeout must be a positive time such as 30s")
    return hooks


def watch_unit_of(request: WatchRequest, argv: Sequence[str], database: Path) -> str:
    """The systemd service that runs this watch (`argv`, its store `database`); nothing is
    read or stored."""
    if request.new:
        raise UsageError(
            "--print-systemd-unit describes a watch that continues its series after a restart; "
            "leave out --new (a service restarted with --new would fire every alert again)"
        )
    return watch_unit(argv, database, watch_target(request))


def watch_line(sample: HealthSample) -> str:
    """'host 1.2345 TB, NAND 2.3456 TB, wear 3 %, 41 °C': a sample on one line."""
    parts = []
    if sample.host_written_bytes.value is not None:
        parts.append(f"host {sample.host_written_bytes.value / 1e12:.4f} TB")
    if sample.nand_written_bytes.value is not None:
        parts.append(f"NAND {sample.nand_written_bytes.value / 1e12:.4f} TB")
    if sample.wear_used_pct.value is not None:
        parts.append(f"wear {sample.wear_used_pct.value:g} %")
    if sample.temperature_c.value is not None:
        parts.append(f"{sample.temperature_c.value:g} °C")
    return ", ".join(parts) or "no counters"


def _watch_run(session: RunSession, device: str, request: WatchRequest) -> int:
    """The watch run to append to: the last one for this device, unless --new."""
    conn = session.conn
    if not request.new:
        for run in runs_matching(conn, RunFilter(profile="watch", targets=(device,))):
            if run.kind is RunKind.WATCH and run.status.value != "running":
                reopen_run(conn, run.run_id, os.getpid(), read_boot_id(), read_pid_namespace())
                return run.run_id
    return new_drive_run(conn, RunKind.WATCH, device, {"every_s": request.every_s})


def start_watch(
    session: RunSession,
    request: WatchRequest,
    notices: WatchNotices,
    metrics_text: Callable[[sqlite3.Connection], str],
) -> "Watch":
    """Check the request (nothing is stored for a bad one), then open the series: a replay
    goes on past the snapshots the series already holds. `metrics_text` gives the store's
    metrics for --textfile."""
    device = watch_target(request)
    hooks = hook_argvs(request)
    replay = HealthReplay(request.health_replay) if request.health_replay else None
    source: HealthSource
    if replay is not None:
        source = replay
    else:  # the vendor map is read once, before anything is stored
        names = vendor_map(request.vendor_map)
        source = functools.partial(read_drive, device, names, no_wake=request.no_wake)
    run_id = _watch_run(session, device, request)
    if replay is not None:
        for _ in load_health_samples(session.conn, run_id=run_id):
            replay()
    book = AlertBook(
        session.conn, run_id, device, request.thresholds, hooks, request.hook_timeout_s
    )
    return Watch(session.conn, run_id, request, source, book, notices, metrics_text)


@dataclass
class Watch:
    """One watch: takes a sample, stores it, judges it, writes the textfile; on a schedule
    until stopped, counted out, timed out, or a replay runs out."""

    conn: sqlite3.Connection
    run_id: int
    request: WatchRequest
    source: HealthSource
    alerts: AlertBook
    notices: WatchNotices
    metrics_text: Callable[[sqlite3.Connection], str]

    def run(
        self, should_stop: Callable[[], bool], signal: Callable[[], str | None]
    ) -> WatchSummary:
        """Sample until `should_stop`; the run is finished whatever ends it, its reason the
        signal that stopped it (`signal()`: its name, None when none came)."""
        request = self.request
        started = time.monotonic()
        taken = 0
        try:
            while not should_stop():
                more = self.sample()
                taken += 1
                if not more or (request.count and taken >= request.count):
                    break
                deadline = time.monotonic() + request.every_s
                if request.duration_s is not None and deadline - started > request.duration_s:
                    break
                while not should_stop() and time.monotonic() < deadline:
                    time.sleep(min(POLL_S, max(0.0, deadline - time.monotonic())))
        finally:
            name = signal()
            reason = f"stopped by a signal ({name})" if name else None
            finish_run(self.conn, self.run_id, RunStatus.COMPLETE, reason, time.time())
        series = load_health_samples(self.conn, run_id=self.run_id)
        return WatchSummary(self.run_id, len(series), self.alerts.fired)

    def sample(self) -> bool:
        """Take, store and judge one sample; False when a replay has run out."""
        reading = self.source()
        sample_id = store_reading(self.conn, self.run_id, WATCH_PHASE, reading)
        stamp = format_time(time.time())
        notes = "; ".join(reading.notes)
        if reading.sample is None:
            if self.request.health_replay and not reading.captures:
                self.notices.said(f"{stamp} {notes}")
                return False
            if reading.standby:
                self.alerts.skip("standby")
                self.notices.said(f"{stamp} skipped: {notes}")
            else:
                self.notices.said(f"{stamp} no sample: {notes}")
        else:
            self.notices.sampled(f"{stamp} sample {sample_id}: {watch_line(reading.sample)}")
            self.alerts.judge(reading.sample, sample_id, self.notices.alerted, self._hook_failed)
        if self.request.textfile:
            self._write_textfile(Path(self.request.textfile))
        return True

    def _hook_failed(self, result: HookResult, alert: str) -> None:
        self.notices.warned(
            f"alert hook {shlex.join(result.argv)} {result.error}; sampling continues "
            f"(stored with the alert {alert})"
        )

    def _write_textfile(self, folder: Path) -> None:
        """The store's metrics into node_exporter's folder; a failure is said, never fatal."""
        try:
            write_textfile(folder, self.metrics_text(self.conn))
        except (SsdlabError, OSError) as error:
            self.notices.warned(
                f"--textfile {folder}: {error}; sampling continues, the next sample writes again"
            )
