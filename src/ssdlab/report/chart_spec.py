"""Turn a report `Chart` (report/document.py) into one Vega-Lite chart definition, and draw that
definition as a static SVG or PNG with vl-convert.

One definition serves every output: the HTML report embeds it with vega-embed (hover values
with units, zoom and pan, series toggled by clicking the legend, as wide as the page), the
Markdown report, `--plots DIR` and the PDF show the same definition drawn at a fixed width.
The definition is a plain JSON-able dict (tests validate it against the Vega-Lite schema that
Altair bundles). Deterministic: the same chart gives the same definition and the same bytes.
"""

import json
import math
import re
import textwrap
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from ssdlab.report.document import Chart, Heat, Series

FORMATS = ("svg", "png")
STATIC_WIDTH_PX = 720
PLOT_HEIGHT_PX = 260
DENSE_POINTS = 60  # a line with more points than this is drawn without point markers
# a title is broken into lines of this many characters on a narrow chart (a 390 px phone),
# of the second on a wide one
TITLE_WRAP_CHARS = (46, 90)
NARROW_PX = 520  # a chart narrower than this is on a phone
LEGEND_LABEL_LIMIT_PX = 250
LEGEND_COLUMN_PX = 280  # one legend column's width: symbol, label and gap
CHAR_PX = 7  # about one character of an 11 px axis label
# Tableau 20, reordered so the first ten are the strong colours, then their light partners:
# distinct colours for up to 20 series and markers, more are spread around the colour wheel
PALETTE = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
    "#a0cbe8", "#ffbe7d", "#ff9d9a", "#86bcb6", "#8cd17d",
    "#f1ce63", "#d4a6c8", "#fabfd2", "#d7b5a6", "#79706e",
)  # fmt: skip
MARKER_COLOURS = ("#333333", "#7f7f7f", "#5c3c92", "#1b6b5a", "#8b1e3f", "#0b5cad")
TOOLTIP_FORMAT = ",.6~r"  # thousands separators, six significant digits, no trailing zeros
_CLIP_ID = re.compile(r"(?<=id=\")clip\d+(?=\")|(?<=url\(#)clip\d+(?=\))")
# a mark shown when its series is picked in the legend, or when none is
_SELECTED = {"param": "legend", "empty": True}
_XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>\n'
BUNDLE_GLOBALS = "window.vegaEmbed = vegaEmbed;"
SCHEMA_URL = "https://vega.github.io/schema/vega-lite/v6.json"


def chart_spec(chart: Chart) -> dict[str, Any]:
    """The chart as a Vega-Lite definition for a page: as wide as its container, interactive."""
    body = _heat_spec(chart.heat) if chart.heat is not None else _xy_spec(chart)
    return {
        "$schema": SCHEMA_URL,
        "title": _title(chart),
        "width": "container",
        "height": PLOT_HEIGHT_PX,
        "autosize": {"type": "fit-x", "contains": "padding", "resize": True},
        "config": _CONFIG,
        **body,
    }


def static_spec(chart: Chart, width_px: int = STATIC_WIDTH_PX) -> dict[str, Any]:
    """The same definition at a fixed width, for images (SVG, PNG, PDF)."""
    spec = chart_spec(chart)
    spec["width"] = width_px
    return spec


