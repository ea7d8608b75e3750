"""The result card of a quick run or an imported CrystalDiskMark / KDiskMark result: the one
picture people post. Card data from the stored results (`build_card`), the card as a Vega-Lite
spec on a fixed canvas (`card_spec`: text and rect marks placed in pixels, a light and a dark
theme that differ only in colours), and the spec as SVG or PNG bytes (`render_card`).

MB/s is best-of-passes as CrystalDiskMark shows it; IOPS and the mean latency are the test's
best, as `ssdlab show` gives them; p99 is the 99th percentile of fio's completion latency in
the pass with the most MB/s (unknown for an imported result)."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ssdlab import __version__
from ssdlab.analysis.passes import TestSummary, p99_ns
from ssdlab.model.run import RunKind
from ssdlab.model.step import StepResult
from ssdlab.model.units import (
    GB,
    TB,
    format_cdm_iops,
    format_cdm_mb_per_s,
    format_latency,
    format_number,
    format_size,
    format_tb,
    format_time,
)
from ssdlab.report.quick import QuickReport, memory_reason

UNKNOWN = "—"  # what the card shows for a value that was never measured or recorded
CARD_FORMAT_VERSION = 1
VEGA_LITE_SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json"
FONT = "Liberation Sans, Arial, Helvetica, sans-serif"


@dataclass(frozen=True, slots=True)
class CardCell:
    """One test in one direction, with the exact numbers the card shows."""

    direction: str
    bw_bytes_per_s: float
    iops: float | None
    lat_mean_ns: float | None
    lat_p99_ns: float | None


@dataclass(frozen=True, slots=True)
class CardRow:
    label: str  # SEQ1M Q8T1
    cells: tuple[CardCell | None, ...]  # one per CardData.directions; None: not run that way


@dataclass(frozen=True, slots=True)
class CardData:
    run_id: int
    uuid: str
    source: str  # 'ssdlab quick' or the tool an import came from
    model: str | None
    device_path: str | None  # the device the run's target is on ('/dev/nvme0n1')
    firmware: str | None
    capacity_bytes: int | None
    preset: str | None
    test_size_bytes: int | None
    passes: int | None
    date: str | None  # when it was measured, as shown
    directions: tuple[str, ...]
    rows: tuple[CardRow, ...]
    measures_memory: bool
    status: str = "complete"
    ssdlab_version: str = __version__


def _text(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _cell(summary: TestSummary, steps: Sequence[StepResult]) -> CardCell:
    measured = [s for s in steps if s.step_key == summary.key and not s.discarded]
    fastest = max(measured, key=lambda s: s.bw_bytes_per_s, default=None)
    return CardCell(
        direction=summary.direction,
        bw_bytes_per_s=summary.best_bw_bytes_per_s,
        iops=summary.best_iops,
        lat_mean_ns=summary.best_lat_mean_ns,
        lat_p99_ns=None if fastest is None else p99_ns(fastest),
    )


def _measured_on(report: QuickReport) -> str | None:
    """The date of the measurement: an import's own date line, else when the run started
    (UTC)."""
    run = report.run
    if run.kind is RunKind.IMPORT:
        stamp = _text(run.settings.get("date"))
        return None if stamp is None else stamp.replace("/", "-")[:16]
    return format_time(run.started_at_s, "minute")


def build_card(report: QuickReport) -> CardData:
    """The card of a quick or imported run, from its stored results."""
    run = report.run
    device = run.target.get("device")
    device = device if isinstance(device, dict) else {}
    rows = tuple(
        CardRow(
            row.label,
            tuple(None if s is None else _cell(s, report.steps) for s in row.cells),
        )
        for row in report.rows
    )
    source = (
        _text(run.settings.get("source_tool")) or "an imported result"
        if run.kind is RunKind.IMPORT
        else f"ssdlab {run.profile}"
    )
    return CardData(
        run_id=run.run_id,
        uuid=run.uuid,
        source=source,
        model=_text(device.get("model")),
        device_path=_text(device.get("path")),
        firmware=_text(device.get("firmware")),
        capacity_bytes=_int(device.get("capacity_bytes")),
        preset=_text(run.preset),
        test_size_bytes=_int(run.settings.get("size_bytes")),
        passes=_int(run.settings.get("count")),
        date=_measured_on(report),
        directions=report.directions,
        rows=rows,
        measures_memory=memory_reason(run.target) is not None,
        status=run.status.value,
    )


# --- the numbers as the card shows them ------------------------------------------------------


def capacity_text(size_bytes: int | None) -> str:
    """'275 GB', '2.00 TB', '120.0 GB' (GB = 10^9 bytes); '—' when unknown."""
    if size_bytes is None:
        return UNKNOWN
    if size_bytes >= TB:
        return format_tb(size_bytes, digits=2)
    return format_number(size_bytes / GB, "GB", 0 if size_bytes >= 100 * GB else 1)


def latency_text(ns: float | None) -> str:
    """'425.9 µs', '21.77 ms', '1.250 s' (`format_latency`); '—' when unknown."""
    return UNKNOWN if ns is None else format_latency(ns)


def mbps_text(cell: CardCell | None) -> str:
    return UNKNOWN if cell is None else format_cdm_mb_per_s(cell.bw_bytes_per_s)


def iops_text(cell: CardCell | None) -> str:
    return (
        f"{format_cdm_iops(cell.iops)} IOPS"
        if cell is not None and cell.iops is not None
        else UNKNOWN
    )


def latency_line(cell: CardCell | None) -> str:
    if cell is None:
        return UNKNOWN
    return f"mean {latency_text(cell.lat_mean_ns)} · p99 {latency_text(cell.lat_p99_ns)}"


def _size_text(data: CardData) -> str:
    size = UNKNOWN if data.test_size_bytes is None else format_size(data.test_size_bytes)
    passes = UNKNOWN if data.passes is None else str(data.passes)
    unit = "pass" if data.passes == 1 else "passes"
    return f"test {size} × {passes} {unit}"


def header_lines(data: CardData) -> tuple[str, str, str]:
    """The drive, then what it is and how it was run, then the test size and date."""
    preset = f"preset {data.preset or UNKNOWN}"
    unknown = f"model {UNKNOWN}" + (f" ({data.device_path})" if data.device_path else "")
    return (
        data.model or unknown,
        f"firmware {data.firmware or UNKNOWN} · capacity {capacity_text(data.capacity_bytes)} · "
        f"measured {data.date or UNKNOWN}",
        f"{data.source} · {preset} · {_size_text(data)}",
    )


def footer_text(data: CardData) -> str:
    return f"ssdlab {data.ssdlab_version} · run {data.run_id}"


def footer_note(data: CardData) -> tuple[str, bool]:
    """(the note at the bottom right, whether it is a warning): what the numbers must be read
    with, else what MB/s means."""
    if data.measures_memory:
        return "measures memory, not a drive", True
    if data.status != "complete":
        return f"run {data.status}: not every test ran", True
    return "MB/s = 10^6 bytes/s", False


def card_json(data: CardData) -> dict[str, Any]:
    """The card's data: the exact numbers and the text the card shows for each."""
    tests = []
    for row in data.rows:
        for cell in row.cells:
            if cell is None:
                continue
            tests.append(
                {
                    "label": row.label,
                    "direction": cell.direction,
                    "bw_bytes_per_s": cell.bw_bytes_per_s,
                    "iops": cell.iops,
                    "lat_mean_ns": cell.lat_mean_ns,
                    "lat_p99_ns": cell.lat_p99_ns,
                    "shown": {
                        "mb_per_s": mbps_text(cell),
                        "iops": iops_text(cell),
                        "latency": latency_line(cell),
                    },
                }
            )
    return {
        "format": "ssdlab-card",
        "format_version": CARD_FORMAT_VERSION,
        "ssdlab_version": data.ssdlab_version,
        "run": {
            "id": data.run_id,
            "uuid": data.uuid,
            "source": data.source,
            "status": data.status,
        },
        "drive": {
            "model": data.model,
            "device_path": data.device_path,
            "firmware": data.firmware,
            "capacity_bytes": data.capacity_bytes,
            "capacity": capacity_text(data.capacity_bytes),
        },
        "preset": data.preset,
        "test_size_bytes": data.test_size_bytes,
        "passes": data.passes,
        "date": data.date,
        "measures_memory": data.measures_memory,
        "directions": list(data.directions),
        "tests": tests,
    }


