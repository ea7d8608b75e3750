"""Every exporter over a fixed run built from real fio captures, pinned as golden files."""

import csv
import io
import json

import pytest

from ssdlab.analysis.passes import pass_metrics
from ssdlab.model.run import RunKind, RunRecord, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.target import TargetKind
from ssdlab.parse.fio_json import parse_fio_json
from ssdlab.report.export import EXPORTERS, report_document
from ssdlab.report.quick import build_quick_report
from tests.conftest import ROOT, assert_golden

FIO = ROOT / "tests" / "data" / "fio"
GOLDEN = ROOT / "tests" / "golden" / "report"

# (capture, label, direction); each capture stands for a warm-up and two measured passes
CASES = [
    ("seqwrite-1m.json", "SEQ1M Q1T1", "write"),
    ("randread-4k-qd32.json", "RND4K Q32T1", "read"),
    ("randrw-70-30.json", "RND4K Q32T1", "mix"),
]


def fixture_steps() -> list[StepResult]:
    steps = []
    for name, label, direction in CASES:
        metrics = pass_metrics(parse_fio_json((FIO / name).read_text()))
        key = f"{label.split()[0].lower()}-{label.split()[1].lower()}-{direction}"
        for index, scale in enumerate((0.5, 1.0, 0.9)):
            steps.append(
                StepResult(
                    step_key=key,
                    step_label=label,
                    direction=direction,
                    round_index=index,
                    discarded=index == 0,
                    bw_bytes_per_s=metrics.bw_bytes_per_s * scale,
                    iops=metrics.iops * scale,
                    lat_mean_ns=metrics.lat_mean_ns,
                    read=metrics.read,
                    write=metrics.write,
                )
            )
    return steps


def fixture_run() -> RunRecord:
    return RunRecord(
        run_id=7,
        kind=RunKind.QUICK,
        profile="quick",
        profile_version=1,
        preset="default",
        status=RunStatus.COMPLETE,
        status_reason=None,
        target_kind=TargetKind.FILE,
        target_path="/srv/ssd/ssdlab-0123456789ab.tmp",
        target={"kind": "file", "path": "/srv/ssd/ssdlab-0123456789ab.tmp"},
        settings={
            "preset": "default",
            "size_bytes": 2**30,
            "count": 2,
            "measure_s": 5.0,
            "interval_s": 5.0,
            "mode": "read,write,mix",
            "mix_read_pct": 70,
            "data": "random",
            "ioengine": "libaio",
            "direct_io": True,
        },
        plan={},
        environment={"fio_version": "fio-3.33", "kernel": "6.1.0", "os_release": "Debian 12"},
        started_at_s=1_790_000_000.0,
        ended_at_s=1_790_000_100.0,
        host="bench",
        pid=1,
        boot_id=None,
    )


REPORT = build_quick_report(fixture_run(), fixture_steps())
SUFFIX = {"json": "json", "csv": "csv", "md": "md", "cdm": "txt"}


@pytest.mark.parametrize("fmt", sorted(EXPORTERS))
def test_export_matches_golden(fmt: str, update_golden: bool) -> None:
    text = EXPORTERS[fmt](REPORT)
    assert_golden(GOLDEN / f"quick.{SUFFIX[fmt]}", text, update_golden)


def test_json_document_is_versioned_and_complete() -> None:
    doc = json.loads(EXPORTERS["json"](REPORT))
    assert doc["format"] == "ssdlab-run"
    assert doc["format_version"] == 1
    assert len(doc["passes"]) == 9
    assert len(doc["tests"]) == 3
    assert doc == json.loads(json.dumps(report_document(REPORT)))


def test_csv_mb_per_s_is_decimal() -> None:
    rows = list(csv.DictReader(io.StringIO(EXPORTERS["csv"](REPORT))))
    for row in rows:
        assert float(row["mb_per_s"]) == pytest.approx(float(row["bw_bytes_per_s"]) / 1e6, abs=1e-3)


def test_cdm_layout_lines() -> None:
    text = EXPORTERS["cdm"](REPORT)
    assert "[Mix] Read 70%/Write 30%" in text
    assert "  SEQ    1MiB (Q=  1, T= 1):" in text
    assert "  RND    4KiB (Q= 32, T= 1):" in text
    assert "Time: Measure 5 sec / Interval 5 sec" in text


def test_headline_is_best_pass_not_warmup() -> None:
    seq = next(s for s in REPORT.summaries if s.direction == "write")
    passes = [s for s in REPORT.steps if s.step_key == seq.key and not s.discarded]
    assert seq.best_bw_bytes_per_s == max(p.bw_bytes_per_s for p in passes)
