"""Continue a stopped run (`ssdlab resume RUN`): a quick, profile or endurance run that was
interrupted or failed goes on where it stopped, on its own target, through the same session
as a new run; a round (or a quick test, or an endurance iteration) cut short runs again from
its start. An endurance run may continue with other stop conditions."""

from dataclasses import dataclass

from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.app.endurance import (
    ENDURANCE,
    endurance_calls,
    remove_run_test_file,
    replayed_samples,
    stop_conditions,
    with_new_stop_conditions,
)
from ssdlab.app.run_outcome import RunResult, run_hints
from ssdlab.app.run_plan import run_calls
from ssdlab.app.run_target import resumable_target
from ssdlab.app.runs import run_id_of, run_of
from ssdlab.app.start import StartRequest, continued, endurance_result, profile_result
from ssdlab.errors import UsageError
from ssdlab.model.profile import SettingValue
from ssdlab.model.run import RunKind, RunRecord, RunStatus
from ssdlab.registry import profile_records
from ssdlab.registry.record import ProfileRecord
from ssdlab.runner.session import RunSession
from ssdlab.store.profile_runs import profile_plan_of
from ssdlab.store.transaction import StoreWriteError


@dataclass(frozen=True, slots=True)
class ResumeRequest:
    run: str  # a run id, or 'last'
    destroy_data: str | None = None  # the run's device, named again
    # an endurance run's new stop conditions (for_time, until_written, until_wear)
    stop_conditions: tuple[tuple[str, SettingValue], ...] = ()
    keep: bool = False  # an endurance run: keep its test file once it completes
    rated: RatedEndurance | None = None  # an endurance run: the rating it is held against


def continuing(request: StartRequest, run_id: int) -> ResumeRequest:
    """endurance --continue found its unfinished run `run_id`: resumed with the command's
    device, stop conditions, --keep and rating."""
    return ResumeRequest(
        str(run_id),
        request.target.destroy_data,
        stop_conditions(request.given),
        keep=request.keep,
        rated=request.rated,
    )


def resume_run(session: RunSession, request: ResumeRequest) -> RunResult:
    """Continue the stopped run `request.run` and give its document."""
    conn = session.conn
    run_id = run_id_of(conn, request.run)
    run = run_of(conn, run_id)
    record = _resumable_record(run)
    endurance = run.profile == ENDURANCE
    if not endurance and request.stop_conditions:
        raise UsageError(
            f"--for, --until-written and --until-wear change when an endurance run stops; run "
            f"{run_id} is a {run.profile} run"
        )
    plan = profile_plan_of(run)
    if endurance:
        plan = with_new_stop_conditions(conn, run, plan, request.stop_conditions)
    target = resumable_target(run)
    session.check_target(target, destructive=plan.destructive, destroy_data=request.destroy_data)
    calls = run_calls(record)
    if endurance:
        calls, _health = endurance_calls(session, plan, target, replayed_samples(conn, run_id))
    hints = run_hints(session.database, target, destructive=plan.destructive, keeps_file=True)
    try:
        outcome = session.resume(plan, run_id, target, calls, advice=hints.second_signal)
    except StoreWriteError as error:
        raise continued(error, hints, run_id) from error.__cause__
    if not endurance:
        started = StartRequest(run.profile, keep=True)
        return profile_result(session, outcome, started, target, hints)
    if outcome.status is RunStatus.COMPLETE and not request.keep:
        remove_run_test_file(conn, run_id, target.path)  # the test file the run made, if any
    return endurance_result(session, outcome, request.rated, hints)


def _resumable_record(run: RunRecord) -> ProfileRecord:
    """The record of the profile that planned the run; refused unless the run is a stopped
    quick, profile or endurance run of a profile version this ssdlab has."""
    run_id = run.run_id
    if run.kind not in (RunKind.PROFILE, RunKind.QUICK):
        raise UsageError(
            f"run {run_id} is a {run.kind} run; only quick and profile runs can resume"
        )
    if run.status.value not in ("interrupted", "failed"):
        raise UsageError(f"run {run_id} is {run.status.value}; only a stopped run can resume")
    record = profile_records().get(run.profile)
    if record is None or record.run_kind != run.kind:
        raise UsageError(f"this ssdlab has no profile {run.profile!r}; run {run_id} cannot resume")
    version = record.spec.version
    if run.profile != ENDURANCE and version != run.profile_version:
        raise UsageError(
            f"run {run_id} was planned by {run.profile} version {run.profile_version}; this "
            f"ssdlab has version {version}, and a run never mixes the two; start a new run"
        )
    return record