# --- the card as a Vega-Lite spec ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Palette:
    background: str
    text: str
    muted: str
    cell: str
    cell_edge: str
    label_box: str
    label_text: str
    heading: str
    warning: str


THEMES: dict[str, Palette] = {
    "light": Palette(
        background="#eef1f4",
        text="#15191e",
        muted="#56606b",
        cell="#ffffff",
        cell_edge="#c9d1d9",
        label_box="#2b7a4b",
        label_text="#ffffff",
        heading="#2b7a4b",
        warning="#b3261e",
    ),
    "dark": Palette(
        background="#15181c",
        text="#eef1f4",
        muted="#9ba6b1",
        cell="#22272e",
        cell_edge="#363d46",
        label_box="#2f8f57",
        label_text="#f5fff8",
        heading="#5cc98a",
        warning="#ff8a80",
    ),
}

PAD = 12  # canvas edge to content
LABEL_W = 92  # the test's box on the left
CELL_W = 176
GAP = 6
HEADER_H = 84  # model, two lines of facts, the column headings
ROW_H = 54
ROW_GAP = 4
FOOTER_H = 28


def card_size(data: CardData) -> tuple[int, int]:
    """(width, height) in CSS pixels: 480×340 for read and write in four tests."""
    columns = max(1, len(data.directions))
    rows = max(1, len(data.rows))
    width = PAD + LABEL_W + columns * (GAP + CELL_W) + PAD
    height = HEADER_H + rows * ROW_H + (rows - 1) * ROW_GAP + FOOTER_H
    return width, height