def spec_json(spec: dict[str, Any]) -> str:
    """A definition as compact JSON with sorted keys (the same chart, the same text)."""
    return json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def render_chart(chart: Chart, fmt: str = "svg") -> bytes:
    """The chart as an SVG document or a PNG image, drawn from its definition at a fixed width."""
    if fmt not in FORMATS:
        raise ValueError(f"chart format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    import vl_convert

    spec = static_spec(chart)
    if fmt == "svg":
        svg = _numbered_ids(str(vl_convert.vegalite_to_svg(spec)))
        return (_XML_DECLARATION + svg).encode("utf-8")
    return bytes(vl_convert.vegalite_to_png(spec, scale=2))


def _numbered_ids(svg: str) -> str:
    """The SVG with its clip-path ids numbered from 1 (vl-convert counts them per process, so
    the same chart would otherwise give different bytes)."""
    names: dict[str, str] = {}

    def renamed(match: re.Match[str]) -> str:
        return names.setdefault(match.group(0), f"clip{len(names) + 1}")

    return _CLIP_ID.sub(renamed, svg)


def render_svg(chart: Chart) -> str:
    return render_chart(chart, "svg").decode("utf-8")


def javascript_bundle() -> str:
    """Vega, Vega-Lite and vega-embed as one offline script that sets `window.vegaEmbed`."""
    import vl_convert

    return str(vl_convert.javascript_bundle(BUNDLE_GLOBALS))


def bundle_version() -> str:
    """The installed vl-convert's version, which decides the bundle's text (with
    BUNDLE_GLOBALS)."""
    from importlib.metadata import version

    return version("vl-convert-python")


_CONFIG: dict[str, Any] = {
    "font": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
    "title": {"fontSize": 13, "anchor": "start", "offset": 8},
    "axis": {"labelFontSize": 11, "titleFontSize": 11, "labelOverlap": "greedy",
             "labelLimit": 140, "titlePadding": 6},
    "legend": {"labelFontSize": 11, "titleFontSize": 11, "labelLimit": LEGEND_LABEL_LIMIT_PX,
               "symbolSize": 80, "rowPadding": 4, "columnPadding": 12},
    "view": {"stroke": "#d0d7de"},
}  # fmt: skip


def _title(chart: Chart) -> dict[str, Any]:
    """The title, broken into lines that fit the chart's width (an expression of it)."""
    narrow, wide = (textwrap.wrap(chart.title, n) or [chart.key] for n in TITLE_WRAP_CHARS)
    if narrow == wide:
        return {"text": wide if len(wide) > 1 else wide[0]}
    return {"text": {"expr": f"width < {NARROW_PX} ? {json.dumps(narrow)} : {json.dumps(wide)}"}}


def axis_title(label: str, unit: str) -> str:
    """ "throughput (MB/s)"; the unit alone when there is no label; the label alone without."""
    if label and unit:
        return f"{label} ({unit})"
    return label or unit


def colour_range(count: int) -> list[str]:
    """`count` distinct colours: the palette, then hues spread around the wheel."""
    colours = list(PALETTE[:count])
    extra = count - len(colours)
    colours += [f"hsl({round(i * 360 / extra)}, 55%, 42%)" for i in range(max(0, extra))]
    return colours


def _number_format(values: Iterable[float]) -> str:
    """An axis label format: thousands separators, SI prefixes from a million up."""
    finite = [abs(v) for v in values if math.isfinite(v)]
    return "~s" if finite and max(finite) >= 1e6 else ",~f"


def _tick_labels(chart: Chart) -> dict[float, str]:
    return {position: label for position, label in chart.x_ticks}


def _categorical(chart: Chart) -> bool:
    """A chart whose x axis names things (tests, block sizes) rather than measures them."""
    return bool(chart.x_ticks) or any(s.style == "bars" for s in chart.series)


def _category(x: float, ticks: dict[float, str]) -> str:
    return ticks.get(x) or f"{x:g}"


def _legend_domain(chart: Chart) -> list[str]:
    """Series then markers, each label once, in the chart's order."""
    labels = [s.label for s in chart.series] + [m.label for m in chart.markers]
    return list(dict.fromkeys(labels))


def _plottable(value: float | None, log: bool) -> bool:
    """Finite, and above zero on a log axis (where zero and below have no place)."""
    return value is not None and math.isfinite(value) and (value > 0 or not log)


def _rows(chart: Chart) -> list[dict[str, Any]]:
    """One row per plotted point, then one per marker: the chart's data in one table. Values a
    log axis cannot show (zero, negative) and non-finite ones are left out."""
    ticks = _tick_labels(chart)
    x_log = chart.x_log and not _categorical(chart)
    rows: list[dict[str, Any]] = []
    for series in chart.series:
        dense = len(series.xs) > DENSE_POINTS
        for index, (x, y) in enumerate(zip(series.xs, series.ys, strict=False)):
            if not (_plottable(x, x_log) and _plottable(y, chart.y_log)):
                continue
            row: dict[str, Any] = {"kind": _style(series), "series": series.label, "x": x, "y": y,
                                   "xcat": _category(x, ticks), "dense": dense}  # fmt: skip
            if index < len(series.errors) and all(
                _plottable(end, chart.y_log) for end in series.errors[index]
            ):
                row["lo"], row["hi"] = series.errors[index]
            if index < len(series.point_labels) and series.point_labels[index]:
                row["text"] = series.point_labels[index]
            rows.append(row)
    for marker in chart.markers:
        row = {"kind": marker.kind, "series": marker.label}
        if _plottable(marker.x, x_log) and marker.x is not None:
            row["x"], row["xcat"] = marker.x, _category(marker.x, ticks)
        if _plottable(marker.y, chart.y_log):
            row["y"] = marker.y
        if _plottable(marker.x2, x_log):
            row["x2"] = marker.x2
        if {"vline": "x", "hline": "y", "band": "x2"}.get(marker.kind, "kind") in row:
            rows.append(row)
    return rows


def _style(series: Series) -> str:
    """The series' drawing style; anything unknown is drawn as a line."""
    return series.style if series.style in ("points", "steps", "bars") else "line"


def _kind(*kinds: str) -> dict[str, str]:
    return {"filter": " || ".join(f"datum.kind === '{k}'" for k in kinds)}


def _x_encoding(chart: Chart) -> dict[str, Any]:
    """Categories (tests, block sizes) in their order, or a measured quantity."""
    title = axis_title(chart.x_label, chart.x_unit)
    xs = [x for s in chart.series for x in s.xs]
    if not _categorical(chart):
        return {
            "field": "x",
            "type": "quantitative",
            "title": title,
            # a few pixels beyond the first and last point, so no marker is cut in half
            "scale": {"type": "log", "padding": 8}
            if chart.x_log
            else {"zero": False, "nice": False, "padding": 8},
            # end labels within 30 px of an end are aligned inside the chart, never cut off
            "axis": {"format": _number_format(xs), "labelFlush": 30},
        }
    ticks = _tick_labels(chart)
    order = sorted({*xs, *ticks}, key=float)
    categories = list(dict.fromkeys(_category(x, ticks) for x in order))
    # the labels' angle by the room each category has at the chart's width: level when the
    # longest fits, slanted when a slanted one fits, else upright (never hidden for lack of room)
    longest_px = max((len(c) for c in categories), default=1) * CHAR_PX
    slot = f"width / {max(1, len(categories))}"
    level, slanted = (
        f"{slot} >= {longest_px + 2 * CHAR_PX}",
        f"{slot} >= {round(0.8 * longest_px) + 12}",
    )
    return {
        "field": "xcat",
        "type": "ordinal",
        "title": title,
        "scale": {"domain": categories},
        "axis": {
            "labelAngle": {"expr": f"{level} ? 0 : {slanted} ? -40 : -90"},
            "labelAlign": {"expr": f"{level} ? 'center' : 'right'"},
            "labelBaseline": {"expr": f"{level} || {slanted} ? 'top' : 'middle'"},
            "labelLimit": 110,
        },
    }


def _y_encoding(chart: Chart) -> dict[str, Any]:
    ys = [y for s in chart.series for y in s.ys] + [m.y for m in chart.markers if m.y is not None]
    return {
        "field": "y",
        "type": "quantitative",
        "title": axis_title(chart.y_label, chart.y_unit),
        "scale": {"type": "log"} if chart.y_log else {"zero": chart.y_zero},
        "axis": {"format": _number_format(ys)},
    }


def _colour(domain: Sequence[str]) -> dict[str, Any]:
    """A colour per series and marker, named in a legend below the plot, in as many columns
    as the chart's width holds."""
    return {
        "field": "series",
        "type": "nominal",
        "title": None,
        "scale": {"domain": list(domain), "range": colour_range(len(domain))},
        "legend": {
            "orient": "bottom",
            "direction": "vertical",
            "columns": {"expr": f"max(1, min({len(domain)}, floor(width / {LEGEND_COLUMN_PX})))"},
        },
    }


def _axis_tip(enc: dict[str, Any], channel: str) -> dict[str, Any]:
    """Hover text for an axis: its title (with the unit), a number with separators."""
    tip = {"field": enc["field"], "type": enc["type"], "title": enc["title"] or channel}
    if enc["type"] == "quantitative":
        tip["format"] = TOOLTIP_FORMAT
    return tip


def _tooltips(
    x_enc: dict[str, Any], y_enc: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Hover text: series, x and y with their units; then with the error bar's ends too."""
    tooltip = [{"field": "series", "type": "nominal", "title": "series"}, _axis_tip(x_enc, "x"),
               _axis_tip(y_enc, "y")]  # fmt: skip
    with_errors = [
        *tooltip,
        {"field": "lo", "type": "quantitative", "title": "low", "format": TOOLTIP_FORMAT},
        {"field": "hi", "type": "quantitative", "title": "high", "format": TOOLTIP_FORMAT},
    ]
    return tooltip, with_errors


def _xy_spec(chart: Chart) -> dict[str, Any]:
    if any(s.axis == "y2" for s in chart.series):
        return _two_axes_spec(chart)
    categorical = _categorical(chart)
    domain = _legend_domain(chart)
    x_enc, y_enc, colour = _x_encoding(chart), _y_encoding(chart), _colour(domain)
    layers = _plot_layers(chart, x_enc, y_enc, colour)
    if not layers:  # a chart with nothing to draw still gets its axes
        layers.append({"mark": {"type": "point", "opacity": 0},
                       "encoding": {"x": x_enc, "y": y_enc}})  # fmt: skip
    params: list[dict[str, Any]] = []
    if domain:
        params.append(
            {"name": "legend", "select": {"type": "point", "fields": ["series"]}, "bind": "legend"}
        )
    zoom = ["y"] if categorical else ["x", "y"]
    params.append(
        {"name": "zoom", "select": {"type": "interval", "encodings": zoom}, "bind": "scales"}
    )
    layers[0] = {"params": params, **layers[0]}
    if not domain:  # no legend: nothing refers to the legend selection
        for layer in layers:
            layer["encoding"].pop("opacity", None)
    return {"data": {"values": _rows(chart)}, "layer": layers}


def _two_axes_spec(chart: Chart) -> dict[str, Any]:
    """A chart with a second value axis (temperature beside throughput): the series of each
    axis layered over the same x, each read against its own y scale (the second's axis on the
    right); one legend, one colour per series; zoom and pan along x."""
    left = replace(chart, series=tuple(s for s in chart.series if s.axis != "y2"))
    right = replace(
        chart,
        series=tuple(s for s in chart.series if s.axis == "y2"),
        markers=(),
        y_label=chart.y2_label,
        y_unit=chart.y2_unit,
        y_zero=chart.y2_zero,
        y_log=False,
    )
    x_enc, colour = _x_encoding(chart), _colour(_legend_domain(chart))
    right_y = _y_encoding(right)
    right_y["axis"] = {**right_y["axis"], "orient": "right"}
    sides = []
    for side, y_enc, test in (
        (left, _y_encoding(left), "datum.axis !== 'y2'"),
        (right, right_y, "datum.axis === 'y2'"),
    ):
        layers = _plot_layers(side, x_enc, y_enc, colour)
        for layer in layers:
            layer["transform"] = [{"filter": test}, *layer.get("transform", [])]
        if not layers:
            layers.append({"mark": {"type": "point", "opacity": 0},
                           "encoding": {"x": x_enc, "y": y_enc}})  # fmt: skip
        sides.append({"layer": layers})
    params = [
        {"name": "legend", "select": {"type": "point", "fields": ["series"]}, "bind": "legend"},
        {"name": "zoom", "select": {"type": "interval", "encodings": ["x"]}, "bind": "scales"},
    ]
    sides[0]["layer"][0] = {"params": params, **sides[0]["layer"][0]}
    rows = _rows(left) + [{**row, "axis": "y2"} for row in _rows(right)]
    return {
        "data": {"values": rows},
        "layer": sides,
        "resolve": {"scale": {"y": "independent"}},
    }


def _plot_layers(
    chart: Chart, x_enc: dict[str, Any], y_enc: dict[str, Any], colour: dict[str, Any]
) -> list[dict[str, Any]]:
    """The layers that draw a chart's series and markers against `x_enc` and `y_enc`."""
    categorical = _categorical(chart)
    tooltip, errors_tooltip = _tooltips(x_enc, y_enc)
    if not any(s.errors for s in chart.series):  # no whisker: no low and high to hover
        errors_tooltip = tooltip
    bar_labels = [s.label for s in chart.series if s.style == "bars"]
    offset = (
        {"xOffset": {"field": "series", "type": "nominal", "scale": {"domain": bar_labels}}}
        if len(bar_labels) > 1
        else {}
    )
    # dots of several series over the same category stand side by side, as bars do: none hides
    # another (nor its whisker)
    dot_labels = [s.label for s in chart.series if _style(s) == "points"]
    dot_offset = (
        {"xOffset": {"field": "series", "type": "nominal", "scale": {"domain": dot_labels}}}
        if categorical and len(dot_labels) > 1
        else {}
    )
    if dot_offset:
        x_enc = {**x_enc, "scale": {**x_enc["scale"], "type": "band"}}

    def encoding(
        *, opacity: float = 1.0, faded: float = 0.15, tip: Sequence[dict[str, Any]] = tooltip
    ) -> dict[str, Any]:
        return {
            "x": x_enc,
            "y": y_enc,
            "color": colour,
            "opacity": {"condition": {**_SELECTED, "value": opacity}, "value": faded},
            "tooltip": list(tip),
        }

    layers = _series_layers(chart, encoding, errors_tooltip, offset, dot_offset)
    layers.extend(_marker_layers(chart, x_enc, y_enc, colour))
    return layers


def _series_layers(
    chart: Chart,
    encoding: Callable[..., dict[str, Any]],
    errors_tooltip: list[dict[str, Any]],
    offset: dict[str, Any],
    dot_offset: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Bars, lines, steps and points, then error bars and point labels, in drawing order;
    `offset` sets bars of several series side by side, `dot_offset` dots."""
    dot_offset = dot_offset or {}
    has = {_style(s) for s in chart.series}
    layers: list[dict[str, Any]] = []
    if "bars" in has:
        layers.append({"transform": [_kind("bars")], "mark": {"type": "bar"},
                       "encoding": {**encoding(tip=errors_tooltip), **offset}})  # fmt: skip
    for style, interpolate in (("line", "linear"), ("steps", "step-after")):
        if style in has:
            layers.append(
                {
                    "transform": [_kind(style)],
                    "mark": {"type": "line", "interpolate": interpolate, "strokeWidth": 1.6},
                    "encoding": encoding(),
                }
            )
    lines = [style for style in ("line", "steps") if style in has]
    line_series = [s for s in chart.series if _style(s) in lines and s.xs]
    for dense, size, opacity in ((False, 28, 1.0), (True, 60, 0.0)):
        # point markers on sparse lines; invisible hover targets on dense ones
        if any((len(s.xs) > DENSE_POINTS) == dense for s in line_series):
            layers.append(
                {
                    "transform": [_kind(*lines), {"filter": f"{'' if dense else '!'}datum.dense"}],
                    "mark": {"type": "point", "filled": True, "size": size},
                    "encoding": encoding(opacity=opacity, faded=opacity * 0.15, tip=errors_tooltip),
                }
            )
    if "points" in has:
        layers.append({"transform": [_kind("points")],
                       "mark": {"type": "point", "filled": True, "size": 36},
                       "encoding": {**encoding(tip=errors_tooltip), **dot_offset}})  # fmt: skip
    if any(s.errors for s in chart.series):
        error_enc = encoding(tip=errors_tooltip)
        error_enc.pop("color")
        error_enc["y"] = {**error_enc["y"], "field": "lo"}
        error_enc["y2"] = {"field": "hi"}
        if any(s.errors for s in chart.series if s.style == "bars"):
            error_enc.update(offset)
        elif any(s.errors for s in chart.series if _style(s) == "points"):
            error_enc.update(dot_offset)
        layers.append(
            {
                "transform": [{"filter": "isValid(datum.lo) && isValid(datum.hi)"}],
                "mark": {"type": "rule", "strokeWidth": 1.5, "color": "#1b1f24"},
                "encoding": error_enc,
            }
        )
    if any(s.point_labels for s in chart.series):
        text_enc = encoding()
        text_enc.pop("tooltip")
        text_enc["text"] = {"field": "text", "type": "nominal"}
        layers.append(
            {
                "transform": [{"filter": "isValid(datum.text)"}],
                "mark": {"type": "text", "align": "left", "baseline": "bottom", "dx": 4,
                         "dy": -4, "fontSize": 10},
                "encoding": text_enc,
            }
        )  # fmt: skip
    return layers


def _marker_layers(
    chart: Chart, x_enc: dict[str, Any], y_enc: dict[str, Any], colour: dict[str, Any]
) -> list[dict[str, Any]]:
    """Vertical and horizontal rules and shaded bands, named in the legend with the series
    (and shown or faded with them)."""
    kinds = {m.kind for m in chart.markers}
    name = {"field": "series", "type": "nominal", "title": "marker"}
    layers = [
        (kind, {"type": "rule", "strokeDash": dash, "strokeWidth": 1.5},
         {channel: enc, "tooltip": [name, _axis_tip(enc, channel)]}, 0.9, 0.1)
        for kind, channel, enc, dash in (("vline", "x", x_enc, [5, 3]),
                                         ("hline", "y", y_enc, [2, 3]))
        if kind in kinds
    ]  # fmt: skip
    if "band" in kinds and x_enc["type"] == "quantitative":
        encoding = {"x": x_enc, "x2": {"field": "x2"}, "tooltip": [name]}
        layers.append(("band", {"type": "rect"}, encoding, 0.18, 0.04))
    return [
        {
            "transform": [_kind(kind)],
            "mark": mark,
            "encoding": {
                **encoding,
                "color": colour,
                "opacity": {"condition": {**_SELECTED, "value": shown}, "value": faded},
            },
        }
        for kind, mark, encoding, shown, faded in layers
    ]


def _heat_spec(heat: Heat) -> dict[str, Any]:
    values = [v for row in heat.values for v in row if v is not None and math.isfinite(v)]
    rows = [
        {"row": heat.rows[r], "column": heat.columns[c], "value": value}
        for r, row in enumerate(heat.values)
        for c, value in enumerate(row)
        if r < len(heat.rows) and c < len(heat.columns) and value is not None
        and math.isfinite(value)
    ]  # fmt: skip
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    middle = (low + high) / 2
    value_title = axis_title(heat.value_label, heat.value_unit)
    legend_format = ".3~s" if values and max(abs(v) for v in values) >= 1e4 else ",.4~r"
    cell_format = ",.0f" if values and max(abs(v) for v in values) >= 100 else ",.3~r"
    x_enc = {
        "field": "column",
        "type": "ordinal",
        "title": heat.column_label,
        "scale": {"domain": list(heat.columns)},
        "axis": {"labelAngle": 0},
    }
    y_enc = {
        "field": "row",
        "type": "ordinal",
        "title": heat.row_label,
        "scale": {"domain": list(reversed(heat.rows))},
    }
    tooltip = [
        {"field": "row", "type": "ordinal", "title": heat.row_label or "row"},
        {"field": "column", "type": "ordinal", "title": heat.column_label or "column"},
        {"field": "value", "type": "quantitative", "title": value_title or "value",
         "format": TOOLTIP_FORMAT},
    ]  # fmt: skip
    return {
        "data": {"values": rows},
        "encoding": {"x": x_enc, "y": y_enc},
        "layer": [
            {
                "mark": {"type": "rect"},
                "encoding": {
                    "color": {
                        "field": "value",
                        "type": "quantitative",
                        "title": value_title,
                        "scale": {"scheme": "viridis"},
                        "legend": {
                            "orient": "bottom",
                            "direction": "horizontal",
                            "format": legend_format,
                            "gradientLength": 200,
                            "titleOrient": "top",
                        },
                    },
                    "tooltip": tooltip,
                },
            },
            {
                "mark": {"type": "text", "fontSize": 11},
                "encoding": {
                    "text": {"field": "value", "type": "quantitative", "format": cell_format},
                    "color": {
                        "condition": {"test": f"datum.value < {middle!r}", "value": "white"},
                        "value": "black",
                    },
                    "tooltip": tooltip,
                },
            },
        ],
    }
