"""Render report documents as one self-contained HTML file, or as Markdown for issues and wikis.

The HTML fetches nothing: the stylesheet is inline, and so is one script, Vega, Vega-Lite and
vega-embed bundled by vl-convert, which draws every chart from its Vega-Lite definition (kept
beside it as JSON) as an SVG: values with units on hover, zoom and pan, series toggled from the
legend, as wide as the screen. Without scripts (and in the printed PDF) each chart is the static
SVG of the same definition, an image in a `data:` URI. It reads on a phone (fluid layout, tables
scroll sideways) and prints (no backgrounds, sections kept together, the job files shown open).
Pure: the same documents give the same bytes.
"""

import base64
import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from ssdlab.report.chart_spec import chart_spec, javascript_bundle, render_svg, spec_json
from ssdlab.report.document import Chart, Document, Section, Table, markdown_section


@dataclass(frozen=True, slots=True)
class ReportPart:
    """One run in a report: its document, the fio job files it ran and where it came from."""

    anchor: str  # run-12
    document: Document
    job_files: tuple[tuple[str, str], ...] = ()  # (name, job text)
    provenance: tuple[tuple[str, str], ...] = ()  # (label, value)


_STYLE = """
:root { --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --accent: #0b5cad; --soft: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
  margin: 0 auto; max-width: 1100px; padding: 0 16px 48px; }
header.report { border-bottom: 3px solid var(--accent); margin-bottom: 16px; }
h1 { font-size: 1.6em; margin: 16px 0 4px; } h2 { font-size: 1.3em; margin-top: 32px; }
h3 { font-size: 1.05em; margin: 20px 0 6px; }
.muted, figcaption, .note { color: var(--muted); font-size: 0.9em; }
nav ul { padding-left: 18px; margin: 4px 0 12px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(230px, 1fr)); gap: 8px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px;
  background: var(--soft); break-inside: avoid; }
.card .label { color: var(--muted); font-size: 0.85em; display: block; }
.card .value { font-weight: 600; overflow-wrap: anywhere; }
.verdict { border-left: 4px solid var(--accent); padding: 4px 12px; margin: 12px 0; }
.scroll { overflow-x: auto; margin: 8px 0; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 0.92em; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
th { background: var(--soft); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 8px 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
figure { margin: 12px 0; break-inside: avoid; }
figure img { width: 100%; max-width: 760px; height: auto; border: 1px solid var(--line); }
figure .vega { width: 100%; max-width: 1000px; min-height: 200px; }
figure .vega svg { max-width: 100%; }
details { margin: 6px 0; } summary { cursor: pointer; color: var(--accent); }
pre { background: var(--soft); padding: 8px; overflow-x: auto; font-size: 0.85em; }
section.run { border-top: 1px solid var(--line); margin-top: 28px; }
@media (max-width: 600px) { body { font-size: 14px; padding: 0 8px 32px; }
  dl.facts { grid-template-columns: 1fr; } dl.facts dd { margin-bottom: 6px; } }
@media print { body { max-width: none; font-size: 11pt; } nav { display: none; }
  .card, th { background: none; } a { color: inherit; text-decoration: none; }
  section.run { break-before: page; } section.run:first-of-type { break-before: auto; }
  details > *:not(summary) { display: block; } }
"""


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def chart_data_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def _table(table: Table) -> str:
    head = "".join(f"<th scope='col'>{_e(c)}</th>" for c in table.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{_e(cell)}</td>" for cell in row) + "</tr>" for row in table.rows
    )
    notes = "".join(f"<p class='note'>{_e(n)}</p>" for n in table.notes)
    return (
        f"<div class='scroll'><table><caption>{_e(table.title)}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{notes}"
    )


def _facts(rows: Sequence[tuple[str, str]]) -> str:
    if not rows:
        return ""
    items = "".join(f"<dt>{_e(label)}</dt><dd>{_e(value)}</dd>" for label, value in rows)
    return f"<dl class='facts'>{items}</dl>"


