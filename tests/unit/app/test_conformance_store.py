"""`ssdlab conformance` on the application floor with a store: the drive's stored health readings
answer STD-LOG-3 together with the reading given now, and stored `qos` runs named with --run
answer CTO-3 and TRIM-6/7 from the verdicts they stored; a run of another profile is refused,
and a qos run of another drive is noted."""

import time
from pathlib import Path

import pytest

from ssdlab.analysis.profiles.qos import QosVerdict
from ssdlab.analysis.thermal import find_throttling
from ssdlab.analysis.thermal_checks import thermal_checks
from ssdlab.app.conformance import ConformanceRequest, check_conformance, other_drive_runs
from ssdlab.app.run_store import open_run_store
from ssdlab.errors import UsageError
from ssdlab.model.conformance import DriveEvidence
from ssdlab.model.finding_names import QOS_VERDICT, THERMAL_PASS
from ssdlab.model.json_fields import encode
from ssdlab.model.run import RunKind, RunStatus
from ssdlab.model.target import TargetKind
from ssdlab.model.thermal import ThermalLimits
from ssdlab.runner.run_row import RunHeader, create_run
from ssdlab.store.findings import add_finding
from ssdlab.store.health import add_health_sample
from ssdlab.store.lifecycle import finish_run
from tests.conformance_evidence import QEMU_SMARTCTL, changed_json, cto3_verdict, trim_verdict
from tests.unit.analysis.thermal_series import drive_series


def _run(db: Path, profile: str, verdict: QosVerdict | None = None) -> int:
    conn = open_run_store(db)
    header = RunHeader(RunKind.PROFILE, profile, 1, None, TargetKind.FILE, "/x", "{}", "{}")
    run_id = create_run(conn, header)
    if verdict is not None:
        add_finding(conn, run_id, QOS_VERDICT, "verdict", verdict, time.time())
    finish_run(conn, run_id, RunStatus.COMPLETE, None, time.time())
    conn.close()
    return run_id


def _stored_wear(db: Path, percent_used: int) -> None:
    """A reading of the QEMU drive of the smartctl capture, its Percentage Used changed."""
    conn = open_run_store(db)
    header = RunHeader(RunKind.HEALTH, "health", 1, None, TargetKind.DEVICE, "/x", "{}", "{}")
    run_id = create_run(conn, header)
    output = changed_json(
        QEMU_SMARTCTL,
        f"percentage used {percent_used}",
        nvme_smart_health_information_log__percentage_used=percent_used,
    )
    assert output.sample is not None
    add_health_sample(conn, run_id, "check", output.sample)
    conn.close()


def _verdicts(request: ConformanceRequest) -> dict[str, str]:
    return {r.requirement: r.verdict.value for r in check_conformance(request).results}


