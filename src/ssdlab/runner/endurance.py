"""Run an endurance plan: the profile runner's iterations, plus a health sampler that runs on
its own schedule while fio writes, a stop decision after every iteration, and safety stops.

Order of work (each line one transaction): run row → health before → iteration 1 (fio capture,
parsed result, the iteration's stop decision) → … ; meanwhile, every --health-every: health
sample (captures, sample) → safety check. A safety problem stops fio at once: the iteration
that was cut short keeps its raw capture but is not counted, and `--resume` runs it again.
When the store shares the target's device, the samples taken while fio runs are kept in
memory and stored after the iteration, before its stop decision (the safety check is made as
each sample is taken all the same).
"""

import sqlite3
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ssdlab.analysis.endurance import decide_stop, iterations_of, safety_problem
from ssdlab.analysis.wear import analyse_series
from ssdlab.model.health import HealthSample
from ssdlab.model.profile import ProfilePlan, RoundLoop, RoundVerdict
from ssdlab.model.profile_settings import EnduranceSettings
from ssdlab.model.run import Capture, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.typed_settings import decode_settings
from ssdlab.model.units import format_decimal_bytes
from ssdlab.runner.events import Notice
from ssdlab.runner.profile import ProfileRunner, ResumePoint, RoundCheck
from ssdlab.store.captures import add_capture, capture_times
from ssdlab.store.db import open_store
from ssdlab.store.findings import add_finding
from ssdlab.store.health import add_health_sample, load_health_samples
from ssdlab.system.health import HealthReading

SAFETY_FINDING = "safety-stop"
STOP_FINDING = "endurance-stop"
DURING = "during"


def database_file(conn: sqlite3.Connection) -> Path:
    """The file behind a connection (the sampler opens its own connection to it)."""
    row = conn.execute("PRAGMA database_list").fetchone()
    return Path(str(row[2]))


@dataclass(frozen=True, slots=True)
class KeptSample:
    """A sample taken while fio ran, kept in memory until the pass ends (the store shares the
    target's device): its captures, the sample, and the safety problem it called for."""

    captures: tuple[Capture, ...]
    sample: HealthSample | None
    problem: str | None


class HealthSampler:
    """Samples health every `every_s` seconds in a thread of its own, with its own store
    connection, and calls `on_problem` once when a sample calls for a safety stop. With
    `deferred`, it never opens the store: its samples wait in memory until `take_kept()`.
    `first` is the run's first sample (the one a safety check compares with)."""

    def __init__(
        self,
        database: Path,
        run_id: int,
        read_health: Callable[[], HealthReading],
        every_s: float,
        check: Callable[[HealthSample | None, HealthSample], str | None],
        on_problem: Callable[[str], None],
        *,
        first: HealthSample | None = None,
        deferred: bool = False,
    ) -> None:
        self._database = database
        self._run_id = run_id
        self._read = read_health
        self._every_s = every_s
        self._check = check
        self._on_problem = on_problem
        self._first = first
        self._deferred = deferred
        self._kept: list[KeptSample] = []
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="health-sampler", daemon=True)
        self.notes: list[str] = []
        self.samples_taken = 0

    def take_kept(self) -> list[KeptSample]:
        """The samples kept in memory since the last call (deferred only), oldest first."""
        with self._lock:
            kept, self._kept = self._kept, []
        return kept

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._done.set()
        self._thread.join()

    def _loop(self) -> None:
        if self._deferred:
            self._keep_loop()
            return
        conn = open_store(self._database)
        try:
            first = self._first
            while not self._done.wait(self._every_s):
                reading = self._read()
                capture_ids = tuple(add_capture(conn, self._run_id, c) for c in reading.captures)
                if reading.sample is None:
                    self.notes.extend(n for n in reading.notes if n not in self.notes)
                    continue
                add_health_sample(conn, self._run_id, DURING, reading.sample, capture_ids)
                self.samples_taken += 1
                first = first or reading.sample
                problem = self._check(first, reading.sample)
                if problem is not None:
                    add_finding(
                        conn,
                        self._run_id,
                        SAFETY_FINDING,
                        "verdict",
                        {"reason": problem, "sample_taken_at_s": reading.sample.taken_at_s},
                        time.time(),
                    )
                    self._on_problem(problem)
                    return
        finally:
            conn.close()

    def _keep_loop(self) -> None:
        """The loop of a deferred sampler: the same samples and checks, kept in memory."""
        first = self._first
        while not self._done.wait(self._every_s):
            reading = self._read()
            problem = None
            if reading.sample is None:
                self.notes.extend(n for n in reading.notes if n not in self.notes)
            else:
                self.samples_taken += 1
                first = first or reading.sample
                problem = self._check(first, reading.sample)
            with self._lock:
                self._kept.append(KeptSample(reading.captures, reading.sample, problem))
            if problem is not None:
                self._on_problem(problem)
                return


