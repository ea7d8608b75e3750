"""The profile runner's round loop and resume, with real fio on the null ioengine (no I/O
reaches any disk; fio still runs every job, writes its JSON and its logs)."""

from collections.abc import Sequence
from pathlib import Path

from ssdlab.model.plan import FioJob
from ssdlab.model.profile import ProfilePlan, ProfileStep, RoundLoop, StepRole
from ssdlab.model.run import RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.target import Target, TargetKind
from ssdlab.runner.events import Event, RoundFinished, StepStarted
from ssdlab.runner.profile import ProfileRunner, RoundVerdict
from ssdlab.store.db import open_store
from ssdlab.store.findings import load_findings
from ssdlab.store.run_rows import load_run
from ssdlab.store.steps import delete_step_results, load_step_results
from ssdlab.system.environment import collect_environment
from ssdlab.system.fio import find_fio
from ssdlab.system.process import ProcessRunner
from tests.conftest import needs_fio

pytestmark = [needs_fio]


def _job(name: str, rw: str) -> FioJob:
    return FioJob(
        global_options=(
            ("ioengine", "null"),
            ("size", "16m"),
            ("time_based", ""),
            ("runtime", "300ms"),
            ("write_bw_log", name),
            ("log_avg_msec", "50"),
        ),
        sections=((name, (("rw", rw), ("bs", "4096"))),),
    )


def _step(key: str, rw: str, role: StepRole = StepRole.MEASURE) -> ProfileStep:
    return ProfileStep(key, key, role, "write", _job(key, rw), log_interval_ms=50, expected_s=0.3)


PLAN = ProfilePlan(
    profile="demo",
    profile_version=1,
    settings=(),
    target_path="/dev/null",
    target_kind="file",
    destructive=False,
    steps=(_step("precondition", "write", StepRole.PREPARE),),
    loops=(
        RoundLoop(
            steps=(_step("a", "randwrite"), _step("b", "randread")), max_rounds=6, min_rounds=2
        ),
    ),
    after=(_step("final", "read"),),
)
TARGET = Target(TargetKind.FILE, "/dev/null", 16 * 2**20, "/dev/null")


def _stop_after_round_3(
    _plan: ProfilePlan, _loop: RoundLoop, steps: Sequence[StepResult], round_index: int
) -> RoundVerdict:
    rounds = sorted({s.round_index for s in steps if s.step_key == "a"})
    return RoundVerdict(round_index >= 3, f"{len(rounds)} rounds", {"rounds": rounds})


def _runner(db: Path, events: list[Event]) -> tuple[ProfileRunner, object]:
    conn = open_store(db)
    processes = ProcessRunner()
    runner = ProfileRunner(conn, find_fio(processes), events.append, processes)
    return runner, conn


def test_rounds_stop_when_the_check_says_so(tmp_path: Path) -> None:
    events: list[Event] = []
    runner, conn = _runner(tmp_path / "db", events)
    outcome = runner.execute(
        PLAN, TARGET, collect_environment(None), device_id=None, keep_file=True,
        check_round=_stop_after_round_3,
    )  # fmt: skip
    assert outcome.status is RunStatus.COMPLETE
    got = [(s.step_key, s.round_index) for s in outcome.steps]
    assert got == [
        ("precondition", 1),
        ("a", 1), ("b", 1), ("a", 2), ("b", 2), ("a", 3), ("b", 3),
        ("final", 8),
    ]  # fmt: skip
    finished = [e for e in events if isinstance(e, RoundFinished)]
    assert [(e.round_index, e.stop) for e in finished] == [(2, False), (3, True)]
    stored = load_step_results(conn, outcome.run_id)  # type: ignore[arg-type]
    assert [(s.step_key, s.round_index) for s in stored] == got
    assert all(s.series for s in stored)  # interval logs parsed and stored with each step


def test_resume_repeats_the_cut_short_round_and_loses_nothing(tmp_path: Path) -> None:
    events: list[Event] = []
    runner, _conn = _runner(tmp_path / "db", events)

    def stop_in_round_2(event: Event) -> None:
        events.append(event)
        if isinstance(event, StepStarted) and event.step.key == "b" and event.number == 5:
            runner.request_stop()  # during round 2, after its step a finished

    runner._emit = stop_in_round_2  # type: ignore[method-assign]
    first = runner.execute(
        PLAN, TARGET, collect_environment(None), device_id=None, keep_file=True,
        check_round=_stop_after_round_3,
    )  # fmt: skip
    assert first.status is RunStatus.INTERRUPTED
    assert [(s.step_key, s.round_index) for s in first.steps] == [
        ("precondition", 1), ("a", 1), ("b", 1), ("a", 2),
    ]  # fmt: skip

    again: list[Event] = []
    runner2, conn2 = _runner(tmp_path / "db", again)
    second = runner2.resume(
        PLAN, first.run_id, TARGET, keep_file=True, check_round=_stop_after_round_3
    )
    assert second.status is RunStatus.COMPLETE
    stored = load_step_results(conn2, first.run_id)  # type: ignore[arg-type]
    keys = [(s.step_key, s.round_index) for s in stored]
    assert sorted(keys) == sorted(
        [("precondition", 1), ("a", 1), ("b", 1), ("a", 2), ("b", 2), ("a", 3), ("b", 3),
         ("final", 8)]
    )  # fmt: skip
    assert len(keys) == len(set(keys)), "no step stored twice"
    findings = {f.name: f.body for f in load_findings(conn2, first.run_id)}  # type: ignore[arg-type]
    assert findings["resumed-round-2"]["partial_steps_set_aside"] == ["a"]
    run = load_run(conn2, first.run_id)  # type: ignore[arg-type]
    assert run is not None
    assert run.status is RunStatus.COMPLETE
    assert conn2.execute("PRAGMA integrity_check").fetchone()[0] == "ok"  # type: ignore[attr-defined]


def test_resume_after_the_preconditioning_does_not_purge_again(tmp_path: Path) -> None:
    """Killed between the WIPC and round 1: the purge before it must not run again."""
    import dataclasses

    purge = dataclasses.replace(_step("purge", "trim", StepRole.PREPARE), direction="trim")
    wipc = _step("wipc", "write", StepRole.PREPARE)
    loop = RoundLoop(steps=(_step("a", "randwrite"),), max_rounds=2, before=(purge, wipc))
    plan = dataclasses.replace(PLAN, steps=(), loops=(loop,), after=())
    conn = open_store(tmp_path / "db")
    runner = ProfileRunner(conn, find_fio(ProcessRunner()), lambda _event: None, ProcessRunner())
    first = runner.execute(plan, TARGET, collect_environment("fio-3.33"), device_id=None,
                           keep_file=True)  # fmt: skip
    keys = [(s.step_key, s.round_index) for s in first.steps]
    assert ("wipc", 2) in keys
    delete_step_results(conn, first.run_id, [("a", 1), ("a", 2)])  # as if killed there
    events: list[object] = []
    again = ProfileRunner(conn, find_fio(ProcessRunner()), events.append, ProcessRunner())
    again.resume(plan, first.run_id, TARGET, keep_file=True)
    started = [e.step.key for e in events if isinstance(e, StepStarted)]
    assert started == ["a", "a"], "neither the purge nor the WIPC runs again"
