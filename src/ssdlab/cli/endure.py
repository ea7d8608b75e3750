"""`ssdlab endure TARGET` (also `ssdlab run endurance`), `ssdlab endure --resume RUN`,
`--continue` and `--print-systemd-unit`, and `ssdlab status RUN`: a days-long write loop that
survives crashes and tells where it stands."""

import argparse
import dataclasses
import functools
import os
import shlex
import sqlite3
import sys
import time
from pathlib import Path

from rich.console import Console

from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.analysis.profiles.endurance import status_of
from ssdlab.analysis.spec_match import match_spec, rated_endurance
from ssdlab.app.runs import profile_results, run_id_of, run_of
from ssdlab.app.spec_sheets import known_spec_sheets
from ssdlab.cli.profile_setup import build_profile_plan, given_settings, resumable_target, run_calls
from ssdlab.cli.rating import rated_from_args
from ssdlab.cli.render import emit_document
from ssdlab.cli.run_session import session_for
from ssdlab.cli.store_open import db_path, open_db
from ssdlab.cli.systemd import exec_lines, unit_command
from ssdlab.errors import Interrupted, SafetyStop, SsdlabError, UsageError
from ssdlab.model.profile import ProfilePlan
from ssdlab.model.profile_settings import EnduranceSettings
from ssdlab.model.run import RunRecord, RunStatus
from ssdlab.model.target import Target
from ssdlab.model.typed_settings import decode_settings
from ssdlab.plan.profile import resolve_profile_settings
from ssdlab.registry import profile_record
from ssdlab.report.endurance import build_endurance_document
from ssdlab.runner.endurance import EnduranceRunner
from ssdlab.runner.profile import ProfileOutcome
from ssdlab.runner.session import HealthSource, RunCalls, RunSession
from ssdlab.store.findings import add_finding
from ssdlab.store.health import load_health_samples
from ssdlab.store.lifecycle import replace_run_plan, to_json
from ssdlab.store.listing import RunFilter, runs_matching
from ssdlab.store.profile_runs import profile_plan_of
from ssdlab.store.test_files import mark_test_file_removed, open_test_files
from ssdlab.system.health_replay import HealthReplay
from ssdlab.system.process import ProcessRunner
from ssdlab.system.user_files import SMALL_FILE_BYTES, read_user_file
from ssdlab.system.write_gate import Removal, remove_test_file

PROFILE = "endurance"


def _read_job_file(args: argparse.Namespace) -> None:
    if getattr(args, "job_file", None):
        data = read_user_file(args.job_file, SMALL_FILE_BYTES, "the job file")
        try:
            args.job_text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise UsageError(f"cannot read the job file {args.job_file}: {error}") from None
        if args.workload in (None, "randwrite-4k"):
            args.workload = "job"


def _health_source(
    session: RunSession, settings: EnduranceSettings, target: Target, skip: int = 0
) -> HealthSource | None:
    """The replay when one is named, else the device (or the device under a file target),
    read by a process runner of its own: the sampler runs while fio runs."""
    replay = settings.health_replay
    if replay:
        source = HealthReplay(replay)
        for _ in range(skip):
            source()
        return source
    return session.health_reader(target, ProcessRunner())


def _calls(settings: EnduranceSettings, health: HealthSource | None) -> RunCalls:
    """The endurance runner (its health sampler and safety limits) and the profile's parts."""
    runner = functools.partial(
        EnduranceRunner,
        health_source=health,
        health_every_s=settings.health_every,
        max_temperature_c=settings.max_temperature,
    )
    return dataclasses.replace(run_calls(profile_record(PROFILE)), runner=runner)


RESUME_ADVICE = "'ssdlab endure --resume RUN' continues the run"


