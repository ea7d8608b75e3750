"""Run a quick plan: prepare the test file, run every pass through fio, store as it goes.

Order of work (each line one transaction in the store; the run's life is runner/lifecycle.py):
  run row (status running) → test file registered → prepare capture → for every pass:
  capture (raw fio output and logs) → parsed step result with its series → … → run status.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass

from ssdlab.analysis.passes import pass_metrics
from ssdlab.errors import ParseError, ToolError
from ssdlab.model.plan import Plan, PlannedPass
from ssdlab.model.run import Environment, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.target import Target
from ssdlab.parse.fio_json import parse_fio_json
from ssdlab.parse.fio_log import parse_interval_logs
from ssdlab.plan.jobfile import render_job
from ssdlab.plan.quick import LOG_INTERVAL_MS, describe_pass
from ssdlab.runner.events import (
    PassFinished,
    PassStarted,
    Pausing,
    PrepareFinished,
    PrepareStarted,
    RunStarted,
)
from ssdlab.runner.lifecycle import RunHeader, RunnerBase, fio_failure
from ssdlab.store import runs as store
from ssdlab.system.fio import run_fio_job
from ssdlab.system.health import HealthReading

# fio stops a time-based job itself; this only catches a hung device or fio.
PASS_TIMEOUT_MARGIN_S = 300.0


@dataclass(frozen=True, slots=True)
class RunOutcome:
    run_id: int
    status: RunStatus
    reason: str | None
    steps: tuple[StepResult, ...]


def estimate_seconds(plan: Plan) -> float:
    """Measuring plus pausing time of a plan (fio start-up and file preparation not included)."""
    tests = len(plan.tests)
    return len(plan.passes) * plan.settings.measure_s + max(0, tests - 1) * plan.settings.interval_s


class QuickRunner(RunnerBase):
    """Executes one quick plan. `request_stop()` may be called from a signal handler."""

    def execute(
        self,
        plan: Plan,
        target: Target,
        environment: Environment,
        *,
        device_id: int | None,
        keep_file: bool,
        read_health: Callable[[], HealthReading] | None = None,
    ) -> RunOutcome:
        header = RunHeader(
            kind="quick",
            profile=plan.profile,
            profile_version=plan.profile_version,
            preset=plan.settings.preset,
            target_kind=plan.target_kind,
            target_path=plan.target_path,
            settings_json=store.to_json(plan.settings),
            plan_json=store.to_json(plan),
        )
        run_id = self._create_run(header, target, environment, device_id)
        self._emit(RunStarted(run_id, plan, estimate_seconds(plan)))
        steps: list[StepResult] = []
        status, reason = self._live(
            run_id,
            target,
            lambda rid: self._run_all(plan, rid, steps),
            keep_file=keep_file,
            read_health=read_health,
            destructive=plan.destructive,
        )
        return RunOutcome(run_id, status, reason, tuple(steps))

    def _run_all(
        self, plan: Plan, run_id: int, steps: list[StepResult]
    ) -> tuple[RunStatus, str | None]:
        if plan.prepare is not None:
            self._emit(PrepareStarted(plan.settings.size_bytes))
            started = time.monotonic()
            text = render_job(plan.prepare, comment=f"ssdlab {plan.profile}: prepare test file")
            run = run_fio_job(self._processes, self._fio, text, timeout_s=None)
            store.add_capture(self._conn, run_id, run.capture)
            if self._stop_requested:
                return RunStatus.INTERRUPTED, "stopped by a signal while preparing the test file"
            if run.capture.exit_code != 0:
                return RunStatus.FAILED, "preparing the test file failed: " + fio_failure(
                    run.capture
                )
            self._emit(PrepareFinished(time.monotonic() - started))
        previous_key: str | None = None
        for number, planned in enumerate(plan.passes, start=1):
            if previous_key is not None and planned.test.key != previous_key:
                self._pause(plan.settings.interval_s)
            if self._stop_requested:
                return RunStatus.INTERRUPTED, "stopped by a signal"
            previous_key = planned.test.key
            self._emit(PassStarted(planned, number, len(plan.passes), plan.settings.measure_s))
            outcome = self._run_pass(plan, run_id, planned)
            if isinstance(outcome, StepResult):
                steps.append(outcome)
                self._emit(PassFinished(planned, outcome))
                continue
            if self._stop_requested:
                return RunStatus.INTERRUPTED, "stopped by a signal during a pass"
            return RunStatus.FAILED, f"{planned.test.label} {planned.test.direction}: {outcome}"
        return RunStatus.COMPLETE, None

    def _pause(self, seconds: float) -> None:
        if seconds <= 0:
            return
        self._emit(Pausing(seconds))
        self._wait(seconds)

    def _run_pass(self, plan: Plan, run_id: int, planned: PlannedPass) -> StepResult | str:
        """Run, store raw, parse, store parsed. Returns the step, or why it failed."""
        text = render_job(planned.job, comment=describe_pass(plan, planned))
        try:
            run = run_fio_job(
                self._processes,
                self._fio,
                text,
                timeout_s=plan.settings.measure_s + PASS_TIMEOUT_MARGIN_S,
            )
        except ToolError as error:
            return str(error)
        capture_id = store.add_capture(self._conn, run_id, run.capture, run.logs)
        if self._stop_requested:
            return "stopped"  # a pass cut short is kept as evidence, not counted
        if run.capture.exit_code != 0:
            return fio_failure(run.capture)
        try:
            result = parse_fio_json(run.capture.stdout)
            metrics = pass_metrics(result)
            series = parse_interval_logs(run.logs, LOG_INTERVAL_MS)
        except (ParseError, ValueError) as error:
            return f"fio's output could not be read ({error}); the raw output is stored"
        errors = [job.error for job in result.jobs if job.error]
        if errors:
            return fio_failure(run.capture) + f" (job error {errors[0]})"
        step = StepResult(
            step_key=planned.test.key,
            step_label=planned.test.label,
            direction=planned.test.direction.value,
            round_index=planned.pass_index,
            discarded=planned.warmup,
            bw_bytes_per_s=metrics.bw_bytes_per_s,
            iops=metrics.iops,
            lat_mean_ns=metrics.lat_mean_ns,
            read=metrics.read,
            write=metrics.write,
            capture_id=capture_id,
            series=series,
        )
        store.add_step_result(self._conn, run_id, step)
        return step
