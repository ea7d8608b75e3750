"""`ssdlab run PROFILE TARGET` and `ssdlab plan PROFILE TARGET`: resolve the target, plan,
check safety, gather facts, run, analyse, store, show."""

import argparse
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console

from ssdlab.errors import Interrupted, SsdlabError, UsageError
from ssdlab.model.profile import (
    PlanTarget,
    ProfilePlan,
    ProfileSpec,
    SettingValue,
    Writes,
)
from ssdlab.model.target import Target
from ssdlab.model.units import format_size
from ssdlab.plan.jobfile import render_job
from ssdlab.report.document import Document, document_json
from ssdlab.report.plots import render_chart
from ssdlab.runner.profile import FactsReading, ProfileRunner, describe_step
from ssdlab.store import runs as store
from ssdlab.system.devicetarget import (
    check_device_writes,
    is_block_device_path,
    resolve_device_target,
)
from ssdlab.system.environment import collect_environment
from ssdlab.system.filetarget import is_test_file_name, resolve_file_target
from ssdlab.system.fio import find_fio
from ssdlab.system.health import HealthReading, read_health
from ssdlab.system.process import ProcessRunner

from .jobs import emit_plan
from .profiles import analyser_of, document_builder_of, facts_reader_of, planner_of, spec_of
from .progress import make_progress
from .render import print_document
from .signals import SignalGuard
from .store_access import db_path, load_profile_results, open_db


def _given_settings(args: argparse.Namespace, spec: ProfileSpec) -> dict[str, SettingValue]:
    given: dict[str, SettingValue] = {}
    for option in spec.options:
        value = getattr(args, option.name, None)
        if value is not None and value is not False:
            given[option.name] = value
    return given


def _target_size(spec: ProfileSpec, requested: int | None, capacity: int | None) -> int:
    if requested is not None:
        return requested
    if capacity is None:
        return spec.default_file_size_bytes
    return capacity if spec.whole_device_by_default else min(capacity, spec.default_file_size_bytes)


def resolve_target(args: argparse.Namespace, spec: ProfileSpec) -> Target:
    writes = spec.writes is not Writes.NEVER
    if is_block_device_path(args.target):
        if args.buffered:
            raise UsageError(
                "--buffered is for file targets; block devices are always tested with direct I/O"
            )
        probe = resolve_device_target(args.target, args.size or 1)
        capacity = probe.device.capacity_bytes if probe.device else None
        return resolve_device_target(args.target, _target_size(spec, args.size, capacity))
    if getattr(args, "destroy_data", None):
        raise UsageError(
            f"--destroy-data names a block device, but {args.target} is not one; file targets "
            "never need it"
        )
    return resolve_file_target(
        args.target,
        _target_size(spec, args.size, None),
        direct_io=not args.buffered,
        writes=writes,
    )


def plan_target_of(target: Target) -> PlanTarget:
    needs_fill = False
    if target.kind.value == "file":
        path = Path(target.path)
        needs_fill = target.created_file or (
            is_test_file_name(path.name) and path.stat().st_size < target.size_bytes
        )
    device = target.device
    return PlanTarget(
        path=target.path,
        kind=target.kind.value,
        size_bytes=target.size_bytes,
        capacity_bytes=device.capacity_bytes if target.kind.value == "device" and device else None,
        direct_io=target.direct_io,
        needs_fill=needs_fill,
        logical_block_bytes=device.logical_block_bytes if device else None,
        discard_supported=None
        if device is None or device.discard_max_bytes is None
        else device.discard_max_bytes > 0,
    )


def build_profile_plan(args: argparse.Namespace) -> tuple[ProfilePlan, Target, ProfileSpec]:
    spec = spec_of(args.profile)
    given = _given_settings(args, spec)
    target = resolve_target(args, spec)
    plan = planner_of(args.profile)(given, plan_target_of(target))
    return plan, target, spec


def plan_jobs(plan: ProfilePlan) -> list[tuple[str, str]]:
    """(name, job file text) of every fio step, numbered as the run numbers them."""
    jobs = []
    for number, step in enumerate(plan.steps, start=1):
        if step.job is not None:
            jobs.append(
                (
                    f"{number:02d}-{step.key}",
                    render_job(step.job, describe_step(plan, step, number)),
                )
            )
    return jobs


