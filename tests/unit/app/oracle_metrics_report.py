"""The oracle of tests/unit/app/test_metrics_oracle.py: report/metrics.py of commit bd33ceb,
kept here verbatim (only this docstring is new): the metric families of a state, formatted by
prometheus-client's generate_latest."""

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import astuple, dataclass

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector, CollectorRegistry

from ssdlab.model.metrics import (
    BenchmarkState,
    BenchmarkTest,
    DriveLabels,
    DriveState,
    EnduranceState,
    MetricsState,
)

SECONDS_PER_DAY = 86400.0

DRIVE_LABELS = ("host", "serial", "model", "firmware")


@dataclass(frozen=True, slots=True)
class _Spec:
    """One metric: its name (counters with `_total`), help, type, and where its value is."""

    name: str
    help: str
    counter: bool
    value: Callable[[DriveState], float | None]


DRIVE_SPECS: tuple[_Spec, ...] = (
    _Spec("ssdlab_drive_capacity_bytes", "User capacity of the drive.", False,
          lambda d: d.capacity_bytes),
    _Spec("ssdlab_drive_temperature_celsius", "Drive temperature in the latest sample.", False,
          lambda d: d.temperature_celsius),
    _Spec("ssdlab_drive_temperature_warning_celsius",
          "The drive's own warning temperature threshold (NVMe WCTEMP).", False,
          lambda d: d.temperature_warning_celsius),
    _Spec("ssdlab_drive_power_on_seconds", "Power-on time (power-on hours x 3600).", False,
          lambda d: d.power_on_seconds),
    _Spec("ssdlab_drive_host_written_bytes_total", "Bytes the host wrote to the drive.", True,
          lambda d: d.host_written_bytes),
    _Spec("ssdlab_drive_nand_written_bytes_total", "Bytes the drive wrote to its NAND.", True,
          lambda d: d.nand_written_bytes),
    _Spec("ssdlab_drive_wear_used_ratio",
          "Rated life used, 0 new to 1 at the rated end of life (may exceed 1).", False,
          lambda d: d.wear_used_ratio),
    _Spec("ssdlab_drive_available_spare_ratio", "Spare blocks left, 0-1.", False,
          lambda d: d.available_spare_ratio),
    _Spec("ssdlab_drive_available_spare_threshold_ratio",
          "The drive's own spare threshold, 0-1.", False,
          lambda d: d.available_spare_threshold_ratio),
    _Spec("ssdlab_drive_wear_rate_ratio_per_day", "Fitted wear rate, ratio of life per day.",
          False, lambda d: d.wear_rate_ratio_per_day),
    _Spec("ssdlab_drive_end_of_life_seconds",
          "Time from the latest sample to the rated end of life at the fitted wear rate.", False,
          lambda d: None if d.end_of_life_days is None else d.end_of_life_days * SECONDS_PER_DAY),
    _Spec("ssdlab_drive_end_of_life_error_ratio",
          "Relative error of the wear rate behind end_of_life_seconds (counter quantisation).",
          False, lambda d: d.end_of_life_error_ratio),
    _Spec("ssdlab_drive_rated_written_bytes", "Rated endurance (TBW) in bytes.", False,
          lambda d: d.rated_written_bytes),
    _Spec("ssdlab_drive_media_errors_total", "Media and data integrity errors.", True,
          lambda d: d.media_errors),
    _Spec("ssdlab_drive_uncorrectable_errors_total", "Uncorrectable errors.", True,
          lambda d: d.uncorrectable_errors),
    _Spec("ssdlab_drive_error_log_entries_total", "Error information log entries.", True,
          lambda d: d.error_log_entries),
    _Spec("ssdlab_drive_critical_warning", "NVMe critical warning bit field (0: none).", False,
          lambda d: d.critical_warning),
    _Spec("ssdlab_drive_sample_timestamp_seconds",
          "Unix time of the latest health sample.", False,
          lambda d: d.sample_timestamp_seconds),
)  # fmt: skip

BENCHMARK_SPECS: tuple[tuple[str, str, Callable[[BenchmarkTest], float | None]], ...] = (
    ("ssdlab_benchmark_throughput_bytes_per_second",
     "Throughput of the test in the drive's latest quick run (mean of its passes).",
     lambda t: t.throughput_bytes_per_second),
    ("ssdlab_benchmark_iops", "I/O operations per second (mean of the passes).",
     lambda t: t.iops),
    ("ssdlab_benchmark_latency_mean_seconds", "Mean total latency (mean of the passes).",
     lambda t: t.latency_mean_seconds),
    ("ssdlab_benchmark_latency_p99_seconds",
     "99th percentile completion latency (mean of the passes).",
     lambda t: t.latency_p99_seconds),
    ("ssdlab_benchmark_timestamp_seconds", "Unix time the quick run finished.",
     lambda t: t.timestamp_seconds),
)  # fmt: skip


