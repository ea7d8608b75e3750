"""Terminal rendering of stored results (rich tables). rich is imported by the functions that
print: a command that writes its document as JSON never loads it."""

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ssdlab.report.chart_spec import render_chart
from ssdlab.report.document import Document, Layout, document_json
from ssdlab.report.document import Table as DocTable
from ssdlab.report.health import Section
from ssdlab.system.write_gate import make_output_folder, write_output

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

_DIRECTION_STYLE = {"read": "cyan", "write": "magenta", "mix": "yellow"}


def print_sections(console: "Console", sections: Sequence[Section]) -> None:
    """Sections as text: a document's strings are data, never rich markup (a provenance such as
    `[nvme_smart_log.x]` would otherwise be taken for a style tag and vanish)."""
    for section in sections:
        _print_facts(console, section.title, section.rows, section.notes)


def _print_facts(
    console: "Console",
    title: str,
    rows: Sequence[tuple[str, str]],
    notes: Sequence[str],
) -> None:
    from rich.markup import escape
    from rich.table import Table

    from ssdlab.cli.terminal_tables import print_table

    table = Table(title=escape(title), show_header=False, title_justify="left", box=None)
    table.add_column(style="bold")
    table.add_column()
    for label, value in rows:
        table.add_row(escape(label), escape(value))
    print_table(console, table)
    for note in notes:
        console.print(f"  [yellow]•[/yellow] {escape(note)}", highlight=False)


def _grid(title: str, table: DocTable) -> "Table":
    """The result grid: the figure of each cell bold, the lines under it dim, one colour per
    direction (Read, Write, Mix)."""
    from rich.markup import escape
    from rich.table import Table

    caption = "; ".join(table.notes)
    grid = Table(
        title=escape(title),
        min_width=len(title),  # the title names the target: never folded into a narrow table
        caption=escape(caption) if caption else None,
    )
    for index, column in enumerate(table.columns):
        if index == 0:
            grid.add_column(escape(column), style="bold", no_wrap=True)
        else:
            style = _DIRECTION_STYLE.get(column.lower())
            grid.add_column(escape(column), justify="right", style=style)
    for row in table.rows:
        cells = [escape(row[0])]
        for cell in row[1:]:
            figure, _, detail = cell.partition("\n")
            cells.append(
                f"[bold]{escape(figure)}[/bold]\n[dim]{escape(detail)}[/dim]"
                if detail
                else escape(cell)
            )
        grid.add_row(*cells)
    return grid


def _print_results(console: "Console", document: Document) -> None:
    """A document laid out as a result grid (`Layout.RESULTS`)."""
    from rich.markup import escape
    from rich.table import Table

    from ssdlab.cli.terminal_tables import print_table

    first, *rest = document.sections
    grid, *tables = first.tables
    print_table(console, _grid(document.title, grid))
    for table in tables:
        plain = Table(title=escape(table.title), show_edge=False)
        for index, column in enumerate(table.columns):
            plain.add_column(escape(column), no_wrap=index == 0)
        for row in table.rows:
            plain.add_row(*(escape(cell) for cell in row))
        print_table(console, plain)
    for note in first.notes:
        console.print(f"[dim]{escape(note)}[/dim]")
    for section in rest:
        if section.title:
            _print_facts(console, section.title, section.facts, section.notes)
    for sentence in document.verdict:
        console.print(f"[red]{escape(sentence)}[/red]")
    for section in rest:
        if not section.title:
            for note in section.notes:
                console.print(note, highlight=False, markup=False)


def print_document(console: "Console", document: Document) -> None:
    """A document on the terminal, as its layout says: a report (headline, verdict, then every
    section's facts and tables; charts are written to files with --plots, or shown by the HTML
    report), or a result grid."""
    if document.layout is Layout.RESULTS:
        _print_results(console, document)
    else:
        _print_report(console, document)


def _print_report(console: "Console", document: Document) -> None:
    from rich.markup import escape
    from rich.table import Table

    from ssdlab.cli.terminal_tables import WHOLE_HEADERS, print_rule, print_table

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
            title = escape(f"{chart.title} ({chart.key}; {document.charts_drawn_by})")
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


def emit_document(out: "Console", document: Document, *, plots: str | None, as_json: bool) -> bool:
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