def test_stored_readings_and_the_reading_now_answer_std_log_3(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    request = ConformanceRequest(files=(str(QEMU_SMARTCTL),), db=db)
    assert _verdicts(request)["STD-LOG-3"] == "not checkable"  # no store yet: one reading
    _stored_wear(db, 0)
    outcome = check_conformance(request)
    (std_log_3,) = (r for r in outcome.results if r.requirement == "STD-LOG-3")
    assert std_log_3.verdict.value == "pass"
    assert "0 % (sample 1) → 0 % (now), 2 readings" in std_log_3.evidence[0].value
    _stored_wear(db, 5)  # a later stored reading said 5 %; the capture now says 0 %
    assert _verdicts(request)["STD-LOG-3"] == "fail"


def test_stored_qos_runs_answer_cto3_and_trim(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    cto3 = _run(db, "qos", cto3_verdict())
    trim = _run(db, "qos", trim_verdict(slower_phase=True))
    request = ConformanceRequest(files=(str(QEMU_SMARTCTL),), runs=(str(cto3), "last"), db=db)
    outcome = check_conformance(request)
    verdicts = {r.requirement: r for r in outcome.results}
    assert verdicts["CTO-3"].verdict.value == "inconclusive"
    assert verdicts["TRIM-6"].verdict.value == "fail"
    assert verdicts["TRIM-7"].verdict.value == "fail"
    assert {e.source for e in verdicts["TRIM-6"].evidence} == {f"run {trim} (TRIM-6-7)"}
    assert verdicts["App. A.2.1"].verdict.value == "not checkable"
    assert "judged none of its targets" in verdicts["App. A.2.1"].reason
    assert outcome.failed
    assert outcome.document.data["qos_runs"] == [cto3, trim]


def test_a_run_of_another_profile_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    other = _run(db, "cache")
    request = ConformanceRequest(files=(str(QEMU_SMARTCTL),), runs=(str(other),), db=db)
    with pytest.raises(UsageError, match=f"run {other} is a cache run whose passes read no"):
        check_conformance(request)
    unfinished = _run(db, "qos")
    request = ConformanceRequest(files=(str(QEMU_SMARTCTL),), runs=(str(unfinished),), db=db)
    with pytest.raises(UsageError, match="has no qos verdict"):
        check_conformance(request)


def _thermal_run(db: Path, onset_c: float) -> int:
    """A cache run whose one pass read the drive's temperature: its `thermal-pass` finding
    holds the OCP checks of a replayed series that throttles at `onset_c`, as
    runner/pass_thermal.py stores them."""
    conn = open_run_store(db)
    header = RunHeader(RunKind.PROFILE, "cache", 1, None, TargetKind.FILE, "/x", "{}", "{}")
    run_id = create_run(conn, header)
    points = drive_series(4, onset_c=onset_c, exit_c=onset_c - 2, cools_to_c=onset_c - 20)
    limits = ThermalLimits(0x15E, 0x166, "nvme id-ctrl")
    checks = thermal_checks(points, find_throttling(points), limits, None, None)
    body = {"step": "cache", "round": 1, "label": "cache fill", "checks": encode(checks)}
    add_finding(conn, run_id, f"{THERMAL_PASS}:cache:1", "verdict", body, time.time())
    finish_run(conn, run_id, RunStatus.COMPLETE, None, time.time())
    conn.close()
    return run_id


def test_a_run_whose_passes_read_temperatures_answers_tthrottle_5_and_7(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    early = _thermal_run(db, onset_c=72.0)
    request = ConformanceRequest(files=(str(QEMU_SMARTCTL),), runs=(str(early),), db=db)
    verdicts = {r.requirement: r for r in check_conformance(request).results}
    assert verdicts["TTHROTTLE-5"].verdict.value == "fail"
    assert "72 °C" in verdicts["TTHROTTLE-5"].evidence[0].value
    assert verdicts["TTHROTTLE-5"].evidence[0].source == f"run {early}"
    assert verdicts["TTHROTTLE-7"].verdict.value == "pass"
    assert verdicts["CTO-3"].verdict.value == "not checkable"  # not a qos run
    on_time = _thermal_run(db, onset_c=77.0)
    request = ConformanceRequest(files=(str(QEMU_SMARTCTL),), runs=(str(on_time),), db=db)
    assert _verdicts(request)["TTHROTTLE-5"] == "pass"


def test_nothing_to_read_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="name an NVMe device, or saved outputs with --from"):
        check_conformance(ConformanceRequest())
    with pytest.raises(UsageError, match=f"'ssdlab conformance --from {QEMU_SMARTCTL}'"):
        check_conformance(ConformanceRequest(device=str(QEMU_SMARTCTL)))


def test_a_qos_run_of_another_drive_is_noted() -> None:
    runs = DriveEvidence(qos_runs=(3, 4, 5), qos_targets=("/dev/nvme0n1", "/dev/nvme10n1", "/mnt"))
    assert other_drive_runs("/dev/nvme0", runs) == [
        "run 4 measured /dev/nvme10n1, not /dev/nvme0: its verdicts are its own",
        "run 5 measured /mnt, not /dev/nvme0: its verdicts are its own",
    ]
    assert other_drive_runs("/dev/nvme0n1p2", runs)[0].startswith("run 4 ")
