"""Run a profile's plan: every step in order, each stored as it finishes.

Order of work (each line one transaction; the run's life is runner/lifecycle.py):
  run row → facts about the target (with the captures they came from) → for every step:
  fio capture (raw output and logs) → parsed step result with its series | an idle pause |
  a timed system tool → … → the profile's verdicts (with their criteria) → run status.
"""

import os
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ssdlab.analysis.passes import pass_metrics
from ssdlab.errors import ParseError, TargetError, ToolError
from ssdlab.model.finding_names import TARGET_FACTS
from ssdlab.model.json_fields import encode
from ssdlab.model.profile import (
    HIST_LOG,
    WRITE_SERIES,
    ProfilePlan,
    ProfileStep,
    RoundLoop,
    RoundVerdict,
    StepRole,
)
from ssdlab.model.result import DirectionMetrics, SeriesPoint
from ssdlab.model.run import Capture, Environment, RunKind, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.step_histogram import SecondHistogram
from ssdlab.model.target import Target, TargetKind
from ssdlab.parse.fio_json import parse_fio_json
from ssdlab.parse.fio_log import parse_interval_logs
from ssdlab.plan.jobfile import render_job
from ssdlab.plan.seeds import pass_job
from ssdlab.runner.events import (
    Notice,
    Pausing,
    ProfileRunStarted,
    RoundFinished,
    StepFinished,
    StepProgress,
    StepStarted,
)
from ssdlab.runner.lifecycle import RunnerBase, fio_failure
from ssdlab.runner.machine_watch import SAME_DEVICE_NOTICE, MachineWatch
from ssdlab.runner.pass_latency_monitor import LatencyMonitorRecord, PassReads
from ssdlab.runner.pass_thermal import ThermalRecord
from ssdlab.runner.run_row import RunHeader
from ssdlab.runner.thermal_watch import PassSampler, PassTemperatures, ThermalWatch
from ssdlab.store.captures import add_capture, load_fio_outputs
from ssdlab.store.findings import add_finding, load_findings
from ssdlab.store.lifecycle import reopen_run, replace_run_environment, to_json
from ssdlab.store.run_rows import load_run
from ssdlab.store.settle import settle_store
from ssdlab.store.steps import add_step_result, delete_step_results, load_step_results
from ssdlab.store.test_files import open_test_files
from ssdlab.system.environment import read_boot_id, read_pid_namespace
from ssdlab.system.fio import FioRun, run_fio_job
from ssdlab.system.health import HealthReading
from ssdlab.system.purge import whole_drive_refusal

# A time-based step is stopped by fio itself; this only catches a hung device or fio.
STEP_TIMEOUT_MARGIN_S = 300.0

Facts = Mapping[str, Any]
FactsReading = tuple[dict[str, Any], tuple[Capture, ...]]
Analyse = Callable[[ProfilePlan, Sequence[StepResult], Facts, Mapping[int, str]], Mapping[str, Any]]
RoundCheck = Callable[[ProfilePlan, RoundLoop, Sequence[StepResult], int], RoundVerdict]
ROUND_FINDING = "round-check"


@dataclass(frozen=True, slots=True)
class ResumePoint:
    """Where a resumed run picks up: the (step key, round index) pairs already stored."""

    done: frozenset[tuple[str, int]]
    resumed_at_s: float


@dataclass(frozen=True, slots=True)
class ProfileOutcome:
    run_id: int
    status: RunStatus
    reason: str | None
    steps: tuple[StepResult, ...]
    facts: dict[str, Any]


def estimate_profile_seconds(plan: ProfilePlan) -> float | None:
    """Measuring, idle and pause time of a plan (round loops at their minimum); None when a
    step's length is not known."""
    total = 0.0
    looped = tuple(
        s for loop in plan.loops for s in (*loop.before, *(loop.steps * loop.min_rounds))
    )
    for step in (*plan.steps, *looped, *plan.after):
        total += step.pause_before_s + step.idle_s
        if step.job is None:
            continue
        if step.expected_s is None:
            return None
        total += step.expected_s
    return total


