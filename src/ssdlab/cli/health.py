"""`ssdlab health`, `ssdlab wear` and `ssdlab watch`: drive health, wear between samples, and
sampling into the store over days."""

import argparse
import dataclasses
import functools
import json
import os
import shlex
import sqlite3
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from ssdlab.analysis.alerts import (
    Alert,
    DriveLimits,
    Thresholds,
    drive_limits,
    judge,
    resolve_thresholds,
    state_from_json,
)
from ssdlab.analysis.steps import counter_step_timing
from ssdlab.analysis.wear import analyse_series, compare_samples, timeline
from ssdlab.cli.metrics import store_metrics_text
from ssdlab.cli.rating import rated_from_args
from ssdlab.cli.render import print_sections
from ssdlab.cli.run_session import session_for
from ssdlab.cli.store_open import db_path, open_db
from ssdlab.cli.systemd import exec_lines, unit_command
from ssdlab.errors import SsdlabError, UsageError
from ssdlab.model.health import HealthSample
from ssdlab.model.run import RunKind, RunStatus
from ssdlab.model.target import TargetKind
from ssdlab.model.units import format_time
from ssdlab.parse.health_file import read_health_text
from ssdlab.parse.smart_vendors import VendorMap, load_vendor_map
from ssdlab.report.health import (
    health_json,
    health_sections,
    sections_json,
    series_sections,
    wear_sections,
)
from ssdlab.runner.run_row import RunHeader
from ssdlab.runner.session import HealthSource, RunSession
from ssdlab.store.captures import add_capture
from ssdlab.store.findings import add_finding, load_findings
from ssdlab.store.health import (
    add_health_sample,
    load_health_sample,
    load_health_samples,
)
from ssdlab.store.lifecycle import finish_run, reopen_run, to_json
from ssdlab.store.listing import RunFilter, runs_matching
from ssdlab.system.environment import (
    collect_environment,
    read_boot_id,
    read_pid_namespace,
    tool_version,
)
from ssdlab.system.health import HealthReading, read_health
from ssdlab.system.health_replay import HealthReplay
from ssdlab.system.hooks import run_hook
from ssdlab.system.nvme_nodes import is_drive_path, read_drive_identity
from ssdlab.system.process import ProcessRunner
from ssdlab.system.textfile import write_textfile
from ssdlab.system.user_files import (
    LOG_FILE_BYTES,
    SMALL_FILE_BYTES,
    read_user_file,
    read_user_text,
)


def _vendor_map(args: argparse.Namespace) -> VendorMap:
    if not getattr(args, "vendor_map", None):
        return load_vendor_map()
    text = read_user_text(args.vendor_map, SMALL_FILE_BYTES, "the --vendor-map file")
    try:
        return load_vendor_map(text, origin=str(args.vendor_map))
    except ValueError as error:
        raise UsageError(f"--vendor-map {args.vendor_map}: {error}") from None


def _new_run(session: RunSession, kind: RunKind, target: str, settings: dict[str, Any]) -> int:
    environment = collect_environment(tool_version("fio"))
    return session.create_run(
        RunHeader(
            kind=kind,
            profile=kind,
            profile_version=1,
            preset=None,
            target_kind=TargetKind.DEVICE if target.startswith("/dev/") else TargetKind.FILE,
            target_path=target,
            target_json=json.dumps({"path": target}),
            settings_json=json.dumps(settings, sort_keys=True),
            plan_json="{}",
            environment_json=to_json(environment),
        )
    )


def _store_reading(
    conn: sqlite3.Connection, run_id: int, phase: str, reading: HealthReading
) -> int | None:
    capture_ids = tuple(add_capture(conn, run_id, c) for c in reading.captures)
    if reading.sample is None:
        return None
    return add_health_sample(conn, run_id, phase, reading.sample, capture_ids)


def samples_from_file(path: str, args: argparse.Namespace) -> list[HealthSample]:
    """The samples of a saved health file of any format parse.health_file reads; a log that
    carries no times is spaced by --interval (or --elapsed), its last line at the file's
    modification time."""
    text = read_user_file(path, LOG_FILE_BYTES, "the health file").decode("utf-8", "replace")
    interval_s: float | None = getattr(args, "interval", None)
    elapsed_s: float | None = getattr(args, "elapsed", None)
    if interval_s is not None and elapsed_s is not None:
        raise UsageError("give --interval (time between readings) or --elapsed, not both")
    if interval_s is not None and not interval_s > 0:
        raise UsageError(f"--interval must be a positive time such as 5m, not {interval_s:g} s")
    return read_health_text(
        text,
        name=path,
        vendor_map=_vendor_map(args),
        model=getattr(args, "model", None),
        interval_s=interval_s,
        elapsed_s=elapsed_s,
        end_s=os.stat(path).st_mtime,
    )


