"""Start a run (`quick`, `run PROFILE`, `run endurance`): from the typed request, the plan
(app/run_plan.py), the safety checks, the run through its session (runner/session.py), the
baseline judgement, and the run's document as the record of its kind gives it.

    planned = prepare_run(session, request)    # plan and checks: nothing written yet
    result = start_run(session, request, planned)

The command line gives the session its edges (the progress display, the second signal's hard
exit) and prints the result."""

from dataclasses import dataclass, field, replace

from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.app.baseline import BaselineRequest, apply_baseline, regressed, with_judgement
from ssdlab.app.endurance import (
    ENDURANCE,
    endurance_calls,
    remove_run_test_file,
    standing_document,
    unfinished_run,
)
from ssdlab.app.given_settings import ready_settings
from ssdlab.app.latency_monitor import prepare_latency_monitor
from ssdlab.app.run_outcome import (
    RunHints,
    RunResult,
    endurance_problem,
    run_hints,
    run_problem,
)
from ssdlab.app.run_plan import QUICK, PlannedRun, plan_run, run_calls
from ssdlab.app.run_target import TargetRequest
from ssdlab.app.runs import shown_document, stored_run
from ssdlab.model.latency_monitor import LatencyMonitorRequest
from ssdlab.model.profile import SettingValue
from ssdlab.model.run import RunRecord, RunStatus
from ssdlab.model.target import Target
from ssdlab.model.units import format_size
from ssdlab.registry import profile_record
from ssdlab.runner.profile import ProfileOutcome
from ssdlab.runner.session import RunSession
from ssdlab.store.transaction import StoreWriteError


@dataclass(frozen=True, slots=True)
class StartRequest:
    profile: str  # 'quick', or a profile of `ssdlab run` ('endurance' too)
    target: TargetRequest = field(default_factory=TargetRequest)
    given: tuple[tuple[str, SettingValue], ...] = ()  # the profile's options given, by name
    keep: bool = False  # keep the test file ssdlab makes
    start_at: float | None = None  # start at this wall-clock time (a fleet's common start)
    fleet_start: bool = False  # start_at was sent by a fleet (its lateness is the fleet's)
    baseline: BaselineRequest | None = None  # judge the run against the drive's baseline
    rated: RatedEndurance | None = None  # endurance: the rating its projection is held against
    latency_monitor: LatencyMonitorRequest | None = None  # read (and set) the drive's C3h


def continued_run(session: RunSession, request: StartRequest) -> RunRecord | None:
    """endurance --continue: the run with these settings on this target, if there is one."""
    given = ready_settings(ENDURANCE, dict(request.given), lambda: session.conn)
    return unfinished_run(session.conn, request.target.path, given)


def prepare_run(session: RunSession, request: StartRequest) -> PlannedRun:
    """The run's plan and target, checked: no fio still writes the target, a device is
    written only when --destroy-data names it and nothing uses it, fio is there. Nothing has
    been opened for writing yet (the store only when an option reads a stored run). With
    --latency-monitor, the drive's C3h is read once (and Feature C5h set when asked)."""
    planned = plan_run(request.profile, request.target, dict(request.given), lambda: session.conn)
    session.check_target(
        planned.target,
        destructive=planned.plan.destructive,
        destroy_data=request.target.destroy_data,
        ioengine=planned.ioengine,
    )
    if request.latency_monitor is not None:
        monitor = prepare_latency_monitor(
            session.processes, request.latency_monitor, planned.plan, planned.target
        )
        planned = replace(planned, latency_monitor=monitor)
    return planned


def start_run(session: RunSession, request: StartRequest, planned: PlannedRun) -> RunResult:
    """Run the planned run to its end (or its stop) and give its document."""
    plan, target = planned.plan, planned.target
    endurance = request.profile == ENDURANCE
    keeps = request.keep or endurance  # a stopped endurance run resumes on the same file
    hints = run_hints(session.database, target, destructive=plan.destructive, keeps_file=keeps)
    calls, health = run_calls(profile_record(request.profile)), None
    if endurance:
        calls, health = endurance_calls(session, plan, target)
    try:
        outcome = session.run(
            plan,
            target,
            calls,
            keep_file=keeps,
            preset=planned.preset,
            read_health=health,
            advice=hints.second_signal,
            start_at=request.start_at,
            fleet_start=request.fleet_start,
            latency=planned.latency_monitor,
        )
    except StoreWriteError as error:
        raise continued(error, hints, session.run_id) from error.__cause__
    if not endurance:
        return profile_result(session, outcome, request, target, hints)
    if outcome.status is RunStatus.COMPLETE and target.created_file and not request.keep:
        remove_run_test_file(session.conn, outcome.run_id, target.path)
    return endurance_result(session, outcome, request.rated, hints)


def continued(error: StoreWriteError, hints: RunHints, run_id: int | None) -> StoreWriteError:
    """A write the store refused, naming the command that continues the run when known."""
    resume = None if run_id is None else hints.resume(run_id)
    return error if resume is None else error.continued_by(resume)


def profile_result(
    session: RunSession,
    outcome: ProfileOutcome,
    request: StartRequest,
    target: Target,
    hints: RunHints,
) -> RunResult:
    """A quick or profile run as its kind shows it (its baseline judgement stored first, so
    that the document shows it), and why the command fails if it does."""
    conn = session.conn
    stored = stored_run(conn, outcome.run_id)
    judgement = apply_baseline(conn, stored, request.baseline)
    quick = request.profile == QUICK
    return RunResult(
        outcome.run_id,
        session.database,
        shown_document(with_judgement(stored, judgement)),
        kept_file=target.path if request.keep and target.created_file else None,
        region=None if quick else f"{request.profile}, {format_size(target.size_bytes)} region",
        problem=run_problem(outcome, "passes" if quick else "steps", hints.resume(outcome.run_id)),
        regressed=regressed(request.baseline, judgement),
    )


def endurance_result(
    session: RunSession,
    outcome: ProfileOutcome,
    rated: RatedEndurance | None,
    hints: RunHints,
) -> RunResult:
    """Where the endurance run stands, and why the command fails if it does."""
    return RunResult(
        outcome.run_id,
        session.database,
        standing_document(session.conn, outcome.run_id, rated),
        problem=endurance_problem(outcome, hints.resume(outcome.run_id)),
    )
