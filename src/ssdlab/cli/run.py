"""`ssdlab run PROFILE TARGET` and `ssdlab plan PROFILE TARGET`: resolve the target, plan,
check safety, gather facts, run, analyse, store, show."""

import argparse
import sqlite3
import sys
from pathlib import Path

from rich.console import Console

from ssdlab.cli.jobs import emit_plan
from ssdlab.cli.quick import show_quick_outcome
from ssdlab.cli.render import print_document
from ssdlab.cli.run_session import session_for
from ssdlab.cli.store_access import load_profile_results, open_db, run_id_arg
from ssdlab.errors import Interrupted, SsdlabError, UsageError
from ssdlab.model.profile import (
    PlanTarget,
    ProfilePlan,
    ProfileSpec,
    ProfileStep,
    SettingValue,
    Writes,
)
from ssdlab.model.run import RunRecord
from ssdlab.model.target import Target, TargetKind
from ssdlab.model.units import format_size
from ssdlab.plan.jobfile import render_job
from ssdlab.profiles.quick import load_quick_profile
from ssdlab.registry import profile_record, profile_records
from ssdlab.report.document import Document, document_json
from ssdlab.report.plots import render_chart
from ssdlab.runner.profile import (
    FACTS_FINDING,
    ProfileOutcome,
    describe_step,
)
from ssdlab.runner.session import RunCalls
from ssdlab.store import runs as store
from ssdlab.store.findings import load_findings
from ssdlab.store.profile_runs import profile_plan_of
from ssdlab.system.devicetarget import (
    is_block_device_path,
    resolve_device_target,
    with_loop_warnings,
)
from ssdlab.system.filetarget import resolve_file_target
from ssdlab.system.process import ProcessRunner
from ssdlab.system.purge import read_purge_support
from ssdlab.system.usage import check_mount_point
from ssdlab.system.write_gate import make_output_folder, write_output


def given_settings(args: argparse.Namespace, spec: ProfileSpec) -> dict[str, SettingValue]:
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
    return with_loop_warnings(
        resolve_file_target(
            args.target,
            _target_size(spec, args.size, None),
            direct_io=not args.buffered,
            writes=writes,
        )
    )


def plan_target_of(
    target: Target, spec: ProfileSpec | None = None, processes: ProcessRunner | None = None
) -> PlanTarget:
    needs_fill = False
    if target.kind.value == "file":
        path = Path(target.path)
        needs_fill = target.created_file or (
            target.reuses_test_file and path.stat().st_size < target.size_bytes
        )
    device = target.device
    is_device = target.kind.value == "device"
    purge_support = None
    if spec is not None and spec.reads_purge_support and is_device and processes is not None:
        purge_support, _captures = read_purge_support(target, processes)  # kept by the facts
    return PlanTarget(
        path=target.path,
        kind=target.kind.value,
        size_bytes=target.size_bytes,
        capacity_bytes=device.capacity_bytes if is_device and device else None,
        direct_io=target.direct_io,
        needs_fill=needs_fill,
        logical_block_bytes=device.logical_block_bytes if device else None,
        discard_supported=None
        if device is None or device.discard_max_bytes is None
        else device.discard_max_bytes > 0,
        transport=device.transport if is_device and device else None,
        purge_support=purge_support,
    )


def build_profile_plan(args: argparse.Namespace) -> tuple[ProfilePlan, Target, ProfileSpec]:
    record = profile_record(args.profile)
    spec = record.spec
    given = given_settings(args, spec)
    if args.profile == "cachefit" and given.get("from_run") is not None:
        _cache_size_from_run(args, given)
    if args.profile == "trim" and isinstance(given.get("fstrim"), str):
        given["fstrim"] = check_mount_point(str(given["fstrim"]))
    target = resolve_target(args, spec)
    plan = record.parts().plan(given, plan_target_of(target, spec, ProcessRunner()))
    return plan, target, spec


def _cache_size_from_run(args: argparse.Namespace, given: dict[str, SettingValue]) -> None:
    """cachefit --from-run RUN: the write-cache size a stored `cache` run found."""
    from ssdlab.plan.cachefit import CACHE_FINDING, cache_size_from_finding

    if given.get("cache_size") is not None:
        raise UsageError("give --cache-size or --from-run, not both")
    run_id = int(str(given["from_run"]))
    conn = open_db(args)
    run = store.load_run(conn, run_id)
    if run is None or run.profile != "cache":
        raise UsageError(f"--from-run {run_id}: there is no `cache` run {run_id} in the store")
    body = next((f.body for f in load_findings(conn, run_id) if f.name == CACHE_FINDING), None)
    size = None if body is None else cache_size_from_finding(body)
    if size is not None:
        given["cache_size"] = size


