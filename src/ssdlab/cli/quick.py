"""`ssdlab quick` and `ssdlab plan quick`: resolve the target, plan, check safety, run, show."""

import argparse
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from ssdlab.cli.jobs import emit_plan
from ssdlab.cli.progress import make_progress
from ssdlab.cli.render import print_quick_report
from ssdlab.cli.signals import SignalGuard
from ssdlab.cli.store_access import db_path, open_db, run_health
from ssdlab.errors import Interrupted, SsdlabError, TargetError, UsageError
from ssdlab.model.plan import Direction, Plan, QuickSettings
from ssdlab.model.target import Target
from ssdlab.plan.jobfile import render_job
from ssdlab.plan.quick import describe_pass, parse_mode, plan_quick, resolve_settings
from ssdlab.profiles.quick import load_quick_profile
from ssdlab.report.quick import build_quick_report
from ssdlab.report.quick_document import quick_json
from ssdlab.runner.quick import QuickRunner
from ssdlab.store import runs as store
from ssdlab.system.devicetarget import (
    check_device_writes,
    is_block_device_path,
    resolve_device_target,
    with_loop_warnings,
)
from ssdlab.system.environment import collect_environment
from ssdlab.system.filetarget import resolve_file_target
from ssdlab.system.fio import check_ioengine, find_fio
from ssdlab.system.health import HealthReading, read_health
from ssdlab.system.openers import refuse_while_fio_writes
from ssdlab.system.process import ProcessRunner


def _settings(args: argparse.Namespace) -> QuickSettings:
    return resolve_settings(
        load_quick_profile(),
        preset=args.preset,
        size_bytes=args.size,
        count=args.count,
        measure_s=args.measure,
        interval_s=args.interval,
        mode=args.mode,
        mix_read_pct=args.mix,
        data="zero" if args.zero_fill else args.data,
        ioengine=args.ioengine,
        direct_io=not args.buffered,
    )


def _resolve_target(args: argparse.Namespace, settings: QuickSettings) -> Target:
    writes = any(d is not Direction.READ for d in parse_mode(settings.mode))
    if is_block_device_path(args.target):
        if args.buffered:
            raise UsageError(
                "--buffered is for file targets; block devices are always tested with direct I/O"
            )
        return resolve_device_target(args.target, settings.size_bytes)
    if args.destroy_data:
        raise UsageError(
            f"--destroy-data names a block device, but {args.target} is not one; file targets "
            "never need it"
        )
    return with_loop_warnings(
        resolve_file_target(
            args.target, settings.size_bytes, direct_io=settings.direct_io, writes=writes
        )
    )


def _needs_fill(target: Target, settings: QuickSettings, writes: bool) -> bool:
    if target.kind.value == "device":
        return writes  # only when writing is allowed: fill before reading, as on a file
    if target.created_file:
        return True
    path = Path(target.path)
    return target.reuses_test_file and path.stat().st_size < settings.size_bytes


def build_plan(args: argparse.Namespace) -> tuple[Plan, Target]:
    settings = _settings(args)
    target = _resolve_target(args, settings)
    writes = any(d is not Direction.READ for d in parse_mode(settings.mode))
    plan = plan_quick(
        load_quick_profile(),
        settings,
        target_path=target.path,
        target_kind=target.kind.value,
        fill=_needs_fill(target, settings, writes),
    )
    return plan, target


def cmd_plan(args: argparse.Namespace, out: Console) -> int:
    plan, target = build_plan(args)
    jobs: list[tuple[str, str]] = []
    if plan.prepare is not None:
        jobs.append(
            (
                "prepare",
                render_job(plan.prepare, comment=f"ssdlab {plan.profile}: prepare test file"),
            )
        )
    for planned in plan.passes:
        name = f"{planned.test.key}-p{planned.pass_index}"
        jobs.append((name, render_job(planned.job, comment=describe_pass(plan, planned))))
    return emit_plan(
        jobs,
        target_path=target.path,
        destructive=plan.destructive,
        created_file=target.created_file,
        check=args.check,
        as_json=args.json,
    )


def cmd_quick(args: argparse.Namespace, out: Console) -> int:
    plan, target = build_plan(args)
    refuse_while_fio_writes(target.path)
    database = db_path(args)
    if plan.destructive:
        check_device_writes(target, args.destroy_data, database)
    elif target.kind.value == "device" and not args.json:
        out.print(
            f"[dim]read-only tests on {target.path}; blocks never written may read back "
            "faster than real data[/dim]",
            highlight=False,
        )
    processes = ProcessRunner()
    fio = find_fio(processes)
    check_ioengine(processes, fio, plan.settings.ioengine)
    conn = open_db(args)
    device_id = store.upsert_device(conn, target.device) if target.device else None
    environment = collect_environment(fio.version_text)
    progress = make_progress(sys.stderr)
    runner = QuickRunner(conn, fio, progress, processes)

    def exit_now() -> None:
        runner.kill()
        sys.stderr.write(
            "\nssdlab: stopped at once; 'ssdlab doctor --cleanup' removes any "
            "test file left behind\n"
        )
        os._exit(130)

    health: Callable[[], HealthReading] | None = None
    if target.device is not None:  # the device itself, or the one under a file target
        health = functools.partial(
            read_health, target.device.path, processes, usb=target.device.transport == "usb"
        )

    with SignalGuard(runner.request_stop, exit_now), progress:
        outcome = runner.execute(
            plan,
            target,
            environment,
            device_id=device_id,
            keep_file=args.keep,
            read_health=health,
        )
    run = store.load_run(conn, outcome.run_id)
    if run is None:
        raise TargetError(f"run {outcome.run_id} vanished from the store")
    report = build_quick_report(
        run, store.load_step_results(conn, outcome.run_id), run_health(conn, outcome.run_id)
    )
    if args.json:
        sys.stdout.write(quick_json(report))
    else:
        print_quick_report(out, report)
        kept = f"; test file kept at {target.path}" if args.keep and target.created_file else ""
        out.print(f"stored as run {outcome.run_id} in {database}{kept}", highlight=False)
    if outcome.status.value == "interrupted":
        raise Interrupted(
            f"run {outcome.run_id} was interrupted; the {len(outcome.steps)} passes that "
            "finished are stored"
        )
    if outcome.status.value == "failed":
        raise SsdlabError(f"run {outcome.run_id} failed: {outcome.reason}")
    return 0
