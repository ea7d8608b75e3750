"""`ssdlab model fit RUN…`: the runs named read back from the store, turned into the fit's
inputs (analysis/model_fit.py), fitted, and the fit stored as a run of its own linked to them.

What each kind of run gives:

- a `cache` profile run: its write's bandwidth log → the cliff (cache size, SLC and native
  rates); with `--prefill P` also the fill level it was measured at, and two or more at
  different levels → the cache's kind (static, dynamic, hybrid);
- an `endurance` profile run with the `randwrite-4k` workload: its health readings (host and
  NAND bytes written) → steady-state WAF over its active range, which is the run's test region
  (`--size`, stored in its plan) over the capacity of the drive it ran on. The fit assumes the
  drive held nothing outside the range (discarded before the run: the advice's `blkdiscard`);
- an `endurance` run with the `jesd219-enterprise` workload: its WAF, which with the uniform
  runs fits spare and GC class together (analysis/model_fit_joint.py);
- a `pts-hir` profile run (SNIA PTS Host Idle Recovery): its wait states' access periods and
  baselines, as its `pts-results` finding keeps them → idle GC present, absent or
  inconclusive (analysis/idle_gc.py).

The fit is stored as a run of kind `sim`, profile `model-fit` (the fitted model is a simulator
configuration; no store migration): its settings name the input runs (ids and UUIDs), its
`model-fit` finding holds the fit's JSON (report/model_fit.py)."""

import json
import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ssdlab.analysis.idle_gc import HirRow
from ssdlab.analysis.model_fit import (
    CliffInput,
    FitInputs,
    HirInput,
    Source,
    WafInput,
    fit_model,
)
from ssdlab.analysis.profiles.cache import cliff_verdict
from ssdlab.analysis.write_series import writes_of
from ssdlab.app.runs import stored_runs
from ssdlab.errors import UsageError
from ssdlab.model.finding_names import PTS_RESULTS
from ssdlab.model.run import RunKind, RunStatus
from ssdlab.model.stored_run import StoredRun
from ssdlab.model.target import TargetKind
from ssdlab.registry.model_fit import MODEL_FIT_PROFILE
from ssdlab.report.document import Document
from ssdlab.report.model_fit import build_fit_document, fit_json
from ssdlab.runner.run_row import RunHeader, create_run
from ssdlab.store.findings import add_finding
from ssdlab.store.lifecycle import finish_run, to_json

FINDING = "model-fit"
HIR_PROFILE = "pts-hir"
UNIFORM_WORKLOAD = "randwrite-4k"
SKEWED_WORKLOAD = "jesd219-enterprise"
# the drive's host writes may exceed fio's by this factor (rounding of its counter, metadata)
OTHER_WRITES = 1.1


@dataclass(frozen=True, slots=True)
class FitRequest:
    runs: tuple[str, ...]  # run ids or 'last', as typed
    argv: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FitOutcome:
    run_id: int
    body: Mapping[str, Any]
    document: Document


def _source(stored: StoredRun) -> Source:
    run = stored.run
    return Source(run.run_id, run.uuid or None, f"{run.profile} run {run.run_id}")


def _device(stored: StoredRun) -> Mapping[str, Any]:
    device = stored.run.target.get("device")
    return device if isinstance(device, Mapping) else {}


def drive_of(stored: StoredRun) -> str:
    """The drive a run ran on, as the advice's commands name it."""
    path = _device(stored).get("path")
    return str(path) if path else stored.run.target_path


def region_bytes(stored: StoredRun) -> int | None:
    params = stored.run.plan.get("params")
    for pair in params if isinstance(params, list) else []:
        if isinstance(pair, list) and len(pair) == 2 and pair[0] == "region_bytes":
            return int(pair[1]) if isinstance(pair[1], int | float) else None
    size = stored.run.target.get("size_bytes")
    return int(size) if isinstance(size, int | float) else None


def _capacity(stored: StoredRun) -> int | None:
    value = _device(stored).get("capacity_bytes")
    return int(value) if isinstance(value, int | float) and value > 0 else None


def _cliff_input(stored: StoredRun) -> CliffInput | None:
    verdicts = [v for v in (cliff_verdict(w) for w in writes_of(stored.steps)) if v is not None]
    if not verdicts:
        return None
    return CliffInput(_source(stored), tuple(verdicts), fill_of(stored))


