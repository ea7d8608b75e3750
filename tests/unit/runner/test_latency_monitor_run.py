"""`--latency-monitor`: the drive's C3h read raw around a measured pass, Feature C5h set as
nvme-cli's own command sets it, and the pass reconciled with its per-I/O log, driven by real
fio passes (the null ioengine: no I/O reaches a disk, fio still times and logs every I/O; exact
I/O counts from `number_ios`, paced by `rate_iops` and `thinktime`).

The drive is a recording `nvme` on PATH (written by this test): it writes each argv it is given
(and, for set-feature, the bytes of the data file) to a log, and answers get-log C3h with pages
composed from nvme-cli's `struct ssd_latency_monitor_log` layout (`compose_c3_counts`,
tests/ocp_pages.py). No real C3h page from a drive was found in public sources (docs/ocp.md,
"Test data"), so the pages are composed, with chosen counter increments; a drive without the
page answers as nvme-cli does for an NVMe error status (the live-device tier's emulated NVMe
gives the real answer: tests/devices/test_latency_monitor.py). What is asserted is exact
whatever the machine's load: the argv, the data bytes, the raw pages stored, the I/O counts,
the drive's increments and the attribution's identities (host I/Os over a threshold depend on
the machine's speed, so they are only checked against each other)."""

import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from ssdlab.app.conformance import run_c3_pages
from ssdlab.app.latency_monitor import plan_refusal, prepare_latency_monitor, target_refusal
from ssdlab.app.runs import shown_document, stored_run
from ssdlab.errors import ToolError, UsageError
from ssdlab.model.finding_names import LATENCY_MONITOR
from ssdlab.model.latency_monitor import (
    LatencyMonitorRequest,
    MonitorSetting,
    feature_data,
    parse_thresholds,
)
from ssdlab.model.plan import FioJob
from ssdlab.model.profile import ProfilePlan, ProfileStep, StepRole
from ssdlab.model.run import RunStatus
from ssdlab.model.target import DeviceIdentity, Target, TargetKind
from ssdlab.runner.pass_latency_monitor import NO_PER_IO, LatencyMonitorRecord, MonitorStart
from ssdlab.runner.profile import ProfileRunner
from ssdlab.store.db import open_store
from ssdlab.store.findings import load_findings
from ssdlab.store.raw import unpack_raw
from ssdlab.system.environment import collect_environment
from ssdlab.system.fio import find_fio
from ssdlab.system.latency_monitor import enable_monitor, read_c3
from ssdlab.system.process import ProcessRunner
from tests.conftest import needs_fio
from tests.ocp_pages import compose_c3_counts

DEVICE = "/dev/nvme0n1"
THRESHOLDS = (0, 1, 3, 9)  # A 5, B 10, C 20, D 50 ms, as ssdlab sets them
READS, WRITES = 400, 300
# the drive's increments during the pass: (bucket, operation) -> commands
DEVICE_DELTAS = {(0, "read"): 5, (2, "read"): 1, (3, "write"): 2}
# the pages before and after a pass during which the drive counted DEVICE_DELTAS
# (timer 13 x 5 min: byte 2 is 0Dh, a carriage return a text read would turn into a newline)
PAGES = (
    compose_c3_counts(timer=13, thresholds=THRESHOLDS),
    compose_c3_counts(DEVICE_DELTAS, timer=13, thresholds=THRESHOLDS),
)
QEMU_NO_PAGE = "NVMe status: Invalid Log Page: The log page indicated is invalid(0x2109)"

