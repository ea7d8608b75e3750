"""Labels that keep a quick or profile report from misleading: a target that measures memory,
and tests whose passes vary too much to trust the best one."""

import json
from dataclasses import replace

from ssdlab.model.run import RunKind, RunRecord, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.target import TargetKind
from ssdlab.report.quick import (
    NOISY_MARKER,
    build_quick_report,
    format_spread,
    memory_label,
    memory_reason,
    report_footnotes,
    settings_line,
)
from ssdlab.report.quick_document import build_quick_document, quick_json_document

LOOP_WARNING = (
    "/dev/loop7 is a loop device on the regular file /tmp/disk.img without direct I/O "
    "(loop/dio is 0): its I/O goes through the page cache, so this measures memory, not a drive"
)


def run(target: dict[str, object]) -> RunRecord:
    return RunRecord(
        run_id=4,
        kind=RunKind.QUICK,
        profile="quick",
        profile_version=1,
        preset="real",
        status=RunStatus.COMPLETE,
        status_reason=None,
        target_kind=TargetKind.FILE,
        target_path="/x/ssdlab-1.tmp",
        target=target,
        settings={},
        plan={},
        environment={},
        started_at_s=1000.0,
        ended_at_s=1010.0,
        host="h",
        pid=1,
        boot_id=None,
    )


def steps(*bws: float) -> list[StepResult]:
    return [
        StepResult("seq1m-q1t1-read", "SEQ1M Q1T1", "read", i, False, bw, bw / 1e6, 1e3, None, None)
        for i, bw in enumerate(bws, start=1)
    ]


def test_a_file_on_tmpfs_measures_memory() -> None:
    target = {"filesystem": {"fs_type": "tmpfs", "mount_point": "/mnt/t"}, "warnings": []}
    reason = memory_reason(target)
    assert reason is not None
    assert "tmpfs" in reason
    assert "/mnt/t" in reason
    label = memory_label(target)
    assert label is not None
    assert label.startswith("MEASURES MEMORY")


def test_a_file_backed_loop_without_direct_io_measures_memory() -> None:
    assert memory_reason({"warnings": [LOOP_WARNING]}) == LOOP_WARNING


def test_a_drive_measures_no_memory() -> None:
    target = {"filesystem": {"fs_type": "ext4", "mount_point": "/"}, "warnings": ["other"]}
    assert memory_reason(target) is None
    assert memory_label({}) is None


def test_json_and_document_carry_the_memory_label() -> None:
    report = build_quick_report(run({"warnings": [LOOP_WARNING]}), steps(100e6, 101e6))
    data = quick_json_document(report)
    assert data["measures_memory"] is True
    assert data["measures_memory_reason"] == LOOP_WARNING
    json.dumps(data)  # serialisable
    document = build_quick_document(report)
    assert any(label == "measures" for label, _ in document.headline)
    assert document.data["measures_memory"] is True
    results = document.sections[0]
    assert any(note.startswith("MEASURES MEMORY") for note in results.notes)


def test_a_drive_says_measures_memory_false() -> None:
    report = build_quick_report(run({"warnings": []}), steps(100e6, 101e6))
    data = quick_json_document(report)
    assert (data["measures_memory"], data["measures_memory_reason"]) == (False, None)
    assert report_footnotes(report) == ()


def test_noisy_test_is_marked_with_a_footnote() -> None:
    report = build_quick_report(run({}), steps(100e6, 300e6, 150e6))
    (summary,) = report.summaries
    assert format_spread(summary).endswith(NOISY_MARKER)
    (footnote,) = report_footnotes(report)
    assert footnote.startswith(f"{NOISY_MARKER} noisy (passes vary by more than 10 %, CV): ")
    assert "SEQ1M Q1T1 read 56.8 %" in footnote
    assert footnote.endswith("its best pass is not a repeatable number")
    spread = build_quick_document(report).sections[1].tables[0]
    assert "noisy" in spread.rows[0][4]
    assert spread.notes == (footnote,)
    assert quick_json_document(report)["tests"][0]["noisy"] is True


def test_steady_test_has_no_marker() -> None:
    report = build_quick_report(run({}), steps(100e6, 101e6, 99e6))
    assert NOISY_MARKER not in format_spread(report.summaries[0])
    assert report_footnotes(report) == ()


def test_direct_io_to_memory_is_not_called_plain_direct_io() -> None:
    record = run({"warnings": [LOOP_WARNING]})
    record.settings["direct_io"] = True
    assert "direct I/O to a target that sits in memory" in settings_line(record)
    drive = run({})
    drive.settings["direct_io"] = True
    assert "direct I/O," in settings_line(drive)


def test_several_noisy_tests_make_one_note_for_the_run() -> None:
    noisy = steps(100e6, 300e6, 150e6)
    other = [replace(s, step_key="rnd4k-q1t1-read", step_label="RND4K Q1T1") for s in noisy]
    report = build_quick_report(run({}), [*noisy, *other])
    (footnote,) = report_footnotes(report)
    assert "SEQ1M Q1T1 read 56.8 %, RND4K Q1T1 read 56.8 %" in footnote
    assert footnote.endswith("their best passes are not a repeatable number")
    spread = build_quick_document(report).sections[1].tables[0]
    assert spread.notes == (footnote,)