def _other_steps(plan: ProfilePlan) -> list[str]:
    notes = []
    for number, step in enumerate(plan.steps, start=1):
        if step.job is None and step.idle_s:
            notes.append(f"step {number}: {step.label}: idle {step.idle_s:g} s")
        elif step.command:
            notes.append(f"step {number}: {step.label}: runs {' '.join(step.command)}")
    return notes


def cmd_plan(args: argparse.Namespace, out: Console) -> int:
    if args.profile == "quick":
        from .quick import cmd_plan as cmd_plan_quick

        return cmd_plan_quick(args, out)
    plan, target, _spec = build_profile_plan(args)
    return emit_plan(
        plan_jobs(plan),
        target_path=target.path,
        destructive=plan.destructive,
        created_file=target.created_file,
        check=args.check,
        as_json=args.json,
        notes=[*plan.notes, *_other_steps(plan)],
    )


def write_charts(document: Document, folder: str) -> list[Path]:
    """Every chart of the document as SVG and PNG files in `folder` (created if needed)."""
    directory = Path(folder)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        written = []
        for chart in document.charts:
            for fmt in ("svg", "png"):
                path = directory / f"{chart.key}.{fmt}"
                path.write_bytes(render_chart(chart, fmt))
                written.append(path)
    except OSError as error:
        raise SsdlabError(f"cannot write charts to {folder}: {error.strerror}") from error
    return written


def cmd_run(args: argparse.Namespace, out: Console) -> int:
    plan, target, spec = build_profile_plan(args)
    database = db_path(args)
    if plan.destructive:
        check_device_writes(target, args.destroy_data, database)
    processes = ProcessRunner()
    fio = find_fio(processes)
    conn = open_db(args)
    device_id = store.upsert_device(conn, target.device) if target.device else None
    environment = collect_environment(fio.version_text)
    progress = make_progress(sys.stderr)
    runner = ProfileRunner(conn, fio, progress, processes)

    def exit_now() -> None:
        runner.kill()
        sys.stderr.write(
            "\nssdlab: stopped at once; 'ssdlab doctor --cleanup' removes any "
            "test file left behind\n"
        )
        os._exit(130)

    health: Callable[[], HealthReading] | None = None
    if target.device is not None:
        health = functools.partial(
            read_health, target.device.path, processes, usb=target.device.transport == "usb"
        )
    facts_reader = facts_reader_of(args.profile)
    read_facts: Callable[[], FactsReading] | None = None
    if facts_reader is not None:
        reader = facts_reader

        def read_facts() -> FactsReading:
            facts: dict[str, Any]
            facts, captures = reader(target, processes)
            return facts, tuple(captures)

    with SignalGuard(runner.request_stop, exit_now), progress:
        outcome = runner.execute(
            plan,
            target,
            environment,
            device_id=device_id,
            keep_file=args.keep,
            read_health=health,
            read_facts=read_facts,
            analyse=analyser_of(args.profile),
        )
    results = load_profile_results(conn, outcome.run_id)
    document = document_builder_of(args.profile)(results)
    written = write_charts(document, args.plots) if args.plots else []
    if args.json:
        sys.stdout.write(document_json(document))
    else:
        print_document(out, document)
        if written:
            out.print(f"charts written to {args.plots} ({len(written)} files)", highlight=False)
        kept = f"; test file kept at {target.path}" if args.keep and target.created_file else ""
        out.print(
            f"stored as run {outcome.run_id} in {database}{kept} "
            f"({spec.name}, {format_size(target.size_bytes)} region)",
            highlight=False,
        )
    if outcome.status.value == "interrupted":
        raise Interrupted(
            f"run {outcome.run_id} was interrupted; the {len(outcome.steps)} steps that "
            "finished are stored"
        )
    if outcome.status.value == "failed":
        raise SsdlabError(f"run {outcome.run_id} failed: {outcome.reason}")
    return 0
