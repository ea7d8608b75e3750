"""The comparison of runs as a report document: one row per metric, the baseline's value, then
each other run's value and its ratio to the baseline with a significance marker."""

import dataclasses
import statistics
from collections.abc import Sequence
from pathlib import PurePath

from ssdlab.analysis.compare import (
    MARKERS,
    Change,
    Comparison,
    MeasuredTest,
    MetricSamples,
    RuleBreach,
    Verdict,
)
from ssdlab.analysis.verdict_state import Outcome
from ssdlab.model.run import RunRecord
from ssdlab.model.target import TargetKind
from ssdlab.model.units import (
    MB,
    format_count,
    format_latency,
    format_latency_range,
    format_needs_ios,
)
from ssdlab.report import document as doc
from ssdlab.report.interval_text import interval_data
from ssdlab.report.method_notes import COMPARE_METHOD, method_note
from ssdlab.report.profile_common import visible_series, zero_or_log

FORMAT_VERSION = 1
_SCALE = {"bytes_per_s": (1 / MB, "MB/s"), "ns": (1e-3, "µs"), "iops": (1.0, "IOPS")}


def format_metric_value(samples: MetricSamples | None) -> str:
    """'3,512.4 MB/s ±0.8 % n=5': the mean, the passes' CV and how many there were."""
    if samples is None:
        return "—"
    scale, unit = _SCALE.get(samples.unit, (1.0, samples.unit))
    mean = samples.mean * scale
    text = f"{mean:,.1f} {unit}" if mean >= 10 else f"{mean:,.3g} {unit}"
    if samples.summary is not None:  # one figure standing for the passes: say which
        return f"{text} ({samples.summary} pass)" if samples.summary == "best" else f"{text} (mean)"
    if len(samples.values) > 1 and samples.mean:
        cv = statistics.stdev(samples.values) / samples.mean * 100
        text += f" ±{cv:.1f} %"
    return f"{text} n={len(samples.values)}"


def format_ratio(change: Change) -> str:
    """'0.91 (0.88–0.94) − p=0.003' / '1.02 (0.97–1.07) ~' / '— x': the ratio, its interval
    when both runs had two passes or more, the marker, and the p-value when one was computed."""
    if change.ratio is None:
        return f"— {change.marker}"
    marker = "−" if change.verdict is Verdict.WORSE else change.marker
    p = "" if change.p_value is None else f" p={change.p_value:.2g}"
    interval = change.ratio_interval
    bounds = ""
    if interval is not None:
        low = "?" if interval.low is None else f"{interval.low:.2f}"
        high = "?" if interval.high is None else f"{interval.high:.2f}"
        bounds = f" ({low}–{high})"
    return f"{change.ratio:.2f}{bounds} {marker}{p}"


def _change_text(change: Change) -> str:
    """'−10.0 % (−12.1 … −7.9 %)': the change and its interval, in percent."""
    if change.change_pct is None:
        return "—"
    text = f"{change.change_pct:+.1f} %"
    interval = change.ratio_interval
    if interval is None:
        return text + " (one pass a side: no interval)"
    low = "?" if interval.low is None else f"{(interval.low - 1) * 100:+.1f}"
    high = "?" if interval.high is None else f"{(interval.high - 1) * 100:+.1f}"
    return f"{text} ({low} … {high} %)"


def gate_table(judged: Sequence[RuleBreach]) -> doc.Table | None:
    """Every --fail-if rule on every metric it matched: pass, fail or inconclusive."""
    if not judged:
        return None
    return doc.Table(
        "--fail-if",
        ("rule", "run", "metric", "change (interval)", "outcome"),
        tuple(
            (str(j.rule), str(j.run), j.change.key, _change_text(j.change), j.outcome)
            for j in judged
        ),
        notes=(
            "fail: the whole interval of the change is past the rule's limit; pass: none of it "
            "is; inconclusive: it straddles the limit, and more passes (--count) narrow it; "
            "with one pass a side the measured change decides. Only fail sets the exit code.",
        ),
    )


