"""Progress for long work: a bar with ETA for the run and the current pass on a terminal, plain
lines otherwise (logs, CI, pipes; rich is imported for the bar alone)."""

import math
import sys
import threading
import time
from typing import TYPE_CHECKING, TextIO

from ssdlab.model.profile import ProfilePlan, ProfileStep, StepRole
from ssdlab.model.units import format_cdm_mb_per_s, format_time
from ssdlab.runner.events import (
    Event,
    Notice,
    Pausing,
    ProfileRunStarted,
    RoundFinished,
    StepFinished,
    StepProgress,
    StepStarted,
)
from ssdlab.runner.profile import step_count

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import TaskID


def step_title(step: ProfileStep) -> str:
    """A step as the progress display names it; a quick test's passes say which pass."""
    if step.round_index is None:
        return step.label
    which = "warm-up" if step.role is StepRole.WARMUP else f"pass {step.round_index}"
    return f"{step.label} {step.direction} {which}"


def loop_first(plan: ProfilePlan) -> int | None:
    """The number of the first step of a plan's round loop, when it has one."""
    if len(plan.loops) != 1:
        return None
    return len(plan.steps) + len(plan.loops[0].before) + 1


class LoopBound:
    """How far a run's round loop is from the bound it stops at, by what its rounds report
    (RoundFinished.progress: a trial pts-wsat's bytes written, an endurance run's --for), not
    by the rounds a time limit allows. The pace is measured from the loop's first step to its
    first report, then from that report on (a resumed run's reports count its earlier life)."""

    def __init__(self, plan: ProfilePlan) -> None:
        self._first = loop_first(plan)
        self._start: tuple[float, int] | None = None  # (time, steps done) at its first step
        self._report: tuple[float, int, float] | None = None  # its first report, with progress

    def step_started(self, number: int) -> None:
        if number == self._first:
            self._start = (time.monotonic(), number - 1)

    def left(self, done: int, progress: float | None) -> tuple[float, float] | None:
        """(seconds, steps) the loop has left once `done` steps are done and it is `progress`
        of the way to its bound; None when that is not known."""
        if not progress or self._start is None:
            return None
        now = time.monotonic()
        if self._report is None:
            self._report = (now, done, progress)
            (since, before), was = self._start, 0.0
        else:
            since, before, was = self._report
        if progress <= was:
            return None
        share = (1 - progress) / (progress - was)
        return (now - since) * share, (done - before) * share


class LineProgress:
    """One line per step on stderr, used when stderr is not a terminal (a log, a pipe, a fleet
    reading it over SSH): each step's start and end with its name and the run's ETA, and at
    most ten progress lines a step."""

    def __init__(self, stream: TextIO = sys.stderr) -> None:
        self._stream = stream
        self._last_tenth = -1
        self._started: float | None = None  # time.monotonic() at the run's start
        self._estimated_s: float | None = None
        self._number = 0  # the step under way, 1-based
        self._total: int | None = None
        self._loop: LoopBound | None = None
        self._bound: tuple[float, float] | None = None  # (when, seconds left) by the bound

    def _eta(self, done: int) -> str:
        """'; run ETA 2026-11-26 12:03:40 UTC, in 80 s': from how far the run's loop is towards its
        bound, else the plan's estimate, else from the steps done so far; empty when none
        says."""
        if self._started is None:
            return ""
        now = time.monotonic()
        elapsed = now - self._started
        if self._bound is not None:
            at, then = self._bound
            left = max(then - (now - at), 0.0)
        elif self._estimated_s is not None:
            left = max(self._estimated_s - elapsed, 0.0)
        elif self._total is not None and done > 0:
            left = elapsed / done * (self._total - done)
        else:
            return ""
        return f"; run ETA {format_time(time.time() + left)}, in {left:.0f} s"

    def __enter__(self) -> "LineProgress":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def __call__(self, event: Event) -> None:
        text = None
        if isinstance(event, Pausing):
            text = f"pausing {event.seconds:g} s"
        elif isinstance(event, Notice):
            text = f"warning: {event.text}"
        elif isinstance(event, ProfileRunStarted):
            steps = step_count(event.plan)
            about = (
                ""
                if event.estimated_s is None or steps is None
                else f", about {event.estimated_s:.0f} s"
            )
            upto = "until its stop conditions" if steps is None else f"up to {steps} steps"
            text = f"run {event.run_id}: {event.plan.profile}, {upto}{about}"
            self._started, self._estimated_s = time.monotonic(), event.estimated_s
            self._loop = LoopBound(event.plan)
        elif isinstance(event, RoundFinished):
            text = f"    {event.summary}" + (" — stopping" if event.stop else "")
            left = None if self._loop is None else self._loop.left(self._number, event.progress)
            if left is not None:
                self._bound = (time.monotonic(), left[0])
        elif isinstance(event, StepStarted):
            self._last_tenth = -1
            self._number, self._total = event.number, event.total
            if self._loop is not None:
                self._loop.step_started(event.number)
            text = f"{event.counter} {step_title(event.step)}{self._eta(event.number - 1)}"
        elif isinstance(event, StepProgress):
            tenth = int(event.fraction * 10)
            if tenth > self._last_tenth:
                self._last_tenth = tenth
                text = f"    {event.fraction:.0%}"
        elif isinstance(event, StepFinished):
            result = event.result
            text = (
                f"    {step_title(event.step)} done in {event.elapsed_s:.1f} s"
                + (
                    ""
                    if result is None
                    else f": {format_cdm_mb_per_s(result.bw_bytes_per_s)} MB/s, "
                    f"{result.iops:.0f} IOPS"
                )
                + self._eta(self._number)
            )
        if text is not None:
            print(text, file=self._stream, flush=True)


