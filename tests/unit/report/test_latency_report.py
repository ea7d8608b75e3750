"""The latency-log document: its charts keep the chart rules, averaged logs are labelled in the
table's title and notes, and an imported run's sections are named per log kind."""

from pathlib import Path

from ssdlab.model.units import format_latency
from ssdlab.report.chart_rules import chart_problems
from ssdlab.report.latency import (
    imported_latency_sections,
    latency_log_data,
    latency_log_document,
)
from ssdlab.runner.latency_logs import reduce_latency_logs
from tests.conftest import ROOT

LOGS = ROOT / "tests" / "data" / "fio" / "logs"


def _data(*paths: Path) -> dict[str, object]:
    return latency_log_data(reduce_latency_logs(list(paths), "python"))


def test_every_chart_keeps_the_chart_rules() -> None:
    for paths in (
        [LOGS / "per-io" / "job_lat.1.log", LOGS / "per-io" / "job_lat.2.log"],
        [LOGS / "per-io" / "off_lat.1.log"],
        [LOGS / "avg" / "avg_lat.1.log"],
    ):
        document = latency_log_document(_data(*paths))
        assert len(document.charts) == 4
        for chart in document.charts:
            assert chart_problems(chart) == (), chart.key


def test_averaged_logs_say_so_in_the_table_and_notes() -> None:
    document = latency_log_document(_data(LOGS / "avg" / "avg_lat.1.log"))
    first = document.sections[0]
    assert first.tables[0].title == "LAT percentiles (of window means)"
    assert any("percentiles of means" in note for note in first.notes)
    assert [row[0] for row in first.tables[0].rows][:3] == ["I/Os", "mean", "p50"]


def test_an_imported_run_gets_sections_per_log_kind() -> None:
    data = _data(LOGS / "per-io" / "job_clat.1.log")
    sections = imported_latency_sections({"latency_logs": {"clat": data}})
    assert [s.title for s in sections] == [
        "CLAT latency percentiles (from the job's logs)",
        "CLAT latency histogram (from the job's logs)",
        "CLAT latency per second (from the job's logs)",
    ]
    assert {c.key for s in sections for c in s.charts} >= {"latency-log-clat-percentiles"}
    assert imported_latency_sections({}) == ()


def test_latencies_read_in_human_units() -> None:
    assert [format_latency(v) for v in (850, 123_400, 12_340_000, 1_250_000_000, None)] == [
        "850 ns",
        "123.4 µs",
        "12.34 ms",
        "1.250 s",
        "n/a",
    ]
