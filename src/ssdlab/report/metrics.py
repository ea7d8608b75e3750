"""`ssdlab metrics`: the store's latest state as Prometheus metric families, and their text
exposition (pure).

Names follow Prometheus' conventions: base units in the name (bytes, seconds, ratio,
celsius), `_total` for counters. Every drive metric carries the labels host, serial, model
and firmware; benchmark metrics add `test`. A value that is not known has no sample at all:
a missing figure is never written as 0. docs/metrics.md describes every metric.

The text is Prometheus' text exposition format 0.0.4 exactly as prometheus-client's
`generate_latest` writes it (labels sorted by name, values as Go prints floats), written here
directly: a fleet's scrape has some 100,000 samples, which generate_latest formats in about a
second. tests/unit/test_metrics_report.py checks the text against generate_latest's."""

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

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


@dataclass(frozen=True, slots=True)
class Family:
    """One metric family: its name (a counter's without `_total`, as in Prometheus' data
    model), help, type ("gauge" or "counter"), label names, and samples as (label values in
    the order of `labels`, value)."""

    name: str
    help: str
    type: str
    labels: tuple[str, ...]
    samples: list[tuple[tuple[str, ...], float]] = field(default_factory=list)

    def add(self, values: tuple[str, ...], value: float) -> None:
        self.samples.append((values, value))


def _family(name: str, help_text: str, counter: bool, labels: Sequence[str]) -> Family:
    if counter:
        return Family(name.removesuffix("_total"), help_text, "counter", tuple(labels))
    return Family(name, help_text, "gauge", tuple(labels))


def _labels(labels: DriveLabels) -> tuple[str, str, str, str]:
    return (labels.host, labels.serial, labels.model, labels.firmware)


def drive_families(drives: Sequence[DriveState]) -> list[Family]:
    """Per drive: info, the health figures and the wear analysis."""
    info = _family("ssdlab_drive_info", "A drive ssdlab knows (always 1).", False, DRIVE_LABELS)
    labels = [_labels(drive.labels) for drive in drives]  # one label set a drive
    for values in labels:
        info.samples.append((values, 1.0))
    families = [info]
    for spec in DRIVE_SPECS:
        family = _family(spec.name, spec.help, spec.counter, DRIVE_LABELS)
        for drive, values in zip(drives, labels, strict=True):
            value = spec.value(drive)
            if value is not None:
                family.samples.append((values, value))
        families.append(family)
    families.append(_waf_family(drives))
    return families


def _waf_family(drives: Sequence[DriveState]) -> Family:
    family = _family(
        "ssdlab_drive_write_amplification",
        "NAND bytes written per host byte: over the wear analysis' last window (recent) and "
        "from the first stored sample to the latest (to_date).",
        False,
        (*DRIVE_LABELS, "window"),
    )
    for drive in drives:
        for window, value in (
            ("recent", drive.write_amplification_recent),
            ("to_date", drive.write_amplification_to_date),
        ):
            if value is not None:
                family.add((*_labels(drive.labels), window), value)
    return family


def benchmark_families(benchmarks: Sequence[BenchmarkState]) -> list[Family]:
    """Per drive and test: the latest quick run's results, and the baseline verdict."""
    labels = (*DRIVE_LABELS, "test")
    families = [_family(name, help_text, False, labels) for name, help_text, _ in BENCHMARK_SPECS]
    for bench in benchmarks:
        drive = _labels(bench.labels)
        for test in bench.tests:
            values = (*drive, test.test)  # one label set for the test's five families
            for family, (_, _, value_of) in zip(families, BENCHMARK_SPECS, strict=True):
                value = value_of(test)
                if value is not None:
                    family.samples.append((values, value))
    families.append(_regression_family(benchmarks))
    return families


def _regression_family(benchmarks: Sequence[BenchmarkState]) -> Family:
    family = _family(
        "ssdlab_benchmark_regression",
        "1 when the test was significantly worse than the drive's baseline, else 0.",
        False,
        (*DRIVE_LABELS, "test", "baseline"),
    )
    for bench in benchmarks:
        if bench.baseline is None:
            continue
        for test in bench.tests:
            if test.regression is not None:
                family.add(
                    (*_labels(bench.labels), test.test, bench.baseline),
                    1.0 if test.regression else 0.0,
                )
    return family


