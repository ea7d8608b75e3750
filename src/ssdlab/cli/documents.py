"""Stored runs turned into report parts and comparable metrics, for `report` and `compare`."""

import sqlite3
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from ssdlab import __version__
from ssdlab.analysis.compare import MetricSamples
from ssdlab.analysis.run_metrics import PTS_WINDOW_ROUNDS, step_metrics
from ssdlab.analysis.simulated_drive import SimPoint, analyse_point
from ssdlab.analysis.spec_match import match_spec
from ssdlab.cli.rating import rated_endurance
from ssdlab.cli.store_access import load_profile_results, run_health, stored_run
from ssdlab.errors import SsdlabError
from ssdlab.model.finding_names import BASELINE
from ssdlab.model.health import HealthSample
from ssdlab.model.run import RunKind, RunRecord
from ssdlab.model.spec import SpecSheet
from ssdlab.model.step import StepResult
from ssdlab.registry import profile_record, profile_records
from ssdlab.report.document import Document
from ssdlab.report.health_document import build_health_document
from ssdlab.report.html import ReportPart
from ssdlab.report.quick import build_quick_report
from ssdlab.report.quick_document import build_quick_document
from ssdlab.report.sim import build_sim_document, build_sweep_document
from ssdlab.report.spec_claims import spec_sections
from ssdlab.runner.sim import RESULT_FINDING, SWEEP_PROFILE
from ssdlab.store.captures import load_capture_inputs
from ssdlab.store.findings import load_findings
from ssdlab.store.health import load_health_samples
from ssdlab.store.steps import load_step_results

# health runs carry their kind as profile: a `health` check, a `watch` series, an imported log
HEALTH_PROFILES = ("health", "watch", "import")


def load_runs(conn: sqlite3.Connection, run_ids: Sequence[int]) -> list[RunRecord]:
    return [stored_run(conn, run_id) for run_id in run_ids]


def run_baseline(conn: sqlite3.Connection, run_id: int) -> dict[str, Any] | None:
    """The baseline finding a run was stored with (`--baseline NAME`), or None."""
    return next((f.body for f in load_findings(conn, run_id) if f.name == BASELINE), None)


def run_document(
    conn: sqlite3.Connection, run: RunRecord, specs: Sequence[SpecSheet] = ()
) -> Document:
    """The report document of any stored run: a profile's own, a health run's, or the
    quick/import one."""
    if run.kind is RunKind.SIM:  # simulated drives (ssdlab sim): their own document
        return sim_document(conn, run)
    if run.profile in HEALTH_PROFILES:
        samples = [s.sample for s in load_health_samples(conn, run_id=run.run_id)]
        identity = samples[-1].identity if samples else None
        spec = (
            match_spec(identity.model, identity.capacity_bytes, specs)
            if identity is not None
            else None
        )
        return build_health_document(run, samples, rated_endurance(spec))
    if run.kind is RunKind.PROFILE:
        if run.profile not in profile_records():
            raise SsdlabError(
                f"run {run.run_id} is a {run.profile} run, which this ssdlab cannot show"
            )
        return profile_record(run.profile).build_document(load_profile_results(conn, run.run_id))
    report = build_quick_report(
        run, load_step_results(conn, run.run_id), run_health(conn, run.run_id)
    )
    return build_quick_document(
        report, extra=spec_sections(report, specs), baseline=run_baseline(conn, run.run_id)
    )


def _step_name(step: StepResult, quick: bool, repeated: bool) -> str:
    """A quick run's test and pass ('SEQ1M Q8T1 read, pass 2'), or a profile step's label (and
    its round when the step is repeated: 'randwrite-4k iteration, round 3')."""
    if not quick:
        return f"{step.step_label}, round {step.round_index}" if repeated else step.step_label
    which = "warm-up" if step.round_index == 0 else f"pass {step.round_index}"
    return f"{step.step_label} {step.direction}, {which}"


def _capture_name(tool: str, text: str) -> str:
    """A capture no step result names: the test file's preparation, or its tool's job."""
    first = text.partition("\n")[0]
    if first.startswith(";") and "prepare" in first:
        return "test file preparation"
    return f"{tool} job (no result stored)"


def job_files(conn: sqlite3.Connection, run: RunRecord) -> tuple[tuple[str, str], ...]:
    """The run's fio job files, each distinct text once, named by the test that ran it
    ('SEQ1M Q8T1 read, pass 1, and 2 more runs of it')."""
    quick = run.kind not in ("profile", "sim")
    results = load_step_results(conn, run.run_id, with_series=False)
    keys = Counter(s.step_key for s in results)
    steps = {
        s.capture_id: _step_name(s, quick, keys[s.step_key] > 1)
        for s in results
        if s.capture_id is not None
    }
    seen: dict[str, list[str]] = {}
    for capture_id, tool, text in load_capture_inputs(conn, run.run_id):
        seen.setdefault(text, []).append(steps.get(capture_id) or _capture_name(tool, text))
    files = []
    for text, names in seen.items():
        more = len(names) - 1
        runs = f", and {more} more run{'s' if more > 1 else ''} of it" if more else ""
        files.append((f"{names[0]}{runs}", text))
    return tuple(files)


