"""`ssdlab health`, `ssdlab wear` and `ssdlab watch`: drive health, wear between samples, and
sampling into the store over days."""

import argparse
import dataclasses
import json
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from ssdlab.analysis.steps import counter_step_timing
from ssdlab.analysis.wear import analyse_series, compare_samples, timeline
from ssdlab.cli.rating import rated_from_args
from ssdlab.cli.render import print_sections
from ssdlab.cli.run_session import session_for
from ssdlab.cli.store_access import open_db
from ssdlab.errors import ParseError, SsdlabError, UsageError
from ssdlab.model.health import HealthSample
from ssdlab.model.run import RunStatus
from ssdlab.parse.nvme_json import parse_nvme_smart_log
from ssdlab.parse.smart_vendors import VendorMap, load_vendor_map
from ssdlab.parse.smartctl_json import normalise_smartctl, parse_smartctl_json
from ssdlab.parse.smartctl_log import split_snapshot_log
from ssdlab.parse.smartctl_text import smartctl_text_to_json
from ssdlab.report.health import (
    health_json,
    health_sections,
    sections_json,
    series_sections,
    wear_sections,
)
from ssdlab.runner.run_row import RunHeader
from ssdlab.runner.session import RunSession
from ssdlab.store import runs as store
from ssdlab.store.health import (
    add_health_sample,
    load_health_sample,
    load_health_samples,
)
from ssdlab.system.block import read_device_identity, resolve_block_device
from ssdlab.system.devicetarget import is_block_device_path
from ssdlab.system.environment import (
    collect_environment,
    read_boot_id,
    read_pid_namespace,
    tool_version,
)
from ssdlab.system.health import HealthReading, read_health
from ssdlab.system.process import ProcessRunner
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


def _new_run(session: RunSession, kind: str, target: str, settings: dict[str, Any]) -> int:
    environment = collect_environment(tool_version("fio"))
    return session.create_run(
        RunHeader(
            kind=kind,
            profile=kind,
            profile_version=1,
            preset=None,
            target_kind="device" if target.startswith("/dev/") else "file",
            target_path=target,
            target_json=json.dumps({"path": target}),
            settings_json=json.dumps(settings, sort_keys=True),
            plan_json="{}",
            environment_json=store.to_json(environment),
        )
    )


def _live_reading(device: str, args: argparse.Namespace) -> HealthReading:
    name = resolve_block_device(device)
    identity = read_device_identity(name)
    return read_health(
        os.path.realpath(device),
        ProcessRunner(),
        vendor_map=_vendor_map(args),
        usb=identity.transport == "usb",
    )


def _store_reading(
    conn: sqlite3.Connection, run_id: int, phase: str, reading: HealthReading
) -> int | None:
    capture_ids = tuple(store.add_capture(conn, run_id, c) for c in reading.captures)
    if reading.sample is None:
        return None
    return add_health_sample(conn, run_id, phase, reading.sample, capture_ids)


def samples_from_file(path: str, args: argparse.Namespace) -> list[HealthSample]:
    """A saved smartctl JSON, nvme-cli JSON, smartctl text, or a log of text snapshots."""
    text = read_user_file(path, LOG_FILE_BYTES, "the health file").decode("utf-8", "replace")
    model = getattr(args, "model", None)
    vendors = _vendor_map(args)
    if text.lstrip().startswith("{"):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as error:
            raise ParseError(f"{path} looks like JSON but is not valid JSON: {error}") from None
        if isinstance(doc, dict) and ("smartctl" in doc or "device" in doc):
            return [parse_smartctl_json(text, vendor_map=vendors, model_override=model)]
        return [parse_nvme_smart_log(text)]
    snapshots = split_snapshot_log(text, model_override=model)
    if snapshots:
        return [
            normalise_smartctl(
                s.doc, taken_at_s=s.taken_at_s, vendor_map=vendors, model_override=model
            )
            for s in snapshots
        ]
    return [
        normalise_smartctl(smartctl_text_to_json(text), vendor_map=vendors, model_override=model)
    ]


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
    if args.import_log or not is_block_device_path(args.target):
        path = args.import_log or args.target
        samples = samples_from_file(path, args)
        run_id = _new_run(session, "import", os.path.abspath(path), {"source": path})
        ids = [add_health_sample(conn, run_id, "import", s) for s in samples]
        store.finish_run(conn, run_id, RunStatus.COMPLETE, None, time.time())
        return _show_samples(args, out, samples, ids)
    run_id = _new_run(session, "health", os.path.realpath(args.target), {})
    reading = _live_reading(args.target, args)
    sample_id = _store_reading(conn, run_id, "check", reading)
    status = RunStatus.COMPLETE if reading.sample else RunStatus.FAILED
    store.finish_run(conn, run_id, status, "; ".join(reading.notes) or None, time.time())
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
    if is_block_device_path(text):
        run_id = _new_run(session, "health", os.path.realpath(text), {})
        reading = _live_reading(text, args)
        sample_id = _store_reading(conn, run_id, "check", reading)
        store.finish_run(conn, run_id, RunStatus.COMPLETE, None, time.time())
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
        for run in store.list_runs(conn):
            if run.kind == "watch" and run.target_path == device and run.status.value != "running":
                store.reopen_run(
                    conn, run.run_id, os.getpid(), read_boot_id(), read_pid_namespace()
                )
                return run.run_id
    return _new_run(session, "watch", device, {"every_s": every_s})


def cmd_watch(args: argparse.Namespace, out: Console) -> int:
    if not is_block_device_path(args.device):
        raise UsageError(f"{args.device} is not a block device")
    device = os.path.realpath(args.device)
    session = session_for(args)
    conn = session.conn
    run_id = _watch_run(session, device, args.every, args.new)
    stop = threading.Event()
    guard = session.guard(stop.set, stop.set, advice=None)  # every signal ends the watch
    started = time.monotonic()
    taken = 0
    try:
        with guard:
            while not stop.is_set():
                reading = _live_reading(device, args)
                sample_id = _store_reading(conn, run_id, "watch", reading)
                taken += 1
                stamp = time.strftime("%Y-%m-%d %H:%M:%S")
                if reading.sample is not None:
                    out.print(f"{stamp} sample {sample_id}: {_watch_line(reading.sample)}")
                else:
                    out.print(f"{stamp} no sample: {'; '.join(reading.notes)}", highlight=False)
                if args.count and taken >= args.count:
                    break
                deadline = time.monotonic() + args.every
                if args.duration is not None and deadline - started > args.duration:
                    break
                while not stop.is_set() and time.monotonic() < deadline:
                    time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))
    finally:
        signal_name = guard.first_signal
        reason = f"stopped by a signal ({signal_name})" if signal_name else None
        store.finish_run(conn, run_id, RunStatus.COMPLETE, reason, time.time())
    series = [s.sample for s in load_health_samples(conn, run_id=run_id)]
    out.print(f"watch run {run_id}: {len(series)} samples stored", highlight=False)
    return 0


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
