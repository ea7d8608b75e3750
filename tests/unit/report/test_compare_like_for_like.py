"""The compare document when a side kept only its best pass (a CrystalDiskMark import): the
table says what was compared, and one pass a side is 'untested', with its ratio."""

import dataclasses

from ssdlab.analysis.compare import MetricSamples, compare_runs
from ssdlab.report.compare import build_compare_document, format_metric_value
from ssdlab.report.document import render_markdown
from tests.unit.report.test_exports_golden import fixture_run


def _mbps(*values: float, summary: str | None = None) -> MetricSamples:
    return MetricSamples("seq1m-q1t1-read", "SEQ1M Q1T1 read", "bytes_per_s", True, values, summary)


def test_best_pass_rows_and_note() -> None:
    imported = _mbps(371.158e6, summary="best")
    quick = _mbps(1800e6, 2100e6, 1900e6)
    comparison = compare_runs(1, [imported], 2, [quick])
    base, other = fixture_run(), dataclasses.replace(fixture_run(), run_id=2)
    document = build_compare_document([base, other], [comparison])
    text = render_markdown(document)
    assert "(best pass)" in text
    assert "best pass with best pass" in text
    assert "1 untested (one pass a side, no significance test possible)" in text
    assert "cannot tell" not in text
    assert "None" not in text
    change = document.data["comparisons"][0]["changes"][0]
    assert change["basis"] == "best"
    assert change["verdict"] == "untested"
    assert abs(change["ratio"] - 2100 / 371.158) < 1e-9


def test_metric_value_says_which_figure() -> None:
    assert format_metric_value(_mbps(2e8, summary="best")) == "200.0 MB/s (best pass)"
    assert format_metric_value(_mbps(2e8, summary="mean")) == "200.0 MB/s (mean)"
    assert format_metric_value(_mbps(2e8, 2e8)).endswith("n=2")