NVME_SCRIPT = """\
import json, os, sys
state = os.environ["FAKE_NVME_STATE"]
argv = sys.argv[1:]
entry = {"argv": argv}
if argv[:1] == ["set-feature"]:
    data = next(a.split("=", 1)[1] for a in argv if a.startswith("--data="))
    entry["data_hex"] = open(data, "rb").read().hex()
with open(os.path.join(state, "calls.jsonl"), "a") as log:
    log.write(json.dumps(entry) + "\\n")
if argv[:2] == ["ocp", "help"]:
    print(open(os.path.join(state, "ocp-help.txt")).read())
    sys.exit(0)
if argv[:1] == ["get-log"]:
    pages = sorted(p for p in os.listdir(state) if p.startswith("page-"))
    if not pages:
        sys.stderr.write(open(os.path.join(state, "no-page.txt")).read())
        sys.exit(1)
    counter = os.path.join(state, "served")
    served = int(open(counter).read()) if os.path.exists(counter) else 0
    open(counter, "w").write(str(served + 1))
    with open(os.path.join(state, pages[min(served, len(pages) - 1)]), "rb") as page:
        sys.stdout.buffer.write(page.read())
    sys.exit(0)
if argv[:1] == ["set-feature"] or argv[:2] == ["ocp", "set-latency-monitor-feature"]:
    status = os.path.join(state, "set-status.txt")
    if os.path.exists(status):
        sys.stderr.write(open(status).read())
        sys.exit(1)
    print("set-feature:0xc5 (Unknown), value:0x00000000, cdw12:0x00000000, save:0x1")
    sys.exit(0)
sys.exit(22)
"""


def _fake_nvme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pages: list[bytes]) -> Path:
    tools, state = tmp_path / "bin", tmp_path / "nvme-state"
    tools.mkdir()
    state.mkdir()
    fake = tools / "nvme"
    fake.write_text(f"#!{sys.executable}\n{NVME_SCRIPT}")
    fake.chmod(0o755)
    # nvme-cli 2.3's `nvme ocp help` lists no set-latency-monitor-feature (Debian 12)
    (state / "ocp-help.txt").write_text("  smart-add-log   Retrieve extended SMART Information\n")
    (state / "no-page.txt").write_text(QEMU_NO_PAGE + "\n")
    for number, page in enumerate(pages):
        (state / f"page-{number}.bin").write_bytes(page)
    monkeypatch.setenv("FAKE_NVME_STATE", str(state))
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    return state


def _calls(state: Path) -> list[dict[str, Any]]:
    """The calls made, but `nvme version` (the run's environment asks every tool's)."""
    lines = (state / "calls.jsonl").read_text().splitlines()
    return [c for c in map(json.loads, lines) if c["argv"] != ["version"]]


def _job() -> FioJob:
    return FioJob(
        global_options=(("ioengine", "null"), ("size", "16m"), ("bs", "4096")),
        sections=(
            ("qos-read", (("rw", "randread"), ("number_ios", str(READS)), ("rate_iops", "4000"))),
            (
                "qos-write",
                (("rw", "randwrite"), ("number_ios", str(WRITES)), ("thinktime", "100")),
            ),
        ),
    )


def _plan(log_interval_ms: int | None = None) -> ProfilePlan:
    measure = ProfileStep(
        "qos", "demo at 0.001 TB", StepRole.MEASURE, "mix", _job(),
        log_interval_ms=log_interval_ms, expected_s=5,
    )  # fmt: skip
    warm = ProfileStep(
        "fill", "fill", StepRole.PREPARE, "write", _job(), log_interval_ms=None, expected_s=5
    )
    return ProfilePlan(
        profile="qos", profile_version=1, settings=(), target_path="/dev/null",
        target_kind="file", destructive=False, steps=(warm, measure),
    )  # fmt: skip


TARGET = Target(TargetKind.FILE, "/dev/null", 16 * 2**20, "/dev/null")
NVME_TARGET = Target(
    TargetKind.DEVICE, DEVICE, 2**30, DEVICE, device=DeviceIdentity("nvme0n1", DEVICE)
)


def _run(
    db: Path, start: MonitorStart, plan: ProfilePlan | None = None
) -> tuple[sqlite3.Connection, int, RunStatus]:
    conn = open_store(db)
    processes = ProcessRunner()
    runner = ProfileRunner(conn, find_fio(processes), lambda _e: None, processes)
    record = LatencyMonitorRecord(start, lambda: read_c3(processes, DEVICE))
    outcome = runner.execute(
        plan or _plan(), TARGET, collect_environment(None), device_id=None, keep_file=True,
        latency=record,
    )  # fmt: skip
    return conn, outcome.run_id, outcome.status


