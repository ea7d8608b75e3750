"""The report and compare documents over fixed runs built from real fio captures: Markdown and
terminal output pinned as golden files; the HTML self-contained and deterministic."""

import base64
import dataclasses
import io
import re

from rich.console import Console

from ssdlab.analysis.compare import check_fail_rules, compare_runs, parse_fail_rule
from ssdlab.analysis.run_metrics import step_metrics
from ssdlab.cli.render import print_document
from ssdlab.model.step import StepResult
from ssdlab.report.compare import build_compare_document
from ssdlab.report.document import Document, render_markdown
from ssdlab.report.html import ReportPart, render_html, render_markdown_report
from ssdlab.report.quick import build_quick_report
from ssdlab.report.quick_document import build_quick_document
from ssdlab.report.spec_claims import spec_sections
from ssdlab.specs import load_builtin_spec_sheets
from tests.conftest import assert_golden
from tests.unit.report.test_exports_golden import GOLDEN, fixture_run, fixture_steps


def second_run_steps() -> list[StepResult]:
    """The same tests: random reads 40 % slower in every pass, the mix 20 % slower, the
    sequential writes 1 % faster."""
    scales = {"rnd4k-q32t1-read": 0.6, "rnd4k-q32t1-mix": 0.8}
    steps = []
    for step in fixture_steps():
        scale = scales.get(step.step_key, 1.01)
        steps.append(
            dataclasses.replace(
                step, bw_bytes_per_s=step.bw_bytes_per_s * scale, iops=step.iops * scale
            )
        )
    return steps


def compare_document() -> Document:
    base, other = fixture_run(), dataclasses.replace(fixture_run(), run_id=8)
    comparison = compare_runs(7, step_metrics(fixture_steps()), 8, step_metrics(second_run_steps()))
    breaches, _ = check_fail_rules([comparison], [parse_fail_rule("rnd4k-*-read:-5%")])
    return build_compare_document([base, other], [comparison], breaches)


def test_compare_markdown_and_terminal_golden(update_golden: bool) -> None:
    document = compare_document()
    assert_golden(GOLDEN / "compare.md", render_markdown(document), update_golden)
    buffer = io.StringIO()
    print_document(Console(file=buffer, width=140, color_system=None), document)
    assert_golden(GOLDEN / "compare.txt", buffer.getvalue(), update_golden)


def test_compare_flags_only_the_real_change() -> None:
    data = compare_document().data
    verdicts = {c["metric"]: c["verdict"] for c in data["comparisons"][0]["changes"]}
    # two measured passes a side, 10 % apart: a 40 % fall is supported (p = 0.037), a 20 %
    # fall is not (p = 0.10), and a 1 % rise is below the threshold
    assert verdicts["rnd4k-q32t1-read"] == "worse"
    assert verdicts["rnd4k-q32t1-mix"] == "not significant"
    assert verdicts["seq1m-q1t1-write"] == "not significant"
    assert data["failures"] == [
        {"rule": "rnd4k-*-read:-5%", "run": 8, "metric": "rnd4k-q32t1-read"}
    ]


def report_part() -> ReportPart:
    run = fixture_run()
    device = {
        "model": "Samsung SSD 970 EVO 500GB",
        "capacity_bytes": 500107862016,
        "path": "/dev/nvme0n1",
    }
    run = dataclasses.replace(run, target={**run.target, "device": device})
    report = build_quick_report(run, fixture_steps())
    document = build_quick_document(report, extra=spec_sections(report, load_builtin_spec_sheets()))
    return ReportPart(
        "run-7",
        document,
        job_files=(("capture 1", "[global]\nioengine=libaio\n\n[seq1m-q1t1-write]\nrw=write\n"),),
        provenance=(("run id", "7"), ("recorded by", "ssdlab 0.1.0")),
    )


def test_report_markdown_golden(update_golden: bool) -> None:
    text = render_markdown_report(
        "ssdlab report: run 7",
        [report_part()],
        provenance=(("written by", "ssdlab 0.1.0"),),
        draw=lambda chart: f"<svg><title>{chart.key}</title></svg>",
    )
    assert_golden(GOLDEN / "report.md", text, update_golden)
    svg = base64.b64encode(b"<svg><title>quick-bars</title></svg>").decode()
    assert f"![Best pass per test](data:image/svg+xml;base64,{svg})" in text
    assert "Against the spec sheet" in text
    assert "samsung-970-evo-500gb" in text


def test_html_is_self_contained_and_deterministic() -> None:
    part = report_part()
    first = render_html("ssdlab report: run 7", [part])
    assert first == render_html("ssdlab report: run 7", [part])
    markup = re.sub(r"<script>.*?</script>", "", first, flags=re.DOTALL)  # the chart library
    assert re.search(r"(src|href)=['\"](?!data:|#)", markup) is None  # nothing to fetch
    assert first.count("window.vegaEmbed=") == 1  # the chart library once, however many charts
    specs = re.findall(r"<script type='application/json' class='chart-spec'>", first)
    images = re.findall(r"<noscript><img src='data:image/svg\+xml;base64,", first)
    assert len(specs) == len(images) == len(part.document.charts) >= 3
    assert "<details><summary>capture 1</summary><pre>[global]" in first


def test_spec_claims_pick_the_closest_test() -> None:
    section = report_part().document.sections
    claims = next(s for s in section if s.title == "Against the spec sheet")
    rows = {row[0]: row for row in claims.tables[0].rows}
    # the fixture has no sequential read and random reads only at QD32 T1
    assert rows["sequential read"][2] == "not run"
    assert rows["sequential write"][3] == "SEQ1M Q1T1"
    assert rows["random read"][3] == "RND4K Q32T1"
    assert rows["random read"][1] == "370,000 IOPS (4 KiB, QD32 T4)"