def store_kept(conn: sqlite3.Connection, run_id: int, kept: Sequence[KeptSample]) -> None:
    """Store the samples a deferred sampler kept, as the sampler would have stored them."""
    for item in kept:
        capture_ids = tuple(add_capture(conn, run_id, c) for c in item.captures)
        if item.sample is None:
            continue
        add_health_sample(conn, run_id, DURING, item.sample, capture_ids)
        if item.problem is not None:
            add_finding(
                conn,
                run_id,
                SAFETY_FINDING,
                "verdict",
                {"reason": item.problem, "sample_taken_at_s": item.sample.taken_at_s},
                time.time(),
            )


class EnduranceRunner(ProfileRunner):
    """A profile runner whose round loop is the endurance loop, ended by `check_iteration`;
    `health_source` is sampled on its own schedule while fio runs."""

    def __init__(
        self,
        *args: Any,
        health_source: Callable[[], HealthReading] | None,
        health_every_s: float,
        max_temperature_c: float,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self._health_source = health_source
        self._health_every_s = health_every_s
        self._max_temperature_c = max_temperature_c
        self._safety: str | None = None
        self._stop_reason: str | None = None
        self._failure: str | None = None
        self._run_id: int | None = None
        self._sampler: HealthSampler | None = None

    def resume(self, plan: ProfilePlan, run_id: int, *args: Any, **kwargs: Any) -> Any:
        """Continue a stopped run after a fresh health sample (a drive that was too hot when it
        stopped is judged by how it is now, not by the sample that stopped it)."""
        if self._health_source is not None:
            self._sample_health(run_id, "resumed", self._health_source)
        return super().resume(plan, run_id, *args, **kwargs)

    def own_round_check(self) -> RoundCheck:
        return self.check_iteration

    def request_safety_stop(self, reason: str) -> None:
        """From the sampler thread: stop fio now and end the run with this reason."""
        self._safety = reason
        self.request_stop()

    def _check_sample(self, first: HealthSample | None, latest: HealthSample) -> str | None:
        return safety_problem(first, latest, max_temperature_c=self._max_temperature_c)

    def _run_plan(
        self,
        plan: ProfilePlan,
        run_id: int,
        steps: list[StepResult],
        outputs: dict[int, str],
        resume: ResumePoint | None,
        check_round: RoundCheck | None,
    ) -> tuple[RunStatus, str | None]:
        self._run_id = run_id
        problem = self._first_problem(run_id)
        if problem is not None:
            return self._safety_stop(run_id, problem)
        missing = self._wear_unknown(plan, run_id)
        if missing is not None:
            return RunStatus.FAILED, missing
        if self._health_source is not None:
            stored = load_health_samples(self._conn, run_id=run_id)
            self._sampler = HealthSampler(
                database_file(self._conn),
                run_id,
                self._health_source,
                self._health_every_s,
                self._check_sample,
                self.request_safety_stop,
                first=stored[0].sample if stored else None,
                deferred=self._machine is not None and self._machine.defers_store,
            )
            self._sampler.start()
        try:
            status, reason = super()._run_plan(plan, run_id, steps, outputs, resume, check_round)
        finally:
            if self._sampler is not None:
                self._sampler.stop()
                store_kept(self._conn, run_id, self._sampler.take_kept())
                for note in self._sampler.notes:
                    self._emit(Notice(f"health: {note}"))
        if self._safety is not None:
            return RunStatus.INTERRUPTED, f"safety stop: {self._safety}"
        if self._failure is not None:
            return RunStatus.FAILED, self._failure
        if status is RunStatus.COMPLETE and self._stop_reason is not None:
            add_finding(self._conn, run_id, STOP_FINDING, "verdict",
                        {"reason": self._stop_reason}, time.time())  # fmt: skip
            return status, self._stop_reason
        return status, reason

    def _after_pass(self, run_id: int) -> None:
        """The samples kept while fio ran are stored before the iteration's stop decision."""
        if self._sampler is not None:
            store_kept(self._conn, run_id, self._sampler.take_kept())
        super()._after_pass(run_id)

    def _first_problem(self, run_id: int) -> str | None:
        """A safety problem already in the sample taken before the first iteration."""
        samples = [s.sample for s in load_health_samples(self._conn, run_id=run_id)]
        if not samples:
            return None
        return self._check_sample(samples[0], samples[-1])

    def _wear_unknown(self, plan: ProfilePlan, run_id: int) -> str | None:
        """--until-wear on a drive that reports no wear indicator would never stop."""
        if decode_settings(EnduranceSettings, plan.settings).until_wear is None:
            return None
        samples = [s.sample for s in load_health_samples(self._conn, run_id=run_id)]
        if any(s.wear_used_pct.value is not None for s in samples):
            return None
        return (
            f"--until-wear needs a drive that reports a wear indicator, and {plan.target_path} "
            "gave none (no SMART data, or no wear attribute); stop on --for or --until-written"
        )

    def _safety_stop(self, run_id: int, problem: str) -> tuple[RunStatus, str | None]:
        self._safety = problem
        add_finding(self._conn, run_id, SAFETY_FINDING, "verdict", {"reason": problem}, time.time())
        return RunStatus.INTERRUPTED, f"safety stop: {problem}"

    def check_iteration(
        self, plan: ProfilePlan, _loop: RoundLoop, steps: Sequence[StepResult], round_index: int
    ) -> RoundVerdict:
        """After each iteration: the stop decision, with the iteration and progress numbers."""
        assert self._run_id is not None
        times = capture_times(self._conn, self._run_id)
        iterations = iterations_of(steps, times)
        samples = [s.sample for s in load_health_samples(self._conn, run_id=self._run_id)]
        settings = decode_settings(EnduranceSettings, plan.settings)
        decision = decide_stop(settings, iterations, samples)
        if decision.stop:
            self._stop_reason = decision.reason
        latest = next((i for i in iterations if i.index == round_index), None)
        if latest is None:  # never loop for ever on iterations that count for nothing
            self._failure = f"iteration {round_index}: fio reported no writes to count"
            return RoundVerdict(True, self._failure, {"iteration": round_index, "stop": True,
                                                      "reason": self._failure})  # fmt: skip
        known = [p.fraction for p in decision.progress if p.fraction is not None]
        return RoundVerdict(
            stop=decision.stop,
            summary=_summary(round_index, latest, iterations, decision.progress)
            + _health_summary(samples, settings),
            progress=min(max(known), 1.0) if known else None,  # the stop condition nearest
            body={
                "iteration": round_index,
                "elapsed_s": None if latest is None else latest.elapsed_s,
                "written_bytes": None if latest is None else latest.written_bytes,
                "total_written_bytes": sum(i.written_bytes for i in iterations),
                "total_writing_s": sum(i.elapsed_s for i in iterations),
                "health_samples": len(samples),
                "stop": decision.stop,
                "reason": decision.reason,
                "progress": [_progress_json(p) for p in decision.progress],
            },
        )


def _progress_json(progress: Any) -> Mapping[str, Any]:
    return {
        "condition": progress.condition,
        "limit": progress.limit,
        "done": progress.done,
        "fraction": progress.fraction,
        "reason": progress.reason,
    }


def _health_summary(samples: Sequence[HealthSample], settings: EnduranceSettings) -> str:
    """WAF so far and the projected days to end of life, when the samples allow them."""
    timed = [s for s in samples if s.taken_at_s is not None]
    if len(timed) < 2:
        return ""
    series = analyse_series(timed, last_hours=settings.last_hours)
    parts = []
    if series.overall is not None and series.overall.waf.waf is not None:
        parts.append(f"WAF {series.overall.waf.waf:.3g}")
    if series.projection.days_to_eol is not None:
        parts.append(f"end of life in {series.projection.days_to_eol:,.1f} days")
    return ("; " + ", ".join(parts)) if parts else ""


def _summary(index: int, latest: Any, iterations: Sequence[Any], progress: Sequence[Any]) -> str:
    total = sum(i.written_bytes for i in iterations)
    text = f"iteration {index}"
    if latest is not None:
        text += (
            f": {format_decimal_bytes(latest.written_bytes)} in {latest.elapsed_s:.3g} s "
            f"({latest.write_bytes_per_s / 1e6:.4g} MB/s)"
        )
    text += f"; {format_decimal_bytes(total)} written so far"
    parts = [
        f"{p.condition.replace('_', '-')} {p.fraction:.0%}"
        for p in progress
        if p.fraction is not None
    ]
    if parts:
        text += " (" + ", ".join(parts) + ")"
    return text