def _reason(conn: sqlite3.Connection, run_id: int) -> str:
    """Why the run did not complete, as the store keeps it: what a failed assertion shows."""
    (reason,) = conn.execute("SELECT status_reason FROM runs WHERE id = ?", (run_id,)).fetchone()
    return str(reason)


def _capture(conn: sqlite3.Connection, capture_id: int) -> tuple[list[str], str]:
    argv, stdout = conn.execute(
        "SELECT argv_json, stdout FROM captures WHERE id = ?", (capture_id,)
    ).fetchone()
    return json.loads(argv), unpack_raw(conn, stdout)


@needs_fio
def test_a_measured_pass_is_reconciled_from_raw_pages_and_its_per_io_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before, after = PAGES
    assert before[2:4] == b"\r\x00"  # a byte a text read would have translated
    state = _fake_nvme(tmp_path, monkeypatch, [before, before, after])
    processes = ProcessRunner()
    setting = MonitorSetting()
    enabled = enable_monitor(processes, DEVICE, setting)
    start = MonitorStart(DEVICE, read_c3(processes, DEVICE), setting, enabled)
    conn, run_id, status = _run(tmp_path / "db", start)
    assert status is RunStatus.COMPLETE, _reason(conn, run_id)

    calls = _calls(state)
    get_log = ["get-log", DEVICE, "--log-id=0xc3", "--log-len=512", "--raw-binary"]
    assert [c["argv"] for c in calls] == [
        ["ocp", "help"],
        ["set-feature", DEVICE, "--namespace-id=0xffffffff", "--feature-id=0xc5",
         "--data-len=4096", calls[1]["argv"][5], "--save"],
        get_log,  # the probe before the run
        get_log,  # before the measured pass (the fill is not read around)
        get_log,  # after it
    ]  # fmt: skip
    data = bytes.fromhex(calls[1]["data_hex"])
    # nvme-cli's struct feature_latency_monitor: timer threshold 2016 (E0 07), A-D 0 1 3 9,
    # config 0FFFh, window 10, debug trigger 0, discard 0, enable 1, then 4083 zero bytes
    assert data[:13] == bytes([0xE0, 0x07, 0, 1, 3, 9, 0xFF, 0x0F, 10, 0, 0, 0, 1])
    assert data[13:] == bytes(4083)
    assert data == feature_data(setting)

    findings = {f.name: f.body for f in load_findings(conn, run_id)}
    drive = findings[LATENCY_MONITOR]
    assert drive["available"] is True
    assert drive["thresholds_ms"] == [5.0, 10.0, 20.0, 50.0]
    assert drive["set_thresholds_ms"] == [5, 10, 20, 50]
    body = findings["latency-monitor-pass:qos:2"]
    assert body["problem"] is None
    pages = ((body["c3_before_capture_id"], before), (body["c3_after_capture_id"], after))
    for capture_id, page in pages:
        argv, stdout = _capture(conn, capture_id)
        assert argv == ["nvme", *get_log]
        assert stdout.encode("latin-1") == page  # the raw page, every byte
    assert body["host_log_files"] == 2  # fio's one per job section, compressed
    found = body["reconciliation"]
    assert found["conclusive"] is True
    assert found["thresholds_ms"] == {"A": 5.0, "B": 10.0, "C": 20.0, "D": 50.0}
    ops = found["operations"]
    assert ops["read"]["host_ios"] == READS
    assert ops["write"]["host_ios"] == WRITES
    for name, op in ops.items():
        rows = op["buckets"]
        assert [r["device_commands"] for r in rows] == [
            DEVICE_DELTAS.get((b, name), 0) for b in range(4)
        ]
        assert op["host_below_threshold_a"] + sum(r["host_ios"] for r in rows) == op["host_ios"]
        for row in rows:
            assert row["matched"] + row["host_only"] == row["host_at_or_above"]
            assert row["matched"] + row["device_only"] == row["device_at_or_above"]
    assert ops["read"]["buckets"][0]["device_at_or_above"] == 6
    assert ops["write"]["buckets"][3]["device_at_or_above"] == 2

    shown = shown_document(stored_run(conn, run_id))
    titles = [s.title for s in shown.sections]
    assert "OCP latency monitor (C3h) against the host log: demo at 0.001 TB #2" in titles
    assert shown.data["latency_monitor"]["passes"][0]["reconciliation"] == found
    assert any(label == "C3h read ≥ A" for label, _ in shown.headline)
    assert not list(Path(os.environ.get("TMPDIR", "/tmp")).glob("ssdlab-fio-*/ssdlab-c3_*"))

    # `conformance --run`: the LMDATA checks answer from the run's last page read
    pages = run_c3_pages(conn, findings, run_id)
    assert [p.page.page for p in pages if p.page is not None] == [after, before, before]
    assert pages[0].source == (
        f"run {run_id}, capture {body['c3_after_capture_id']}: "
        "nvme get-log --log-id=0xc3 --raw-binary"
    )