def fill_of(stored: StoredRun) -> float | None:
    """The fraction of the drive a cache run wrote before its write (`--prefill P`: P % of
    the region, over the drive's capacity when both are stored); None without --prefill."""
    level = stored.run.settings.get("prefill")
    if not isinstance(level, int | float) or isinstance(level, bool):
        return None
    region, capacity = region_bytes(stored), _capacity(stored)
    if region is None or capacity is None or stored.run.target_kind is TargetKind.FILE:
        return level / 100.0
    return min(level / 100.0 * region / capacity, 1.0)


def waf_input_of(stored: StoredRun, notes: list[str]) -> WafInput | None:
    source = _source(stored)
    workload = stored.run.settings.get("workload")
    if workload not in (UNIFORM_WORKLOAD, SKEWED_WORKLOAD):
        notes.append(
            f"{source.label}: workload {workload}: the fit reads {UNIFORM_WORKLOAD} (spare) "
            f"and {SKEWED_WORKLOAD} (GC class) endurance runs only"
        )
        return None
    region, capacity = region_bytes(stored), _capacity(stored)
    if region is None or capacity is None:
        notes.append(f"{source.label}: its test region or its drive's capacity is not stored")
        return None
    readings = tuple(
        (float(s.host_written_bytes.value), float(s.nand_written_bytes.value))
        for _phase, s in stored.health
        if s.host_written_bytes.value is not None and s.nand_written_bytes.value is not None
    )
    if len(readings) < 2:
        notes.append(
            f"{source.label}: fewer than two health readings with both host and NAND bytes "
            "written (a drive without a NAND-written counter): WAF, spare and GC class cannot "
            "be measured on it"
        )
        return None
    drive_host = readings[-1][0] - readings[0][0]
    fio_host = sum(w.write.io_bytes for w in stored.steps if w.write and not w.discarded)
    if fio_host > 0 and drive_host > OTHER_WRITES * fio_host:
        notes.append(
            f"{source.label}: the drive's host-writes counter rose {drive_host / 1e9:.3g} GB "
            f"while fio wrote {fio_host / 1e9:.3g} GB: other writes reached the drive (or the "
            "readings are not this drive's), so its WAF is not the range's: not used"
        )
        return None
    if stored.run.target_kind is TargetKind.FILE:
        notes.append(
            f"{source.label}: ran on a file: the file system's own writes and its other data "
            "are part of what the drive saw; the active range is the file's size"
        )
    return WafInput(source, float(region), float(capacity), readings)