def _sample_json(sample: HealthSample, sample_id: int | None) -> dict[str, Any]:
    return {"sample_id": sample_id, **dataclasses.asdict(sample)}


def _elapsed_s(args: argparse.Namespace) -> float | None:
    """--elapsed, refused when it is not a positive time."""
    elapsed: float | None = getattr(args, "elapsed", None)
    if elapsed is not None and not elapsed > 0:
        raise UsageError(f"--elapsed must be a positive time such as 97h or 4d, not {elapsed:g} s")
    return elapsed


def cmd_health(args: argparse.Namespace, out: Console) -> int:
    if not args.target and not args.import_log:
        raise UsageError("name a block device or a saved smartctl/nvme-cli file, or --import LOG")
    _elapsed_s(args)
    session = session_for(args)
    conn = session.conn
    if args.import_log or not is_drive_path(args.target):
        path = args.import_log or args.target
        samples = samples_from_file(path, args)
        run_id = _new_run(session, RunKind.IMPORT, os.path.abspath(path), {"source": path})
        ids = [add_health_sample(conn, run_id, "import", s) for s in samples]
        finish_run(conn, run_id, RunStatus.COMPLETE, None, time.time())
        return _show_samples(args, out, samples, ids)
    run_id = _new_run(session, RunKind.HEALTH, os.path.realpath(args.target), {})
    reading = _live_reading(args.target, args)
    sample_id = _store_reading(conn, run_id, "check", reading)
    status = RunStatus.COMPLETE if reading.sample else RunStatus.FAILED
    finish_run(conn, run_id, status, "; ".join(reading.notes) or None, time.time())
    if reading.sample is None:
        raise SsdlabError("; ".join(reading.notes) or "no health data")
    if not args.json:
        for note in reading.notes:
            out.print(f"[yellow]note:[/yellow] {note}", highlight=False)
    return _show_samples(args, out, [reading.sample], [sample_id])


def _show_samples(
    args: argparse.Namespace,
    out: Console,
    samples: list[HealthSample],
    ids: Sequence[int | None],
) -> int:
    elapsed_s = _elapsed_s(args)
    if len(samples) == 1:
        if elapsed_s is not None:
            raise UsageError("--elapsed is the time between samples; this input holds only one")
        sections = health_sections(samples[0])
        if args.json:
            doc = {
                "format": "ssdlab-health",
                "format_version": 1,
                "sample": _sample_json(samples[0], ids[0]),
                **health_json(samples[0], sections),
            }
            sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        else:
            print_sections(out, sections)
            out.print(f"stored as sample {ids[0]}", highlight=False)
        return 0
    metric = args.step_metric
    report = analyse_series(
        samples,
        rated=rated_from_args(args, open_db(args), samples[-1]),
        elapsed_s=elapsed_s,
    )
    steps = counter_step_timing(timeline(samples, elapsed_s=elapsed_s).samples, metric)
    sections = health_sections(samples[-1]) + series_sections(report, steps)
    if args.json:
        doc = {
            "format": "ssdlab-health-series",
            "format_version": 1,
            "sample_ids": ids,
            "latest_sample": _sample_json(samples[-1], ids[-1]),
            "series": dataclasses.asdict(report),
            "steps": [dataclasses.asdict(s) for s in steps],
            **health_json(samples[-1], sections),
        }
        sys.stdout.write(json.dumps(doc, indent=2, default=str) + "\n")
        return 0
    print_sections(out, sections)
    out.print(f"stored {len(samples)} samples (ids {ids[0]}–{ids[-1]})", highlight=False)
    return 0