def endurance_families(runs: Sequence[EnduranceState]) -> list[Family]:
    """Per endurance run: how far its stop condition stands, and what it wrote."""
    labels = (*DRIVE_LABELS, "run")
    progress = _family(
        "ssdlab_endurance_progress_ratio",
        "Where the endurance run's stop condition stands, 0-1 (the nearest to stopping).",
        False,
        labels,
    )
    written = _family(
        "ssdlab_endurance_written_bytes_total", "Bytes the endurance run wrote.", True, labels
    )
    for run in runs:
        values = (*_labels(run.labels), run.run)
        if run.progress_ratio is not None:
            progress.add(values, run.progress_ratio)
        if run.written_bytes is not None:
            written.add(values, run.written_bytes)
    return [progress, written]


def metric_families(state: MetricsState) -> list[Family]:
    """Every family, in a fixed order; families without samples are kept (HELP and TYPE)."""
    return list(_families(state))


def _families(state: MetricsState) -> Iterator[Family]:
    """The families one group at a time (the text of a group is written before the next is
    built)."""
    yield from drive_families(state.drives)
    yield from benchmark_families(state.benchmarks)
    yield from endurance_families(state.endurance)


def go_float(value: float) -> str:
    """A sample value as Prometheus' Go code prints a float64 (prometheus-client's
    floatToGoString): +Inf, -Inf, NaN, Python's shortest repr, and an exponent from 1e+06 on
    where Go switches to one and Python does not yet."""
    number = value if type(value) is float else float(value)
    text = repr(number)
    dot = text.find(".")
    if dot > 6 and number > 0:
        mantissa = f"{text[0]}.{text[1:dot]}{text[dot + 1 :]}".rstrip("0.")
        return f"{mantissa}e+{dot - 1:02d}"
    if dot < 0 and text[-1] in "fn":  # repr's inf, -inf and nan
        return GO_SPECIALS[text]
    return text


GO_SPECIALS = {"inf": "+Inf", "-inf": "-Inf", "nan": "NaN"}


def _escaped(value: str) -> str:
    return value.replace("\\", r"\\").replace("\n", r"\n").replace('"', r"\"")


def _help(text: str) -> str:
    return text.replace("\\", r"\\").replace("\n", r"\n")


class _LabelTexts:
    """The `{name="value",…}` texts of the label values of one tuple of label names, sorted
    by name (a family's label names are distinct): the order found once for the names, each
    `name="value"` pair written once a scrape (hosts, models, tests repeat across drives)."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self._order = sorted(range(len(names)), key=names.__getitem__)
        self._pairs: list[tuple[str, dict[str, str]]] = [(names[i], {}) for i in self._order]

    def text(self, values: tuple[str, ...]) -> str:
        written = []
        for at, (name, pairs) in zip(self._order, self._pairs, strict=True):
            value = values[at]
            pair = pairs.get(value)
            if pair is None:
                pair = pairs[value] = f'{name}="{_escaped(value)}"'
            written.append(pair)
        return f"{{{','.join(written)}}}" if written else ""


def exposition(families: Iterable[Family]) -> str:
    """The families in Prometheus' text exposition format 0.0.4: per family `# HELP` and
    `# TYPE` (a counter named with `_total`), then one line per sample with its labels sorted
    by name."""
    # a drive's label values are one tuple in all its families, a test's in its five: each
    # set is written once (kept with the tuple, so that its id is not another's meanwhile)
    texts: dict[tuple[str, ...], tuple[_LabelTexts, dict[int, tuple[tuple[str, ...], str]]]] = {}
    numbers = _Numbers()
    out: list[str] = []  # a family's text at a time: not a string of each line kept to the end
    for family in families:
        name = f"{family.name}_total" if family.type == "counter" else family.name
        names = family.labels
        if names not in texts:
            texts[names] = (_LabelTexts(names), {})
        labels, written = texts[names]
        for values, _ in family.samples:
            if id(values) not in written:
                written[id(values)] = (values, labels.text(values))
        known, number = numbers.get, numbers.text
        out.append(f"# HELP {name} {_help(family.help)}\n# TYPE {name} {family.type}\n")
        out.append(
            "".join(
                [f"{name}{written[id(v)][1]} {known(x) or number(x)}\n" for v, x in family.samples]
            )
        )
    return "".join(out)


class _Numbers(dict[float, str]):
    """`go_float` of each value, each distinct value formatted once a scrape (a fleet's
    figures repeat: 0/1 flags, a run's timestamp in each test, models' capacities). Zero is
    formatted each time: 0.0 and -0.0 are one key and two texts."""

    def text(self, value: float) -> str:
        found = self.get(value)
        if found is None:
            found = go_float(value)
            if value:
                self[value] = found
        return found


def metrics_text(state: MetricsState) -> str:
    """The state in Prometheus' text exposition format (what node_exporter's textfile
    collector reads)."""
    return exposition(_families(state))
