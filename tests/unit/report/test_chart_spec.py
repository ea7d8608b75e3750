"""Report charts as Vega-Lite definitions (report/chart_spec.py): valid against the Vega-Lite
schema Altair bundles, interactive (hover values with units, zoom, legend toggling), readable
(units in axis titles, one colour per series, legend below) and deterministic; the static SVG
and PNG drawn from the same definition by vl-convert."""

import functools
import json
import re
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest

from ssdlab.report.chart_spec import (
    STATIC_WIDTH_PX,
    TOOLTIP_FORMAT,
    chart_spec,
    colour_range,
    render_chart,
    render_svg,
    spec_json,
    static_spec,
)
from ssdlab.report.document import Chart, Heat, Marker, Series
from tests.unit.report.test_chart_rules import all_charts

CURVE = Chart(
    key="cliff",
    title="Write throughput against data written",
    x_label="written",
    x_unit="GB",
    y_label="throughput",
    y_unit="MB/s",
    y_zero=True,
    series=(
        Series("write", tuple(float(i) for i in range(100)),
               tuple(900.0 if i < 40 else 300.0 for i in range(100))),
        Series("median", (10.0, 50.0, 90.0), (880.0, 310.0, 305.0), style="points",
               errors=((850.0, 900.0), (290.0, 330.0), (300.0, 310.0)),
               point_labels=("QD1", "QD8", "QD32")),
    ),
    markers=(Marker("vline", "cliff", x=40.0), Marker("hline", "post-cache", y=305.0),
             Marker("band", "cache", x=0.0, x2=40.0)),
)  # fmt: skip
BARS = Chart(
    key="bars",
    title="Best pass per test",
    y_label="throughput",
    y_unit="MB/s",
    y_zero=True,
    series=(
        Series("read", (0.0, 1.0), (3500.0, 420.0), style="bars",
               errors=((3400.0, 3500.0), (400.0, 420.0))),
        Series("write", (0.0, 1.0), (3000.0, 380.0), style="bars"),
    ),
    x_ticks=((0.0, "SEQ1M Q8T1"), (1.0, "RND4K Q32T1")),
)  # fmt: skip
HEAT = Chart(
    key="heat",
    title="IOPS by threads and queue depth",
    heat=Heat("threads", "queue depth", ("T1", "T2"), ("Q1", "Q32"),
              ((12_000.0, 350_000.0), (24_000.0, None)), "random read", "IOPS"),
)  # fmt: skip


@functools.cache
def _validator() -> "jsonschema.protocols.Validator":
    """A validator for the Vega-Lite schema Altair bundles (the version vl-convert draws)."""
    import altair
    import jsonschema

    schema = altair.load_schema()
    return jsonschema.validators.validator_for(schema)(schema)


def _validate(spec: dict[str, Any]) -> None:
    _validator().validate(spec)


def _layers(spec: dict[str, Any]) -> list[dict[str, Any]]:
    layers: list[dict[str, Any]] = spec["layer"]
    return layers


def test_every_fixture_chart_is_a_valid_vega_lite_definition() -> None:
    charts = all_charts()
    assert len(charts) > 30
    for _, chart in charts:
        spec = chart_spec(chart)
        _validate(spec)
        assert spec_json(spec) == spec_json(chart_spec(chart))  # deterministic
        json.dumps(spec, allow_nan=False)  # plain JSON: no NaN, no objects


def test_hand_made_charts_are_valid() -> None:
    for chart in (CURVE, BARS, HEAT, Chart("empty", "nothing measured")):
        _validate(chart_spec(chart))
        _validate(static_spec(chart))


def test_responsive_with_legend_below_and_zoom_and_toggling() -> None:
    spec = chart_spec(CURVE)
    assert spec["width"] == "container"
    first = _layers(spec)[0]
    params = {p["name"]: p for p in first["params"]}
    assert params["zoom"] == {"name": "zoom", "bind": "scales",
                              "select": {"type": "interval", "encodings": ["x", "y"]}}  # fmt: skip
    assert params["legend"]["bind"] == "legend"
    assert params["legend"]["select"] == {"type": "point", "fields": ["series"]}
    colour = first["encoding"]["color"]
    assert colour["legend"]["orient"] == "bottom"
    assert "floor(width" in colour["legend"]["columns"]["expr"]  # more columns on wider pages
    assert colour["scale"]["domain"] == ["write", "median", "cliff", "post-cache", "cache"]
    assert first["encoding"]["opacity"]["condition"]["param"] == "legend"
    # categorical x: only y zooms
    bars = _layers(chart_spec(BARS))[0]
    assert bars["params"][1]["select"]["encodings"] == ["y"]