def _sample_for_wear(
    session: RunSession, text: str, args: argparse.Namespace
) -> tuple[HealthSample, str]:
    conn = session.conn
    if text.isdigit():
        stored = load_health_sample(conn, int(text))
        if stored is None:
            raise UsageError(f"there is no stored health sample {text}")
        return stored.sample, f"sample {text}"
    if is_drive_path(text):
        run_id = _new_run(session, RunKind.HEALTH, os.path.realpath(text), {})
        reading = _live_reading(text, args)
        sample_id = _store_reading(conn, run_id, "check", reading)
        finish_run(conn, run_id, RunStatus.COMPLETE, None, time.time())
        if reading.sample is None:
            raise SsdlabError("; ".join(reading.notes) or f"no health data from {text}")
        return reading.sample, f"{text} now (sample {sample_id})"
    if Path(text).exists():
        samples = samples_from_file(text, args)
        return samples[-1], text
    raise UsageError(f"{text!r} is neither a stored sample id, a block device nor a file")


def cmd_wear(args: argparse.Namespace, out: Console) -> int:
    elapsed_s = _elapsed_s(args)
    session = session_for(args)
    conn = session.conn
    before, before_name = _sample_for_wear(session, args.before, args)
    after, after_name = _sample_for_wear(session, args.after, args)
    report = compare_samples(
        before,
        after,
        raw_nand_capacity_bytes=args.raw_nand_capacity,
        slc_cached=True if args.slc_cached else None,
        rated=rated_from_args(args, conn, after),
        elapsed_s=elapsed_s,
    )
    sections = wear_sections(report)
    if args.json:
        doc = {
            "format": "ssdlab-wear",
            "format_version": 1,
            "before": before_name,
            "after": after_name,
            "report": dataclasses.asdict(report),
            "sections": sections_json(sections),
        }
        sys.stdout.write(json.dumps(doc, indent=2, default=str) + "\n")
        return 0
    out.print(f"{before_name} → {after_name}", highlight=False)
    print_sections(out, sections)
    return 0


def _watch_run(session: RunSession, device: str, every_s: float, new: bool) -> int:
    """The watch run to append to: the last one for this device, unless --new."""
    conn = session.conn
    if not new:
        for run in runs_matching(conn, RunFilter(profile="watch", targets=(device,))):
            if run.kind is RunKind.WATCH and run.status.value != "running":
                reopen_run(conn, run.run_id, os.getpid(), read_boot_id(), read_pid_namespace())
                return run.run_id
    return _new_run(session, RunKind.WATCH, device, {"every_s": every_s})


def _watch_target(args: argparse.Namespace) -> str:
    """The series' name: the device's real path; with --health-replay, the device given (only
    a name, never opened) or the log."""
    if args.health_replay:
        if args.device:
            return os.path.abspath(str(args.device))
        return f"replay:{os.path.abspath(args.health_replay)}"
    if not args.device:
        raise UsageError("name the block device to watch, or a log with --health-replay LOG")
    if not is_drive_path(args.device):
        raise UsageError(f"{args.device} is not a block device or an NVMe controller")
    return os.path.realpath(str(args.device))


def _hooks(args: argparse.Namespace) -> list[list[str]]:
    hooks = []
    for text in args.on_alert:
        try:
            argv = shlex.split(text)
        except ValueError as error:
            raise UsageError(f"--on-alert {text!r}: {error}; quote it as a shell would") from None
        if not argv:
            raise UsageError("--on-alert needs a program, e.g. --on-alert '/usr/local/bin/page'")
        hooks.append(argv)
    if args.hook_timeout <= 0:
        raise UsageError("--hook-timeout must be a positive time such as 30s")
    return hooks


def _health_source(
    args: argparse.Namespace, device: str, replay: HealthReplay | None, skip: int
) -> HealthSource:
    """The replay (past the snapshots the series already holds), else the live device."""
    if replay is not None:
        for _ in range(skip):
            replay()
        return replay
    return functools.partial(_live_reading, device, args)


def _live_reading(device: str, args: argparse.Namespace) -> HealthReading:
    identity = read_drive_identity(device)
    return read_health(
        os.path.realpath(device),
        ProcessRunner(),
        vendor_map=_vendor_map(args),
        usb=identity.transport == "usb",
        no_wake=bool(getattr(args, "no_wake", False)),
    )