# Draws every chart of the page from its definition, after the bundle set `vegaEmbed`
_EMBED = """
(function () {
  var views = [];
  // lay a chart out again at its new width: labels turned for a narrow chart are taller, and
  // the chart grows to hold them and its legend
  function relayout(view) { return view.resize().runAsync(); }
  document.querySelectorAll('figure.chart').forEach(function (figure) {
    var spec = JSON.parse(figure.querySelector('script.chart-spec').textContent);
    var target = figure.querySelector('div.vega');
    vegaEmbed(target, spec, {renderer: 'svg', actions: false, mode: 'vega-lite'})
      .then(function (result) { views.push(result.view); return relayout(result.view); })
      .then(function () { target.dataset.drawn = 'yes'; })
      .catch(function (error) { console.error('chart ' + target.dataset.chart + ': ' + error); });
  });
  var pending = null;
  window.addEventListener('resize', function () {
    clearTimeout(pending);
    pending = setTimeout(function () { views.forEach(relayout); }, 150);
  });
})();
"""


@cache
def _scripts(bundle: Callable[[], str]) -> str:
    """The chart library (`bundle()`'s text) and the call that draws the page's charts, once
    per page."""
    return f"<script>{bundle()}</script><script>{_EMBED}</script>"


def _script_json(text: str) -> str:
    """JSON that cannot end the `<script>` element holding it."""
    return text.replace("</", "<\\/").replace("<!--", "<\\u0021--")


Figure = Callable[[Chart, str], str]  # a chart and its id's prefix → its <figure>


def interactive_figure(draw: Callable[[Chart], str]) -> Figure:
    """A figure drawn by the page's script from the chart's definition, with the static SVG
    of the same definition (`draw`) shown when scripts do not run."""

    def figure(chart: Chart, prefix: str) -> str:
        key = _e(chart.key)
        return (
            f"<figure class='chart' id='{_e(prefix + chart.key)}'>"
            f"<div class='vega' data-chart='{key}' role='img' aria-label='{_e(chart.title)}'>"
            "</div><script type='application/json' class='chart-spec'>"
            f"{_script_json(spec_json(chart_spec(chart)))}</script>"
            f"<noscript><img src='{chart_data_uri(draw(chart))}' alt='{_e(chart.title)}' "
            f"data-static-chart='{key}'></noscript>{_caption(chart)}</figure>"
        )

    return figure


def static_figure(draw: Callable[[Chart], str]) -> Figure:
    """A figure that is the static SVG of the chart's definition (for print: no script)."""

    def figure(chart: Chart, prefix: str) -> str:
        return (
            f"<figure class='chart' id='{_e(prefix + chart.key)}'>"
            f"<img src='{chart_data_uri(draw(chart))}' alt='{_e(chart.title)}' "
            f"data-static-chart='{_e(chart.key)}'>{_caption(chart)}</figure>"
        )

    return figure


def _caption(chart: Chart) -> str:
    text = chart.title + (f" — {chart.caption}" if chart.caption else "")
    return f"<figcaption>{_e(text)}</figcaption>"


def _section(section: Section, figure: Figure, prefix: str = "") -> str:
    parts = [f"<h3>{_e(section.title)}</h3>", _facts(section.facts)]
    parts.extend(_table(t) for t in section.tables)
    parts.extend(figure(c, prefix) for c in section.charts)
    parts.extend(f"<p class='note'>{_e(n)}</p>" for n in section.notes)
    return "<section>" + "".join(parts) + "</section>"


def _cards(rows: Sequence[tuple[str, str]]) -> str:
    cards = "".join(
        f"<div class='card'><span class='label'>{_e(label)}</span>"
        f"<span class='value'>{_e(value)}</span></div>"
        for label, value in rows
    )
    return f"<div class='cards'>{cards}</div>"