def _run_row(run: RunRecord) -> tuple[str, ...]:
    device = run.target.get("device")
    model = device.get("model") if isinstance(device, dict) else None
    firmware = device.get("firmware") if isinstance(device, dict) else None
    path = device.get("path") if isinstance(device, dict) else None
    source = run.settings.get("source_tool")
    return (
        str(run.run_id),
        run.profile + (f" ({run.preset})" if run.preset else ""),
        # the drive as the run names it: its model, else the device node an import names
        str(model or (f"— ({path})" if path else None) or run.settings.get("target_text") or "—"),
        str(firmware or "—"),
        str(source or "ssdlab"),
        run.target_path,
    )


def build_compare_document(
    runs: Sequence[RunRecord],
    comparisons: Sequence[Comparison],
    breaches: Sequence[RuleBreach] = (),
    tests: Sequence[Sequence[MeasuredTest]] = (),
) -> doc.Document:
    """Runs side by side against the first (the baseline); `breaches`: the --fail-if rules as
    judged (analysis/compare.judge_fail_rules: every outcome; only a fail is a failure);
    `tests`: each run's measured tests (analysis/compare.measured_tests), in the order of
    `runs`, for the charts (none without)."""
    baseline = runs[0]
    header = ("Metric (--fail-if name)", f"run {baseline.run_id}")
    columns = list(header)
    for comparison in comparisons:
        columns += [f"run {comparison.other_run}", f"÷ {baseline.run_id}"]
    keys: list[str] = []
    for comparison in comparisons:
        keys.extend(c.key for c in comparison.changes if c.key not in keys)
    rows = []
    for key in keys:
        found = [next((c for c in comp.changes if c.key == key), None) for comp in comparisons]
        first = next(c for c in found if c is not None)
        row = [first.key, format_metric_value(first.baseline)]
        for change in found:
            row += (
                ["—", "—"]
                if change is None
                else [
                    format_metric_value(change.other),
                    format_ratio(change),
                ]
            )
        rows.append(tuple(row))
    threshold = comparisons[0].threshold_pct if comparisons else 0.0
    alpha = comparisons[0].alpha if comparisons else 0.0
    legend = (
        f"{MARKERS[Verdict.BETTER]} better / − worse: the change is larger than {threshold:g} % "
        f"and the passes of the two runs differ by more than their scatter explains "
        f"(p < {alpha:g}); "
        f"{MARKERS[Verdict.NOT_SIGNIFICANT]} not significant (smaller, or not supported by the "
        f"passes); {MARKERS[Verdict.UNTESTED]} one pass a side: the ratio stands, no "
        "significance test is possible; "
        f"{MARKERS[Verdict.MISSING]} measured in one run only. Values: mean ±CV over the "
        "passes (PTS: the last five rounds); ratios with their interval at the test's level "
        f"({(1 - alpha) * 100:g} %, on the logarithms) in brackets when both runs had two "
        "passes or more."
    )
    like_for_like = []
    if any(c.basis == "best" for comp in comparisons for c in comp.changes):
        like_for_like.append(
            "Like for like: a run that kept only its best pass of each test (a CrystalDiskMark "
            "import) is compared best pass with best pass — the other run's best pass, not its "
            "mean; rows marked 'best pass'."
        )
    if any(
        c.basis == "mean" and c.baseline and c.baseline.summary
        for comp in comparisons
        for c in comp.changes
    ):
        like_for_like.append(
            "KDiskMark's Default profile kept only the mean of its loops: compared with the "
            "other run's mean; rows marked 'mean'."
        )
    table = doc.Table(
        f"Against run {baseline.run_id}",
        tuple(columns),
        tuple(rows),
        (legend, *like_for_like, method_note(COMPARE_METHOD)),
    )
    run_table = doc.Table(
        "Runs",
        ("run", "profile", "device", "firmware", "measured by", "target"),
        tuple(_run_row(r) for r in runs),
    )
    failed = [b for b in breaches if b.outcome == Outcome.FAIL.value]
    unsure = [b for b in breaches if b.outcome == Outcome.INCONCLUSIVE.value]
    notes = tuple(
        f"fail: run {b.run} {b.change.key} {b.change.change_pct:+.1f} % breaks {b.rule}"
        if b.change.change_pct is not None
        else f"fail: run {b.run} has no {b.change.key} ({b.rule})"
        for b in failed
    ) + tuple(
        f"inconclusive: run {b.run} {b.change.key} {_change_text(b.change)} straddles {b.rule}"
        for b in unsure
    )
    gates = gate_table(breaches)
    counts = {
        verdict: sum(1 for comp in comparisons for c in comp.changes if c.verdict is verdict)
        for verdict in Verdict
    }
    verdict = [
        f"{counts[Verdict.WORSE]} worse, {counts[Verdict.BETTER]} better, "
        f"{counts[Verdict.NOT_SIGNIFICANT]} not significant, "
        f"{counts[Verdict.UNTESTED]} untested (one pass a side, no significance test possible)"
        + (f", {counts[Verdict.CANNOT_TELL]} cannot tell" if counts[Verdict.CANNOT_TELL] else "")
        + (f", {counts[Verdict.MISSING]} in one run only" if counts[Verdict.MISSING] else "")
    ]
    return doc.Document(
        title=f"ssdlab compare {' '.join(str(r.run_id) for r in runs)}",
        headline=(
            ("baseline", f"run {baseline.run_id}"),
            ("profile", baseline.profile),
            ("threshold", f"{threshold:g} %, p < {alpha:g}"),
        ),
        verdict=tuple(verdict),
        sections=(
            doc.Section("Runs compared", tables=(run_table,)),
            doc.Section(
                "Changes",
                tables=(
                    table,
                    *_tail_tables(runs, comparisons, tests),
                    *((gates,) if gates else ()),
                ),
                notes=notes,
            ),
            *chart_sections(runs, tests),
        ),
        data=compare_data(runs, comparisons, breaches),
        charts_drawn_by="compare -o FILE.html draws it",
    )


