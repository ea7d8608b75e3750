"""The metrics a run is compared by, with every sample behind them.

Each stored test (step key) gives two metrics: its throughput (`<key>`, MB/s, higher is better)
and its mean latency (`<key>-lat`, lower is better). The samples are the measured passes of a
quick run (the warm-up pass is not counted), or the last `window` rounds of a profile step
that ran in rounds: with the SNIA PTS's five-round measurement window, the rounds the
steady-state average is taken over. A step that ran once gives one sample.
"""

from collections.abc import Sequence
from dataclasses import replace

from ssdlab.analysis.compare import MetricSamples
from ssdlab.model.run import RunKind
from ssdlab.model.step import StepResult

PTS_WINDOW_ROUNDS = 5


def step_metrics(
    steps: Sequence[StepResult], *, window: int | None = None
) -> tuple[MetricSamples, ...]:
    """Throughput and latency metrics of every measured step, in the order they first ran."""
    grouped: dict[str, list[StepResult]] = {}
    for step in steps:
        if not step.discarded:
            grouped.setdefault(step.step_key, []).append(step)
    metrics: list[MetricSamples] = []
    for key, group in grouped.items():
        group.sort(key=lambda s: s.round_index)
        if window is not None:
            group = group[-window:]
        label = f"{group[0].step_label} {group[0].direction}"
        metrics.append(
            MetricSamples(key, label, "bytes_per_s", True, tuple(s.bw_bytes_per_s for s in group))
        )
        latencies = tuple(s.lat_mean_ns for s in group if s.lat_mean_ns is not None)
        if len(latencies) == len(group):
            metrics.append(MetricSamples(f"{key}-lat", f"{label} latency", "ns", False, latencies))
    return tuple(metrics)


def kept_figure(kind: str, profile: str, source_tool: object, preset: object) -> str | None:
    """Which summary of its passes a run kept, when it did not keep them all: a CrystalDiskMark
    import (and ssdlab's CrystalDiskMark-layout export) holds the best pass of each test,
    KDiskMark's Default profile the mean over its loops and its other profiles the best loop.
    None for ssdlab's own runs, fio JSON, AS SSD Benchmark and Iometer (one run of each test:
    every pass that ran is there)."""
    if kind != RunKind.IMPORT or profile != "quick":
        return None
    source = str(source_tool or "")
    if source.startswith("KDiskMark"):
        return "mean" if str(preset or "Default").lower() == "default" else "best"
    if source.startswith(("AS SSD", "Iometer")):
        return None
    return "best"


def with_kept_figure(
    metrics: Sequence[MetricSamples], summary: str | None
) -> tuple[MetricSamples, ...]:
    """The metrics marked with the summary their single value is (see `kept_figure`)."""
    return tuple(replace(m, summary=summary) for m in metrics)