def hir_input_of(stored: StoredRun) -> HirInput | None:
    """A HIR run's measured steps from its `pts-results` finding (one row per step, in run
    order); an access period follows an idle unless it is its wait state's first repeat (the
    plan's `repeat` parameter). None when the run stored no wait state."""
    results = stored.findings.get(PTS_RESULTS)
    after = results.get("after") if isinstance(results, Mapping) else None
    rows = [r for r in after if isinstance(r, Mapping)] if isinstance(after, list) else []
    if not rows:
        return None
    repeats = {step.key: step.param("repeat") for step in stored.evidence.plan().after}
    found = tuple(
        HirRow(
            wait_state=int(row["wait_state"]),
            baseline=bool(row.get("baseline")),
            iops=_number(row.get("iops")),
            after_idle=repeats.get(str(row.get("key"))) != 1,
            logged_iops=tuple(
                v
                for v in (_number(p[2]) for p in row.get("series") or () if len(p) > 2)
                if v is not None
            ),
        )
        for row in rows
        if isinstance(row.get("wait_state"), int)
    )
    return HirInput(_source(stored), found) if found else None


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def fit_inputs(runs: Sequence[StoredRun]) -> tuple[FitInputs, list[str], list[dict[str, Any]]]:
    """The fit's inputs from stored runs, notes on what was left out, and what each run gave."""
    cliffs: list[CliffInput] = []
    wafs: list[WafInput] = []
    skews: list[WafInput] = []
    notes: list[str] = []
    used: list[dict[str, Any]] = []
    hir: HirInput | None = None
    for stored in runs:
        run = stored.run
        gave: str | None = None
        if run.kind is RunKind.PROFILE and run.profile == "cache":
            cliff = _cliff_input(stored)
            if cliff is not None:
                cliffs.append(cliff)
                gave = "cache cliff" + (
                    "" if cliff.fill is None else f" at {cliff.fill:.0%} full (--prefill)"
                )
            else:
                notes.append(f"cache run {run.run_id}: no write was stored")
        elif run.kind is RunKind.PROFILE and run.profile == "endurance":
            waf = waf_input_of(stored, notes)
            skewed = stored.run.settings.get("workload") == SKEWED_WORKLOAD
            if waf is not None:
                (skews if skewed else wafs).append(waf)
                what = "JESD219" if skewed else "uniform random"
                gave = f"{what} WAF over {waf.active_fraction:.0%} of the drive"
        elif run.kind is RunKind.PROFILE and run.profile == HIR_PROFILE:
            hir, gave = _hir_of(stored, hir, notes)
        else:
            raise UsageError(
                f"run {run.run_id} is a {run.kind.value} {run.profile} run; 'ssdlab model fit' "
                "reads cache runs (ssdlab run cache DRIVE) and endurance runs (ssdlab run "
                "endurance DRIVE --workload randwrite-4k --size SIZE, or --workload "
                "jesd219-enterprise) and SNIA PTS Host Idle Recovery runs (ssdlab run pts-hir "
                "DRIVE)"
            )
        used.append({"run_id": run.run_id, "uuid": run.uuid, "profile": run.profile, "gave": gave})
    first = runs[0] if runs else None
    target = drive_of(first) if first is not None else "TARGET"
    capacities = [c for c in (_capacity(s) for s in runs) if c is not None]
    capacity = capacities[0] if capacities else None
    inputs = FitInputs(
        tuple(cliffs), tuple(wafs), target, capacity, tuple(skews), nand_counter(runs), hir
    )
    return inputs, notes, used


def _hir_of(
    stored: StoredRun, hir: HirInput | None, notes: list[str]
) -> tuple[HirInput | None, str | None]:
    """The fit's HIR input after this run (the first HIR run named is the one read) and what
    this run gave."""
    label = _source(stored).label
    if hir is not None:
        notes.append(f"{label}: idle GC is read from the first HIR run named, {hir.source.label}")
        return hir, None
    found = hir_input_of(stored)
    if found is None:
        notes.append(f"{label}: no wait state was stored")
        return None, None
    states = len({r.wait_state for r in found.rows})
    return found, f"idle recovery over {states} wait states (idle GC)"


def nand_counter(runs: Sequence[StoredRun]) -> bool | None:
    """Whether the drive reports NAND bytes written: True when any health reading of the runs
    holds them, False when readings were taken and none does (most consumer drives; a file
    or loop device over one), None when no reading was taken."""
    samples = [s for stored in runs for _phase, s in stored.health]
    if not samples:
        return None
    return any(s.nand_written_bytes.value is not None for s in samples)


def fit_runs(conn: sqlite3.Connection, request: FitRequest) -> FitOutcome:
    """Fit the runs named, store the fit as a run linked to them, and give its document."""
    if not request.runs:
        raise UsageError("name the runs to fit: ssdlab model fit RUN [RUN …] (see 'ssdlab runs')")
    runs = stored_runs(conn, request.runs)
    inputs, notes, used = fit_inputs(runs)
    fit = fit_model(inputs)
    started = time.time()
    run_id = create_run(
        conn,
        RunHeader(
            kind=RunKind.SIM,
            profile=MODEL_FIT_PROFILE,
            profile_version=1,
            preset=None,
            target_kind=runs[0].run.target_kind,
            target_path=inputs.target,
            target_json=to_json({"kind": "model-fit", "drive": inputs.target}),
            settings_json=json.dumps({"inputs": used, "argv": list(request.argv)}, sort_keys=True),
            plan_json="{}",
        ),
        started_at_s=started,
    )
    body = fit_json(fit, run_id, inputs.target, used, inputs.capacity_bytes)
    body["notes"] = [*notes, *body["notes"]]
    add_finding(conn, run_id, FINDING, "verdict", body, time.time())
    finish_run(conn, run_id, RunStatus.COMPLETE, None, time.time())
    return FitOutcome(run_id, body, build_fit_document(body))