@needs_fio
def test_a_pass_with_a_per_second_series_keeps_the_drives_counts_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_nvme(tmp_path, monkeypatch, [PAGES[0], *PAGES])  # the probe, then the pass
    start = prepare_latency_monitor(
        ProcessRunner(), LatencyMonitorRequest(), _plan(log_interval_ms=1000), NVME_TARGET
    )
    conn, run_id, status = _run(tmp_path / "db", start, _plan(log_interval_ms=1000))
    assert status is RunStatus.COMPLETE, _reason(conn, run_id)
    body = {f.name: f.body for f in load_findings(conn, run_id)}["latency-monitor-pass:qos:2"]
    assert body["reconciliation"] is None
    assert body["problem"] == NO_PER_IO
    assert body["host_log_files"] == 0
    counted = body["device_only"]
    assert counted["conclusive"] is True
    assert counted["device_commands"] == {
        op: [DEVICE_DELTAS.get((b, op), 0) for b in range(4)] for op in ("read", "write", "trim")
    }
    jobs = [row[0] for row in conn.execute("SELECT input_text FROM captures WHERE tool = 'fio'")]
    assert jobs
    assert not any("log_avg_msec=0" in unpack_raw(conn, job) for job in jobs)
    shown = shown_document(stored_run(conn, run_id))
    section = next(s for s in shown.sections if "the drive's counts" in s.title)
    assert section.tables[0].rows[0] == ("read", "5", "0", "1", "0")
    assert section.tables[0].columns[1:] == ("5–10 ms", "10–20 ms", "20–50 ms", "≥ 50 ms")


@needs_fio
def test_a_drive_without_the_page_is_recorded_once_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = _fake_nvme(tmp_path, monkeypatch, [])
    processes = ProcessRunner()
    start = prepare_latency_monitor(processes, LatencyMonitorRequest(), _plan(), NVME_TARGET)
    assert start.available is False
    conn, run_id, status = _run(tmp_path / "db", start)
    assert status is RunStatus.COMPLETE, _reason(conn, run_id)
    findings = {f.name: f.body for f in load_findings(conn, run_id)}
    assert findings[LATENCY_MONITOR]["reason"] == (
        f"the drive has no C3h Latency Monitor page (nvme-cli said: {QEMU_NO_PAGE} (exit status 1))"
    )
    assert not [name for name in findings if name.startswith("latency-monitor-pass")]
    assert len(_calls(state)) == 1  # read once, never again
    shown = shown_document(stored_run(conn, run_id))
    c3 = next(s for s in shown.sections if s.title == "OCP latency monitor (C3h)")
    assert c3.facts == (("C3h", findings[LATENCY_MONITOR]["reason"]),)


