"""A report as data: headline facts, sections of tables and figures, and notes.

Profiles build a `Document` from stored results (pure); the terminal, Markdown, JSON and HTML
renderers only lay it out. Charts are data too (series, markers, axes, units): one renderer turns
a `Chart` into one chart definition that serves the interactive HTML and the static SVG/PNG, so
every output gets the same picture.
"""

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any


@dataclass(frozen=True, slots=True)
class Table:
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Series:
    label: str
    xs: tuple[float, ...]
    ys: tuple[float, ...]
    style: str = "line"  # line | points | steps | bars
    # per point (low, high), e.g. the slowest and fastest pass around a median; () = none
    errors: tuple[tuple[float, float], ...] = ()
    # per point a short text drawn beside it, e.g. "QD32"; () = none
    point_labels: tuple[str, ...] = ()
    axis: str = "y"  # y | y2: read against the chart's second value axis (on the right)


@dataclass(frozen=True, slots=True)
class Marker:
    """A line or band drawn over a chart: vline at x, hline at y, band from x to x2."""

    kind: str  # vline | hline | band
    label: str
    x: float | None = None
    y: float | None = None
    x2: float | None = None


@dataclass(frozen=True, slots=True)
class Heat:
    """A grid of values: rows × columns (e.g. threads × queue depth)."""

    row_label: str
    column_label: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    values: tuple[tuple[float | None, ...], ...]
    value_label: str
    value_unit: str = ""  # "IOPS", "MB/s": shown on the colour legend and in hover text


@dataclass(frozen=True, slots=True)
class Chart:
    key: str  # file name stem: cache-cliff, sweep-heatmap
    title: str
    x_label: str = ""
    y_label: str = ""
    series: tuple[Series, ...] = ()
    markers: tuple[Marker, ...] = ()
    heat: Heat | None = None
    x_log: bool = False
    y_log: bool = False
    x_ticks: tuple[tuple[float, str], ...] = ()  # (position, label) for categorical axes
    caption: str = ""
    # units of the axes ("s", "GB", "MB/s", "IOPS", "µs"): shown in the axis titles and hover
    # text; the labels above name the quantity only ("time", "throughput")
    x_unit: str = ""
    y_unit: str = ""
    y_zero: bool = False  # the y axis starts at zero (throughput, IOPS, counts)
    # a second value axis, on the right, for the series with axis "y2" (temperature beside
    # throughput): its quantity and unit, and whether it starts at zero
    y2_label: str = ""
    y2_unit: str = ""
    y2_zero: bool = False


LOG_AXIS_DECADES = 2.0


def spans_decades(values: Iterable[float | None], decades: float = LOG_AXIS_DECADES) -> bool:
    """Whether the positive values span more than `decades` powers of ten: the rule for a log
    axis (a chart of values from 20 to 350,000 IOPS needs one; 200 to 3,500 does not)."""
    positive = [v for v in values if v is not None and v > 0]
    return bool(positive) and max(positive) > min(positive) * 10**decades


MAX_SERIES = 10  # series one chart can show apart: more, and its colours repeat


def series_groups(series: Sequence[Series], most: int = MAX_SERIES) -> list[tuple[Series, ...]]:
    """`series` in charts of at most `most` each (none for no series), in order."""
    return [tuple(series[i : i + most]) for i in range(0, len(series), most)]


def bars_or_dots(series: Sequence[Series]) -> tuple[tuple[Series, ...], bool]:
    """(series, y_log) of a bar chart: bars on a linear axis from zero; dots on a log axis when
    the values span more than two decades (a bar on a log axis has no zero to stand on)."""
    y_log = spans_decades(y for s in series for y in s.ys)
    return tuple(replace(s, style="points") if y_log else s for s in series), y_log


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    facts: tuple[tuple[str, str], ...] = ()  # (label, value) rows
    tables: tuple[Table, ...] = ()
    charts: tuple[Chart, ...] = ()
    notes: tuple[str, ...] = ()


