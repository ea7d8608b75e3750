"""Draw report charts (report/document.py) as SVG or PNG with matplotlib, deterministically:
the same chart gives the same bytes (fixed hash salt, no dates, no random ids)."""

import io
import math
from typing import TYPE_CHECKING

from ssdlab.report.document import Chart, Heat

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FORMATS = ("svg", "png")
_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")


def render_chart(chart: Chart, fmt: str = "svg") -> bytes:
    """The chart as an SVG document or a PNG image."""
    if fmt not in FORMATS:
        raise ValueError(f"chart format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(
        {
            "svg.hashsalt": "ssdlab",
            "svg.fonttype": "none",
            "font.size": 9,
            "axes.grid": True,
            "grid.alpha": 0.3,
        }
    ):
        fig = Figure(figsize=(7.0, 4.0), dpi=110)
        ax = fig.subplots()
        if chart.heat is not None:
            _draw_heat(fig, ax, chart.heat)
        else:
            _draw_xy(ax, chart)
        ax.set_title(chart.title)
        fig.tight_layout()
        buffer = io.BytesIO()
        metadata: dict[str, str | None] = {"Date": None} if fmt == "svg" else {"Software": None}
        fig.savefig(buffer, format=fmt, metadata=metadata)
    return buffer.getvalue()


def render_svg(chart: Chart) -> str:
    return render_chart(chart, "svg").decode("utf-8")


def _draw_xy(ax: "Axes", chart: Chart) -> None:
    _draw_series(ax, chart)
    _draw_markers(ax, chart)
    if chart.x_log:
        ax.set_xscale("log")
    if chart.y_log:
        ax.set_yscale("log")
    if chart.x_ticks:
        ax.set_xticks([p for p, _ in chart.x_ticks], [label for _, label in chart.x_ticks])
    ax.set_xlabel(chart.x_label)
    ax.set_ylabel(chart.y_label)
    if chart.series or chart.markers:
        ax.legend(loc="best", fontsize=7)


def _draw_series(ax: "Axes", chart: Chart) -> None:
    """Each series as points, steps, side-by-side bars or a line."""
    for index, series in enumerate(chart.series):
        colour = _COLOURS[index % len(_COLOURS)]
        if series.style == "points":
            ax.plot(series.xs, series.ys, "o", ms=3, color=colour, label=series.label)
        elif series.style == "steps":
            ax.step(series.xs, series.ys, where="post", color=colour, label=series.label)
        elif series.style == "bars":
            count = max(1, len(chart.series))
            width = 0.8 / count
            xs = [x - 0.4 + width * (index + 0.5) for x in series.xs]
            ax.bar(xs, series.ys, width=width, color=colour, label=series.label)
        else:
            ax.plot(series.xs, series.ys, "-", lw=1.2, color=colour, label=series.label)


def _draw_markers(ax: "Axes", chart: Chart) -> None:
    """Vertical and horizontal lines and shaded bands."""
    for marker in chart.markers:
        if marker.kind == "vline" and marker.x is not None:
            ax.axvline(marker.x, color="#444444", ls="--", lw=1, label=marker.label)
        elif marker.kind == "hline" and marker.y is not None:
            ax.axhline(marker.y, color="#888888", ls=":", lw=1, label=marker.label)
        elif marker.kind == "band" and marker.x is not None and marker.x2 is not None:
            ax.axvspan(marker.x, marker.x2, color="#bbbbbb", alpha=0.25, label=marker.label)


def _draw_heat(fig: "Figure", ax: "Axes", heat: Heat) -> None:
    grid = [[math.nan if v is None else v for v in row] for row in heat.values]
    image = ax.imshow(grid, cmap="viridis", aspect="auto", origin="lower")
    ax.set_xticks(range(len(heat.columns)), heat.columns)
    ax.set_yticks(range(len(heat.rows)), heat.rows)
    ax.set_xlabel(heat.column_label)
    ax.set_ylabel(heat.row_label)
    ax.grid(False)
    finite = [v for row in grid for v in row if not math.isnan(v)]
    middle = (min(finite) + max(finite)) / 2 if finite else 0.0
    for r, row in enumerate(grid):
        for c, value in enumerate(row):
            if not math.isnan(value):
                ax.text(
                    c,
                    r,
                    f"{value:,.0f}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if value < middle else "black",
                )
    fig.colorbar(image, ax=ax, label=heat.value_label)