def cmd_endure(args: argparse.Namespace, out: Console) -> int:
    for name in ("print_systemd_unit", "resume", "continue_run", "tbw", "dwpd", "warranty_years"):
        if not hasattr(args, name):
            setattr(args, name, None)  # 'ssdlab run endurance' has the profile's options only
    if args.print_systemd_unit:
        if args.resume:
            raise UsageError("--print-systemd-unit describes a new run; leave out --resume")
        if getattr(args, "start_at", None) is not None:
            raise UsageError(
                "--print-systemd-unit describes a run that restarts after a reboot; a start time "
                "would be past by then, so leave out --start-at"
            )
        sys.stdout.write(systemd_unit(sys.argv[1:], args))  # verbatim: no wrapping
        return 0
    if args.resume:
        return resume_endurance(args, out, run_id_of(open_db(args), args.resume))
    args.profile = PROFILE
    _read_job_file(args)
    if args.continue_run:
        found = _unfinished_run(open_db(args), args)
        if found is not None and found.status is RunStatus.COMPLETE:
            out.print(f"run {found.run_id} is complete: {found.status_reason or 'done'}")
            return 0
        if found is not None:
            return resume_endurance(args, out, found.run_id)
    plan, target, _spec = build_profile_plan(args)
    session = session_for(args)
    session.check_target(target, destructive=plan.destructive, destroy_data=args.destroy_data)
    settings = decode_settings(EnduranceSettings, plan.settings)
    health = _health_source(session, settings, target)
    outcome = session.run(
        plan,
        target,
        _calls(settings, health),
        keep_file=True,  # a stopped run resumes on the same file
        read_health=health,
        hard_exit_advice=RESUME_ADVICE,
        start_at=getattr(args, "start_at", None),
    )
    conn = session.conn
    if outcome.status is RunStatus.COMPLETE and target.created_file and not args.keep:
        _remove_test_file(conn, outcome.run_id, target.path)
    return _finish(args, out, conn, outcome, session.database)


def _remove_test_file(conn: sqlite3.Connection, run_id: int, path: str) -> None:
    for record in open_test_files(conn, run_id):
        if record.path == path and remove_test_file(path, record.identity) is not Removal.NOT_OURS:
            mark_test_file_removed(conn, record.file_id, time.time())


def _unfinished_run(conn: sqlite3.Connection, args: argparse.Namespace) -> RunRecord | None:
    """The latest endurance run on this target with these settings (for --continue)."""
    if os.path.isdir(args.target):
        raise UsageError(
            "--continue needs a block device or a file path as the target, not a directory: a "
            "directory gets a new test file each time, so the run could never be found again"
        )
    spec = profile_record(PROFILE).spec
    wanted = to_json(dict(resolve_profile_settings(spec, given_settings(args, spec))))
    where = os.path.realpath(args.target)
    for run in runs_matching(conn, RunFilter(profile=PROFILE)):
        if os.path.realpath(run.target_path) != where:
            continue
        if to_json(dict(run.settings)) == wanted:
            return run
    return None


def _endurance_run(conn: sqlite3.Connection, run_id: int, other: str) -> RunRecord:
    """The stored endurance run `run_id`; a usage error (saying what `other` does) if not."""
    run = run_of(conn, run_id)
    if run.profile != PROFILE:
        raise UsageError(f"run {run_id} is a {run.profile} run, not an endurance run; {other}")
    return run


def resume_endurance(args: argparse.Namespace, out: Console, run_id: int) -> int:
    session = session_for(args)
    conn = session.conn
    run = _endurance_run(conn, run_id, f"'ssdlab resume {run_id}' continues it")
    if run.status.value not in ("interrupted", "failed"):
        raise UsageError(f"run {run_id} is {run.status.value}; only a stopped run can resume")
    plan = _with_new_stop_conditions(conn, run, profile_plan_of(run), args)
    target = resumable_target(run)
    session.check_target(target, destructive=plan.destructive, destroy_data=args.destroy_data)
    settings = decode_settings(EnduranceSettings, plan.settings)
    replayed = len(load_health_samples(conn, run_id=run_id))
    health = _health_source(session, settings, target, skip=replayed)
    outcome = session.resume(
        plan,
        run_id,
        target,
        _calls(settings, health),
        hard_exit_advice=RESUME_ADVICE,
    )
    if outcome.status is RunStatus.COMPLETE and not getattr(args, "keep", False):
        _remove_test_file(conn, run_id, target.path)  # the test file the run made, if any
    return _finish(args, out, conn, outcome, session.database)


STOP_OPTIONS = ("for_time", "until_written", "until_wear")


