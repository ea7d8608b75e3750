"""Simulated drives (`ssdlab sim`, stored as runs of kind `sim`): one simulated drive, laid
out as its cliff, write amplification and wear (its throughput stored as a `cache` step, so it
is compared with cache runs), or a sweep of drives over one parameter (`sim sweep`)."""

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ssdlab.model.finding_names import SIM_RESULT
from ssdlab.model.health import HealthSample
from ssdlab.model.run import SIM_SWEEP_PROFILE, RunKind, RunRecord, RunStatus
from ssdlab.model.spec import SpecSheet
from ssdlab.model.stored_run import StoredRun
from ssdlab.registry.kind import KindParts, KindRecord
from ssdlab.report.document import Document

if TYPE_CHECKING:  # the analyses load when a run is read, not with the command line
    from ssdlab.analysis.simulated_drive import SimPoint


def sim_points(stored: StoredRun) -> "list[SimPoint]":
    """Every simulated drive of a stored sim run, in the order it was planned; a drive the run
    was stopped before is left out, and so is a point cut short by a signal (its discarded
    step is kept as evidence, not analysed)."""
    from ssdlab.analysis.simulated_drive import SimPoint

    run = stored.run
    settings = run.settings.get("points")
    planned = settings if isinstance(settings, list) else [run.settings]
    steps = {s.step_key: s for s in stored.steps if not s.discarded}
    samples: dict[str, list[HealthSample]] = {}
    for _phase, sample in stored.health:
        serial = sample.identity.serial or ""
        samples.setdefault(serial.rsplit("-", 1)[-1], []).append(sample)
    points = []
    for point in planned:
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
                reported=dict(stored.findings.get(f"{SIM_RESULT}-{key}", {})),
            )
        )
    return points


def _nothing_finished(run: RunRecord) -> str:
    reason = run.status_reason or run.status.value
    if run.status is RunStatus.INTERRUPTED:
        return (
            f"interrupted before the simulation finished ({reason}); intervals finished "
            "before the signal are kept in the store as a discarded step, not analysed"
        )
    return f"nothing was simulated ({reason})"


def sim_document(stored: StoredRun, _specs: Sequence[SpecSheet] = ()) -> Document:
    """One simulated drive's document; a run that simulated none says why."""
    from ssdlab.analysis.simulated_drive import analyse_point
    from ssdlab.report.sim import build_sim_document

    run = stored.run
    points = sim_points(stored)
    if not points:
        return Document(
            title=f"ssdlab run {run.run_id}: simulated drive",
            headline=(("run", f"{run.run_id} ({run.status.value})"),),
            sections=(),
            verdict=(_nothing_finished(run),),
            data={"format": "ssdlab-sim-run", "format_version": 1, "run": {"id": run.run_id}},
        )
    return build_sim_document(run, points[0], analyse_point(points[0]))


def sweep_document(stored: StoredRun, _specs: Sequence[SpecSheet] = ()) -> Document:
    """A sweep's document: every simulated drive against the swept parameter."""
    from ssdlab.analysis.simulated_drive import analyse_point
    from ssdlab.report.sim import build_sweep_document

    run = stored.run
    parameter = str(run.settings.get("sweep_parameter") or "value")
    points = sim_points(stored)
    return build_sweep_document(run, parameter, [(p, analyse_point(p)) for p in points])


RECORDS = (
    KindRecord("sim", RunKind.SIM, lambda: KindParts(sim_document), main_table="series"),
    KindRecord(
        "sim sweep", RunKind.SIM, lambda: KindParts(sweep_document), profiles=(SIM_SWEEP_PROFILE,)
    ),
)