TAIL_NOTE = (
    "p99 and p99.9 of each test's median pass (by throughput), from fio's percentile table: "
    "the value, its interval (97.5 % a side, so that the ratio's interval is 95 %) and the "
    "I/Os it came from; 'needs ≥ N I/Os' where the pass had too few I/Os to bound it. The "
    "ratio's interval is [other's low ÷ baseline's high, other's high ÷ baseline's low] ('?' "
    "where fio's table does not bracket an end): a tail is better or worse only when that "
    "whole interval is, and a --fail-if rule on it (KEY-p99:+20%) passes, fails or is "
    "inconclusive by that interval, never by the point values"
)


def _tail_cell(test: MeasuredTest | None, pct: float) -> str:
    tail = None if test is None else next((t for t in test.tails if t.pct == pct), None)
    if tail is None:
        return "—"
    if not tail.estimable:
        return format_needs_ios(tail.needs)
    span = (
        "" if tail.interval is None else format_latency_range(tail.interval.low, tail.interval.high)
    )
    return f"{format_latency(tail.value_ns)} ({span}; n={format_count(tail.n)})"


def _tail_tables(
    runs: Sequence[RunRecord],
    comparisons: Sequence[Comparison],
    tests: Sequence[Sequence[MeasuredTest]],
) -> tuple[doc.Table, ...]:
    """The tails of every test, run by run against the first, when any run has them."""
    if not tests or not any(comp.tails for comp in comparisons):
        return ()
    by_run = [{t.key: t for t in found} for found in tests]
    keys: list[str] = []
    for comparison in comparisons:
        keys.extend(c.key for c in comparison.tails if c.key not in keys)
    columns = ["Tail (--fail-if name)", f"run {runs[0].run_id}"]
    for comparison in comparisons:
        columns += [f"run {comparison.other_run}", f"÷ {runs[0].run_id}"]
    rows = []
    for key in keys:
        test_key, _, pct_text = key.rpartition("-p")
        pct = float(pct_text)
        row = [key, _tail_cell(by_run[0].get(test_key), pct)]
        for index, comparison in enumerate(comparisons, start=1):
            change = next((c for c in comparison.tails if c.key == key), None)
            row += [
                _tail_cell(by_run[index].get(test_key) if index < len(by_run) else None, pct),
                "—" if change is None else format_ratio(change),
            ]
        rows.append(tuple(row))
    title = f"Latency tails against run {runs[0].run_id}"
    return (doc.Table(title, tuple(columns), tuple(rows), (TAIL_NOTE,)),)