def step_count(plan: ProfilePlan) -> int | None:
    """Steps in the plan with the round loop at its maximum; None when a loop ends only by
    its check (an endurance run)."""
    if any(loop.unbounded for loop in plan.loops):
        return None
    looped = sum(len(loop.before) + len(loop.steps) * loop.max_rounds for loop in plan.loops)
    return len(plan.steps) + looped + len(plan.after)


def describe_step(
    plan: ProfilePlan, step: ProfileStep, number: int, round_index: int | None = None
) -> str:
    """The comment written at the top of a step's job file: the plan's own, or the step's
    place in the run."""
    if step.comment:
        return step.comment
    where = f"round {round_index}, " if round_index is not None else ""
    total = step_count(plan)
    of = "" if total is None else f" of {total}"
    return f"ssdlab {plan.profile} {where}step {number}{of}: {step.label} ({step.role})"


def stored_facts(conn: sqlite3.Connection, run_id: int) -> dict[str, Any]:
    """The facts a run stored about its target when it started (empty when it stored none)."""
    body = next((f.body for f in load_findings(conn, run_id) if f.name == TARGET_FACTS), None)
    return dict(body) if isinstance(body, Mapping) else {}


def stored_round(step: ProfileStep, number: int, loop_round: int | None = None) -> int:
    """The round a step is stored under: its loop's round (`loop_round`) inside a round loop;
    outside one, its own or its position."""
    if loop_round is not None:
        return loop_round
    return number if step.round_index is None else step.round_index


