"""report/metrics.py: metric families from hand-made states — names, types, labels, units,
and unknown figures absent (never 0) — and their text, byte for byte what prometheus-client's
generate_latest writes for the same families."""

import math
from collections.abc import Iterator, Sequence

from hypothesis import given
from hypothesis import strategies as st
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import generate_latest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import Collector, CollectorRegistry
from prometheus_client.utils import floatToGoString

from ssdlab.model.metrics import (
    BenchmarkState,
    BenchmarkTest,
    DriveLabels,
    DriveState,
    EnduranceState,
    MetricsState,
)
from ssdlab.report.metrics import Family, exposition, go_float, metric_families, metrics_text

LABELS = DriveLabels(host="lab1", serial="S3Z", model="Samsung SSD 970 EVO 500GB", firmware="2B2Q")
DRIVE_LABELS = {"host": "lab1", "serial": "S3Z", "model": "Samsung SSD 970 EVO 500GB",
                "firmware": "2B2Q"}  # fmt: skip


def _samples(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Sample name -> (labels, value) of every sample of a text exposition."""
    found: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found.setdefault(sample.name, []).append((dict(sample.labels), sample.value))
    return found


def _types(text: str) -> dict[str, str]:
    return {f.name: f.type for f in text_string_to_metric_families(text)}


def test_a_drive_with_everything_known_has_every_drive_metric() -> None:
    drive = DriveState(
        labels=LABELS, capacity_bytes=500107862016, temperature_celsius=41.0,
        temperature_warning_celsius=85.0, power_on_seconds=3600.0 * 1234,
        host_written_bytes=1.5e13, nand_written_bytes=3.0e13, wear_used_ratio=0.07,
        available_spare_ratio=1.0, available_spare_threshold_ratio=0.1,
        write_amplification_recent=2.5, write_amplification_to_date=2.0,
        wear_rate_ratio_per_day=0.0001, end_of_life_days=9300.0, end_of_life_error_ratio=0.25,
        rated_written_bytes=3e14, media_errors=0.0, uncorrectable_errors=2.0,
        error_log_entries=17.0, critical_warning=0.0, sample_timestamp_seconds=1.7e9,
    )  # fmt: skip
    text = metrics_text(MetricsState(drives=(drive,)))
    samples = _samples(text)
    expected = {
        "ssdlab_drive_info": 1.0,
        "ssdlab_drive_capacity_bytes": 500107862016,
        "ssdlab_drive_temperature_celsius": 41.0,
        "ssdlab_drive_temperature_warning_celsius": 85.0,
        "ssdlab_drive_power_on_seconds": 3600.0 * 1234,
        "ssdlab_drive_host_written_bytes_total": 1.5e13,
        "ssdlab_drive_nand_written_bytes_total": 3.0e13,
        "ssdlab_drive_wear_used_ratio": 0.07,
        "ssdlab_drive_available_spare_ratio": 1.0,
        "ssdlab_drive_available_spare_threshold_ratio": 0.1,
        "ssdlab_drive_wear_rate_ratio_per_day": 0.0001,
        "ssdlab_drive_end_of_life_seconds": 9300.0 * 86400,
        "ssdlab_drive_end_of_life_error_ratio": 0.25,
        "ssdlab_drive_rated_written_bytes": 3e14,
        "ssdlab_drive_media_errors_total": 0.0,
        "ssdlab_drive_uncorrectable_errors_total": 2.0,
        "ssdlab_drive_error_log_entries_total": 17.0,
        "ssdlab_drive_critical_warning": 0.0,
        "ssdlab_drive_sample_timestamp_seconds": 1.7e9,
    }
    for name, value in expected.items():
        assert samples[name] == [(DRIVE_LABELS, value)], name
    waf = {labels["window"]: value for labels, value in samples["ssdlab_drive_write_amplification"]}
    assert waf == {"recent": 2.5, "to_date": 2.0}
    types = _types(text)
    assert types["ssdlab_drive_host_written_bytes"] == "counter"
    assert types["ssdlab_drive_media_errors"] == "counter"
    assert types["ssdlab_drive_temperature_celsius"] == "gauge"


def test_unknown_figures_have_no_sample_not_zero() -> None:
    text = metrics_text(MetricsState(drives=(DriveState(labels=LABELS),)))
    samples = _samples(text)
    assert list(samples) == ["ssdlab_drive_info"]  # only the drive's existence is known
    assert "# HELP ssdlab_drive_temperature_celsius" in text  # the family is still described
    # zero is a real value when it is known
    known = metrics_text(MetricsState(drives=(DriveState(labels=LABELS, critical_warning=0.0),)))
    assert _samples(known)["ssdlab_drive_critical_warning"] == [(DRIVE_LABELS, 0.0)]


def test_benchmark_metrics_per_test_and_regression_only_when_judged() -> None:
    tests = (
        BenchmarkTest("seq1m-q8t1-read", 3.2e9, 3052.0, 2.6e-3, 4.1e-3, 1.7e9, regression=True),
        BenchmarkTest("rnd4k-q1t1-read", 6.0e7, 14648.0, 6.8e-5, None, 1.7e9, regression=False),
        BenchmarkTest("rnd4k-q1t1-mix", 5.0e7, None, None, None, 1.7e9),
    )
    judged = BenchmarkState(LABELS, run_id=4, tests=tests, baseline="nightly")
    other = DriveLabels("lab2", "X1", "M", "F")
    unjudged = BenchmarkState(other, run_id=5, tests=tests[:1])
    samples = _samples(metrics_text(MetricsState(benchmarks=(judged, unjudged))))
    throughput = samples["ssdlab_benchmark_throughput_bytes_per_second"]
    assert (DRIVE_LABELS | {"test": "seq1m-q8t1-read"}, 3.2e9) in throughput
    assert len(throughput) == 4
    assert len(samples["ssdlab_benchmark_iops"]) == 3  # the mix test's IOPS unknown: absent
    assert samples["ssdlab_benchmark_latency_p99_seconds"] == [
        (DRIVE_LABELS | {"test": "seq1m-q8t1-read"}, 4.1e-3),
        ({"host": "lab2", "serial": "X1", "model": "M", "firmware": "F",
          "test": "seq1m-q8t1-read"}, 4.1e-3),
    ]  # fmt: skip
    regression = {
        (labels["test"], labels["baseline"]): value
        for labels, value in samples["ssdlab_benchmark_regression"]
    }
    # the unjudged drive and the test without a verdict have no sample
    assert regression == {("seq1m-q8t1-read", "nightly"): 1.0, ("rnd4k-q1t1-read", "nightly"): 0.0}


def test_endurance_progress_and_written_bytes() -> None:
    runs = (
        EnduranceState(LABELS, run="12", progress_ratio=0.4, written_bytes=8.0e12),
        EnduranceState(LABELS, run="13"),
    )
    samples = _samples(metrics_text(MetricsState(endurance=runs)))
    assert samples["ssdlab_endurance_progress_ratio"] == [(DRIVE_LABELS | {"run": "12"}, 0.4)]
    assert samples["ssdlab_endurance_written_bytes_total"] == [
        (DRIVE_LABELS | {"run": "12"}, 8.0e12)
    ]


def test_every_family_is_described_even_when_empty() -> None:
    names = {family.name for family in metric_families(MetricsState())}
    assert {
        "ssdlab_drive_info", "ssdlab_drive_end_of_life_seconds", "ssdlab_drive_write_amplification",
        "ssdlab_benchmark_regression", "ssdlab_endurance_progress_ratio",
        "ssdlab_endurance_written_bytes", "ssdlab_drive_host_written_bytes",
    } <= names  # fmt: skip


def test_label_values_are_escaped() -> None:
    odd = DriveLabels(host="h", serial='a"b\\c', model="line\nbreak", firmware="")
    samples = _samples(metrics_text(MetricsState(drives=(DriveState(labels=odd),))))
    assert samples["ssdlab_drive_info"] == [
        ({"host": "h", "serial": 'a"b\\c', "model": "line\nbreak", "firmware": ""}, 1.0)
    ]


class _Families(Collector):
    def __init__(self, families: Sequence[Metric]) -> None:
        self._families = families

    def collect(self) -> Iterator[Metric]:
        return iter(self._families)


def prometheus_text(families: Sequence[Family]) -> str:
    """The families as prometheus-client builds and writes them."""
    built: list[Metric] = []
    for family in families:
        kind = CounterMetricFamily if family.type == "counter" else GaugeMetricFamily
        metric = kind(family.name, family.help, labels=family.labels)
        for values, value in family.samples:
            metric.add_metric(list(values), value)
        built.append(metric)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Families(built))
    return generate_latest(registry).decode("utf-8")


def _every_state() -> MetricsState:
    drive = DriveState(
        labels=LABELS, capacity_bytes=500107862016, temperature_celsius=41.0,
        power_on_seconds=3600.0 * 1234, host_written_bytes=1.5e13, wear_used_ratio=0.07,
        write_amplification_recent=2.5, write_amplification_to_date=2.0,
        end_of_life_days=9300.0, critical_warning=0.0, sample_timestamp_seconds=1.7e9,
    )  # fmt: skip
    odd = DriveState(labels=DriveLabels("h", 'a"b\\c', "line\nbreak", ""), media_errors=3.0)
    tests = (
        BenchmarkTest("seq1m-q8t1-read", 3.2e9, 3052.0, 2.6e-3, 4.1e-3, 1.7e9, regression=True),
        BenchmarkTest("rnd4k-q1t1-mix", 5.0e7, None, None, None, 1.7e9),
    )
    return MetricsState(
        drives=(drive, odd),
        benchmarks=(BenchmarkState(LABELS, run_id=4, tests=tests, baseline="nightly"),),
        endurance=(EnduranceState(LABELS, run="12", progress_ratio=0.4, written_bytes=8.0e12),),
    )


def test_the_text_is_what_prometheus_client_writes() -> None:
    for state in (MetricsState(), _every_state()):
        families = metric_families(state)
        assert metrics_text(state) == prometheus_text(families)


@given(
    st.lists(
        st.tuples(st.text(max_size=12), st.text(max_size=12), st.floats(allow_nan=True)),
        max_size=6,
    ),
    st.booleans(),
)
def test_any_labels_and_values_are_written_as_prometheus_client_writes_them(
    samples: list[tuple[str, str, float]], counter: bool
) -> None:
    family = Family(
        "ssdlab_test_total" if counter else "ssdlab_test",
        'help with a \\ backslash\nand a "quote"',
        "counter" if counter else "gauge",
        ("zeta", "alpha"),
    )
    for zeta, alpha, value in samples:
        family.add((zeta, alpha), value)
    families = [Family(family.name.removesuffix("_total"), family.help, family.type,
                       family.labels, family.samples)]  # fmt: skip
    assert exposition(families) == prometheus_text(families)


@given(st.floats(allow_nan=True, allow_infinity=True) | st.integers(-(2**70), 2**70))
def test_values_are_written_as_go_writes_floats(value: float) -> None:
    assert go_float(value) == floatToGoString(value)
    if not math.isnan(float(value)):
        assert float(go_float(value).replace("+Inf", "inf").replace("-Inf", "-inf")) == float(value)