def test_hover_names_series_x_and_y_with_units() -> None:
    spec = chart_spec(CURVE)
    tooltips = [layer["encoding"].get("tooltip", []) for layer in _layers(spec)]
    titles = {t["title"] for tips in tooltips for t in tips}
    assert {"series", "written (GB)", "throughput (MB/s)"} <= titles
    numeric = [t for tips in tooltips for t in tips if t["type"] == "quantitative"]
    assert numeric
    assert all(t["format"] == TOOLTIP_FORMAT for t in numeric)
    assert TOOLTIP_FORMAT.startswith(",")  # thousands separators


def test_axes_titles_units_scales_and_categories() -> None:
    first = _layers(chart_spec(CURVE))[0]["encoding"]
    assert first["x"]["title"] == "written (GB)"
    assert first["y"]["title"] == "throughput (MB/s)"
    assert first["y"]["scale"] == {"zero": True}
    free = _layers(chart_spec(Chart("c", "t", y_unit="µs", series=CURVE.series)))[0]
    assert free["encoding"]["y"]["scale"] == {"zero": False}
    logs = chart_spec(Chart("c", "t", x_log=True, y_log=True, series=CURVE.series))
    assert _layers(logs)[0]["encoding"]["x"]["scale"] == {"type": "log", "padding": 8}
    assert _layers(logs)[0]["encoding"]["y"]["scale"] == {"type": "log"}
    bars = _layers(chart_spec(BARS))[0]
    assert bars["mark"]["type"] == "bar"
    assert bars["encoding"]["x"]["scale"]["domain"] == ["SEQ1M Q8T1", "RND4K Q32T1"]
    assert bars["encoding"]["xOffset"]["field"] == "series"  # grouped, side by side
    assert chart_spec(BARS)["config"]["axis"]["labelOverlap"]


def test_series_styles_errors_labels_and_markers_have_their_layers() -> None:
    marks = [(layer["mark"]["type"], layer["transform"][0]["filter"])
             for layer in _layers(chart_spec(CURVE))]  # fmt: skip
    kinds = [mark for mark, _ in marks]
    assert kinds.count("line") == 1
    assert "text" in kinds  # the point labels
    assert ("rule", "isValid(datum.lo) && isValid(datum.hi)") in marks  # the error bars
    assert ("rule", "datum.kind === 'vline'") in marks
    assert ("rule", "datum.kind === 'hline'") in marks
    assert ("rect", "datum.kind === 'band'") in marks
    # 100 points: no visible markers on the line, but invisible hover targets
    dense = [layer for layer in _layers(chart_spec(CURVE))
             if {"filter": "datum.dense"} in layer.get("transform", [])]  # fmt: skip
    assert dense[0]["encoding"]["opacity"]["condition"]["value"] == 0.0
    steps = chart_spec(Chart("s", "t", series=(Series("a", (0.0, 1.0), (1.0, 2.0), "steps"),)))
    assert _layers(steps)[0]["mark"]["interpolate"] == "step-after"


def test_a_colour_per_series_never_reused() -> None:
    for count in (1, 7, 20, 33):
        colours = colour_range(count)
        assert len(colours) == len(set(colours)) == count
    many = Chart("m", "t", series=tuple(Series(f"s{i}", (0.0, 1.0), (1.0, 2.0)) for i in range(25)))
    scale = _layers(chart_spec(many))[0]["encoding"]["color"]["scale"]
    assert len(set(scale["range"])) == len(scale["domain"]) == 25


def test_heat_map_writes_values_with_separators_and_titles_its_legend() -> None:
    rect, text = _layers(chart_spec(HEAT))
    colour = rect["encoding"]["color"]
    assert colour["title"] == "random read (IOPS)"
    assert colour["legend"]["format"] == ".3~s"  # 350k, never 350000
    assert text["encoding"]["text"]["format"] == ",.0f"  # 350,000 in the cell
    assert text["encoding"]["color"]["condition"]["value"] == "white"  # dark cells
    assert {"row": "T2", "column": "Q1", "value": 24_000.0} in chart_spec(HEAT)["data"]["values"]
    assert len(chart_spec(HEAT)["data"]["values"]) == 3  # the missing cell is left out


def test_static_images_come_from_the_same_definition_at_a_fixed_width() -> None:
    spec = static_spec(CURVE)
    assert spec["width"] == STATIC_WIDTH_PX
    assert {**spec, "width": "container"} == chart_spec(CURVE)
    svg = render_svg(CURVE)
    assert svg.startswith("<?xml")
    assert "<svg" in svg
    assert render_svg(CURVE) == svg  # no counters, dates or random ids
    assert "written (GB)" in svg  # text stays text
    assert re.search(r'width="7[0-9]{2}"', svg)
    png = render_chart(HEAT, "png")
    assert png.startswith(b"\x89PNG")
    assert render_chart(HEAT, "png") == png
    heat_svg = render_svg(HEAT)
    assert "350,000" in heat_svg
    assert "350000" not in heat_svg.replace('"', " ").split("aria-label")[0]


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="svg, png"):
        render_chart(CURVE, "gif")
