"""The caption under an imported run's grid says what the tool that measured it reported: the
terminal captioned every import "best of the measured passes, as CrystalDiskMark shows it",
KDiskMark's mean, fio's one run of each job and AS SSD's and Iometer's one run of each test
alike."""

from dataclasses import replace

import pytest

from ssdlab.model.run import RunKind, RunRecord, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.target import TargetKind
from ssdlab.report.quick import build_quick_report
from ssdlab.report.quick_summary import build_quick_summary

STEP = StepResult("seq1m-q8t1-read", "SEQ1M Q8T1", "read", 1, False, 5e8, 477.0, 2e6, None, None)


def imported(profile: str, source: str, preset: str | None = None) -> RunRecord:
    return RunRecord(
        run_id=9,
        kind=RunKind.IMPORT,
        profile=profile,
        profile_version=1,
        preset=preset,
        status=RunStatus.COMPLETE,
        status_reason=None,
        target_kind=TargetKind.IMPORT,
        target_path="/x/result.txt",
        target={"kind": "import", "path": "/x/result.txt"},
        settings={"source_tool": source},
        plan={},
        environment={},
        started_at_s=1000.0,
        ended_at_s=1000.0,
        host="h",
        pid=1,
        boot_id=None,
    )


def caption(run: RunRecord) -> str:
    document = build_quick_summary(build_quick_report(run, [STEP]))
    (note,) = document.sections[0].tables[0].notes
    return note


@pytest.mark.parametrize(
    ("run", "expected"),
    [
        (imported("quick", "CrystalDiskMark 8.0.4"), "Best pass of each test, as CrystalDiskMark"),
        (
            imported("quick", "KDiskMark 3.2.0", "Default"),
            "Mean of the passes of each test, as KDiskMark 3.2.0",
        ),
        (imported("quick", "KDiskMark 3.2.0", "Peak"), "Best pass of each test, as KDiskMark"),
        (imported("fio", "fio-3.36"), "One run of each job, as fio-3.36 reported it"),
        (
            imported("quick", "AS SSD Benchmark 2.0.7316"),
            "One run of each test, as AS SSD Benchmark 2.0.7316 reported it",
        ),
        (imported("quick", "Iometer 1.1.0"), "One run of each test, as Iometer 1.1.0 reported it"),
    ],
)
def test_an_imports_caption_says_what_its_tool_reported(run: RunRecord, expected: str) -> None:
    text = caption(run)
    assert text.startswith(expected)
    assert text.endswith("; MB/s = 10^6 B/s")
    assert "as CrystalDiskMark shows it" not in text


def test_ssdlabs_own_runs_keep_their_caption() -> None:
    own = replace(imported("quick", ""), kind=RunKind.QUICK, target_kind=TargetKind.FILE)
    expected = "best of the measured passes, as CrystalDiskMark shows it; MB/s = 10^6 B/s"
    assert caption(own) == expected