def _labels(labels: DriveLabels) -> list[str]:
    return [str(part) for part in astuple(labels)]


def _family(
    name: str, help_text: str, counter: bool, labels: Sequence[str]
) -> GaugeMetricFamily | CounterMetricFamily:
    if counter:
        return CounterMetricFamily(name, help_text, labels=labels)
    return GaugeMetricFamily(name, help_text, labels=labels)


def drive_families(drives: Sequence[DriveState]) -> list[Metric]:
    """Per drive: info, the health figures and the wear analysis."""
    info = GaugeMetricFamily("ssdlab_drive_info", "A drive ssdlab knows (always 1).",
                             labels=DRIVE_LABELS)  # fmt: skip
    for drive in drives:
        info.add_metric(_labels(drive.labels), 1.0)
    families: list[Metric] = [info]
    for spec in DRIVE_SPECS:
        family = _family(spec.name, spec.help, spec.counter, DRIVE_LABELS)
        for drive in drives:
            value = spec.value(drive)
            if value is not None:
                family.add_metric(_labels(drive.labels), value)
        families.append(family)
    families.append(_waf_family(drives))
    return families


def _waf_family(drives: Sequence[DriveState]) -> Metric:
    family = GaugeMetricFamily(
        "ssdlab_drive_write_amplification",
        "NAND bytes written per host byte: over the wear analysis' last window (recent) and "
        "from the first stored sample to the latest (to_date).",
        labels=(*DRIVE_LABELS, "window"),
    )
    for drive in drives:
        for window, value in (
            ("recent", drive.write_amplification_recent),
            ("to_date", drive.write_amplification_to_date),
        ):
            if value is not None:
                family.add_metric([*_labels(drive.labels), window], value)
    return family


def benchmark_families(benchmarks: Sequence[BenchmarkState]) -> list[Metric]:
    """Per drive and test: the latest quick run's results, and the baseline verdict."""
    labels = (*DRIVE_LABELS, "test")
    families: list[Metric] = []
    for name, help_text, value_of in BENCHMARK_SPECS:
        family = GaugeMetricFamily(name, help_text, labels=labels)
        for bench in benchmarks:
            for test in bench.tests:
                value = value_of(test)
                if value is not None:
                    family.add_metric([*_labels(bench.labels), test.test], value)
        families.append(family)
    families.append(_regression_family(benchmarks))
    return families


def _regression_family(benchmarks: Sequence[BenchmarkState]) -> Metric:
    family = GaugeMetricFamily(
        "ssdlab_benchmark_regression",
        "1 when the test was significantly worse than the drive's baseline, else 0.",
        labels=(*DRIVE_LABELS, "test", "baseline"),
    )
    for bench in benchmarks:
        if bench.baseline is None:
            continue
        for test in bench.tests:
            if test.regression is not None:
                family.add_metric(
                    [*_labels(bench.labels), test.test, bench.baseline],
                    1.0 if test.regression else 0.0,
                )
    return family


def endurance_families(runs: Sequence[EnduranceState]) -> list[Metric]:
    """Per endurance run: how far its stop condition stands, and what it wrote."""
    labels = (*DRIVE_LABELS, "run")
    progress = GaugeMetricFamily(
        "ssdlab_endurance_progress_ratio",
        "Where the endurance run's stop condition stands, 0-1 (the nearest to stopping).",
        labels=labels,
    )
    written = CounterMetricFamily(
        "ssdlab_endurance_written_bytes_total", "Bytes the endurance run wrote.", labels=labels
    )
    for run in runs:
        values = [*_labels(run.labels), run.run]
        if run.progress_ratio is not None:
            progress.add_metric(values, run.progress_ratio)
        if run.written_bytes is not None:
            written.add_metric(values, run.written_bytes)
    return [progress, written]


def metric_families(state: MetricsState) -> list[Metric]:
    """Every family, in a fixed order; families without samples are kept (HELP and TYPE)."""
    return [
        *drive_families(state.drives),
        *benchmark_families(state.benchmarks),
        *endurance_families(state.endurance),
    ]


class _StateCollector(Collector):
    def __init__(self, families: Iterable[Metric]) -> None:
        self._families = list(families)

    def collect(self) -> Iterator[Metric]:
        return iter(self._families)


def metrics_text(state: MetricsState) -> str:
    """The state in Prometheus' text exposition format (what node_exporter's textfile
    collector reads), formatted by prometheus-client."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_StateCollector(metric_families(state)))
    return generate_latest(registry).decode("utf-8")
