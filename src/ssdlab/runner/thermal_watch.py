"""The drive's temperatures sampled once a second while each fio pass runs (docs/thermal.md).

`ThermalWatch.probe()` takes one reading before the first pass: a drive that gives none (a file
on a virtual disk, a loop device, no SMART, no tool) is recorded once as having no temperature
and is never read again; the run goes on. Otherwise `start()` begins a sampler right before fio
starts and `PassSampler.stop()` ends it as fio has ended: a reading under way is killed and the
sampler's thread joined there, so it never outlives its pass and the next pass never waits for
it. A reading is one subprocess with a short time limit (system/temperature.py), through a
process runner of the sampler's own, so a stop signal reaches fio and not a reading; a reading
that fails is counted, never fatal.
"""

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ssdlab.model.run import Capture
from ssdlab.model.thermal import TemperatureSample, ThermalCounters, ThermalLimits
from ssdlab.system.temperature import TemperatureRead

PERIOD_S = 1.0

Read = Callable[[], TemperatureRead]
ReadLimits = Callable[[], tuple[ThermalLimits | None, Capture | None]]


@dataclass(frozen=True, slots=True)
class Probe:
    """The reading before the first pass: whether the drive has temperatures, the source, and
    the capture of the call (raw first: stored with the run)."""

    sampled: bool
    source: str
    reason: str
    capture: Capture | None
    limits: ThermalLimits | None = None  # WCTEMP and CCTEMP, read once
    limits_capture: Capture | None = None


@dataclass(frozen=True, slots=True)
class PassTemperatures:
    """What one pass's sampler read: its samples, the drive's thermal counters at its first and
    last reading, and the readings that gave no temperature."""

    samples: tuple[TemperatureSample, ...]
    counters_before: ThermalCounters | None
    counters_after: ThermalCounters | None
    failed_reads: int
    problem: str = ""  # the last failed reading's reason


class PassSampler:
    """One pass's readings, on a thread of its own from `start` to `stop`."""

    def __init__(
        self,
        read: Read,
        period_s: float = PERIOD_S,
        clock: Callable[[], float] = time.monotonic,
        cancel: Callable[[], None] | None = None,
    ) -> None:
        self._read = read
        self._cancel = cancel
        self._period_s = period_s
        self._clock = clock
        self._stop = threading.Event()
        self._samples: list[TemperatureSample] = []
        self._counters: list[ThermalCounters] = []
        self._failed = 0
        self._problem = ""
        self._began = clock()
        self._thread = threading.Thread(target=self._loop, name="ssdlab-thermal", daemon=True)

    def start(self) -> "PassSampler":
        self._began = self._clock()
        self._thread.start()
        return self

    def _loop(self) -> None:
        due = self._began
        while not self._stop.is_set():
            before = self._clock()
            try:
                reading = self._read()
            except Exception as error:  # a reading never ends the pass: it is counted
                reading = TemperatureRead(None, None, None, f"{type(error).__name__}: {error}")
            after = self._clock()
            if self._stop.is_set() and reading.temperatures is None:
                break  # the reading the pass's end cut short: not a failed one
            self._keep(reading, (before + after) / 2 - self._began)
            due += self._period_s
            if due < after:  # a slow reading: the next one a period after it, none queued
                due = after + self._period_s if self._period_s > 0 else after
            self._stop.wait(max(0.0, due - self._clock()))

    def _keep(self, reading: TemperatureRead, elapsed_s: float) -> None:
        if reading.temperatures is None:
            self._failed += 1
            self._problem = reading.problem
            return
        composite, sensors = reading.temperatures
        self._samples.append(TemperatureSample(round(max(0.0, elapsed_s), 3), composite, sensors))
        if reading.counters is not None:
            self._counters.append(reading.counters)

    def stop(self) -> PassTemperatures:
        """End the sampler as its pass has ended: a reading under way is ended too (its call
        killed), so the next pass never waits for it; then the thread is joined."""
        self._stop.set()
        if self._cancel is not None:
            self._cancel()
        if self._thread.is_alive() or self._thread.ident is not None:
            self._thread.join()
        counters = self._counters
        return PassTemperatures(
            tuple(self._samples),
            counters[0] if counters else None,
            counters[-1] if counters else None,
            self._failed,
            self._problem,
        )


class ThermalWatch:
    """A run's temperature sampling: probed once, then a sampler per fio pass."""

    def __init__(
        self,
        read: Read | None,
        source: str,
        why_not: str = "",
        period_s: float = PERIOD_S,
        read_limits: ReadLimits | None = None,
        cancel: Callable[[], None] | None = None,
    ) -> None:
        self._read = read
        self._read_limits = read_limits
        self._cancel = cancel  # ends a reading under way (its process runner's kill)
        self._source = source
        self._why_not = why_not
        self._period_s = period_s
        self._probe: Probe | None = None

    @property
    def period_s(self) -> float:
        return self._period_s

    def probe(self) -> Probe:
        """One reading: does this drive give temperatures? Taken once per run (per life of a
        resumed run); the answer is kept."""
        if self._probe is None:
            self._probe = self._first()
        return self._probe

    def _first(self) -> Probe:
        if self._read is None:
            return Probe(False, self._source, self._why_not, None)
        try:
            reading = self._read()
        except Exception as error:  # a drive that cannot be read has no temperatures
            return Probe(False, self._source, f"{type(error).__name__}: {error}", None)
        if reading.temperatures is None:
            return Probe(False, self._source, reading.problem, reading.capture)
        limits, limits_capture = None, None
        if self._read_limits is not None:
            try:
                limits, limits_capture = self._read_limits()
            except Exception:  # thresholds unknown: the checks that need them say so
                limits, limits_capture = None, None
        return Probe(True, self._source, "", reading.capture, limits, limits_capture)

    def start(self) -> PassSampler | None:
        """A sampler for the pass about to start; None when the drive gives no temperatures."""
        if self._read is None or not self.probe().sampled:
            return None
        return PassSampler(self._read, self._period_s, cancel=self._cancel).start()
