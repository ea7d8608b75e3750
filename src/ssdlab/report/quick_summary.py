"""A run of passes (a quick run, an imported benchmark, a fleet load) as `show` and `ssdlab
quick` print it: the CrystalDiskMark grid of the best passes, the spread of the passes, the
settings and the drive, its health around the run, and the notes the numbers must be read
with. Its data is the run's JSON document (format `ssdlab-run`), as `--json` prints it."""

from collections.abc import Mapping
from typing import Any

from ssdlab.model.run import RunKind, RunStatus
from ssdlab.model.units import (
    format_cdm_iops,
    format_cdm_latency_us,
    format_cdm_mb_per_s,
    format_size,
)
from ssdlab.report import document as doc
from ssdlab.report.health import run_health_sections
from ssdlab.report.machine_note import run_machine_note
from ssdlab.report.quick import (
    QuickReport,
    environment_line,
    figure_caption,
    format_spread,
    report_footnotes,
    settings_line,
)
from ssdlab.report.quick_document import baseline_lines, quick_json_document

SPREAD_TITLE = "Spread of the passes (what best-of-N hides)"


def _caption(report: QuickReport) -> str:
    """What each figure of the grid is: ssdlab's best pass, or what the tool that measured an
    import or a fleet load reported (a health file's run has no grid to caption)."""
    run = report.run
    benchmark = run.kind is RunKind.IMPORT and run.profile in ("quick", "fio")
    if run.kind is RunKind.FLEET_LOAD or benchmark:
        return f"{figure_caption(run)}; MB/s = 10^6 B/s"
    return "best of the measured passes, as CrystalDiskMark shows it; MB/s = 10^6 B/s"


def _grid(report: QuickReport) -> doc.Table:
    """Per test and direction the best pass: MB/s, then IOPS and mean latency under it."""
    rows = []
    for row in report.rows:
        cells = [row.label]
        for summary in row.cells:
            cells.append(
                ""
                if summary is None
                else f"{format_cdm_mb_per_s(summary.best_bw_bytes_per_s)} MB/s\n"
                f"{format_cdm_iops(summary.best_iops)} IOPS · "
                f"{format_cdm_latency_us(summary.best_lat_mean_ns)} µs"
            )
        rows.append(tuple(cells))
    columns = ("Test", *(direction.capitalize() for direction in report.directions))
    return doc.Table("Best pass of each test", columns, tuple(rows), (_caption(report),))


def _spread(report: QuickReport) -> doc.Table:
    return doc.Table(
        SPREAD_TITLE,
        ("Test", "Dir", "mean ± sd MB/s (CV), min–max, passes"),
        tuple((s.label, s.direction, format_spread(s)) for s in report.summaries),
    )


def _device_line(target: Mapping[str, object]) -> str | None:
    device = target.get("device")
    if not isinstance(device, dict):
        return None
    capacity = device.get("capacity_bytes")
    size = f", {format_size(capacity)}" if isinstance(capacity, int) else ""
    model = device.get("model") or "model not reported"
    where = device.get("path") or "path n/a"  # an imported run names only the model
    return f"device: {model} ({where}{size})"


def build_quick_summary(
    report: QuickReport, baseline: Mapping[str, Any] | None = None
) -> doc.Document:
    """The run laid out as a result grid (`Layout.RESULTS`); `baseline`: the run's baseline
    finding (its reference role, or its judgement), if it was made with --baseline."""
    run = report.run
    device = _device_line(run.target)
    machine = run_machine_note(run)
    results = doc.Section(
        "Results",
        tables=(_grid(report), _spread(report)),
        notes=(
            settings_line(run),
            environment_line(run),
            *(() if device is None else (device,)),
            *(() if machine is None else (machine,)),
        ),
    )
    health = tuple(
        doc.Section(s.title, facts=s.rows, notes=s.notes)
        for s in run_health_sections(report.health)
    )
    lines = (*report_footnotes(report), *(() if baseline is None else baseline_lines(baseline)))
    status = (
        ()
        if run.status is RunStatus.COMPLETE
        else (f"status: {run.status.value} — {run.status_reason}",)
    )
    return doc.Document(
        title=f"ssdlab run {run.run_id} — {run.target_path}",
        headline=(),
        sections=(results, *health, *((doc.Section("", notes=lines),) if lines else ())),
        verdict=status,
        data=quick_json_document(report, baseline),
        layout=doc.Layout.RESULTS,
        sort_data_keys=False,
    )
