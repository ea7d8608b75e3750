"""`ssdlab run PROFILE TARGET` and `ssdlab plan PROFILE TARGET`: resolve the target, plan,
check safety, gather facts, run, analyse, store, show."""

import argparse
import sqlite3
from pathlib import Path

from rich.console import Console

from ssdlab.app.runs import run_document, run_id_of, run_of, stored_run
from ssdlab.cli.endure import cmd_endure, resume_endurance
from ssdlab.cli.jobs import emit_plan
from ssdlab.cli.profile_setup import build_profile_plan, resumable_target, run_calls
from ssdlab.cli.quick import (
    apply_baseline,
    baseline_exit,
    check_baseline_options,
    show_quick_outcome,
    with_judgement,
)
from ssdlab.cli.quick import cmd_plan as cmd_plan_quick
from ssdlab.cli.render import emit_document
from ssdlab.cli.run_session import session_for
from ssdlab.errors import Interrupted, SsdlabError, UsageError
from ssdlab.model.profile import (
    ProfilePlan,
    ProfileStep,
)
from ssdlab.model.run import RunKind
from ssdlab.model.target import Target
from ssdlab.model.units import format_size
from ssdlab.plan.jobfile import render_job
from ssdlab.registry import profile_record, profile_records
from ssdlab.runner.profile import (
    ProfileOutcome,
    describe_step,
)
from ssdlab.store.profile_runs import profile_plan_of


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


def cmd_run(args: argparse.Namespace, out: Console) -> int:
    if args.profile == "endurance":
        return cmd_endure(args, out)
    check_baseline_options(args)
    plan, target, spec = build_profile_plan(args)
    session = session_for(args)
    session.check_target(target, destructive=plan.destructive, destroy_data=args.destroy_data)
    outcome = session.run(
        plan,
        target,
        run_calls(profile_record(args.profile)),
        keep_file=args.keep,
        start_at=args.start_at,
    )
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
    """Show a finished (or stopped) profile run: its document, charts, where it is stored;
    with --baseline its judgement is stored first, so the document shows it."""
    stored = stored_run(conn, outcome.run_id)
    judgement = apply_baseline(args, conn, stored)
    document = run_document(with_judgement(stored, judgement))
    if emit_document(out, document, plots=args.plots, as_json=args.json):
        kept = f"; test file kept at {target.path}" if args.keep and target.created_file else ""
        out.print(
            f"stored as run {outcome.run_id} in {database}{kept} "
            f"({profile}, {format_size(target.size_bytes)} region)",
            highlight=False,
            soft_wrap=True,
        )
    if outcome.status.value == "interrupted":
        raise Interrupted(
            f"run {outcome.run_id} was interrupted; the {len(outcome.steps)} steps that "
            f"finished are stored; 'ssdlab resume {outcome.run_id}' continues it"
        )
    if outcome.status.value == "failed":
        raise SsdlabError(f"run {outcome.run_id} failed: {outcome.reason}")
    return baseline_exit(args, judgement)


def cmd_resume(args: argparse.Namespace, out: Console) -> int:
    """Continue an interrupted profile run where it stopped (a cut-short round runs again)."""
    session = session_for(args)
    conn = session.conn
    run_id = run_id_of(conn, args.run)
    run = run_of(conn, run_id)
    if run.kind not in (RunKind.PROFILE, RunKind.QUICK):
        raise UsageError(
            f"run {run_id} is a {run.kind} run; only quick and profile runs can resume"
        )
    if run.status.value not in ("interrupted", "failed"):
        raise UsageError(f"run {run_id} is {run.status.value}; only a stopped run can resume")
    record = profile_records().get(run.profile)
    if record is None or record.run_kind != run.kind:
        raise UsageError(f"this ssdlab has no profile {run.profile!r}; run {run_id} cannot resume")
    if run.profile == "endurance":
        return resume_endurance(args, out, run_id)
    version = record.spec.version
    if version != run.profile_version:
        raise UsageError(
            f"run {run_id} was planned by {run.profile} version {run.profile_version}; this "
            f"ssdlab has version {version}, and a run never mixes the two; start a new run"
        )
    plan = profile_plan_of(run)
    target = resumable_target(run)
    session.check_target(target, destructive=plan.destructive, destroy_data=args.destroy_data)
    outcome = session.resume(
        plan,
        run_id,
        target,
        run_calls(record),
        hard_exit_advice=f"'ssdlab resume {run_id}' continues the run",
    )
    args.keep = True
    if record.run_kind is RunKind.QUICK:
        return show_quick_outcome(args, out, session, outcome, target)
    return _report_outcome(args, out, conn, outcome, target, run.profile, session.database)
