"""Report documents: Markdown rendering and deterministic charts."""

from ssdlab.report.chart_spec import render_chart, render_svg
from ssdlab.report.document import (
    Chart,
    Document,
    Heat,
    Marker,
    Section,
    Series,
    Table,
    document_json,
    render_markdown,
)

CHART = Chart(
    key="cliff",
    title="MB/s against GB written",
    x_label="GB written",
    y_label="MB/s",
    series=(Series("write", (0.0, 1.0, 2.0, 3.0), (900.0, 905.0, 310.0, 300.0)),),
    markers=(Marker("vline", "cliff", x=1.5), Marker("hline", "post-cache", y=305.0)),
)
HEAT = Chart(
    key="heat",
    title="IOPS",
    heat=Heat("threads", "QD", ("1", "2"), ("1", "4"), ((100.0, 380.0), (190.0, None)), "IOPS"),
)


def test_markdown_has_tables_verdict_and_chart_links() -> None:
    document = Document(
        title="ssdlab demo",
        headline=(("run", "7 (complete)"),),
        sections=(
            Section(
                "Results",
                facts=(("region", "1GiB"),),
                tables=(Table("Cells", ("cell", "IOPS"), (("T1|Q1", "100"),), ("a note",)),),
                charts=(CHART,),
            ),
        ),
        verdict=("cache of 1.5 GB",),
        data={"format_version": 1},
    )
    text = render_markdown(document, chart_links={"cliff": "cliff.svg"})
    assert text.startswith("# ssdlab demo\n")
    assert "- **run:** 7 (complete)" in text
    assert "> cache of 1.5 GB" in text
    assert "| T1\\|Q1 | 100 |" in text  # pipes in cells are escaped
    assert "![MB/s against GB written](cliff.svg)" in text
    assert '"format_version": 1' in document_json(document)


def test_charts_are_deterministic_svg_and_png() -> None:
    svg = render_svg(CHART)
    assert svg.startswith("<?xml")
    assert "<svg" in svg
    assert render_svg(CHART) == svg  # no dates, no random ids
    assert "MB/s against GB written" in svg  # text stays text (svg.fonttype none)
    png = render_chart(HEAT, "png")
    assert png.startswith(b"\x89PNG")
    assert render_chart(HEAT, "png") == png