def plan_sequence(plan: ProfilePlan) -> list[tuple[int, ProfileStep, int | None]]:
    """(step number, step, round) in the order a run takes them, with each round loop shown
    once (its first round)."""
    sequence: list[tuple[int, ProfileStep, int | None]] = []
    for step in plan.steps:
        sequence.append((len(sequence) + 1, step, None))
    for loop in plan.loops:
        for step in loop.before:
            sequence.append((len(sequence) + 1, step, None))
        for step in loop.steps:
            sequence.append((len(sequence) + 1, step, 1))
    for step in plan.after:
        sequence.append((len(sequence) + 1, step, None))
    return sequence


def plan_jobs(plan: ProfilePlan) -> list[tuple[str, str]]:
    """(name, job file text) of every distinct fio step, numbered as the run numbers them; a
    job repeated with only its name changed (HIR's hundreds of access periods) is shown once,
    with how many times it runs."""
    jobs: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    counts: list[int] = []
    for number, step, round_index in plan_sequence(plan):
        if step.job is None:
            continue
        text = render_job(step.job, describe_step(plan, step, number, round_index))
        shape = render_job(step.job).replace(step.key, "<step>")
        if shape in seen:
            counts[seen[shape]] += 1
            continue
        seen[shape] = len(jobs)
        counts.append(1)
        prefix = "r1-" if round_index is not None else ""
        jobs.append((f"{prefix}{number:02d}-{step.key}", text))
    return [
        (name if count == 1 else f"{name} (x{count})", text)
        for (name, text), count in zip(jobs, counts, strict=True)
    ]


def _other_steps(plan: ProfilePlan) -> list[str]:
    notes = []
    idles: dict[str, int] = {}
    for number, step, _round in plan_sequence(plan):
        if step.job is None and step.idle_s:
            idles[step.label] = idles.get(step.label, 0) + 1
            if idles[step.label] == 1:
                notes.append(f"step {number}: {step.label}")
        elif step.command:
            notes.append(f"step {number}: {step.label}: runs {' '.join(step.command)}")
    for loop in plan.loops:
        name = f" {loop.name}" if loop.name else ""
        notes.append(
            f"round loop{name}: {len(loop.steps)} steps a round, {loop.min_rounds} to "
            f"{loop.max_rounds} rounds" + (f"; stops on {loop.check}" if loop.check else "")
        )
    repeated = {label: n for label, n in idles.items() if n > 1}
    notes.extend(f"{label}: {n} times" for label, n in repeated.items())
    return notes


def cmd_plan(args: argparse.Namespace, out: Console) -> int:
    if args.profile == "quick":
        from ssdlab.cli.quick import cmd_plan as cmd_plan_quick

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
    directory = make_output_folder(folder, "--plots")
    return [
        write_output(str(directory / f"{chart.key}.{fmt}"), render_chart(chart, fmt), "--plots")
        for chart in document.charts
        for fmt in ("svg", "png")
    ]


def emit_document(out: Console, document: Document, *, plots: str | None, as_json: bool) -> bool:
    """The document as JSON on stdout or on the terminal, its charts written to `plots`.
    Returns whether it went to the terminal (where a line saying where it is stored follows)."""
    written = write_charts(document, plots) if plots else []
    if as_json:
        sys.stdout.write(document_json(document))
        return False
    print_document(out, document)
    if written:
        out.print(f"charts written to {plots} ({len(written)} files)", highlight=False)
    return True


def cmd_run(args: argparse.Namespace, out: Console) -> int:
    if args.profile == "endurance":
        from ssdlab.cli.endure import cmd_endure

        return cmd_endure(args, out)
    plan, target, spec = build_profile_plan(args)
    session = session_for(args)
    session.check_target(target, destructive=plan.destructive, destroy_data=args.destroy_data)
    parts = profile_record(args.profile).parts()
    calls = RunCalls(
        read_facts=parts.read_facts, check_round=parts.check_round, analyse=parts.analyse
    )
    outcome = session.run(plan, target, calls, keep_file=args.keep)
    return _report_outcome(args, out, session.conn, outcome, target, spec.name, session.database)