def _with_new_stop_conditions(
    conn: sqlite3.Connection, run: RunRecord, plan: ProfilePlan, args: argparse.Namespace
) -> ProfilePlan:
    """`--resume RUN --for 96h`: a stopped run may continue with other stop conditions (only
    those: the workload never changes within a run). The change is stored as a finding."""
    given = {n: getattr(args, n) for n in STOP_OPTIONS if getattr(args, n, None) is not None}
    if not given:
        return plan
    before = dict(plan.settings)
    settings = tuple((k, given.get(k, v)) for k, v in plan.settings)
    changed = dataclasses.replace(plan, settings=settings)
    replace_run_plan(conn, run.run_id, to_json(dict(settings)), to_json(changed))
    add_finding(
        conn,
        run.run_id,
        "stop-conditions-changed",
        "facts",
        {"before": {k: before.get(k) for k in STOP_OPTIONS}, "after": dict(given)},
        time.time(),
    )
    return changed


def _finish(
    args: argparse.Namespace,
    out: Console,
    conn: sqlite3.Connection,
    outcome: ProfileOutcome,
    database: Path,
) -> int:
    results = profile_results(conn, outcome.run_id)
    document = build_endurance_document(
        results, status_of(results, _rating(args, conn, results.health))
    )
    if emit_document(out, document, plots=getattr(args, "plots", None), as_json=args.json):
        out.print(f"stored as run {outcome.run_id} in {database}", highlight=False, soft_wrap=True)
    reason = outcome.reason or ""
    if outcome.status is RunStatus.INTERRUPTED and reason.startswith("safety stop"):
        raise SafetyStop(
            f"run {outcome.run_id}: {reason}; after dealing with it, 'ssdlab endure --resume "
            f"{outcome.run_id}' continues the run"
        )
    if outcome.status is RunStatus.INTERRUPTED:
        raise Interrupted(
            f"run {outcome.run_id} was interrupted after {len(outcome.steps)} iterations; "
            f"'ssdlab endure --resume {outcome.run_id}' continues it"
        )
    if outcome.status is RunStatus.FAILED:
        raise SsdlabError(f"run {outcome.run_id} failed: {outcome.reason}")
    return 0


def _rating(
    args: argparse.Namespace, conn: sqlite3.Connection, health: tuple[tuple[str, object], ...]
) -> RatedEndurance | None:
    samples = [sample for _phase, sample in health]
    if not samples:
        return None
    if any(getattr(args, name, None) is not None for name in ("tbw", "dwpd", "warranty_years")):
        return rated_from_args(args, conn, samples[-1])  # type: ignore[arg-type]
    identity = samples[-1].identity  # type: ignore[attr-defined]
    spec = match_spec(identity.model, identity.capacity_bytes, known_spec_sheets(conn))
    return rated_endurance(spec)


def cmd_status(args: argparse.Namespace, out: Console) -> int:
    """Where an endurance run stands: the same document its report shows, read from the store
    (it may be running right now: the store is read, never written)."""
    conn = open_db(args)
    run_id = run_id_of(conn, args.run)
    _endurance_run(conn, run_id, f"'ssdlab show {run_id}' shows it")
    results = profile_results(conn, run_id)
    document = build_endurance_document(
        results, status_of(results, _rating(args, conn, results.health))
    )
    emit_document(out, document, plots=args.plots, as_json=args.json)
    return 0


def systemd_unit(argv: list[str], args: argparse.Namespace) -> str:
    """A unit that runs this endurance run as a service: `--continue` starts it the first time
    and resumes it after a crash or a reboot; a safety stop (exit 5) is not restarted."""
    command = unit_command(argv, db_path(args), ensure=("--continue",))
    return (
        "# ssdlab endurance run as a systemd service. Install with:\n"
        "#   ssdlab endure ... --print-systemd-unit > /etc/systemd/system/ssdlab-endure.service\n"
        "#   systemctl daemon-reload && systemctl enable --now ssdlab-endure.service\n"
        "# Follow it with: ssdlab status last" + (f" --db {shlex.quote(str(db_path(args)))}") + "\n"
        "[Unit]\n"
        f"Description=ssdlab endurance run on {args.target}\n"
        "After=local-fs.target\n"
        "\n"
        "[Service]\n"
        "Type=simple\n" + exec_lines(command) + "KillSignal=SIGINT\n"
        "TimeoutStopSec=300\n"
        "Restart=on-failure\n"
        "RestartSec=30\n"
        "RestartPreventExitStatus=2 3 5\n"
        "\n"
        "[Install]\n"
        "WantedBy=multi-user.target\n"
    )
