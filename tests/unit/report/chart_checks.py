"""The chart rules as a test helper: what a reviewer checks on every chart a builder makes."""

from ssdlab.report.chart_rules import chart_problems
from ssdlab.report.document import MAX_SERIES, Chart, Series, spans_decades

# axes of amounts: start at zero on a linear axis
ZERO_BASED_UNITS = ("MB/s", "IOPS", "TB", "GB", "% of I/Os", "years", "cycles per block")


def breaches(chart: Chart) -> list[str]:
    """Every chart rule the chart breaks, as short sentences; [] when it meets them all:
    report/chart_rules' problems, and what a reviewer checks beyond them (a linear axis over
    more than two decades, a line of one point, more series than colours, bars not from 0)."""
    breaks: list[str] = list(chart_problems(chart))
    if chart.heat is not None:
        if not chart.heat.value_unit:
            breaks.append("heat map without a value unit")
        return breaks
    if not chart.series:
        return ["a chart with no series"]
    categorical = bool(chart.x_ticks) or any(s.style == "bars" for s in chart.series)
    if not categorical and not chart.x_unit:
        breaks.append("quantitative x axis without a unit")
    if not chart.y_unit:
        breaks.append("y axis without a unit")
    if len(chart.series) > MAX_SERIES:
        breaks.append(f"{len(chart.series)} series: more than a reader can tell apart")
    ys = [y for s in chart.series for y in s.ys]
    if chart.y_unit in ZERO_BASED_UNITS and not chart.y_log and not chart.y_zero:
        breaks.append(f"{chart.y_unit} axis not starting at zero")
    if spans_decades(ys) and not chart.y_log:
        breaks.append("y values span more than two decades on a linear axis")
    if chart.y_log and not spans_decades(ys):
        breaks.append("log y axis for values within two decades")
    xs = [x for s in chart.series for x in s.xs]
    if chart.x_log and not spans_decades(xs):
        breaks.append("log x axis for values within two decades")
    for series in chart.series:
        breaks.extend(_series_breaches(chart, series))
    return breaks


def _series_breaches(chart: Chart, series: Series) -> list[str]:
    breaks = []
    if len(series.xs) != len(series.ys):
        breaks.append(f"{series.label}: xs and ys differ in length")
    if series.style in ("line", "steps") and len(series.xs) < 2:
        breaks.append(f"{series.label}: a {series.style} of one point draws nothing")
    if series.errors and len(series.errors) != len(series.ys):
        breaks.append(f"{series.label}: error bars not one per point")
    if series.point_labels and len(series.point_labels) != len(series.ys):
        breaks.append(f"{series.label}: point labels not one per point")
    for y, (low, high) in zip(series.ys, series.errors, strict=False):
        if not low <= y <= high:
            breaks.append(f"{series.label}: {y:g} outside its error bar {low:g}–{high:g}")
    if series.style == "bars" and not chart.y_zero:
        breaks.append(f"{series.label}: bars on an axis not starting at zero")
    return breaks