MAX_TEST_SECTIONS = 12  # tests drawn one by one; more are in the tables and summary charts
_PERCENTILES = (50.0, 90.0, 99.0, 99.9, 99.99)


def run_label(run: RunRecord) -> str:
    """'run 12: Samsung SSD 980 1TB', 'run 13: file in /mnt/scratch': a legend entry."""
    device = run.target.get("device")
    model = device.get("model") if isinstance(device, dict) else None
    if model:
        what = str(model)
    elif run.target_kind is TargetKind.FILE and run.target.get("created_file"):
        what = f"file in {PurePath(run.target_path).parent}"
    else:
        what = str(run.settings.get("target_text") or run.target_path)
    if len(what) > 32:
        what = "…" + what[-31:]
    return f"run {run.run_id}: {what}"


def _by_key(tests: Sequence[Sequence[MeasuredTest]]) -> dict[str, list[MeasuredTest | None]]:
    """Each test key (in first-run order) with every run's measurement of it (None: absent)."""
    keys: list[str] = []
    for measured in tests:
        keys.extend(t.key for t in measured if t.key not in keys)
    lookup = [{t.key: t for t in measured} for measured in tests]
    return {key: [found.get(key) for found in lookup] for key in keys}


def _split(chart: doc.Chart) -> tuple[doc.Chart, ...]:
    """A chart of more runs than colours, as several charts of at most MAX_SERIES runs."""
    groups = doc.series_groups(chart.series)
    if len(groups) <= 1:
        return (chart,)
    return tuple(
        dataclasses.replace(
            chart,
            key=f"{chart.key}-{n}",
            title=f"{chart.title} ({n} of {len(groups)})",
            series=group,
        )
        for n, group in enumerate(groups, start=1)
    )


def _rate(test: MeasuredTest, values: Sequence[float]) -> list[float]:
    """Bytes/s as MB/s for a sequential test; IOPS as they are for a random one."""
    return list(values) if test.random else [v / MB for v in values]


def _summary_chart(
    labels: Sequence[str], by_key: dict[str, list[MeasuredTest | None]], random: bool
) -> doc.Chart | None:
    """The median pass of each test, a bar per run (side by side) with the slowest and fastest
    pass as its error bar; dots on a log axis when the tests span more than two decades."""
    keys = [k for k, found in by_key.items() if any(t and t.random == random for t in found)]
    if not keys:
        return None
    series = []
    for index, label in enumerate(labels):
        xs: list[float] = []
        ys: list[float] = []
        errors: list[tuple[float, float]] = []
        for position, key in enumerate(keys):
            test = by_key[key][index]
            if test is None:
                continue
            values = _rate(test, test.iops if random else test.bw_bytes_per_s)
            xs.append(float(position))
            ys.append(statistics.median(values))
            errors.append((min(values), max(values)))
        if xs:
            series.append(doc.Series(label, tuple(xs), tuple(ys), "bars", tuple(errors)))
    ticks = []
    for position, key in enumerate(keys):
        test = next(t for t in by_key[key] if t is not None)
        # a profile's long step label ('random writes at 50 % full write'): its short key
        ticks.append((float(position), test.label if len(test.label) <= 20 else key))
    y_log, y_zero = zero_or_log(y for s in series for y in s.ys)
    if y_log:  # a bar on a log axis has no base: the runs as dots
        series = [dataclasses.replace(s, style="points") for s in series]
    return doc.Chart(
        key="compare-random" if random else "compare-sequential",
        title=("Random tests: IOPS" if random else "Sequential tests: throughput")
        + " of the median pass (whiskers: slowest to fastest pass)",
        y_label="I/O rate" if random else "throughput",
        y_unit="IOPS" if random else "MB/s",
        y_log=y_log,
        y_zero=y_zero,
        series=tuple(series),
        x_ticks=tuple(ticks),
    )


