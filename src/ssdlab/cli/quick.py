"""`ssdlab quick` and `ssdlab plan quick`: resolve the target, plan, check safety, run, show."""

import argparse
import sqlite3
import sys
import time
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from ssdlab.analysis.baseline import (
    BaselineAction,
    BaselineJudgement,
    BaselineRole,
    StoredBaseline,
    drive_key,
    judge,
    plan_role,
    reference_judgement,
)
from ssdlab.analysis.compare import MetricSamples
from ssdlab.app.runs import run_metrics, shown_document, stored_run
from ssdlab.cli.jobs import emit_plan
from ssdlab.cli.profile_setup import given_settings, is_device_target, plan_target_of, run_calls
from ssdlab.cli.render import print_document
from ssdlab.cli.run_session import session_for
from ssdlab.errors import Interrupted, SsdlabError, UsageError
from ssdlab.model.finding_names import BASELINE
from ssdlab.model.plan import Direction, QuickSettings
from ssdlab.model.profile import ProfilePlan
from ssdlab.model.stored_run import StoredRun
from ssdlab.model.target import Target, TargetKind
from ssdlab.model.typed_settings import decode_settings
from ssdlab.plan.jobfile import render_job
from ssdlab.plan.quick import PREPARE_KEY
from ssdlab.plan.quick_settings import parse_mode, quick_settings, settings_pairs
from ssdlab.profiles.quick import SPEC
from ssdlab.registry import profile_record
from ssdlab.report.document import document_json
from ssdlab.runner.profile import ProfileOutcome
from ssdlab.runner.session import RunSession
from ssdlab.store.findings import add_finding
from ssdlab.store.named_findings import load_named_findings
from ssdlab.store.stored_run import read_run
from ssdlab.system.devicetarget import (
    resolve_device_target,
    with_loop_warnings,
)
from ssdlab.system.filetarget import resolve_file_target


def _settings(args: argparse.Namespace) -> QuickSettings:
    """The command line's values; one not given is the preset's, else the option table's."""
    return quick_settings(
        given_settings(args, SPEC), size_bytes=args.size, direct_io=not args.buffered
    )


def _resolve_target(args: argparse.Namespace, settings: QuickSettings) -> Target:
    writes = any(d is not Direction.READ for d in parse_mode(settings.mode))
    if is_device_target(args):
        return resolve_device_target(args.target, settings.size_bytes)
    return with_loop_warnings(
        resolve_file_target(
            args.target, settings.size_bytes, direct_io=settings.direct_io, writes=writes
        )
    )


def _needs_fill(target: Target, settings: QuickSettings, writes: bool) -> bool:
    if target.kind is TargetKind.DEVICE:
        return writes  # only when writing is allowed: fill before reading, as on a file
    if target.created_file:
        return True
    path = Path(target.path)
    return target.reuses_test_file and path.stat().st_size < settings.size_bytes


def build_plan(args: argparse.Namespace) -> tuple[ProfilePlan, Target]:
    settings = _settings(args)
    target = _resolve_target(args, settings)
    writes = any(d is not Direction.READ for d in parse_mode(settings.mode))
    where = replace(plan_target_of(target), needs_fill=_needs_fill(target, settings, writes))
    plan = profile_record("quick").parts().plan(dict(settings_pairs(settings)), where)
    return plan, target


def plan_job_files(plan: ProfilePlan) -> list[tuple[str, str]]:
    """(name, job file text) of every fio job of a quick plan, as `ssdlab plan quick` shows them."""
    return [
        (
            PREPARE_KEY if step.round_index is None else f"{step.key}-p{step.round_index}",
            render_job(step.job, comment=step.comment),
        )
        for step in plan.steps
        if step.job is not None
    ]


def cmd_plan(args: argparse.Namespace, _out: Console) -> int:
    plan, target = build_plan(args)
    return emit_plan(
        plan_job_files(plan),
        target_path=target.path,
        destructive=plan.destructive,
        created_file=target.created_file,
        check=args.check,
        as_json=args.json,
    )


def cmd_quick(args: argparse.Namespace, out: Console) -> int:
    check_baseline_options(args)
    plan, target = build_plan(args)
    settings = decode_settings(QuickSettings, plan.settings)
    session = session_for(args)
    session.check_target(
        target,
        destructive=plan.destructive,
        destroy_data=args.destroy_data,
        ioengine=settings.ioengine,
    )
    if not plan.destructive and target.kind is TargetKind.DEVICE and not args.json:
        out.print(
            f"[dim]read-only tests on {target.path}; blocks never written may read back "
            "faster than real data[/dim]",
            highlight=False,
        )
    outcome = session.run(
        plan,
        target,
        run_calls(profile_record("quick")),
        keep_file=args.keep,
        preset=settings.preset,
        start_at=args.start_at,
    )
    return show_quick_outcome(args, out, session, outcome, target)


