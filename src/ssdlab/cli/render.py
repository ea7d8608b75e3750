"""Terminal rendering of stored results (rich tables)."""

import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ssdlab.cli.terminal_tables import WHOLE_HEADERS, print_rule, print_table
from ssdlab.model.run import RunKind
from ssdlab.model.units import fmt_iops, fmt_mb, fmt_us, format_size
from ssdlab.report.chart_spec import render_chart
from ssdlab.report.document import Document, document_json
from ssdlab.report.health import Section, run_health_sections
from ssdlab.report.quick import (
    QuickReport,
    environment_line,
    figure_caption,
    fmt_spread,
    report_footnotes,
    settings_line,
)
from ssdlab.system.write_gate import make_output_folder, write_output

_DIRECTION_STYLE = {"read": "cyan", "write": "magenta", "mix": "yellow"}


def print_quick_report(console: Console, report: QuickReport) -> None:
    run = report.run
    title = f"ssdlab run {run.run_id} — {run.target_path}"
    table = Table(
        title=escape(title),
        min_width=len(title),  # the title names the target: never folded into a narrow table
        caption=f"{figure_caption(run)}; MB/s = 10^6 B/s"
        if run.kind is RunKind.FLEET_LOAD
        else "best of the measured passes, as CrystalDiskMark shows it; MB/s = 10^6 B/s",
    )
    table.add_column("Test", style="bold", no_wrap=True)
    for direction in report.directions:
        table.add_column(direction.capitalize(), justify="right", style=_DIRECTION_STYLE[direction])
    for row in report.rows:
        cells = [escape(row.label)]
        for summary in row.cells:
            if summary is None:
                cells.append("")
            else:
                cells.append(
                    f"[bold]{fmt_mb(summary.best_bw_bytes_per_s)} MB/s[/bold]\n"
                    f"[dim]{fmt_iops(summary.best_iops)} IOPS · "
                    f"{fmt_us(summary.best_lat_mean_ns)} µs[/dim]"
                )
        table.add_row(*cells)
    print_table(console, table)
    spread = Table(title="Spread of the passes (what best-of-N hides)", show_edge=False)
    spread.add_column("Test", no_wrap=True)
    spread.add_column("Dir")
    spread.add_column("mean ± sd MB/s (CV), min–max, passes")
    for s in report.summaries:
        spread.add_row(escape(s.label), s.direction, escape(fmt_spread(s)))
    print_table(console, spread)
    console.print(f"[dim]{escape(settings_line(run))}[/dim]")
    console.print(f"[dim]{escape(environment_line(run))}[/dim]")
    target = run.target
    device = target.get("device")
    if isinstance(device, dict):
        capacity = device.get("capacity_bytes")
        size = f", {format_size(capacity)}" if isinstance(capacity, int) else ""
        model = device.get("model") or "model not reported"
        where = device.get("path") or "path n/a"  # an imported run names only the model
        console.print(f"[dim]{escape(f'device: {model} ({where}{size})')}[/dim]")
    print_sections(console, run_health_sections(report.health))
    if run.status.value != "complete":
        console.print(f"[red]status: {run.status.value}[/red] — {escape(str(run.status_reason))}")
    for line in report_footnotes(report):
        console.print(line, highlight=False, markup=False)


def print_sections(console: Console, sections: Sequence[Section]) -> None:
    """Sections as text: a document's strings are data, never rich markup (a provenance such as
    `[nvme_smart_log.x]` would otherwise be taken for a style tag and vanish)."""
    for section in sections:
        table = Table(
            title=escape(section.title), show_header=False, title_justify="left", box=None
        )
        table.add_column(style="bold")
        table.add_column()
        for label, value in section.rows:
            table.add_row(escape(label), escape(value))
        print_table(console, table)
        for note in section.notes:
            console.print(f"  [yellow]•[/yellow] {escape(note)}", highlight=False)


def print_document(console: Console, document: Document) -> None:
    """A profile report on the terminal: headline, verdict, then every section's facts and
    tables (charts are written to files with --plots, or shown by the HTML report)."""
    print_rule(console, document.title)
    for label, value in document.headline:
        console.print(
            f"[dim]{escape(label)}:[/dim] {escape(value)}", highlight=False, soft_wrap=True
        )
    for sentence in document.verdict:
        console.print(f"[bold green]»[/bold green] {escape(sentence)}", highlight=False)
    for section in document.sections:
        console.print()
        console.print(f"[bold]{escape(section.title)}[/bold]", highlight=False)
        if section.facts:
            facts = Table(show_header=False, box=None, pad_edge=False)
            facts.add_column(style="dim")
            facts.add_column()
            for label, value in section.facts:
                facts.add_row(escape(label), escape(value))
            print_table(console, facts)
        for table in section.tables:
            grid = Table(title=escape(table.title), title_justify="left")
            for index, column in enumerate(table.columns):
                grid.add_column(
                    escape(column),
                    justify="left" if index == 0 else "right",
                    no_wrap=index == 0 or column.lower() in WHOLE_HEADERS,
                )
            for row in table.rows:
                grid.add_row(*(escape(cell) for cell in row))
            print_table(console, grid)
            for note in table.notes:
                console.print(f"  [dim]{escape(note)}[/dim]", highlight=False)
        for chart in section.charts:
            title = escape(f"{chart.title} ({chart.key}; --plots DIR writes it)")
            console.print(f"  [dim]chart: {title}[/dim]", highlight=False)
        for note in section.notes:
            console.print(f"  [yellow]•[/yellow] {escape(note)}", highlight=False)


def write_charts(document: Document, folder: str) -> list[Path]:
    """Every chart of the document as SVG and PNG files in `folder` (created if needed)."""
    directory = make_output_folder(folder, "--plots")
    return [
        write_output(str(directory / f"{chart.key}.{fmt}"), render_chart(chart, fmt), "--plots")
        for chart in document.charts
        for fmt in ("svg", "png")
    ]


def emit_document(out: Console, document: Document, *, plots: str | None, as_json: bool) -> bool:
    """The document as JSON on stdout or on the terminal, its charts written to `plots`.
    Returns whether it went to the terminal (where a line saying where it is stored follows)."""
    written = write_charts(document, plots) if plots else []
    if as_json:
        sys.stdout.write(document_json(document))
        return False
    print_document(out, document)
    if written:
        out.print(f"charts written to {plots} ({len(written)} files)", highlight=False)
    return True
