"""--no-wake: smartctl is asked with -n standby, and a sleeping drive gives a skipped reading,
not a sample of zeros (system/health.py)."""

import json
from collections.abc import Sequence

import pytest

from ssdlab.model.run import Capture
from ssdlab.system import health
from ssdlab.system.health import read_health, smartctl_attempts
from ssdlab.system.process import ProcessRunner


def test_the_argv_has_n_standby_only_with_no_wake() -> None:
    assert smartctl_attempts("smartctl", "/dev/sda") == [["smartctl", "-x", "-j", "/dev/sda"]]
    assert smartctl_attempts("smartctl", "/dev/sda", usb=True, no_wake=True) == [
        ["smartctl", "-x", "-j", "-n", "standby", "/dev/sda"],
        ["smartctl", "-x", "-j", "-n", "standby", "-d", "sat", "/dev/sda"],
    ]


class AsleepDrive(ProcessRunner):
    """smartctl as it answers for a drive in standby with -n standby (exit status 2)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, ...]] = []

    def run(self, argv: Sequence[str], **_: object) -> Capture:  # type: ignore[override]
        self.calls.append(tuple(argv))
        doc = {"smartctl": {"messages": [{"string": "Device is in STANDBY mode, exit(2)"}],
                            "exit_status": 2}}  # fmt: skip
        return Capture("smartctl", tuple(argv), 2, json.dumps(doc), "", 0.0, 1.0)


def test_a_sleeping_drive_is_skipped_not_woken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(health.shutil, "which", lambda name: f"/usr/sbin/{name}")
    drive = AsleepDrive()
    reading = read_health("/dev/sdz", drive, no_wake=True)
    assert reading.sample is None
    assert reading.standby
    assert drive.calls == [("/usr/sbin/smartctl", "-x", "-j", "-n", "standby", "/dev/sdz")]
    assert len(reading.captures) == 1  # the answer is kept
    assert "asleep" in reading.notes[0]
    awake = read_health("/dev/sdz", AsleepDrive())
    assert not awake.standby  # without --no-wake the same answer is no standby skip