def _when(ts: float | None) -> str:
    return "—" if ts is None else time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ts))


def provenance(run: RunRecord) -> tuple[tuple[str, str], ...]:
    env = run.environment
    rows = [
        ("run id", str(run.run_id)),
        ("kind", run.kind),
        ("profile", f"{run.profile} version {run.profile_version}"),
        ("started", _when(run.started_at_s)),
        ("ended", _when(run.ended_at_s)),
    ]
    source = run.settings.get("source_tool")
    if source:
        rows.append(("imported from", f"{source} ({run.target_path})"))
    else:
        rows.append(("host", run.host))
    rows.append(("recorded by", f"ssdlab {env.get('ssdlab_version') or 'version unknown'}"))
    if env.get("fio_version"):
        rows.append(("fio", str(env["fio_version"])))
    if env.get("kernel"):
        rows.append(("kernel", str(env["kernel"])))
    return tuple(rows)


def report_parts(
    conn: sqlite3.Connection, runs: Sequence[RunRecord], specs: Sequence[SpecSheet] = ()
) -> list[ReportPart]:
    return [
        ReportPart(
            anchor=f"run-{run.run_id}",
            document=run_document(conn, run, specs),
            job_files=job_files(conn, run),
            provenance=provenance(run),
        )
        for run in runs
    ]


def report_provenance(runs: Sequence[RunRecord]) -> tuple[tuple[str, str], ...]:
    return (
        ("written by", f"ssdlab {__version__}"),
        ("runs", ", ".join(str(r.run_id) for r in runs)),
        ("profiles", ", ".join(sorted({f"{r.profile} v{r.profile_version}" for r in runs}))),
    )


def run_metrics(conn: sqlite3.Connection, run: RunRecord) -> tuple[MetricSamples, ...]:
    """What `compare` compares: every step's passes (PTS: the last five rounds)."""
    window = PTS_WINDOW_ROUNDS if run.profile.startswith("pts-") else None
    return step_metrics(load_step_results(conn, run.run_id), window=window)


def _points(conn: sqlite3.Connection, run: RunRecord) -> list[SimPoint]:
    """Every simulated drive of a stored sim run, read back from the store."""
    settings = run.settings.get("points")
    stored = settings if isinstance(settings, list) else [run.settings]
    # a discarded step is a point cut short by a signal: kept as evidence, not analysed
    steps = {s.step_key: s for s in load_step_results(conn, run.run_id) if not s.discarded}
    findings = {f.name: f.body for f in load_findings(conn, run.run_id)}
    samples: dict[str, list[HealthSample]] = {}
    for sample in load_health_samples(conn, run_id=run.run_id):
        serial = sample.sample.identity.serial or ""
        samples.setdefault(serial.rsplit("-", 1)[-1], []).append(sample.sample)
    points = []
    for point in stored:
        key = str(point.get("key", "write"))
        step = steps.get(key)
        if step is None:
            continue  # not simulated (the run was stopped before this point)
        points.append(
            SimPoint(
                key=key,
                label=str(point.get("label", key)),
                step=step,
                samples=tuple(samples.get(key, ())),
                settings=point,
                reported=findings.get(f"{RESULT_FINDING}-{key}", {}),
            )
        )
    return points


def _nothing_finished(run: RunRecord) -> str:
    reason = run.status_reason or run.status.value
    if run.status.value == "interrupted":
        return (
            f"interrupted before the simulation finished ({reason}); intervals finished "
            "before the signal are kept in the store as a discarded step, not analysed"
        )
    return f"nothing was simulated ({reason})"


def sim_document(conn: sqlite3.Connection, run: RunRecord) -> Document:
    """The document of a stored sim run: one simulated drive, or a sweep."""
    points = _points(conn, run)
    if run.profile == SWEEP_PROFILE:
        parameter = str(run.settings.get("sweep_parameter") or "value")
        return build_sweep_document(run, parameter, [(p, analyse_point(p)) for p in points])
    if not points:
        return Document(
            title=f"ssdlab run {run.run_id}: simulated drive",
            headline=(("run", f"{run.run_id} ({run.status.value})"),),
            sections=(),
            verdict=(_nothing_finished(run),),
            data={"format": "ssdlab-sim-run", "format_version": 1, "run": {"id": run.run_id}},
        )
    return build_sim_document(run, points[0], analyse_point(points[0]))