def _time_chart(labels: Sequence[str], found: Sequence[MeasuredTest | None]) -> doc.Chart | None:
    first = next(t for t in found if t is not None)
    series = [
        visible_series(
            label,
            test.elapsed_s,
            _rate(test, test.interval_iops if test.random else test.interval_bw_bytes_per_s),
        )
        for label, test in zip(labels, found, strict=True)
        if test is not None and test.elapsed_s
    ]
    if not series:
        return None
    y_log, y_zero = zero_or_log(y for s in series for y in s.ys)
    return doc.Chart(
        key=f"compare-{first.key}-time",
        title=f"{first.label}: {'IOPS' if first.random else 'throughput'} over time",
        x_label="time (passes end to end)",
        x_unit="s",
        y_label="I/O rate" if first.random else "throughput",
        y_unit="IOPS" if first.random else "MB/s",
        y_log=y_log,
        y_zero=y_zero,
        series=tuple(series),
    )


def _percentile_chart(
    labels: Sequence[str], found: Sequence[MeasuredTest | None]
) -> doc.Chart | None:
    """Percentiles at evenly spaced positions (50, 90, 99, 99.9, 99.99: a log scale of the
    tail), latency in µs."""
    first = next(t for t in found if t is not None)
    series = []
    for label, test in zip(labels, found, strict=True):
        if test is None:
            continue
        known = dict(test.percentiles_ns)
        shown = [(i, known[p]) for i, p in enumerate(_PERCENTILES) if p in known]
        if shown:
            series.append(
                visible_series(label, [float(i) for i, _ in shown], [ns / 1e3 for _, ns in shown])
            )
    if not series:
        return None
    y_log, y_zero = zero_or_log(y for s in series for y in s.ys)
    return doc.Chart(
        key=f"compare-{first.key}-percentiles",
        title=f"{first.label}: completion latency percentiles (median pass)",
        x_label="percentile",
        y_label="completion latency",
        y_unit="µs",
        y_log=y_log,
        y_zero=y_zero,
        series=tuple(series),
        x_ticks=tuple((float(i), f"p{p:g}") for i, p in enumerate(_PERCENTILES)),
    )


def _histogram_chart(
    labels: Sequence[str], found: Sequence[MeasuredTest | None]
) -> doc.Chart | None:
    """The share of I/Os per latency bucket; a log share axis when the tail is more than two
    decades rarer than the peak (then empty buckets, which a log axis cannot place, left out)."""
    first = next(t for t in found if t is not None)
    shares = [pct for test in found if test is not None for _, pct in test.histogram]
    y_log, y_zero = zero_or_log(shares)
    series = [
        visible_series(
            label,
            [ns / 1e3 for ns, pct in test.histogram if pct > 0 or not y_log],
            [pct for _, pct in test.histogram if pct > 0 or not y_log],
            "points" if y_log else "line",  # a line would bridge the empty buckets left out
        )
        for label, test in zip(labels, found, strict=True)
        if test is not None and test.histogram
    ]
    if not series:
        return None
    return doc.Chart(
        key=f"compare-{first.key}-histogram",
        title=f"{first.label}: completion latency histogram (median pass)",
        x_label="completion latency",
        x_unit="µs",
        x_log=doc.spans_decades(x for s in series for x in s.xs),
        y_label="share of I/Os",
        y_unit="% of I/Os",
        y_log=y_log,
        y_zero=y_zero,
        series=tuple(series),
        caption="buckets a tenth of a decade wide, from fio's json+ latency bins",
    )