class ProfileRunner(RunnerBase):
    """Executes one profile plan. `request_stop()` may be called from a signal handler.

    With a machine watch, every fio pass is sampled before and after (other I/O on the
    target's device, other processes' CPU time) and the run's environment rewritten after it;
    when the store shares the target's device nothing is written to it while fio runs."""

    _machine: MachineWatch | None = None
    _environment: dict[str, Any] | None = None
    _thermal: ThermalRecord | None = None
    _latency: LatencyMonitorRecord | None = None

    def execute(
        self,
        plan: ProfilePlan,
        target: Target,
        environment: Environment,
        *,
        device_id: int | None,
        keep_file: bool,
        read_health: Callable[[], HealthReading] | None = None,
        read_facts: Callable[[], FactsReading] | None = None,
        analyse: Analyse | None = None,
        check_round: RoundCheck | None = None,
        kind: RunKind = RunKind.PROFILE,
        preset: str | None = None,
        machine: MachineWatch | None = None,
        thermal: ThermalWatch | None = None,
        latency: LatencyMonitorRecord | None = None,
    ) -> ProfileOutcome:
        """Run a plan as a new run of `kind` ('quick' runs record their preset); with a
        thermal watch, the drive's temperatures are read each second of every fio pass; with
        a latency monitor, its C3h page around every measured pass (docs/ocp.md)."""
        self._machine = machine
        self._thermal = None if thermal is None else ThermalRecord(thermal)
        self._latency = latency
        stored_environment: dict[str, Any] = encode(environment)
        if machine is not None:
            stored_environment = machine.environment(stored_environment)
        self._environment = stored_environment
        header = RunHeader(
            kind=kind,
            profile=plan.profile,
            profile_version=plan.profile_version,
            preset=preset,
            target_kind=TargetKind(plan.target_kind),
            target_path=plan.target_path,
            settings_json=to_json(dict(plan.settings)),
            plan_json=to_json(plan),
            target_json=to_json(target),
            environment_json=to_json(stored_environment),
            device_id=device_id,
        )
        run_id = self._create_run(header, target)
        self._emit(ProfileRunStarted(run_id, plan, estimate_profile_seconds(plan)))
        self._say_store_deferred()
        facts: dict[str, Any] = {}
        if read_facts is not None:
            facts, captures = read_facts()
            for capture in captures:
                add_capture(self._conn, run_id, capture)
            add_finding(self._conn, run_id, TARGET_FACTS, "facts", facts, time.time())
        return self._drive(
            plan, run_id, target, facts, [], {}, None,
            keep_file=keep_file, read_health=read_health, analyse=analyse,
            check_round=check_round,
        )  # fmt: skip

    def resume(
        self,
        plan: ProfilePlan,
        run_id: int,
        target: Target,
        *,
        keep_file: bool,
        analyse: Analyse | None = None,
        check_round: RoundCheck | None = None,
        machine: MachineWatch | None = None,
        thermal: ThermalWatch | None = None,
    ) -> ProfileOutcome:
        """Continue an interrupted run: finished steps and rounds are kept, a round that was
        cut short is run again from its start (its partial results are set aside, their raw
        captures kept), and the resumption is recorded as a finding. The facts the run stored
        about its target are the ones its analysis reads."""
        facts = stored_facts(self._conn, run_id)
        kept = load_step_results(self._conn, run_id, with_series=False)
        done = frozenset((step.step_key, step.round_index) for step in kept)
        files = [f for f in open_test_files(self._conn, run_id) if f.path == target.path]
        if target.reuses_test_file and not files:
            raise TargetError(
                f"{target.path} is not recorded as the test file run {run_id} created (it was "
                "removed, or the run used another file); start a new run"
            )
        reopen_run(self._conn, run_id, os.getpid(), read_boot_id(), read_pid_namespace())
        self._emit(ProfileRunStarted(run_id, plan, estimate_profile_seconds(plan)))
        self._machine = machine
        self._thermal = None if thermal is None else ThermalRecord(thermal)
        stored = load_run(self._conn, run_id)
        self._environment = dict(stored.environment) if stored is not None else {}
        if machine is not None:
            machine.continue_from(self._environment)
        self._say_store_deferred()
        return self._drive(
            plan, run_id, target, facts, [], {}, ResumePoint(done, time.time()),
            keep_file=keep_file, read_health=None, analyse=analyse, check_round=check_round,
            resumed_file_id=files[0].file_id if files else None,
        )  # fmt: skip

    def _say_store_deferred(self) -> None:
        if self._machine is not None and self._machine.defers_store:
            self._emit(Notice(SAME_DEVICE_NOTICE))

    def _before_pass(self) -> None:
        """Right before fio starts: the store's files made durable when they share the
        target's device (nothing of them is left for the kernel to write during the pass)."""
        if self._machine is not None and self._machine.defers_store:
            settle_store(self._conn)

    def _after_pass(self, run_id: int) -> None:
        """Right after a pass is stored: the machine check's passes in the run's environment.
        Subclasses that kept store writes back during the pass write them here."""
        if self._machine is None or self._environment is None:
            return
        self._environment = self._machine.environment(self._environment)
        replace_run_environment(self._conn, run_id, to_json(self._environment))

    def own_round_check(self) -> RoundCheck | None:
        """The round check of a runner that decides rounds itself (endurance), used when the
        run is given none."""
        return None

    def _drive(
        self,
        plan: ProfilePlan,
        run_id: int,
        target: Target,
        facts: dict[str, Any],
        steps: list[StepResult],
        outputs: dict[int, str],
        resume: ResumePoint | None,
        *,
        keep_file: bool,
        read_health: Callable[[], HealthReading] | None,
        analyse: Analyse | None,
        check_round: RoundCheck | None,
        resumed_file_id: int | None = None,
    ) -> ProfileOutcome:
        if resume is not None:
            steps.extend(load_step_results(self._conn, run_id))
            outputs.update(load_fio_outputs(self._conn, run_id))

        def work(rid: int) -> tuple[RunStatus, str | None]:
            if self._thermal is not None:
                self._thermal.begin(self._conn, rid)
            if self._latency is not None:
                self._latency.begin(self._conn, rid)
            point = resume if resume is None else self._set_aside_passes(plan, rid, steps, resume)
            check = check_round if check_round is not None else self.own_round_check()
            status, reason = self._run_plan(plan, rid, steps, outputs, point, check)
            if status is RunStatus.COMPLETE and analyse is not None:
                outputs.update(
                    (s.capture_id, "")
                    for s in steps
                    if s.capture_id and s.capture_id not in outputs
                )
                for name, verdict in analyse(plan, steps, facts, outputs).items():
                    add_finding(self._conn, rid, name, "verdict", verdict, time.time())
            return status, reason

        status, reason = self._live(
            run_id,
            target,
            work,
            keep_file=keep_file,
            read_health=read_health,
            destructive=plan.destructive,
            resumed_file_id=resumed_file_id,
        )
        return ProfileOutcome(run_id, status, reason, tuple(steps), facts)

    def _run_plan(
        self,
        plan: ProfilePlan,
        run_id: int,
        steps: list[StepResult],
        outputs: dict[int, str],
        resume: ResumePoint | None,
        check_round: RoundCheck | None,
    ) -> tuple[RunStatus, str | None]:
        done = resume.done if resume is not None else frozenset()
        started_loops = [_loop_started(loop, done) for loop in plan.loops]
        number = 0
        for index, step in enumerate(plan.steps):
            number += 1
            later = any(started_loops) or any(
                (s.key, stored_round(s, n)) in done
                for n, s in enumerate(plan.steps[index + 1 :], number + 1)
            )
            went_past = later and (step.job is None or not step.keep_result)
            if (step.key, stored_round(step, number)) in done or went_past:
                continue  # finished before (a tool, pause or file preparation the run went past)
            failed = self._run_one(plan, run_id, step, number, None, steps, outputs)
            if failed is not None:
                return failed
        for loop, started in zip(plan.loops, started_loops, strict=True):
            for index, step in enumerate(loop.before):
                number += 1
                later = any(
                    (s.key, n) in done for n, s in enumerate(loop.before[index + 1 :], number + 1)
                )
                if started or later or (step.key, number) in done:
                    continue  # a purge is not repeated once the WIPC after it has finished
                failed = self._run_one(plan, run_id, step, number, None, steps, outputs)
                if failed is not None:
                    return failed
            outcome = self._run_loop(
                plan, loop, run_id, number, steps, outputs, resume, check_round
            )
            if isinstance(outcome, tuple):
                return outcome
            number = outcome
        for step in plan.after:
            number += 1
            if (step.key, number) in done:
                continue
            failed = self._run_one(plan, run_id, step, number, None, steps, outputs)
            if failed is not None:
                return failed
        return RunStatus.COMPLETE, None

    def _run_loop(
        self,
        plan: ProfilePlan,
        loop: RoundLoop,
        run_id: int,
        number: int,
        steps: list[StepResult],
        outputs: dict[int, str],
        resume: ResumePoint | None,
        check_round: RoundCheck | None,
    ) -> int | tuple[RunStatus, str | None]:
        """The rounds of one loop; returns the step number reached, or the final status."""
        done = resume.done if resume is not None else frozenset()
        first_open = 1
        while first_open <= loop.max_rounds and _round_done(loop, first_open, done):
            first_open += 1
        if resume is not None and first_open <= loop.max_rounds and _loop_started(loop, done):
            self._set_aside_round(loop, run_id, steps, first_open, resume)
        finding = ROUND_FINDING + (f"-{loop.name}" if loop.name else "")
        for round_index in range(1, loop.max_rounds + 1):
            if round_index >= first_open:
                for step in loop.steps:
                    number += 1
                    failed = self._run_one(plan, run_id, step, number, round_index, steps, outputs)
                    if failed is not None:
                        return failed
            else:
                number += len(loop.steps)
            if check_round is not None and round_index >= loop.min_rounds:
                verdict = check_round(plan, loop, steps, round_index)
                if round_index >= first_open:
                    add_finding(self._conn, run_id, finding, "verdict", verdict.body, time.time())
                    self._emit(
                        RoundFinished(round_index, verdict.stop, verdict.summary, verdict.progress)
                    )
                if verdict.stop:
                    break
        return number

    def _set_aside_passes(
        self, plan: ProfilePlan, run_id: int, steps: list[StepResult], resume: ResumePoint
    ) -> ResumePoint:
        """A test whose passes were cut short (a quick run's warm-up and measured passes share
        its key) runs again from its warm-up: its finished passes are set aside (their raw
        captures kept) and the resumption is recorded as a finding."""
        groups: dict[str, list[int]] = {}
        for step in plan.steps:
            if step.round_index is not None:
                groups.setdefault(step.key, []).append(step.round_index)
        partial = {
            key
            for key, rounds in groups.items()
            if 0 < sum((key, r) in resume.done for r in rounds) < len(rounds)
        }
        if not partial:
            return resume
        set_aside = [s for s in steps if s.step_key in partial]
        delete_step_results(self._conn, run_id, [(s.step_key, s.round_index) for s in set_aside])
        steps[:] = [s for s in steps if s.step_key not in partial]
        for key in sorted(partial):
            add_finding(
                self._conn,
                run_id,
                f"resumed-{key}",
                "facts",
                {
                    "step": key,
                    "passes_set_aside": sorted(
                        s.round_index for s in set_aside if s.step_key == key
                    ),
                    "resumed_at_s": resume.resumed_at_s,
                },
                time.time(),
            )
            self._emit(Notice(f"resuming: {key} runs again from its warm-up"))
        done = frozenset(pair for pair in resume.done if pair[0] not in partial)
        return ResumePoint(done, resume.resumed_at_s)

    def _set_aside_round(
        self,
        loop: RoundLoop,
        run_id: int,
        steps: list[StepResult],
        round_index: int,
        resume: ResumePoint,
    ) -> None:
        """Drop the parsed results of a round that was cut short, and record the resumption."""
        keys = {s.key for s in loop.steps}
        partial = [s for s in steps if s.round_index == round_index and s.step_key in keys]
        if partial:
            delete_step_results(self._conn, run_id, [(s.step_key, round_index) for s in partial])
            steps[:] = [s for s in steps if s not in partial]
        ended = load_run(self._conn, run_id)
        last = max((s.capture_id or 0 for s in steps), default=0)
        add_finding(
            self._conn,
            run_id,
            f"resumed-round-{round_index}",
            "facts",
            {
                "round": round_index,
                "partial_steps_set_aside": [s.step_key for s in partial],
                "resumed_at_s": resume.resumed_at_s,
                "previous_status_reason": None if ended is None else ended.status_reason,
                "last_kept_capture_id": last,
            },
            time.time(),
        )
        self._emit(
            Notice(
                f"resuming at round {round_index}"
                + (
                    f"; {len(partial)} steps of the cut-short round will run again"
                    if partial
                    else ""
                )
            )
        )

    def _run_one(
        self,
        plan: ProfilePlan,
        run_id: int,
        step: ProfileStep,
        number: int,
        round_index: int | None,
        steps: list[StepResult],
        outputs: dict[int, str],
    ) -> tuple[RunStatus, str | None] | None:
        """Run one step; the run's final status when it stopped or failed, else None."""
        if step.pause_before_s > 0:
            self._emit(Pausing(step.pause_before_s))
            self._wait(step.pause_before_s)
        if self._stop_requested:
            return RunStatus.INTERRUPTED, "stopped by a signal"
        self._emit(StepStarted(step, number, step_count(plan)))
        started = time.monotonic()
        outcome: StepResult | str | None
        if step.role is StepRole.IDLE:
            self._wait(step.idle_s)
            outcome = None
        elif step.command:
            outcome = self._run_command(run_id, step)
        else:
            outcome = self._run_fio_step(plan, run_id, step, number, round_index, outputs)
            self._after_pass(run_id)
        if self._stop_requested:
            return RunStatus.INTERRUPTED, f"stopped by a signal during {step.label}"
        if isinstance(outcome, str):
            where = f" (round {round_index})" if round_index is not None else ""
            return RunStatus.FAILED, f"{step.label}{where}: {outcome}"
        if outcome is not None:
            steps.append(outcome)
        self._emit(StepFinished(step, outcome, time.monotonic() - started))
        return None

    def _run_command(self, run_id: int, step: ProfileStep) -> str | None:
        """A system tool (e.g. fstrim): stored as a capture and timed; its result is a finding.
        A whole-drive purge is checked again first: it must name a whole disk."""
        refusal = whole_drive_refusal(step.command)
        if refusal is not None:
            return refusal
        try:
            capture = self._processes.run(step.command, tool=step.command[0], timeout_s=3600)
        except ToolError as error:
            return str(error)
        capture_id = add_capture(self._conn, run_id, capture)
        elapsed = capture.ended_at_s - capture.started_at_s
        add_finding(
            self._conn,
            run_id,
            f"step:{step.key}",
            "facts",
            {
                "argv": list(step.command),
                "exit_code": capture.exit_code,
                "elapsed_s": elapsed,
                "stdout": capture.stdout.strip(),
                "stderr": capture.stderr.strip(),
                "capture_id": capture_id,
            },
            time.time(),
        )
        if capture.exit_code != 0:
            tail = (capture.stderr or capture.stdout).strip().splitlines()[-3:]
            return f"{step.command[0]} exited with status {capture.exit_code}: " + " ".join(tail)
        return None

    def _start_fio(
        self, step: ProfileStep, text: str, read_folder: Callable[[Path], None] | None = None
    ) -> FioRun | str:
        """fio run on the job text: timed out past the step's expected length plus a margin,
        or, for a step whose length is not known, reporting its progress; why it could not
        run, else."""
        timeout = None if step.expected_s is None else step.expected_s + STEP_TIMEOUT_MARGIN_S
        on_fraction = None
        if step.expected_s is None:

            def on_fraction(fraction: float) -> None:
                self._emit(StepProgress(step, fraction))

        try:
            return run_fio_job(
                self._processes,
                self._fio,
                text,
                timeout_s=timeout,
                on_fraction=on_fraction,
                should_stop=lambda: self._stop_requested,
                read_folder=read_folder,
            )
        except ToolError as error:
            return str(error)

    def _parse_logs(
        self, step: ProfileStep, logs: Mapping[str, str], write: DirectionMetrics | None = None
    ) -> tuple[tuple[SeriesPoint, ...], tuple[SecondHistogram, ...]]:
        """A step's per-interval series and per-second latency histograms from fio's logs;
        a log that cannot be read is said and leaves its part empty (the raw logs are kept).
        A step whose WRITE_SERIES param is HIST_LOG has its write series from the histogram
        log (exact bytes; its bandwidth log's where that gives none) and keeps no histograms."""
        from ssdlab.parse.fio_hist_log import is_hist_log, second_histograms  # numpy

        interval_logs = {name: text for name, text in logs.items() if not is_hist_log(name)}
        try:
            series = parse_interval_logs(interval_logs, step.log_interval_ms)
        except (ParseError, ValueError) as error:
            self._emit(Notice(f"{step.label}: fio's interval logs could not be read ({error})"))
            series = ()
        if step.param(WRITE_SERIES) == HIST_LOG and step.log_interval_ms is not None:
            return self._hist_write_series(step, logs, series, write), ()
        try:
            histograms = second_histograms(logs)
        except ParseError as error:
            self._emit(Notice(f"{step.label}: fio's histogram logs could not be read ({error})"))
            histograms = ()
        return series, histograms

    def _hist_write_series(
        self,
        step: ProfileStep,
        logs: Mapping[str, str],
        series: tuple[SeriesPoint, ...],
        write: DirectionMetrics | None,
    ) -> tuple[SeriesPoint, ...]:
        """`series` with its write points replaced by the histogram log's exact ones (ended
        by fio's own count of the write)."""
        from ssdlab.parse.fio_hist_series import hist_write_series  # numpy

        total = None if write is None else (write.io_bytes, write.runtime_s)
        try:
            exact = hist_write_series(logs, step.log_interval_ms or 1, total)
        except ParseError as error:
            why = f"fio's histogram log could not be read ({error})"
            exact = ()
        else:
            why = "fio's histogram log gave no writes of one block size"
        if not exact:
            self._emit(
                Notice(
                    f"{step.label}: {why}; the bandwidth log's series is used (it miscounts "
                    "the bytes written across a stall)"
                )
            )
            return series
        others = tuple(p for p in series if p.direction != "write")
        return tuple(sorted((*others, *exact), key=lambda p: (p.elapsed_s, p.direction)))

    def _run_fio_step(
        self,
        plan: ProfilePlan,
        run_id: int,
        step: ProfileStep,
        number: int,
        round_index: int | None,
        outputs: dict[int, str],
    ) -> StepResult | str | None:
        """Run, store raw, parse, store parsed. Returns the step result, None for a prepare
        step with nothing to report (a discard), or why it failed."""
        stored_as = stored_round(step, number, round_index)
        job = pass_job(plan, step, stored_as)  # raises for a step without a job
        monitored = self._latency.start_pass(self._conn, run_id, step) if self._latency else None
        job = job if monitored is None else monitored.job(job)
        text = render_job(job, comment=describe_step(plan, step, number, round_index))
        self._before_pass()
        before = None if self._machine is None else self._machine.before_pass()
        # the passes kept as results: a preparation pass's readings would have no step to go with
        sampler = None if self._thermal is None or not step.keep_result else self._thermal.sampler()
        try:
            run = self._start_fio(step, text, None if monitored is None else monitored.read_folder)
        finally:
            temperatures = _stopped(sampler)
        if isinstance(run, str):
            return run
        if self._machine is not None and before is not None:
            self._machine.after_pass(step.key, stored_as, before, run.capture.stdout)
        capture_id = add_capture(self._conn, run_id, run.capture, run.logs)
        if self._stop_requested:
            return "stopped"  # a step cut short is kept as evidence, not counted
        if run.capture.exit_code != 0:
            return fio_failure(run.capture)
        if not step.keep_result:
            return None
        try:
            result = parse_fio_json(run.capture.stdout)
        except ParseError as error:
            return f"fio's output could not be read ({error}); the raw output is stored"
        errors = [job.error for job in result.jobs if job.error]
        if errors:
            return fio_failure(run.capture) + f" (job error {errors[0]})"
        try:
            metrics = pass_metrics(result)
        except ValueError:
            if step.role is StepRole.MEASURE:
                return "fio reported no reads or writes for a measured step"
            return None  # a discard or other prepare step without reads or writes
        series, histograms = self._parse_logs(step, run.logs, metrics.write)
        outputs[capture_id] = run.capture.stdout
        step_result = StepResult(
            step_key=step.key,
            step_label=step.label,
            direction=step.direction,
            round_index=stored_as,
            discarded=step.role is not StepRole.MEASURE,
            bw_bytes_per_s=metrics.bw_bytes_per_s,
            iops=metrics.iops,
            lat_mean_ns=metrics.lat_mean_ns,
            read=metrics.read,
            write=metrics.write,
            capture_id=capture_id,
            series=series,
        )
        # a warm-up's histograms are left in its raw logs: nothing merges them
        kept = histograms if step.role is StepRole.MEASURE else ()
        samples = () if temperatures is None else temperatures.samples
        add_step_result(self._conn, run_id, step_result, kept, samples)
        self._pass_findings(run_id, step_result, temperatures, monitored)
        return step_result

    def _pass_findings(
        self,
        run_id: int,
        step_result: StepResult,
        temperatures: PassTemperatures | None,
        monitored: PassReads | None,
    ) -> None:
        """What the drive said during the pass: its temperatures' finding, its C3h's."""
        if self._thermal is not None and temperatures is not None:
            self._thermal.add_pass(self._conn, run_id, step_result, temperatures)
        if self._latency is not None and monitored is not None:
            self._latency.add_pass(self._conn, run_id, step_result, monitored)


def _stopped(sampler: PassSampler | None) -> PassTemperatures | None:
    """A pass's sampler ended as its fio has (its thread joined: it never outlives the pass)."""
    return None if sampler is None else sampler.stop()


def _round_done(loop: RoundLoop, round_index: int, done: frozenset[tuple[str, int]]) -> bool:
    return all((s.key, round_index) in done for s in loop.steps if s.job is not None)


def _loop_started(loop: RoundLoop, done: frozenset[tuple[str, int]]) -> bool:
    keys = {s.key for s in loop.steps}
    return any(key in keys and index >= 1 for key, index in done)
