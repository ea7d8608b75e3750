"""A run's machine check in its documents: one note in `show` and the report, the figures in
the JSON's environment and the note as `machine_note`; a run stored without the check shows
and writes nothing new."""

from dataclasses import replace

from ssdlab.model.json_fields import encode
from ssdlab.model.machine import MACHINE_KEY, MachineCheck, PassLoad
from ssdlab.model.run import RunKind, RunRecord, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.target import TargetKind
from ssdlab.model.units import MiB
from ssdlab.report.quick import build_quick_report
from ssdlab.report.quick_document import build_quick_document, quick_json_document
from ssdlab.report.quick_summary import build_quick_summary

STEP = StepResult("seq1m-q8t1-read", "SEQ1M Q8T1", "read", 1, False, 5e8, 477.0, 2e6, None, None)
BUSY = PassLoad(
    "seq1m-q8t1-read", 1, 5.0, 512 * MiB, 40 * MiB, 0, 4200,
    512 * MiB, 0, 0, 4096, 40 * MiB, 104, 0.85,
)  # fmt: skip
CHECK = MachineCheck(
    checked_at_s=1000.0,
    cpus=2,
    governors=("powersave",),
    virtualization="none",
    virtualization_source="systemd-detect-virt",
    target_device="nvme0n1",
    store_device="sda",
    store_on_target_device=False,
    passes=(BUSY,),
)


def quick_run(environment: dict[str, object]) -> RunRecord:
    return RunRecord(
        run_id=3,
        kind=RunKind.QUICK,
        profile="quick",
        profile_version=1,
        preset="real",
        status=RunStatus.COMPLETE,
        status_reason=None,
        target_kind=TargetKind.FILE,
        target_path="/mnt/t.tmp",
        target={"kind": "file", "path": "/mnt/t.tmp"},
        settings={},
        plan={},
        environment=environment,
        started_at_s=1000.0,
        ended_at_s=1010.0,
        host="h",
        pid=1,
        boot_id=None,
    )


def _notes(run: RunRecord) -> list[str]:
    report = build_quick_report(run, [STEP])
    shown = build_quick_summary(report)
    whole = build_quick_document(report)
    return [n for d in (shown, whole) for s in d.sections for n in s.notes if "machine" in n]


def test_the_note_says_what_matters_in_show_and_the_report() -> None:
    run = quick_run({"fio_version": "fio-3.36", MACHINE_KEY: encode(CHECK)})
    shown, reported = _notes(run)
    assert shown == reported
    assert shown == (
        "machine: other I/O hit the target's device (nvme0n1) during 1 of 1 pass: up to "
        "40.0 MiB beyond fio's 512.0 MiB (seq1m-q8t1-read, pass 1); other processes kept the "
        "CPU busy during 1 of 1 pass: up to 0.85 cores on average (seq1m-q8t1-read, pass 1; "
        "said above 0.10 of a core); the CPU frequency governor is powersave, not performance "
        "(for information)"
    )
    data = quick_json_document(build_quick_report(run, [STEP]))
    assert data["machine_note"] == shown
    figures = data["run"]["environment"][MACHINE_KEY]
    assert figures["passes"][0]["other_bytes"] == 40 * MiB
    assert figures["passes"][0]["others_cpu_cores"] == 0.85


def test_a_quiet_machine_has_the_key_and_no_note() -> None:
    quiet = replace(
        CHECK, governors=(), passes=(replace(BUSY, other_bytes=0, others_cpu_cores=0.01),)
    )
    run = quick_run({MACHINE_KEY: encode(quiet)})
    assert _notes(run) == []
    assert quick_json_document(build_quick_report(run, [STEP]))["machine_note"] is None


def test_a_run_stored_without_the_check_shows_nothing_new() -> None:
    run = quick_run({"fio_version": "fio-3.36"})
    assert _notes(run) == []
    assert "machine_note" not in quick_json_document(build_quick_report(run, [STEP]))