def show_quick_outcome(
    args: argparse.Namespace,
    out: Console,
    session: RunSession,
    outcome: ProfileOutcome,
    target: Target,
) -> int:
    """The run as its record shows it (with its baseline judgement), and where it is stored."""
    conn = session.conn
    stored = stored_run(conn, outcome.run_id)
    judgement = apply_baseline(args, conn, stored)
    document = shown_document(with_judgement(stored, judgement))
    if args.json:
        sys.stdout.write(document_json(document))
    else:
        print_document(out, document)
        kept = f"; test file kept at {target.path}" if args.keep and target.created_file else ""
        out.print(
            f"stored as run {outcome.run_id} in {session.database}{kept}",
            highlight=False,
            soft_wrap=True,
        )
    if outcome.status.value == "interrupted":
        resumable = target.kind is TargetKind.DEVICE or (args.keep or not target.created_file)
        then = f"; 'ssdlab resume {outcome.run_id}' continues it" if resumable else ""
        raise Interrupted(
            f"run {outcome.run_id} was interrupted; the {len(outcome.steps)} passes that "
            f"finished are stored{then}"
        )
    if outcome.status.value == "failed":
        raise SsdlabError(f"run {outcome.run_id} failed: {outcome.reason}")
    return baseline_exit(args, judgement)


REGRESSION_EXIT = 4  # as 'compare --fail-if'


def check_baseline_options(args: argparse.Namespace) -> None:
    """--baseline-reset, --baseline-add and --fail-on-regression need --baseline NAME."""
    if getattr(args, "baseline", None) is not None:
        if not args.baseline.strip():
            raise UsageError("--baseline needs a name, e.g. --baseline nightly")
        return
    for flag in ("baseline_reset", "baseline_add", "fail_on_regression"):
        if getattr(args, flag, False):
            raise UsageError(f"--{flag.replace('_', '-')} needs --baseline NAME")


def _action(args: argparse.Namespace) -> BaselineAction:
    if args.baseline_reset:
        return BaselineAction.RESET
    if args.baseline_add:
        return BaselineAction.ADD
    return BaselineAction.JUDGE


def _reference_metrics(
    conn: sqlite3.Connection, run_ids: tuple[int, ...]
) -> tuple[tuple[int, ...], list[tuple[MetricSamples, ...]]]:
    """The reference runs still in the store, and their metrics."""
    found = [(i, s) for i, s in ((i, read_run(conn, i)) for i in run_ids) if s is not None]
    return tuple(i for i, _ in found), [run_metrics(s) for _, s in found]


def with_judgement(stored: StoredRun, judgement: BaselineJudgement | None) -> StoredRun:
    """The run with the baseline judgement just made and stored, as it was made."""
    if judgement is None:
        return stored
    return replace(stored, findings={**stored.findings, BASELINE: judgement.body()})


def apply_baseline(
    args: argparse.Namespace, conn: sqlite3.Connection, stored: StoredRun
) -> BaselineJudgement | None:
    """With --baseline NAME and a complete run: the run's judgement (or its new role as the
    reference), stored as its `baseline` finding. None without --baseline or for a run that
    did not complete (it neither becomes a reference nor is judged)."""
    run = stored.run
    name = getattr(args, "baseline", None)
    if name is None or run.status.value != "complete":
        return None
    name = name.strip()
    drive, _serial = drive_key(run.target, run.target_path)
    baselines = [
        StoredBaseline(run_id, body)
        for run_id, body in load_named_findings(conn, BASELINE)
        if run_id != run.run_id
    ]
    role, reference_ids = plan_role(baselines, name, drive, run.run_id, _action(args))
    judgement = reference_judgement(name, drive, reference_ids)
    if role is BaselineRole.JUDGED:
        present, references = _reference_metrics(conn, reference_ids)
        if present:
            judgement = judge(name, drive, present, references, run.run_id, run_metrics(stored))
        else:  # every reference run was deleted: this run starts the baseline again
            judgement = reference_judgement(name, drive, (run.run_id,))
    add_finding(conn, run.run_id, BASELINE, "verdict", judgement.body(), time.time())
    return judgement


def baseline_exit(args: argparse.Namespace, judgement: BaselineJudgement | None) -> int:
    """0, or 4 with --fail-on-regression when a test regressed."""
    if (
        judgement is not None
        and judgement.regressions
        and getattr(args, "fail_on_regression", False)
    ):
        return REGRESSION_EXIT
    return 0