def chart_sections(
    runs: Sequence[RunRecord], tests: Sequence[Sequence[MeasuredTest]]
) -> tuple[doc.Section, ...]:
    """The summary charts of every test, then per test that two or more runs measured (at
    most MAX_TEST_SECTIONS) its throughput over time, latency percentiles and latency
    histogram, one series per run."""
    if not tests or not any(tests):
        return ()
    labels = [run_label(run) for run in runs]
    by_key = _by_key(tests)
    summary = [c for c in (_summary_chart(labels, by_key, r) for r in (False, True)) if c]
    sections = []
    if summary:
        sections.append(
            doc.Section(
                "Charts: every test",
                charts=tuple(part for chart in summary for part in _split(chart)),
            )
        )
    # one by one only what at least two runs measured: a test of one run compares nothing
    shared = [found for found in by_key.values() if sum(t is not None for t in found) >= 2]
    for found in shared[:MAX_TEST_SECTIONS]:
        drawn = [
            chart
            for make in (_time_chart, _percentile_chart, _histogram_chart)
            if (chart := make(labels, found)) is not None
        ]
        if drawn:
            title = next(t for t in found if t is not None).label
            sections.append(
                doc.Section(
                    f"Charts: {title}",
                    charts=tuple(part for chart in drawn for part in _split(chart)),
                )
            )
    left_out = len(by_key) - min(len(shared), MAX_TEST_SECTIONS)
    if left_out:
        sections.append(
            doc.Section(
                "Charts: further tests",
                notes=(
                    f"{left_out:,} more test{'' if left_out == 1 else 's'} (measured in one run "
                    f"only, or past the first "
                    f"{MAX_TEST_SECTIONS}): in the tables and the summary charts, not drawn "
                    "one by one",
                ),
            )
        )
    return tuple(sections)


def _samples_data(samples: MetricSamples | None) -> dict[str, object] | None:
    if samples is None:
        return None
    return {
        "unit": samples.unit,
        "values": list(samples.values),
        "mean": samples.mean,
        "summary": samples.summary,
    }


def _first(values: Sequence[float]) -> float | None:
    return values[0] if values else None


def compare_data(
    runs: Sequence[RunRecord], comparisons: Sequence[Comparison], breaches: Sequence[RuleBreach]
) -> dict[str, object]:
    """The machine-readable comparison (`--json`), values in SI base units."""
    return {
        "format": "ssdlab-compare",
        "format_version": FORMAT_VERSION,
        "baseline_run": runs[0].run_id,
        "runs": [{"id": r.run_id, "profile": r.profile, "kind": r.kind} for r in runs],
        "comparisons": [
            {
                "run": comp.other_run,
                "threshold_pct": comp.threshold_pct,
                "alpha": comp.alpha,
                "changes": [
                    {
                        "metric": c.key,
                        "label": c.label,
                        "higher_is_better": c.higher_is_better,
                        "baseline": _samples_data(c.baseline),
                        "other": _samples_data(c.other),
                        "ratio": c.ratio,
                        "change_pct": c.change_pct,
                        "p_value": c.p_value,
                        "verdict": c.verdict.value,
                        "basis": c.basis,
                        "ratio_interval": interval_data(c.ratio_interval),
                    }
                    for c in comp.changes
                ],
                "tails": [
                    {
                        "metric": c.key,
                        "label": c.label,
                        "baseline_ns": None if not c.baseline else _first(c.baseline.values),
                        "other_ns": None if not c.other else _first(c.other.values),
                        "ratio": c.ratio,
                        "change_pct": c.change_pct,
                        "verdict": c.verdict.value,
                        "basis": c.basis,
                        "ratio_interval": interval_data(c.ratio_interval),
                    }
                    for c in comp.tails
                ],
            }
            for comp in comparisons
        ],
        "failures": [
            {"rule": str(b.rule), "run": b.run, "metric": b.change.key}
            for b in breaches
            if b.outcome == Outcome.FAIL.value
        ],
        "gates": [
            {
                "rule": str(b.rule),
                "run": b.run,
                "metric": b.change.key,
                "limit_ratio": b.limit_ratio,
                "ratio": b.change.ratio,
                "ratio_interval": interval_data(b.change.ratio_interval),
                "outcome": b.outcome,
            }
            for b in breaches
        ],
    }