def _report_outcome(
    args: argparse.Namespace,
    out: Console,
    conn: sqlite3.Connection,
    outcome: ProfileOutcome,
    target: Target,
    profile: str,
    database: Path,
) -> int:
    """Show a finished (or stopped) profile run: its document, charts, where it is stored."""
    results = load_profile_results(conn, outcome.run_id)
    document = profile_record(profile).build_document(results)
    if emit_document(out, document, plots=args.plots, as_json=args.json):
        kept = f"; test file kept at {target.path}" if args.keep and target.created_file else ""
        out.print(
            f"stored as run {outcome.run_id} in {database}{kept} "
            f"({profile}, {format_size(target.size_bytes)} region)",
            highlight=False,
        )
    if outcome.status.value == "interrupted":
        raise Interrupted(
            f"run {outcome.run_id} was interrupted; the {len(outcome.steps)} steps that "
            f"finished are stored; 'ssdlab resume {outcome.run_id}' continues it"
        )
    if outcome.status.value == "failed":
        raise SsdlabError(f"run {outcome.run_id} failed: {outcome.reason}")
    return 0


def resumable_target(run: RunRecord) -> Target:
    """The run's target again, refusing when it is not the same one any more."""
    size = run.target.get("size_bytes")
    if not isinstance(size, int):
        raise UsageError(f"run {run.run_id} does not record its target's size; it cannot resume")
    if run.target_kind == "device":
        target = resolve_device_target(run.target_path, size)
        stored = run.target.get("device")
        before = stored.get("serial") if isinstance(stored, dict) else None
        now = target.device.serial if target.device else None
        if before != now:
            raise UsageError(
                f"{run.target_path} is not the device run {run.run_id} used (serial "
                f"{before!r} then, {now!r} now); start a new run"
            )
        return target
    path = Path(run.target_path)
    if not path.is_file() or path.stat().st_size < size:
        raise UsageError(
            f"the test file {run.target_path} of run {run.run_id} is gone, so its "
            "preconditioning is lost; start a new run (use --keep to keep a test file)"
        )
    direct = bool(run.target.get("direct_io", True))
    owned = bool(run.target.get("created_file") or run.target.get("reuses_test_file"))
    return Target(
        TargetKind.FILE, str(path), size, run.target_path, direct_io=direct, reuses_test_file=owned
    )


def cmd_resume(args: argparse.Namespace, out: Console) -> int:
    """Continue an interrupted profile run where it stopped (a cut-short round runs again)."""
    session = session_for(args)
    conn = session.conn
    run_id = run_id_arg(conn, args.run)
    run = store.load_run(conn, run_id)
    if run is None:
        raise UsageError(f"there is no run {run_id} in the store; 'ssdlab runs' lists them")
    if run.kind not in ("profile", "quick"):
        raise UsageError(
            f"run {run_id} is a {run.kind} run; only quick and profile runs can resume"
        )
    if run.status.value not in ("interrupted", "failed"):
        raise UsageError(f"run {run_id} is {run.status.value}; only a stopped run can resume")
    if run.profile not in profile_records() and run.kind != "quick":
        raise UsageError(f"this ssdlab has no profile {run.profile!r}; run {run_id} cannot resume")
    if run.profile == "endurance":
        from ssdlab.cli.endure import resume_endurance

        return resume_endurance(args, out, run_id)
    version = (
        load_quick_profile().version
        if run.kind == "quick"
        else profile_record(run.profile).spec.version
    )
    if version != run.profile_version:
        raise UsageError(
            f"run {run_id} was planned by {run.profile} version {run.profile_version}; this "
            f"ssdlab has version {version}, and a run never mixes the two; start a new run"
        )
    plan = profile_plan_of(run)
    target = resumable_target(run)
    session.check_target(target, destructive=plan.destructive, destroy_data=args.destroy_data)
    facts = {f.name: f.body for f in load_findings(conn, run_id)}.get(FACTS_FINDING, {})
    calls = (
        RunCalls(kind="quick")
        if run.kind == "quick"
        else RunCalls(
            check_round=profile_record(run.profile).parts().check_round,
            analyse=profile_record(run.profile).parts().analyse,
        )
    )
    outcome = session.resume(
        plan,
        run_id,
        target,
        dict(facts) if isinstance(facts, dict) else {},
        calls,
        hard_exit_advice=f"'ssdlab resume {run_id}' continues the run",
    )
    args.keep = True
    if run.kind == "quick":
        return show_quick_outcome(args, out, session, outcome, target)
    return _report_outcome(args, out, conn, outcome, target, run.profile, session.database)
