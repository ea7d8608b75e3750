"""The comparison of runs as a report document: one row per metric, the baseline's value, then
each other run's value and its ratio to the baseline with a significance marker."""

import statistics
from collections.abc import Sequence

from ssdlab.analysis.compare import MARKERS, Change, Comparison, MetricSamples, RuleBreach, Verdict
from ssdlab.model.run import RunRecord
from ssdlab.model.units import MB
from ssdlab.report import document as doc

FORMAT_VERSION = 1
_SCALE = {"bytes_per_s": (1 / MB, "MB/s"), "ns": (1e-3, "µs"), "iops": (1.0, "IOPS")}


def fmt_metric_value(samples: MetricSamples | None) -> str:
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


def fmt_ratio(change: Change) -> str:
    """'0.91 −' / '1.02 ~' / '—  x'; p-value when one was computed."""
    if change.ratio is None:
        return f"— {change.marker}"
    marker = "−" if change.verdict is Verdict.WORSE else change.marker
    p = "" if change.p_value is None else f" p={change.p_value:.2g}"
    return f"{change.ratio:.2f} {marker}{p}"


def _run_row(run: RunRecord) -> tuple[str, ...]:
    device = run.target.get("device")
    model = device.get("model") if isinstance(device, dict) else None
    firmware = device.get("firmware") if isinstance(device, dict) else None
    source = run.settings.get("source_tool")
    return (
        str(run.run_id),
        run.profile + (f" ({run.preset})" if run.preset else ""),
        str(model or run.settings.get("target_text") or "—"),
        str(firmware or "—"),
        str(source or "ssdlab"),
        run.target_path,
    )


def build_compare_document(
    runs: Sequence[RunRecord],
    comparisons: Sequence[Comparison],
    breaches: Sequence[RuleBreach] = (),
) -> doc.Document:
    """Runs side by side against the first (the baseline)."""
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
        row = [first.key, fmt_metric_value(first.baseline)]
        for change in found:
            row += (
                ["—", "—"]
                if change is None
                else [
                    fmt_metric_value(change.other),
                    fmt_ratio(change),
                ]
            )
        rows.append(tuple(row))
    threshold = comparisons[0].threshold_pct if comparisons else 0.0
    alpha = comparisons[0].alpha if comparisons else 0.0
    legend = (
        f"{MARKERS[Verdict.BETTER]} better / − worse: the change is larger than {threshold:g} % "
        f"and Welch's t-test on the passes gives p < {alpha:g}; "
        f"{MARKERS[Verdict.NOT_SIGNIFICANT]} not significant (smaller, or not supported by the "
        f"passes); {MARKERS[Verdict.UNTESTED]} one pass a side: the ratio stands, no "
        "significance test is possible; "
        f"{MARKERS[Verdict.MISSING]} measured in one run only. Values: mean ±CV over the "
        "passes (PTS: the last five rounds)."
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
        (legend, *like_for_like),
    )
    run_table = doc.Table(
        "Runs",
        ("run", "profile", "device", "firmware", "measured by", "target"),
        tuple(_run_row(r) for r in runs),
    )
    notes = tuple(
        f"fail: run {b.run} {b.change.key} {b.change.change_pct:+.1f} % breaks {b.rule}"
        if b.change.change_pct is not None
        else f"fail: run {b.run} has no {b.change.key} ({b.rule})"
        for b in breaches
    )
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
            doc.Section("Changes", tables=(table,), notes=notes),
        ),
        data=compare_data(runs, comparisons, breaches),
    )


def _samples_data(samples: MetricSamples | None) -> dict[str, object] | None:
    if samples is None:
        return None
    return {
        "unit": samples.unit,
        "values": list(samples.values),
        "mean": samples.mean,
        "summary": samples.summary,
    }


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
                    }
                    for c in comp.changes
                ],
            }
            for comp in comparisons
        ],
        "failures": [{"rule": str(b.rule), "run": b.run, "metric": b.change.key} for b in breaches],
    }
