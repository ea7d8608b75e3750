"""read_health's orchestration, with smartctl and nvme-cli replaced by their recorded output."""

import shutil

import pytest

from ssdlab.system import health
from tests.conftest import ROOT, SHARED
from tests.unit.system.replay import ReplayRunner

DATA = ROOT / "tests" / "data" / "smart"
SAMPLES = SHARED / "testdata" / "smart"
OCP = ROOT / "tests" / "data" / "nvme-ocp"


@pytest.fixture(autouse=True)
def tools_present(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/sbin/{name}")


def test_a_virtual_disk_gives_notes_not_an_error() -> None:
    runner = ReplayRunner([("-x -j /dev/vda", 1, DATA / "local-vda-x-j-unable-to-detect.json")])
    reading = health.read_health("/dev/vda", runner)
    assert reading.sample is None
    assert len(reading.captures) == 1  # raw evidence kept
    assert any("Unable to detect device type" in note for note in reading.notes)


def test_usb_bridges_are_retried_with_sat() -> None:
    if not SAMPLES.is_dir():
        pytest.skip("../shared/testdata absent")
    runner = ReplayRunner(
        [
            ("-d sat", 0, SAMPLES / "kingston-a400-SA400M8120G-phison-sata.json"),
            ("-x -j /dev/sdz", 1, DATA / "local-vda-x-j-unable-to-detect.json"),
        ]
    )
    reading = health.read_health("/dev/sdz", runner, usb=True)
    assert reading.sample is not None
    assert reading.sample.identity.model == "KINGSTON SA400M8120G"
    assert [c[-3:] for c in runner.calls] == [("-x", "-j", "/dev/sdz"), ("-d", "sat", "/dev/sdz")]


def test_nvme_adds_smart_log_and_tries_the_nand_logs() -> None:
    if not SAMPLES.is_dir():
        pytest.skip("../shared/testdata absent")
    runner = ReplayRunner(
        [
            ("smartctl -x -j", 0, SAMPLES / "samsung-pm9a1-MZVL21T0HCLR-nvme.json"),
            ("smart-log /dev/nvme0n1", 0, DATA / "nvme-cli-2.x-smart-log.json"),
            ("intel smart-log-add", 0, DATA / "nand-logs" / "intel-smart-log-add.json"),
        ]
    )
    reading = health.read_health("/dev/nvme0n1", runner)
    assert reading.sample is not None
    tools = [" ".join(call[1:3]) for call in runner.calls]
    assert tools == ["-x -j", "smart-log /dev/nvme0n1", "ocp smart-add-log", "intel smart-log-add"]
    # the controller's log (NSID FFFFFFFFh), not the namespace's: QEMU's NVMe keeps both and
    # answers NSID 1 with the namespace's counters alone (seen in the device tier)
    assert "--namespace-id=0xffffffff" in runner.calls[1]
    assert reading.sample.nand_written_bytes.value is not None  # from the Intel log
    assert "nvme-cli Intel/Solidigm CA" in reading.sample.sources
    assert len(reading.captures) == 4


def test_without_a_nand_log_the_ocp_c0_page_is_read_with_get_log() -> None:
    """nvme-cli 1.x has no `nvme ocp` plugin: the C0h page read with get-log (a hex dump of the
    page composed from QEMU's OCP output, tests/data/nvme-ocp) gives the NAND bytes."""
    if not SAMPLES.is_dir():
        pytest.skip("../shared/testdata absent")
    runner = ReplayRunner(
        [
            ("smartctl -x -j", 0, SAMPLES / "samsung-pm9a1-MZVL21T0HCLR-nvme.json"),
            ("smart-log /dev/nvme0n1", 0, DATA / "nvme-cli-2.x-smart-log.json"),
            ("get-log", 0, OCP / "qemu-ocp-c0-composed.hexdump.txt"),
        ]
    )
    reading = health.read_health("/dev/nvme0n1", runner)
    assert reading.sample is not None
    tools = [" ".join(call[1:3]) for call in runner.calls]
    assert tools[-3:] == ["ocp smart-add-log", "intel smart-log-add", "get-log /dev/nvme0n1"]
    assert "--log-id=0xc0" in runner.calls[-1]
    assert reading.sample.nand_written_bytes.value == 33_554_432
    assert "nvme-cli get-log OCP C0" in reading.sample.sources


def test_a_c0_page_that_is_not_the_ocp_one_gives_no_nand_bytes() -> None:
    if not SAMPLES.is_dir():
        pytest.skip("../shared/testdata absent")
    runner = ReplayRunner(
        [
            ("smartctl -x -j", 0, SAMPLES / "samsung-pm9a1-MZVL21T0HCLR-nvme.json"),
            ("smart-log /dev/nvme0n1", 0, DATA / "nvme-cli-2.x-smart-log.json"),
            ("get-log", 0, OCP / "autoval-get-log-c0-299.txt"),  # 299 bytes, no GUID
        ]
    )
    reading = health.read_health("/dev/nvme0n1", runner)
    assert reading.sample is not None
    assert reading.sample.nand_written_bytes.value is None
    assert len(reading.captures) == 5  # every answer is kept


def test_missing_smartctl_is_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    reading = health.read_health("/dev/sda", ReplayRunner([]))
    assert reading.sample is None
    assert "smartmontools" in reading.notes[0]