def cmd_watch(args: argparse.Namespace, out: Console) -> int:
    if args.print_systemd_unit:
        sys.stdout.write(watch_unit(sys.argv[1:], args))  # verbatim: no wrapping
        return 0
    device = _watch_target(args)
    watcher = _watcher(args, out, device)
    stop = threading.Event()
    guard = watcher.session.guard(stop.set, stop.set, advice=None)  # every signal ends the watch
    started = time.monotonic()
    taken = 0
    try:
        with guard:
            while not stop.is_set():
                more = watcher.sample()
                taken += 1
                if not more or (args.count and taken >= args.count):
                    break
                deadline = time.monotonic() + args.every
                if args.duration is not None and deadline - started > args.duration:
                    break
                while not stop.is_set() and time.monotonic() < deadline:
                    time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))
    finally:
        signal_name = guard.first_signal
        reason = f"stopped by a signal ({signal_name})" if signal_name else None
        finish_run(watcher.conn, watcher.run_id, RunStatus.COMPLETE, reason, time.time())
    series = load_health_samples(watcher.conn, run_id=watcher.run_id)
    out.print(
        f"watch run {watcher.run_id}: {len(series)} samples stored, "
        f"{watcher.fired} alert(s) this time",
        highlight=False,
    )
    return 0


def _watcher(args: argparse.Namespace, out: Console, device: str) -> "_Watcher":
    hooks = _hooks(args)
    textfile = Path(args.textfile) if args.textfile else None
    replay = HealthReplay(args.health_replay) if args.health_replay else None  # checked first
    session = session_for(args)
    run_id = _watch_run(session, device, args.every, args.new)
    stored = load_health_samples(session.conn, run_id=run_id)
    return _Watcher(
        session=session,
        run_id=run_id,
        device=device,
        source=_health_source(args, device, replay, len(stored)),
        thresholds=Thresholds(
            max_temperature_c=args.max_temperature,
            min_spare_pct=args.min_spare,
            min_days_left=args.min_days_left,
            max_waf=args.max_waf,
        ),
        hooks=hooks,
        hook_timeout_s=args.hook_timeout,
        textfile=textfile,
        replay=bool(args.health_replay),
        out=out,
    )


ALERT_STATE = "watch-alert-state"
ALERT_PREFIX = "watch-alert-"
SKIPPED = "watch-skipped-samples"


@dataclasses.dataclass
class _Watcher:
    """One watch: takes a sample, judges it, stores and announces what fired."""

    session: RunSession
    run_id: int
    device: str
    source: HealthSource
    thresholds: Thresholds
    hooks: list[list[str]]
    hook_timeout_s: float
    textfile: Path | None
    replay: bool
    out: Console
    fired: int = 0

    def __post_init__(self) -> None:
        findings = {f.name: f for f in load_findings(self.conn, self.run_id)}
        found = findings.get(ALERT_STATE)
        self.state = state_from_json(found.body) if found is not None else None
        self.alerts_stored = sum(
            1 for name in findings if name.startswith(ALERT_PREFIX) and name != ALERT_STATE
        )
        skipped = findings.get(SKIPPED)
        self.skipped = int(skipped.body.get("count", 0)) if skipped is not None else 0

    @property
    def conn(self) -> sqlite3.Connection:
        return self.session.conn

    def sample(self) -> bool:
        """Take, store and judge one sample; False when a replay has run out."""
        reading = self.source()
        sample_id = _store_reading(self.conn, self.run_id, "watch", reading)
        stamp = format_time(time.time())
        if reading.sample is None:
            if self.replay and not reading.captures:
                self.out.print(f"{stamp} {'; '.join(reading.notes)}", highlight=False)
                return False
            self._no_sample(stamp, reading)
        else:
            self.out.print(f"{stamp} sample {sample_id}: {_watch_line(reading.sample)}")
            self._judge(reading, reading.sample, sample_id)
        if self.textfile is not None:
            _write_textfile(self.conn, self.textfile)
        return True

    def _no_sample(self, stamp: str, reading: HealthReading) -> None:
        if reading.standby:
            self.skipped += 1
            add_finding(
                self.conn,
                self.run_id,
                SKIPPED,
                "facts",
                {"count": self.skipped, "last_at_s": time.time(), "reason": "standby"},
                time.time(),
            )
            self.out.print(f"{stamp} skipped: {'; '.join(reading.notes)}", highlight=False)
            return
        self.out.print(f"{stamp} no sample: {'; '.join(reading.notes)}", highlight=False)

    def _judge(self, reading: HealthReading, sample: HealthSample, sample_id: int | None) -> None:
        """Judge the series with this sample last; each alert is stored before the state that
        says it fired, and both before its hooks run."""
        earlier = [
            s.sample
            for s in load_health_samples(self.conn, run_id=self.run_id)
            if s.sample_id != sample_id
        ]
        thresholds = resolve_thresholds(self.thresholds, _drive_limits(reading))
        judgement = judge([*earlier, sample], thresholds, self.state)
        fired = [self._store_alert(alert, sample) for alert in judgement.alerts]
        self.state = judgement.state
        add_finding(self.conn, self.run_id, ALERT_STATE, "facts", judgement.state, time.time())
        for name, document in fired:
            self._run_hooks(name, document)

    def _store_alert(self, alert: Alert, sample: HealthSample) -> tuple[str, dict[str, object]]:
        self.fired += 1
        self.alerts_stored += 1
        name = f"{ALERT_PREFIX}{self.alerts_stored}"
        document = alert_document(alert, sample, self.device, self.run_id)
        add_finding(self.conn, self.run_id, name, "verdict", {"alert": document}, time.time())
        self.out.print(
            f"[red]ALERT[/red] {alert.name} ({alert.severity}): {alert.message}",
            highlight=False,
            soft_wrap=True,
        )
        return name, document

    def _run_hooks(self, name: str, document: dict[str, object]) -> None:
        """Every hook with the alert on stdin; a failure is said on stderr and stored."""
        if not self.hooks:
            return
        text = json.dumps(document, sort_keys=True) + "\n"
        results = [run_hook(argv, text, self.hook_timeout_s) for argv in self.hooks]
        for result in results:
            if result.failed:
                sys.stderr.write(
                    f"ssdlab watch: alert hook {shlex.join(result.argv)} {result.error}; "
                    f"sampling continues (stored with the alert {name})\n"
                )
        body = {"alert": document, "hooks": [dataclasses.asdict(r) for r in results]}
        add_finding(self.conn, self.run_id, name, "verdict", body, time.time())


