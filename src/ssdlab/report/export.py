"""Exporters: pure functions from a QuickReport to JSON, CSV, Markdown or CrystalDiskMark text."""

import csv
import dataclasses
import io
import json
import time
from typing import Any

from ssdlab import __version__
from ssdlab.model.plan import parse_test_shape
from ssdlab.model.run import RunKind
from ssdlab.model.units import format_block_label
from ssdlab.report.quick import (
    FORMAT_VERSION,
    QuickReport,
    environment_line,
    figure_caption,
    format_spread,
    grid_cells,
    known,
    settings_line,
)


def _iso(ts: float | None) -> str | None:
    return None if ts is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def report_document(report: QuickReport) -> dict[str, Any]:
    """The versioned JSON document (`format_version`), every number in SI base units."""
    run = report.run
    return {
        "format": "ssdlab-run",
        "format_version": FORMAT_VERSION,
        "ssdlab_version": __version__,
        "run": {
            "id": run.run_id,
            "kind": run.kind,
            "profile": run.profile,
            "profile_version": run.profile_version,
            "preset": run.preset,
            "status": run.status.value,
            "status_reason": run.status_reason,
            "started_at": _iso(run.started_at_s),
            "ended_at": _iso(run.ended_at_s),
            "host": run.host,
            "target": run.target,
            "settings": run.settings,
            "environment": run.environment,
        },
        "tests": [dataclasses.asdict(s) for s in report.summaries],
        "health": [
            {"phase": phase, "sample": dataclasses.asdict(sample)}
            for phase, sample in report.health
        ],
        "passes": [
            {
                "step_key": step.step_key,
                "step_label": step.step_label,
                "direction": step.direction,
                "pass_index": step.round_index,
                "warmup": step.discarded,
                "bw_bytes_per_s": step.bw_bytes_per_s,
                "iops": step.iops,
                "lat_mean_ns": step.lat_mean_ns,
                "read": dataclasses.asdict(step.read) if step.read else None,
                "write": dataclasses.asdict(step.write) if step.write else None,
                "series": [dataclasses.asdict(p) for p in step.series],
            }
            for step in report.steps
        ],
    }


def export_json(report: QuickReport) -> str:
    return json.dumps(report_document(report), indent=2, sort_keys=False) + "\n"


CSV_COLUMNS = (
    "run_id",
    "test",
    "label",
    "direction",
    "pass_index",
    "warmup",
    "mb_per_s",
    "bw_bytes_per_s",
    "iops",
    "lat_mean_us",
    "read_bw_bytes_per_s",
    "write_bw_bytes_per_s",
)