def _part(part: ReportPart, figure: Figure) -> str:
    document = part.document
    out = [f"<section class='run' id='{_e(part.anchor)}'><h2>{_e(document.title)}</h2>"]
    out.append(_cards(document.headline))
    if document.verdict:
        sentences = "".join(f"<p>{_e(s)}</p>" for s in document.verdict)
        out.append(f"<div class='verdict'>{sentences}</div>")
    out.extend(_section(s, figure, f"{part.anchor}-") for s in document.sections)
    if part.job_files:
        out.append("<h3>fio job files</h3>")
        out.extend(
            f"<details><summary>{_e(name)}</summary><pre>{_e(text)}</pre></details>"
            for name, text in part.job_files
        )
    if part.provenance:
        out.append("<h3>Provenance</h3>" + _facts(part.provenance))
    out.append("</section>")
    return "".join(out)


def render_html(
    title: str,
    parts: Sequence[ReportPart],
    *,
    front: Sequence[Section] = (),
    provenance: Sequence[tuple[str, str]] = (),
    draw: Callable[[Chart], str] = render_svg,
    interactive: bool = True,
    bundle: Callable[[], str] = javascript_bundle,
) -> str:
    """The report: title, contents, `front` sections (e.g. a comparison), then each run.
    Interactive, its charts are drawn by the page's script (the chart library's text is
    `bundle()`'s); else (for print) each chart is the static SVG `draw` makes of the same
    definition, and the page has no script."""
    figure = interactive_figure(draw) if interactive else static_figure(draw)
    toc = "".join(f"<li><a href='#{_e(p.anchor)}'>{_e(p.document.title)}</a></li>" for p in parts)
    body = [
        f"<header class='report'><h1>{_e(title)}</h1>",
        _facts(provenance),
        "</header>",
        f"<nav><ul>{toc}</ul></nav>" if len(parts) > 1 else "",
    ]
    body.extend(_section(s, figure) for s in front)
    body.extend(_part(p, figure) for p in parts)
    has_charts = any(s.charts for s in front) or any(p.document.charts for p in parts)
    scripts = _scripts(bundle) if has_charts and interactive else ""
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head>"
        f"<body>{''.join(body)}{scripts}</body></html>\n"
    )


def markdown_chart_image(chart: Chart, draw: Callable[[Chart], str] = render_svg) -> str:
    """A chart as a Markdown image target: its SVG in a `data:` URI (inline `<svg>` is dropped
    by most Markdown viewers; an image is shown by those that allow `data:` images)."""
    return chart_data_uri(draw(chart))


def render_markdown_report(
    title: str,
    parts: Sequence[ReportPart],
    *,
    front: Sequence[Section] = (),
    provenance: Sequence[tuple[str, str]] = (),
    draw: Callable[[Chart], str] = render_svg,
) -> str:
    """The same report as one Markdown file: charts are SVG images embedded as `data:` URIs,
    job files are collapsible blocks."""

    def image(chart: Chart) -> str:
        return markdown_chart_image(chart, draw)

    out = [f"# {title}", ""]
    out.extend(f"- **{label}:** {value}" for label, value in provenance)
    for section in front:
        out += ["", *markdown_section(section, chart_image=image)]
    for part in parts:
        document = part.document
        out += ["", f"## {document.title}", ""]
        out.extend(f"- **{label}:** {value}" for label, value in document.headline)
        if document.verdict:
            out += ["", *(f"> {sentence}" for sentence in document.verdict)]
        for section in document.sections:
            out += ["", *markdown_section(section, level=3, chart_image=image)]
        if part.job_files:
            out += ["", "### fio job files"]
        for name, job in part.job_files:
            fence = "````" if "```" in job else "```"
            out += [
                "",
                f"<details><summary>{html.escape(name)}</summary>",
                "",
                f"{fence}ini",
                job.rstrip(),
                fence,
                "",
                "</details>",
            ]
        if part.provenance:
            out += ["", "### Provenance", ""]
            out.extend(f"- {label}: {value}" for label, value in part.provenance)
    return "\n".join(out).rstrip() + "\n"
