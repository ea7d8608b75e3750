"""The SMART/Health log is the controller's (NSID FFFFFFFFh) whichever node names the drive,
replayed from the device tier's guest (tests/data/devices): QEMU's NVMe answers a namespace's
NSID with that namespace's counters alone."""

from ssdlab.system import health
from tests.conftest import ROOT
from tests.unit.system.replay import ReplayRunner

DATA = ROOT / "tests" / "data" / "devices"


def test_smart_log_asks_for_the_controllers_log() -> None:
    broadcast = "smart-log /dev/nvme1n1 --namespace-id=0xffffffff"
    runner = ReplayRunner(
        [
            ("smartctl -x -j /dev/nvme1n1", 0, DATA / "smartctl-x-j-nvme1n1.json"),
            (broadcast, 0, DATA / "nvme-smart-log-nvme1n1.json"),
            ("smart-log /dev/nvme1n1", 0, DATA / "nvme-smart-log-nvme1n1-nsid1.json"),
        ]
    )
    reading = health.read_health("/dev/nvme1n1", runner)
    assert reading.sample is not None
    smart_log = [call for call in runner.calls if call[1] == "smart-log"]
    assert smart_log == [
        ("nvme", "smart-log", "/dev/nvme1n1", "--namespace-id=0xffffffff", "-o", "json")
    ]
    # 4 MiB written to the other namespace: 9 units of 512,000 bytes, from both readers
    assert reading.sample.host_written_bytes.value == 9 * 512_000
