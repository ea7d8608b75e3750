"""Reduced fio latency logs as data and as document sections: the `ssdlab latency` JSON and
terminal output, and the latency sections of an imported fio run's report (whose run keeps the
same JSON under settings['latency_logs']).

The sections are built from the JSON, so a stored run and a fresh reduction read alike.
"""

from collections.abc import Mapping
from typing import Any

from ssdlab.analysis.latency_stream import PERCENTILES, RELATIVE_ERROR, LatencyLogResult
from ssdlab.analysis.tail_intervals import tail_data
from ssdlab.model.units import format_latency
from ssdlab.report import document as doc
from ssdlab.report.tail_text import TAIL_NOTE, tail_cell

FORMAT = "ssdlab-latency"
FORMAT_VERSION = 1
KIND_MEANING = {
    "lat": "total latency (submission + completion)",
    "clat": "completion latency",
    "slat": "submission latency",
}
AVERAGED_NOTE = (
    "the log holds fio's window means (log_avg_msec), one per direction per window, not one "
    "value per I/O: its percentiles are percentiles of means, not latency percentiles; log "
    "with log_avg_msec=0 for those"
)
_BAR_WIDTH = 40
_MOST_BARS = 24


def percentile_key(pct: float) -> str:
    """'50', '99.9', '99.9999': a percentile as the JSON keys it."""
    return f"{pct:g}"


def latency_log_data(result: LatencyLogResult) -> dict[str, Any]:
    """The JSON document of a reduction (`ssdlab latency --json`)."""
    directions: dict[str, Any] = {}
    for name, summary in result.directions.items():
        directions[name] = {
            "count": summary.count,
            "mean_ns": summary.mean_ns,
            "min_ns": summary.min_ns,
            "max_ns": summary.max_ns,
            "percentiles_ns": {percentile_key(p): v for p, v in summary.percentiles_ns},
            "tails": {percentile_key(t.pct): tail_data(t) for t in summary.tails},
            "series": [
                {"elapsed_s": p.elapsed_s, "ios": p.ios, "mean_ns": p.mean_ns, "p99_ns": p.p99_ns}
                for p in summary.series
            ],
            "histogram": [
                {"low_ns": b.low_ns, "high_ns": b.high_ns, "count": b.count}
                for b in summary.histogram
            ],
        }
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "files": list(result.files),
        "kind": result.kind,
        "kind_meaning": KIND_MEANING.get(result.kind),
        "values": "averaged" if result.averaged else "per-io",
        "values_why": result.averaged_why,
        "note": AVERAGED_NOTE if result.averaged else None,
        "value_unit": "ns",
        "percentile_relative_error": RELATIVE_ERROR,
        "core": result.core,
        "lines": result.lines,
        "truncated_lines": result.truncated_lines,
        "directions": directions,
    }


def _percentile_table(data: Mapping[str, Any], values: str) -> doc.Table:
    """One row per statistic (I/Os, mean, each percentile, max), one column per direction."""
    found = data["directions"]
    names = list(found)
    rows = [
        ("I/Os", *(f"{found[n]['count']:,}" for n in names)),
        ("mean", *(format_latency(found[n]["mean_ns"]) for n in names)),
    ]
    for pct in PERCENTILES:
        key = percentile_key(pct)
        rows.append((f"p{key}", *(_cell(found[n], key) for n in names)))
    rows.append(("max", *(format_latency(found[n]["max_ns"]) for n in names)))
    title = f"{str(data['kind']).upper()} percentiles" + (
        " (of window means)" if values == "averaged" else ""
    )
    notes = (
        f"each percentile within {RELATIVE_ERROR:.2%} of the exact value (log-linear histogram)",
        TAIL_NOTE + "; the interval's ends are its buckets' outer bounds, and where the log has "
        "10 seconds or more it spans a block bootstrap over seconds too (bursty tails)",
    )
    return doc.Table(title, ("", *names), tuple(rows), notes)


def _cell(found: Mapping[str, Any], key: str) -> str:
    """A percentile's cell: with its interval from p99 up (a document stored before ssdlab
    gave tails has none: the value alone)."""
    tails = found.get("tails") or {}
    return tail_cell(tails.get(key), found["percentiles_ns"].get(key))