def export_csv(report: QuickReport) -> str:
    """One row per pass (warm-up passes included, flagged), for spreadsheets and pandas."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for step in report.steps:
        writer.writerow(
            [
                report.run.run_id,
                step.step_key,
                step.step_label,
                step.direction,
                step.round_index,
                int(step.discarded),
                f"{step.bw_bytes_per_s / 1e6:.3f}",
                f"{step.bw_bytes_per_s:.0f}",
                f"{step.iops:.1f}",
                "" if step.lat_mean_ns is None else f"{step.lat_mean_ns / 1000:.2f}",
                "" if step.read is None else f"{step.read.bw_bytes_per_s:.0f}",
                "" if step.write is None else f"{step.write.bw_bytes_per_s:.0f}",
            ]
        )
    return out.getvalue()


def export_markdown(report: QuickReport) -> str:
    run = report.run
    lines = [
        f"## ssdlab run {run.run_id}: {run.profile} ({run.status.value})",
        "",
        f"Target: `{run.target_path}` ({run.target_kind}). {settings_line(run)}.",
        f"Measured with {environment_line(run)}.",
        "",
    ]
    header, rows = grid_cells(report)
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "|".join([" --- "] + [" ---: "] * (len(header) - 1)) + "|")
    lines.extend("| " + " | ".join(cells) + " |" for cells in rows)
    lines += [
        "",
        f"{figure_caption(run)} (MB/s = 10^6 bytes/s). Spread over the passes:",
        "",
    ]
    lines += [f"- {s.label} {s.direction}: {format_spread(s)}" for s in report.summaries]
    if run.status_reason:
        lines += ["", f"Status: {run.status.value} — {run.status_reason}"]
    return "\n".join(lines) + "\n"


def _cdm_test_line(pattern: str, block_size_bytes: int, iodepth: int, numjobs: int) -> str:
    size = format_block_label(block_size_bytes) + "iB"
    return f"  {pattern} {size:>7} (Q={iodepth:>3}, T={numjobs:>2}):"


def _cdm_prefix(label: str) -> str:
    """The test column: CrystalDiskMark's own shape, or the job's name for a fio job of
    another shape (imported fio JSON)."""
    try:
        shape = parse_test_shape(label)
    except ValueError:
        return f"  {label}:"
    return _cdm_test_line(
        shape.pattern.value.upper(), shape.block_size_bytes, shape.iodepth, shape.numjobs
    )


def _cdm_size(size: object) -> str:
    if not isinstance(size, int) or isinstance(size, bool):
        return "n/a"
    return f"{size // 2**30} GiB" if size % 2**30 == 0 else f"{size // 2**20} MiB"


def _cdm_seconds(value: object) -> str:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return f"{value:g} sec" if number else "n/a"


def _cdm_os(env: dict[str, Any]) -> str:
    kernel = env.get("kernel")
    release = known(env.get("os_release"))
    return release if kernel is None else f"{release} [Linux {kernel}]"


def export_cdm(report: QuickReport) -> str:
    """CrystalDiskMark 8's "Save text" layout, so results can be pasted where people expect it.
    What an imported run did not record is "n/a"."""
    run = report.run
    env = run.environment
    settings = run.settings
    rule = "-" * 78
    fio = known(env.get("fio_version"))
    produced = (
        f"ssdlab {__version__} import of {known(settings.get('source_tool'))}"
        if run.kind is RunKind.IMPORT
        else f"ssdlab {__version__} quick ({fio})"
    )
    lines = [
        rule,
        f"{produced}, CrystalDiskMark 8 text layout",
        rule,
        "* MB/s = 1,000,000 bytes/s [SATA/600 = 600,000,000 bytes/s]",
        "* KB = 1000 bytes, KiB = 1024 bytes",
    ]
    titles = {"read": "[Read]", "write": "[Write]"}
    mix_pct = settings.get("mix_read_pct")
    titles["mix"] = (
        "[Mix]"  # an imported run without mixes says no share
        if not isinstance(mix_pct, int | float)
        else f"[Mix] Read {mix_pct:g}%/Write {100 - mix_pct:g}%"
    )
    for direction in report.directions:
        lines += ["", titles[direction]]
        for s in report.summaries:
            if s.direction != direction:
                continue
            lat = "n/a" if s.best_lat_mean_ns is None else f"{s.best_lat_mean_ns / 1000:.2f}"
            lines.append(
                f"{_cdm_prefix(s.label)} {s.best_bw_bytes_per_s / 1e6:9.3f} MB/s "
                f"[{s.best_iops:9.1f} IOPS] <{lat:>9} us>"
            )
    data = settings.get("data")
    mode = "n/a" if data is None else ("<0Fill>" if data in ("zero", "zeros") else "Random")
    count = settings.get("count")
    passes = f"x{count}" if isinstance(count, int) else "passes n/a"
    imported = run.kind is RunKind.IMPORT
    # an import keeps the date, drive and comment of the measurement, not of the import
    date = (
        known(settings.get("date"))
        if imported
        else f"{time.strftime('%Y/%m/%d %H:%M:%S', time.gmtime(run.started_at_s))} UTC"
    )
    comment = settings.get("comment") if imported else None
    where = settings.get("target_text") if imported else None
    lines += [
        "",
        f"Profile: {str(run.preset).capitalize() if run.preset else 'n/a'}",
        f"   Test: {_cdm_size(settings.get('size_bytes'))} ({passes}) "
        f"[{where if isinstance(where, str) and where else run.target_path}]",
        f"   Mode: {mode}",
        f"   Time: Measure {_cdm_seconds(settings.get('measure_s'))} / "
        f"Interval {_cdm_seconds(settings.get('interval_s'))}",
        f"   Date: {date}",
        f"     OS: {_cdm_os(env)}",
        f"Comment: {comment}"
        if isinstance(comment, str) and comment
        else f"Comment: ssdlab run {run.run_id} ({run.status.value})",
    ]
    return "\n".join(lines) + "\n"


EXPORTERS = {"json": export_json, "csv": export_csv, "md": export_markdown, "cdm": export_cdm}
