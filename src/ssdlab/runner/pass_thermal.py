"""What a run keeps of its drive's temperatures (docs/thermal.md): the probe's answer once, as
the `thermal` finding (with the capture of its reading: raw first), and after every pass read,
that pass's throttling found from its series (analysis/thermal.py) with the OCP checks it
allows (analysis/thermal_checks.py), as a `thermal-pass:<step>:<round>` finding. The readings
themselves are stored with the pass's step result (store/step_temperatures.py)."""

import sqlite3
import time
from typing import Any

from ssdlab.analysis.thermal_checks import counter_checks, thermal_checks
from ssdlab.model.finding_names import THERMAL, THERMAL_PASS
from ssdlab.model.json_fields import encode
from ssdlab.model.step import StepResult
from ssdlab.model.thermal import ThermalLimits
from ssdlab.runner.thermal_watch import PassSampler, PassTemperatures, ThermalWatch
from ssdlab.store.captures import add_capture
from ssdlab.store.findings import add_finding


def pass_finding_name(step_key: str, round_index: int) -> str:
    return f"{THERMAL_PASS}:{step_key}:{round_index}"


def pass_body(
    step: StepResult, taken: PassTemperatures, limits: ThermalLimits | None = None
) -> dict[str, Any]:
    """One pass's thermal finding: its readings' count, the throttling its series shows, and
    the requirements it lets be checked (pure)."""
    from ssdlab.analysis.thermal import find_throttling, thermal_points  # numpy

    readings = [(s.elapsed_s, s.composite_c) for s in taken.samples]
    points = thermal_points(step.series, readings)
    series = find_throttling(points)
    temps = [s.composite_c for s in taken.samples]
    return {
        "step": step.step_key,
        "round": step.round_index,
        "label": step.step_label,
        "discarded": step.discarded,
        "readings": len(taken.samples),
        "failed_reads": taken.failed_reads,
        "problem": taken.problem,
        "min_c": min(temps) if temps else None,
        "max_c": max(temps) if temps else None,
        "points": len(points),
        "throttling": encode(series),
        "checks": encode(
            thermal_checks(points, series, limits, taken.counters_before, taken.counters_after)
        ),
        "counters": encode(counter_checks(series, taken.counters_before, taken.counters_after)),
    }


class ThermalRecord:
    """A run's thermal watch and the findings it writes."""

    def __init__(self, watch: ThermalWatch) -> None:
        self._watch = watch
        self._begun = False
        self._limits: ThermalLimits | None = None

    def begin(self, conn: sqlite3.Connection, run_id: int) -> None:
        """Probe the drive once (per life of the run) and record the answer."""
        if self._begun:
            return
        self._begun = True
        probe = self._watch.probe()
        # raw first: the reading that shows where the temperatures come from (a drive that
        # gives none is said in the finding; its health reading before the run shows why)
        capture_id = 0
        if probe.sampled and probe.capture is not None:
            capture_id = add_capture(conn, run_id, probe.capture)
        if probe.limits_capture is not None:
            add_capture(conn, run_id, probe.limits_capture)
        self._limits = probe.limits
        body = {
            "sampled": probe.sampled,
            "source": probe.source,
            "reason": probe.reason,
            "capture_id": capture_id,
            "period_s": self._watch.period_s,
            "limits": None if probe.limits is None else encode(probe.limits),
        }
        add_finding(conn, run_id, THERMAL, "facts", body, time.time())

    def sampler(self) -> PassSampler | None:
        return self._watch.start()

    def add_pass(
        self, conn: sqlite3.Connection, run_id: int, step: StepResult, taken: PassTemperatures
    ) -> None:
        name = pass_finding_name(step.step_key, step.round_index)
        add_finding(
            conn, run_id, name, "verdict", pass_body(step, taken, self._limits), time.time()
        )
