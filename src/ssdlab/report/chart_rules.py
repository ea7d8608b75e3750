"""The data-level rules every report chart keeps, stated once: units on quantity axes (a second
y axis's too), rates and counts from zero, log axes only where the values need them, series
whose lists line up.

`chart_problems` is pure and says in words what a chart breaks; the chart builders' tests run it
over every chart of every profile's report.
"""

from ssdlab.report.document import LOG_AXIS_DECADES, Chart, spans_decades

# y units of rates and counts: a bar or line of these read against a cut-off axis exaggerates
ZERO_BASED_UNITS = frozenset(
    {"MB/s", "GB/s", "KB/s", "MiB/s", "GiB/s", "KiB/s", "B/s", "IOPS", "KIOPS", "MIOPS", "count"}
)


def _second_axis_problems(chart: Chart, where: str) -> list[str]:
    """The rules of a second y axis, for the series read against it (axis y2)."""
    if not any(s.axis == "y2" for s in chart.series):
        return []
    problems = []
    if not chart.y2_unit:
        problems.append(f"{where} the second y axis ({chart.y2_label or 'unnamed'}) has no unit")
    if chart.y2_unit in ZERO_BASED_UNITS and not chart.y2_zero:
        problems.append(f"{where} a {chart.y2_unit} axis must start at zero (y2_zero)")
    return problems


def chart_problems(chart: Chart) -> tuple[str, ...]:
    """What `chart` breaks of the chart rules, one sentence each; () when it keeps them all."""
    problems: list[str] = []
    where = f"{chart.key}:"
    if chart.heat is not None:
        if not chart.heat.value_unit:
            problems.append(
                f"{where} the heat map's values ({chart.heat.value_label}) have no unit"
            )
        return tuple(problems)
    categorical = bool(chart.x_ticks) or any(s.style == "bars" for s in chart.series)
    if chart.series and not categorical and not chart.x_unit:
        problems.append(f"{where} the x axis ({chart.x_label or 'unnamed'}) has no unit")
    if chart.series and not chart.y_unit:
        problems.append(f"{where} the y axis ({chart.y_label or 'unnamed'}) has no unit")
    if chart.y_unit in ZERO_BASED_UNITS and not chart.y_log and not chart.y_zero:
        problems.append(f"{where} a {chart.y_unit} axis must start at zero (y_zero)")
    problems.extend(_second_axis_problems(chart, where))
    for axis, log, values in (
        ("x", chart.x_log, [x for s in chart.series for x in s.xs]),
        ("y", chart.y_log, [y for s in chart.series if s.axis != "y2" for y in s.ys]),
    ):
        if log and not spans_decades(values):
            problems.append(
                f"{where} the {axis} axis is logarithmic but its positive values span no more "
                f"than {LOG_AXIS_DECADES:g} decades"
            )
    for series in chart.series:
        lengths = {"xs": len(series.xs), "ys": len(series.ys)}
        if series.errors:
            lengths["errors"] = len(series.errors)
        if series.point_labels:
            lengths["point_labels"] = len(series.point_labels)
        if len(set(lengths.values())) > 1:
            counts = ", ".join(f"{name} {count}" for name, count in lengths.items())
            problems.append(
                f"{where} series {series.label!r} has lists of unequal length ({counts})"
            )
    return tuple(problems)
