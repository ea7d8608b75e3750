"""What an endurance run needs beyond any profile run: its runner (a health sampler while fio
runs, and the safety limits), its test file kept until it completes, the unfinished run a
`--continue` picks up, stop conditions changed on a resume, and where it stands
(`ssdlab status`): its document from the stored iterations and health samples, rated by the
rating given or the drive's spec sheet."""

import dataclasses
import functools
import os
import sqlite3
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.app.rating import rating_of
from ssdlab.app.run_plan import run_calls
from ssdlab.app.runs import profile_results, run_id_of, run_of
from ssdlab.errors import UsageError
from ssdlab.model.next_command import CommandContext, next_command
from ssdlab.model.profile import ProfilePlan, SettingValue
from ssdlab.model.profile_settings import EnduranceSettings
from ssdlab.model.run import RunRecord
from ssdlab.model.target import Target
from ssdlab.model.typed_settings import decode_settings
from ssdlab.plan.profile import resolve_profile_settings
from ssdlab.registry import profile_record
from ssdlab.report.document import Document
from ssdlab.runner.endurance import EnduranceRunner
from ssdlab.runner.session import HealthSource, RunCalls, RunSession
from ssdlab.store.findings import add_finding
from ssdlab.store.health import load_health_samples
from ssdlab.store.lifecycle import replace_run_plan, to_json
from ssdlab.store.listing import RunFilter, runs_matching
from ssdlab.store.test_files import mark_test_file_removed, open_test_files
from ssdlab.system.health_replay import HealthReplay
from ssdlab.system.process import ProcessRunner
from ssdlab.system.write_gate import Removal, remove_test_file

ENDURANCE = "endurance"
STOP_OPTIONS = ("for_time", "until_written", "until_wear")  # what a resume may change


def endurance_calls(
    session: RunSession, plan: ProfilePlan, target: Target, replayed: int = 0
) -> tuple[RunCalls, HealthSource | None]:
    """The endurance runner (its health sampler and safety limits) with the profile's parts,
    and the health it samples: the replay when one is named (past its first `replayed`
    samples, on a resume), else the device, or the device under a file target, read by a
    process runner of its own (the sampler runs while fio runs)."""
    settings = decode_settings(EnduranceSettings, plan.settings)
    health: HealthSource | None
    if settings.health_replay:
        health = HealthReplay(settings.health_replay)
        for _ in range(replayed):
            health()
    else:
        health = session.health_reader(target, ProcessRunner())
    runner = functools.partial(
        EnduranceRunner,
        health_source=health,
        health_every_s=settings.health_every,
        max_temperature_c=settings.max_temperature,
    )
    return dataclasses.replace(run_calls(profile_record(ENDURANCE)), runner=runner), health


def replayed_samples(conn: sqlite3.Connection, run_id: int) -> int:
    """The health samples a run stored: a replay resumes past them."""
    return len(load_health_samples(conn, run_id=run_id))


def unfinished_run(
    conn: sqlite3.Connection, target_path: str, given: Mapping[str, SettingValue]
) -> RunRecord | None:
    """The latest endurance run on this target with these settings (`--continue`)."""
    if os.path.isdir(target_path):
        raise UsageError(
            "--continue needs a block device or a file path as the target, not a directory: a "
            "directory gets a new test file each time, so the run could never be found again"
        )
    spec = profile_record(ENDURANCE).spec
    wanted = to_json(dict(resolve_profile_settings(spec, given)))
    where = os.path.realpath(target_path)
    for run in runs_matching(conn, RunFilter(profile=ENDURANCE)):
        if os.path.realpath(run.target_path) == where and to_json(dict(run.settings)) == wanted:
            return run
    return None


def stop_conditions(
    given: Iterable[tuple[str, SettingValue]],
) -> tuple[tuple[str, SettingValue], ...]:
    """The stop conditions among options given (what a resume may change)."""
    return tuple((name, value) for name, value in given if name in STOP_OPTIONS)


def with_new_stop_conditions(
    conn: sqlite3.Connection,
    run: RunRecord,
    plan: ProfilePlan,
    given: tuple[tuple[str, SettingValue], ...],
) -> ProfilePlan:
    """`resume RUN --for 96h`: a stopped run may continue with other stop conditions (only
    those: the workload never changes within a run). The change is stored as a finding."""
    if not given:
        return plan
    new = dict(given)
    before = dict(plan.settings)
    settings = tuple((k, new.get(k, v)) for k, v in plan.settings)
    changed = dataclasses.replace(plan, settings=settings)
    replace_run_plan(conn, run.run_id, to_json(dict(settings)), to_json(changed))
    add_finding(
        conn,
        run.run_id,
        "stop-conditions-changed",
        "facts",
        {"before": {k: before.get(k) for k in STOP_OPTIONS}, "after": new},
        time.time(),
    )
    return changed


def remove_run_test_file(conn: sqlite3.Connection, run_id: int, path: str) -> None:
    """The test file the run made at `path`, removed once the run completed (if it is still
    the file ssdlab made)."""
    for record in open_test_files(conn, run_id):
        if record.path == path and remove_test_file(path, record.identity) is not Removal.NOT_OURS:
            mark_test_file_removed(conn, record.file_id, time.time())


def standing_document(
    conn: sqlite3.Connection, run_id: int, rated: RatedEndurance | None
) -> Document:
    """Where the endurance run stands, from its stored iterations and health samples, its
    projection held against `rated`, else the drive's spec sheet."""
    # loaded only when a document is made: starting a run (or `node check`) needs no report
    from ssdlab.analysis.profiles.endurance import status_of
    from ssdlab.report.endurance import build_endurance_document

    results = profile_results(conn, run_id)
    samples = [sample for _phase, sample in results.health]
    rating = rating_of(conn, samples[-1], rated) if samples else None
    return build_endurance_document(results, status_of(results, rating))


@dataclass(frozen=True, slots=True)
class StatusRequest:
    run: str = "last"  # a run id, or 'last'
    rated: RatedEndurance | None = None  # the rating given on the command line
    context: CommandContext = field(default_factory=CommandContext)  # what hints carry: --db


def endurance_status(conn: sqlite3.Connection, request: StatusRequest) -> Document:
    """`ssdlab status RUN`: where an endurance run stands (it may be running right now: its
    stored rows are read, never written)."""
    run_id = run_id_of(conn, request.run)
    run = run_of(conn, run_id)
    if run.profile != ENDURANCE:
        show = next_command(request.context, ("show", str(run_id)))
        raise UsageError(
            f"run {run_id} is a {run.profile} run, not an endurance run; {show} shows it"
        )
    return standing_document(conn, run_id, request.rated)