class BarProgress:
    """Two rich bars: the whole run (with ETA) and the current pass, advanced by a clock thread."""

    def __init__(self, console: "Console") -> None:
        from rich.progress import (
            BarColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._console = console
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.percentage:>3.0f}%"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            transient=True,
        )
        self._run_task: TaskID | None = None
        self._pass_task: TaskID | None = None
        self._done_s = 0.0
        self._pass_started: float | None = None
        self._pass_duration = 0.0
        self._counts_steps = False  # profile runs: the run bar counts steps, not seconds
        self._plan: ProfilePlan | None = None
        self._loop: LoopBound | None = None
        self._number = 0  # the step under way
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._ticker = threading.Thread(target=self._tick, daemon=True)

    def __enter__(self) -> "BarProgress":
        self._progress.start()
        self._ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._ticker.join(timeout=1)
        self._progress.stop()

    def _tick(self) -> None:
        while not self._stop.wait(0.2):
            with self._lock:
                if self._pass_started is None or self._run_task is None:
                    continue
                elapsed = min(time.monotonic() - self._pass_started, self._pass_duration)
                if not self._counts_steps:
                    self._progress.update(self._run_task, completed=self._done_s + elapsed)
                if self._pass_task is not None:
                    self._progress.update(self._pass_task, completed=elapsed)

    def __call__(self, event: Event) -> None:
        with self._lock:
            if isinstance(event, Pausing):
                self._console.print(f"pausing {event.seconds:g} s")
            elif isinstance(event, Notice):
                self._console.print(f"[yellow]warning:[/yellow] {event.text}")
            elif isinstance(event, ProfileRunStarted | StepStarted | StepProgress | StepFinished):
                self._on_step_event(event)
            elif isinstance(event, RoundFinished):
                stop = " — stopping" if event.stop else ""
                self._console.print(f"{event.summary}{stop}")
                self._bound_run(event)

    def _bound_run(self, event: RoundFinished) -> None:
        """The run bar's length (and so its ETA) from how far the loop is towards its bound."""
        if self._plan is None or self._loop is None or self._run_task is None:
            return
        left = self._loop.left(self._number, event.progress)
        if left is not None:
            total = self._number + math.ceil(left[1]) + len(self._plan.after)
            self._progress.update(self._run_task, total=total)

    def _on_step_event(
        self, event: ProfileRunStarted | StepStarted | StepProgress | StepFinished
    ) -> None:
        """Profile runs: the run bar counts steps; the step bar runs on the clock for timed
        steps and on fio's own "% done" for size-bound ones."""
        if isinstance(event, ProfileRunStarted):
            self._counts_steps = True
            self._plan, self._loop = event.plan, LoopBound(event.plan)
            self._run_task = self._progress.add_task(
                f"run {event.run_id} ({event.plan.profile})", total=step_count(event.plan)
            )
        elif isinstance(event, StepStarted):
            timed = event.step.expected_s is not None or event.step.idle_s > 0
            duration = (event.step.expected_s or 0.0) + event.step.idle_s
            if self._pass_task is None:
                self._pass_task = self._progress.add_task("", total=1.0)
            self._progress.reset(
                self._pass_task,
                description=f"{event.counter} {step_title(event.step)}",
                total=duration if timed else 1.0,
                completed=0,
            )
            self._pass_started = time.monotonic() if timed else None
            self._pass_duration = duration
            self._done_s = float(event.number - 1)
            self._number = event.number
            if self._loop is not None:
                self._loop.step_started(event.number)
        elif isinstance(event, StepProgress):
            if self._pass_task is not None:
                self._progress.update(self._pass_task, completed=event.fraction)
        elif isinstance(event, StepFinished):
            self._pass_started = None
            if self._run_task is not None:
                self._progress.update(self._run_task, completed=self._done_s + 1)


def make_progress(stream: TextIO = sys.stderr) -> LineProgress | BarProgress:
    if stream.isatty():
        from rich.console import Console

        return BarProgress(Console(file=stream))
    return LineProgress(stream)
