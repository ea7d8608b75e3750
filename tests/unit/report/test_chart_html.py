"""Charts in the HTML report: each figure holds its chart's Vega-Lite definition as JSON and the
static SVG of it for readers without scripts; the chart library is embedded once per page; the
print variant (for the PDF) has only the static SVGs and no script."""

import base64
import json
import re

from ssdlab.report.chart_spec import chart_spec
from ssdlab.report.document import Chart, Document, Section, Series
from ssdlab.report.html import ReportPart, render_html

TRICKY = Chart(
    key="tricky",
    title="A </script> in a title <!-- and a comment",
    x_label="time",
    x_unit="s",
    y_label="throughput",
    y_unit="MB/s",
    y_zero=True,
    series=(Series("</script><script>alert(1)</script>", (0.0, 1.0), (1.0, 2.0)),),
)
PLAIN = Chart("plain", "Plain", "written", "IOPS", series=(Series("a", (1.0, 2.0), (3.0, 4.0)),))


def _parts(*charts: Chart) -> list[ReportPart]:
    document = Document("run", (), (Section("charts", charts=charts),))
    return [ReportPart("run-1", document), ReportPart("run-2", document)]


def _specs(page: str) -> list[str]:
    return re.findall(r"<script type='application/json' class='chart-spec'>(.*?)</script>", page)


def test_each_figure_holds_its_definition_and_a_static_fallback() -> None:
    page = render_html("charts", _parts(TRICKY, PLAIN))
    specs = _specs(page)
    assert len(specs) == 4
    assert json.loads(specs[0]) == chart_spec(TRICKY)  # the text cannot end its <script>
    assert "</script><script>alert" not in page
    fallbacks = re.findall(r"<noscript><img src='data:image/svg\+xml;base64,([^']+)'", page)
    assert len(fallbacks) == 4
    assert b"throughput (MB/s)" in base64.b64decode(fallbacks[0])
    assert re.findall(r"<figure class='chart' id='([^']+)'>", page) == [
        "run-1-tricky", "run-1-plain", "run-2-tricky", "run-2-plain",
    ]  # fmt: skip
    assert page.count("<div class='vega' data-chart='plain'") == 2


def test_the_chart_library_is_embedded_once_and_only_with_charts() -> None:
    page = render_html("charts", _parts(PLAIN, TRICKY))
    assert page.count("window.vegaEmbed=") == 1
    assert page.count("vegaEmbed(target, spec, {renderer: 'svg', actions: false") == 1
    bare = render_html("no charts", [ReportPart("run-1", Document("run", (), ()))])
    assert "<script" not in bare


def test_the_print_variant_has_static_images_and_no_script() -> None:
    page = render_html("charts", _parts(TRICKY, PLAIN), interactive=False)
    assert "<script" not in page
    images = re.findall(r"<img src='data:image/svg\+xml;base64,[^']+' alt='([^']+)'", page)
    assert images == ["A &lt;/script&gt; in a title &lt;!-- and a comment", "Plain"] * 2