class Layout(StrEnum):
    """How the terminal lays a document out (Markdown and HTML lay out every document alike).

    REPORT: the title, the headline facts and the verdict, then each section: its facts, its
    tables, the names of its charts, its notes.

    RESULTS: a result grid first, as CrystalDiskMark shows a run. The first section's first
    table is the grid, under the document's title, its notes the caption; a cell's first line
    is the figure and its other lines the detail under it. The first section's other tables
    follow, then its notes as small print; then the sections with a title (facts and notes),
    the verdict (what went wrong), and last the notes of the sections without a title, as
    plain lines. Charts and the headline are not shown."""

    REPORT = "report"
    RESULTS = "results"


@dataclass(frozen=True, slots=True)
class Document:
    """One run's report. `data` is the machine-readable result (`--json`), written with its
    keys sorted unless `sort_data_keys` is off (a quick run's document keeps the order its
    format has always had)."""

    title: str
    headline: tuple[tuple[str, str], ...]
    sections: tuple[Section, ...]
    verdict: tuple[str, ...] = ()  # plain-language sentences, most important first
    data: Mapping[str, Any] = field(default_factory=dict)
    layout: Layout = Layout.REPORT
    sort_data_keys: bool = True
    # what the terminal says after a chart's name: which option of the command draws it
    charts_drawn_by: str = "--plots DIR writes it"

    @property
    def charts(self) -> tuple[Chart, ...]:
        return tuple(chart for section in self.sections for chart in section.charts)


def with_part(
    document: Document,
    sections: Sequence[Section],
    key: str,
    data: Any,
    headline: Sequence[tuple[str, str]] = (),
) -> Document:
    """`document` with a part every kind of run may have (its thermal section, its latency
    monitor's): the sections after its own, the data under `key`, headline rows after its."""
    return replace(
        document,
        headline=(*document.headline, *headline),
        sections=(*document.sections, *sections),
        data={**document.data, key: data},
    )


def markdown_table(table: Table) -> str:
    """A GitHub-flavoured Markdown table (pipes in cells escaped)."""

    def row(cells: tuple[str, ...]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"

    lines = [f"**{table.title}**", "", row(table.columns)]
    lines.append("| " + " | ".join("---" for _ in table.columns) + " |")
    lines.extend(row(r) for r in table.rows)
    lines.extend(f"\n_{note}_" for note in table.notes)
    return "\n".join(lines)


def render_markdown(document: Document, *, chart_links: Mapping[str, str] | None = None) -> str:
    """The document as Markdown; charts become image links when `chart_links` names files."""
    out = [f"# {document.title}", ""]
    out.extend(f"- **{label}:** {value}" for label, value in document.headline)
    if document.verdict:
        out += ["", *(f"> {sentence}" for sentence in document.verdict)]
    for section in document.sections:
        out += ["", *markdown_section(section, chart_links=chart_links)]
    return "\n".join(out).rstrip() + "\n"


def markdown_section(
    section: Section,
    *,
    level: int = 2,
    chart_links: Mapping[str, str] | None = None,
    chart_image: Callable[[Chart], str] | None = None,
) -> list[str]:
    """One section's Markdown lines, its title at heading `level`. A chart is an image: the
    file `chart_links` names for its key, else the URI `chart_image` gives (a `data:` URI, so
    the Markdown stays one file), else left out."""
    out = [f"{'#' * level} {section.title}", ""]
    out.extend(f"- {label}: {value}" for label, value in section.facts)
    for table in section.tables:
        out += ["", markdown_table(table)]
    for chart in section.charts:
        link = (chart_links or {}).get(chart.key) or (chart_image(chart) if chart_image else "")
        if link:
            out += ["", f"![{chart.title}]({link})"]
    out.extend(f"\n_{note}_" for note in section.notes)
    return out


def document_json(document: Document) -> str:
    """The machine-readable result (`--json`), its keys sorted unless the document says not."""
    return (
        json.dumps(document.data, indent=2, sort_keys=document.sort_data_keys, default=str) + "\n"
    )