def alert_document(
    alert: Alert, sample: HealthSample, device: str, run_id: int
) -> dict[str, object]:
    """One alert as a hook reads it on stdin (format ssdlab-alert, version 1)."""
    identity = sample.identity
    document: dict[str, object] = {
        "format": "ssdlab-alert",
        "format_version": 1,
        "alert": alert.name,
        "severity": alert.severity,
        "device": device,
        "serial": identity.serial,
        "model": identity.model,
        "firmware": identity.firmware,
        "host": os.uname().nodename,
        "value": alert.value,
        "message": alert.message,
        "taken_at_s": alert.taken_at_s,
        "run_id": run_id,
    }
    if alert.threshold is not None:
        document["threshold"] = alert.threshold
    if alert.previous is not None:
        document["previous"] = alert.previous
    return document


def _drive_limits(reading: HealthReading) -> DriveLimits:
    """The drive's own limits, as its sample reports them (none without a sample)."""
    return drive_limits(reading.sample) if reading.sample is not None else DriveLimits()


def _write_textfile(conn: sqlite3.Connection, folder: Path) -> None:
    """The store's metrics into node_exporter's folder; a failure is said, never fatal."""
    try:
        write_textfile(folder, store_metrics_text(conn))
    except (SsdlabError, OSError) as error:
        sys.stderr.write(
            f"ssdlab watch: --textfile {folder}: {error}; sampling continues, the next sample "
            "writes again\n"
        )


def watch_unit(argv: list[str], args: argparse.Namespace) -> str:
    """A long-running service that runs this watch; it continues its series after a restart."""
    if args.new:
        raise UsageError(
            "--print-systemd-unit describes a watch that continues its series after a restart; "
            "leave out --new (a service restarted with --new would fire every alert again)"
        )
    target = _watch_target(args)
    command = unit_command(argv, db_path(args))
    return (
        "# ssdlab watch as a systemd service. Install with:\n"
        "#   ssdlab watch ... --print-systemd-unit > /etc/systemd/system/ssdlab-watch.service\n"
        "#   systemctl daemon-reload && systemctl enable --now ssdlab-watch.service\n"
        "# One long-running process samples every --every; after a crash or a reboot it\n"
        "# continues the same series, and the alerts it stored do not fire again.\n"
        "[Unit]\n"
        f"Description=ssdlab health watch of {target}\n"
        "After=local-fs.target\n"
        "\n"
        "[Service]\n"
        "Type=simple\n" + exec_lines(command) + "KillSignal=SIGINT\n"
        "TimeoutStopSec=120\n"
        "Restart=on-failure\n"
        "RestartSec=60\n"
        "RestartPreventExitStatus=2\n"
        "\n"
        "[Install]\n"
        "WantedBy=multi-user.target\n"
    )


def _watch_line(sample: HealthSample) -> str:
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