def test_setting_the_feature_on_a_drive_without_it_is_refused_with_nvme_clis_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = _fake_nvme(tmp_path, monkeypatch, [])
    (state / "set-status.txt").write_text("NVMe status: Invalid Field in Command(0x2)\n")
    request = LatencyMonitorRequest(MonitorSetting())
    with pytest.raises(ToolError) as refused:
        prepare_latency_monitor(ProcessRunner(), request, _plan(), NVME_TARGET)
    assert "\n" not in str(refused.value)
    assert "Invalid Field in Command(0x2)" in str(refused.value)
    assert "run without --latency-monitor-enable" in str(refused.value)


def test_the_ocp_plugins_own_command_is_used_when_nvme_cli_has_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = _fake_nvme(tmp_path, monkeypatch, [compose_c3_counts(thresholds=(1, 3, 7, 15))])
    listed = "  set-latency-monitor-feature  Set Latency Monitor feature\n"  # nvme-cli 2.5+
    (state / "ocp-help.txt").write_text(listed)
    setting = MonitorSetting((10, 20, 40, 80), timer_threshold=12)
    start = prepare_latency_monitor(
        ProcessRunner(), LatencyMonitorRequest(setting), _plan(), NVME_TARGET
    )
    assert start.available
    assert _calls(state)[1]["argv"] == [
        "ocp", "set-latency-monitor-feature", DEVICE,
        "--active_bucket_timer_threshold=12", "--active_threshold_a=1",
        "--active_threshold_b=3", "--active_threshold_c=7", "--active_threshold_d=15",
        "--active_latency_config=0xfff", "--active_latency_minimum_window=10",
        "--debug_log_trigger_enable=0", "--discard_debug_log=0",
        "--latency_monitor_feature_enable=1",
    ]  # fmt: skip


def test_a_monitor_that_is_off_is_refused_with_the_command_that_enables_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_nvme(tmp_path, monkeypatch, [compose_c3_counts(thresholds=THRESHOLDS, enabled=False)])
    with pytest.raises(UsageError) as refused:
        prepare_latency_monitor(ProcessRunner(), LatencyMonitorRequest(), _plan(), NVME_TARGET)
    text = str(refused.value)
    assert "\n" not in text
    assert "--latency-monitor-enable" in text
    assert text.endswith(
        f"nvme ocp set-latency-monitor-feature {DEVICE} -t 2016 -a 0 -b 1 -c 3 -d 9 -f 0xfff "
        "-w 10 -e 1"
    )


def test_a_file_a_sata_drive_and_a_plan_without_measured_passes_are_refused() -> None:
    assert "is a file" in (target_refusal(TARGET) or "")
    sata = Target(TargetKind.DEVICE, "/dev/sda", 2**30, "/dev/sda",
                  device=DeviceIdentity("sda", "/dev/sda", transport="sata"))  # fmt: skip
    assert "is a sata device" in (target_refusal(sata) or "")
    assert target_refusal(NVME_TARGET) is None
    assert plan_refusal(_plan()) is None
    assert plan_refusal(_plan(log_interval_ms=1000)) is None  # its drive's counts are kept
    fills_only = ProfilePlan(
        profile="fill", profile_version=1, settings=(), target_path="/dev/null",
        target_kind="file", destructive=False, steps=_plan().steps[:1],
    )  # fmt: skip
    assert "no measured fio pass" in (plan_refusal(fills_only) or "")


def test_thresholds_are_multiples_of_5_ms_that_rise() -> None:
    assert parse_thresholds("5,10,20,50") == (5, 10, 20, 50)
    assert parse_thresholds("5ms, 10ms, 20ms, 1280ms") == (5, 10, 20, 1280)
    assert MonitorSetting((5, 10, 20, 1280)).threshold_bytes == (0, 1, 3, 255)
    for bad in ("5,10,20", "5,12,20,50", "10,5,20,50", "0,5,10,15", "5,10,20,1285"):
        with pytest.raises(ValueError, match="threshold"):
            parse_thresholds(bad)