def _pixels(channel: str) -> dict[str, Any]:
    return {"field": channel, "type": "quantitative", "scale": None}


def _text_layer(
    items: Sequence[tuple[float, float, str]],
    *,
    size: float,
    fill: str,
    align: str = "left",
    bold: bool = False,
    limit: float = 0,
) -> dict[str, Any]:
    """Texts at (x, y) pixel positions, y the baseline; longer than `limit` px: cut with …"""
    mark: dict[str, Any] = {
        "type": "text",
        "font": FONT,
        "fontSize": size,
        "fontWeight": "bold" if bold else "normal",
        "align": align,
        "baseline": "alphabetic",
        "fill": fill,
        "aria": False,
    }
    if limit:
        mark["limit"] = limit
    return {
        "data": {"values": [{"x": x, "y": y, "text": text} for x, y, text in items]},
        "mark": mark,
        "encoding": {"x": _pixels("x"), "y": _pixels("y"), "text": {"field": "text"}},
    }


def _rect_layer(
    boxes: Sequence[tuple[float, float, float, float]], *, fill: str, stroke: str | None = None
) -> dict[str, Any]:
    mark: dict[str, Any] = {"type": "rect", "fill": fill, "cornerRadius": 5, "aria": False}
    if stroke is not None:
        mark["stroke"] = stroke
        mark["strokeWidth"] = 1
    return {
        "data": {"values": [{"x": x, "x2": x2, "y": y, "y2": y2} for x, y, x2, y2 in boxes]},
        "mark": mark,
        "encoding": {
            "x": _pixels("x"),
            "x2": {"field": "x2"},
            "y": _pixels("y"),
            "y2": {"field": "y2"},
        },
    }


def _column_x(index: int) -> float:
    return PAD + LABEL_W + GAP + index * (GAP + CELL_W)