def _histogram_table(name: str, bars: list[Mapping[str, Any]]) -> doc.Table:
    """A short text histogram: at most 24 bars (neighbours merged), widths scaled to the
    largest."""
    groups = max(1, -(-len(bars) // _MOST_BARS))
    merged = [
        (bars[i]["low_ns"], bars[min(i + groups, len(bars)) - 1]["high_ns"],
         sum(b["count"] for b in bars[i : i + groups]))
        for i in range(0, len(bars), groups)
    ]  # fmt: skip
    most = max((count for *_, count in merged), default=0) or 1
    total = sum(count for *_, count in merged) or 1
    rows = tuple(
        (
            f"{format_latency(low)} – {format_latency(high)}",
            f"{count:,}",
            f"{count / total:.2%}",
            "█" * max(1 if count else 0, round(count / most * _BAR_WIDTH)),
        )
        for low, high, count in merged
    )
    return doc.Table(f"{name} latency histogram", ("latency", "I/Os", "share", ""), rows)


def _estimable_points(found: Mapping[str, Any]) -> list[tuple[float, float]]:
    """(position, µs) of each percentile the I/Os bound: one that needs more I/Os is not
    drawn."""
    tails = found.get("tails") or {}
    points = []
    for i, pct in enumerate(PERCENTILES):
        key = percentile_key(pct)
        tail = tails.get(key)
        if isinstance(tail, Mapping) and not tail.get("estimable"):
            continue
        points.append((float(i), (found["percentiles_ns"][key] or 0.0) / 1000))
    return points


def _percentile_chart(data: Mapping[str, Any], key: str) -> doc.Chart:
    series = tuple(
        doc.Series(name, tuple(x for x, _ in points), tuple(y for _, y in points))
        for name, points in (
            (name, _estimable_points(found)) for name, found in data["directions"].items()
        )
    )
    return doc.Chart(
        f"{key}-percentiles",
        f"{str(data['kind']).upper()} percentile curve (from the per-I/O log)",
        x_label="percentile",
        y_label="latency",
        y_unit="µs",
        series=series,
        y_log=doc.spans_decades(y for s in series for y in s.ys),
        x_ticks=tuple((float(i), f"p{percentile_key(p)}") for i, p in enumerate(PERCENTILES)),
    )


def _histogram_chart(data: Mapping[str, Any], key: str) -> doc.Chart:
    series = tuple(
        doc.Series(
            name,
            tuple(float(f"{(b['low_ns'] + b['high_ns']) / 2000:.3g}") for b in found["histogram"]),
            tuple(float(b["count"]) for b in found["histogram"]),
            style="bars",
        )
        for name, found in data["directions"].items()
    )
    return doc.Chart(
        f"{key}-histogram",
        f"{str(data['kind']).upper()} histogram (4 buckets per power of two)",
        x_label="latency",
        y_label="I/Os",
        x_unit="µs",
        y_unit="I/Os",
        series=series,
        x_log=doc.spans_decades(x for s in series for x in s.xs),
        y_zero=True,
    )


def _series_charts(data: Mapping[str, Any], key: str) -> tuple[doc.Chart, ...]:
    def line(name: str, field: str, scale: float) -> doc.Series:
        points = data["directions"][name]["series"]
        return doc.Series(
            name, tuple(p["elapsed_s"] for p in points), tuple(p[field] / scale for p in points)
        )

    names = list(data["directions"])
    latency = tuple(line(n, "mean_ns", 1000) for n in names) + tuple(
        doc.Series(f"{s.label} p99", s.xs, s.ys) for s in (line(n, "p99_ns", 1000) for n in names)
    )
    return (
        doc.Chart(
            f"{key}-iops",
            "I/Os completed per second (from the log)",
            x_label="time",
            y_label="I/Os per second",
            x_unit="s",
            y_unit="IOPS",
            series=tuple(line(n, "ios", 1) for n in names),
            y_zero=True,
        ),
        doc.Chart(
            f"{key}-latency",
            "Mean and p99 latency per second (from the log)",
            x_label="time",
            y_label="latency",
            x_unit="s",
            y_unit="µs",
            series=latency,
            y_log=doc.spans_decades(y for s in latency for y in s.ys),
        ),
    )


_MOST_SECONDS = 30


def _series_table(data: Mapping[str, Any]) -> doc.Table:
    """Per second and direction: I/Os, mean, p99; at most 30 seconds, evenly picked."""
    rows: list[tuple[str, ...]] = []
    for name, found in data["directions"].items():
        points = found["series"]
        step = max(1, -(-len(points) // _MOST_SECONDS))
        rows.extend(
            (f"{p['elapsed_s']:g}", name, f"{p['ios']:,}", format_latency(p["mean_ns"]),
             format_latency(p["p99_ns"]))
            for p in points[::step]
        )  # fmt: skip
    longest = max(len(f["series"]) for f in data["directions"].values())
    step = -(-longest // _MOST_SECONDS)
    notes = () if longest <= _MOST_SECONDS else (f"one second in {step} shown",)
    columns = ("second", "direction", "I/Os", "mean", "p99")
    return doc.Table("Per second", columns, tuple(rows), notes)


def latency_log_sections(
    data: Mapping[str, Any], key: str = "latency-log"
) -> tuple[doc.Section, ...]:
    """Percentiles, histogram and time series of a reduction's JSON document; `key` starts
    the charts' keys."""
    values = str(data.get("values"))
    facts = (
        ("files", ", ".join(data["files"])),
        ("log kind", f"{data['kind']}: {data.get('kind_meaning') or 'latency'}"),
        ("values", f"{values} ({data.get('values_why')})"),
        ("lines", f"{data['lines']:,}"),
        ("core", str(data.get("core"))),
    )
    notes = [str(data["note"])] if data.get("note") else []
    if data.get("truncated_lines"):
        notes.append(f"{data['truncated_lines']} unfinished last line(s) left out")
    if not data["directions"]:
        notes.append("the logs hold no I/O")
        return (doc.Section("Latency log", facts=facts, notes=tuple(notes)),)
    histograms = tuple(_histogram_table(n, f["histogram"]) for n, f in data["directions"].items())
    return (
        doc.Section(
            "Latency percentiles (from the logs)",
            facts=facts,
            tables=(_percentile_table(data, values),),
            charts=(_percentile_chart(data, key),),
            notes=tuple(notes),
        ),
        doc.Section(
            "Latency histogram (from the logs)",
            tables=histograms,
            charts=(_histogram_chart(data, key),),
        ),
        doc.Section(
            "Latency per second (from the logs)",
            tables=(_series_table(data),),
            charts=_series_charts(data, key),
        ),
    )


def imported_latency_sections(settings: Mapping[str, Any]) -> tuple[doc.Section, ...]:
    """The latency sections of an imported fio run whose logs were imported with it (none
    otherwise): one set per log kind, lat before clat before slat."""
    found = settings.get("latency_logs")
    if not isinstance(found, dict):
        return ()
    sections: list[doc.Section] = []
    for kind in ("lat", "clat", "slat"):
        if isinstance(found.get(kind), dict):
            named = latency_log_sections(found[kind], f"latency-log-{kind}")
            sections.extend(
                doc.Section(
                    s.title.replace("Latency", f"{kind.upper()} latency", 1).replace(
                        "from the logs", "from the job's logs"
                    ),
                    facts=s.facts,
                    tables=s.tables,
                    charts=s.charts,
                    notes=s.notes,
                )
                for s in named
            )
    return tuple(sections)


def latency_log_document(data: Mapping[str, Any]) -> doc.Document:
    """`ssdlab latency` on the terminal."""
    headline = tuple(
        (name, f"{found['count']:,} I/Os, p99 {_cell(found, '99')}")
        for name, found in data["directions"].items()
    )
    return doc.Document(
        title=f"fio {data['kind']} log{'s' if len(data['files']) > 1 else ''}",
        headline=headline,
        sections=latency_log_sections(data),
        data=data,
    )
