"""`ssdlab run qos --latency-monitor` on QEMU's emulated NVMe drive, which has no OCP Latency
Monitor: nvme-cli's `get-log --log-id=0xc3` gets an NVMe error status from it. The run goes on
and records once that the drive has no C3h page, in nvme-cli's words; asking ssdlab to set
Feature C5h is refused in one line with nvme-cli's status, before anything is run."""

from tests.devices.drives import DB, NVME, as_json, last_run_commands
from tests.devices.guest_client import Guest

C3_GET_LOG = ["nvme", "get-log", NVME, "--log-id=0xc3", "--log-len=512", "--raw-binary"]


def test_a_drive_without_c3h_runs_on_and_says_so_once(guest: Guest) -> None:
    done = guest.ssdlab(
        "run", "qos", NVME, "--destroy-data", NVME, "--duration", "1", "--latency-monitor",
        "--json", "--db", DB,
    )  # fmt: skip
    doc = as_json(done)
    drive = doc["latency_monitor"]["drive"]
    assert drive["available"] is False
    assert drive["reason"].startswith("the drive has no C3h Latency Monitor page (nvme-cli said: ")
    assert doc["latency_monitor"]["passes"] == []
    commands = last_run_commands(guest)
    reads = [code for argv, code in commands if argv == C3_GET_LOG]
    assert len(reads) == 1  # read once, before the run; never around its passes
    assert reads[0] != 0


def test_setting_the_feature_is_refused_with_nvme_clis_status(guest: Guest) -> None:
    done = guest.ssdlab(
        "run", "qos", NVME, "--destroy-data", NVME, "--duration", "1",
        "--latency-monitor-enable", "--db", DB,
    )  # fmt: skip
    assert done.exit_code not in (0, None)
    said = done.stderr.strip().splitlines()
    assert len(said) == 1, done.stderr
    assert "nvme-cli could not set the Latency Monitor (Feature C5h)" in said[0]
    assert "exit status" in said[0]