def _grid_layers(data: CardData, palette: Palette) -> list[dict[str, Any]]:
    """The CrystalDiskMark grid: per test its box, then per direction MB/s big, IOPS and
    latency small."""
    label_boxes, cells, names, shapes = [], [], [], []
    big, iops, latency = [], [], []
    for r, row in enumerate(data.rows):
        top = HEADER_H + r * (ROW_H + ROW_GAP)
        label_boxes.append((PAD, top, PAD + LABEL_W, top + ROW_H))
        name, _, shape = row.label.partition(" ")
        names.append((PAD + LABEL_W / 2, top + 24, name))
        shapes.append((PAD + LABEL_W / 2, top + 42, shape or UNKNOWN))
        for c, cell in enumerate(row.cells):
            left = _column_x(c)
            right = left + CELL_W - 10
            cells.append((left, top, left + CELL_W, top + ROW_H))
            # baselines far enough apart that no two texts' boxes (ascent to descent) meet
            big.append((right, top + 24, mbps_text(cell)))
            iops.append((right, top + 38.5, iops_text(cell)))
            latency.append((right, top + 50, latency_line(cell)))
    inner = CELL_W - 16
    return [
        _rect_layer(label_boxes, fill=palette.label_box),
        _rect_layer(cells, fill=palette.cell, stroke=palette.cell_edge),
        _text_layer(
            names, size=15, fill=palette.label_text, align="center", bold=True, limit=LABEL_W - 8
        ),
        _text_layer(shapes, size=12, fill=palette.label_text, align="center", limit=LABEL_W - 8),
        _text_layer(big, size=22, fill=palette.text, align="right", bold=True, limit=inner),
        _text_layer(iops, size=10, fill=palette.muted, align="right", limit=inner),
        _text_layer(latency, size=10, fill=palette.muted, align="right", limit=inner),
    ]


def card_spec(data: CardData, theme: str = "light") -> dict[str, Any]:
    """The card as a Vega-Lite spec: a fixed canvas, every mark placed in pixels."""
    palette = THEMES[theme]
    width, height = card_size(data)
    model, facts, run_line = header_lines(data)
    text_w = width - 2 * PAD
    headings = [
        (_column_x(c) + CELL_W / 2, HEADER_H - 6, f"{d.capitalize()} [MB/s]")
        for c, d in enumerate(data.directions)
    ]
    footer_y = height - 10
    note, warning = footer_note(data)
    layers = [
        _text_layer([(PAD, 24, model)], size=18, fill=palette.text, bold=True, limit=text_w),
        _text_layer([(PAD, 43, facts)], size=11.5, fill=palette.muted, limit=text_w),
        _text_layer([(PAD, 59, run_line)], size=11, fill=palette.muted, limit=text_w),
        _text_layer(headings, size=12, fill=palette.heading, align="center", bold=True),
        *_grid_layers(data, palette),
        _text_layer(
            [(PAD, footer_y, footer_text(data))], size=10, fill=palette.muted, limit=text_w / 2
        ),
        _text_layer(
            [(width - PAD, footer_y, note)],
            size=10,
            fill=palette.warning if warning else palette.muted,
            align="right",
            limit=text_w / 2 - 8,
        ),
    ]
    return {
        "$schema": VEGA_LITE_SCHEMA,
        "description": f"ssdlab result card of run {data.run_id}",
        "width": width,
        "height": height,
        "padding": 0,
        "autosize": {"type": "none"},
        "background": palette.background,
        "config": {"view": {"stroke": None}, "font": FONT},
        "layer": layers,
    }


def render_card(spec: dict[str, Any], fmt: str) -> bytes:
    """The spec as SVG text (UTF-8) or a PNG at twice the pixel density; computed in-process
    by vl-convert, nothing written."""
    import vl_convert

    if fmt == "png":
        png: bytes = vl_convert.vegalite_to_png(spec, scale=2)
        return png
    svg: str = vl_convert.vegalite_to_svg(spec)
    return svg.encode("utf-8")
