"""`watch` alerts on what the drive itself raises: a critical warning set at run time (QMP) and
an over-temperature threshold below the drive's temperature; its --on-alert hook runs, at the
first sample that shows it."""

import json
from collections.abc import Iterator

import pytest

from tests.devices.drives import DB, NVME_CTRL
from tests.devices.guest_client import Guest

HOOK_FILE = "/tmp/alerts.jsonl"
DEFAULT_OVER_TEMP_K = 343  # QEMU's composite temperature threshold (WCTEMP)


def watch_once(guest: Guest) -> str:
    done = guest.ssdlab(
        "watch", NVME_CTRL, "--count", "1", "--on-alert", f"tee -a {HOOK_FILE}", "--db", DB
    ).check()
    return done.stdout


def hook_alerts(guest: Guest) -> list[dict[str, object]]:
    done = guest.run(["cat", HOOK_FILE])
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


@pytest.fixture
def drive_restored(guest: Guest) -> Iterator[None]:
    yield
    guest.qmp("qom-set", path="/machine/peripheral/nvme0", property="smart_critical_warning",
              value=0)  # fmt: skip
    guest.run(["nvme", "set-feature", NVME_CTRL, "--feature-id=4",
               f"--value={DEFAULT_OVER_TEMP_K}"]).check()  # fmt: skip


@pytest.mark.usefixtures("drive_restored")
def test_injected_critical_warning_and_over_temperature_alert(guest: Guest) -> None:
    quiet = watch_once(guest)
    assert "ALERT" not in quiet
    guest.qmp("qom-set", path="/machine/peripheral/nvme0", property="smart_critical_warning",
              value=0x04)  # fmt: skip
    warned = watch_once(guest)
    assert "ALERT critical-warning" in warned, warned
    alerts = hook_alerts(guest)
    assert [a["alert"] for a in alerts] == ["critical-warning"]
    assert alerts[0]["serial"] == "SSDLABNVME0"
    health = guest.ssdlab("health", NVME_CTRL, "--json", "--db", DB)
    assert json.loads(health.stdout)["sample"]["verdict"] == "FAILED"
    guest.qmp("qom-set", path="/machine/peripheral/nvme0", property="smart_critical_warning",
              value=0)  # fmt: skip
    # the drive's temperature (QEMU: 323 K) above its over-temperature threshold
    guest.run(["nvme", "set-feature", NVME_CTRL, "--feature-id=4", "--value=300"]).check()
    hot = watch_once(guest)
    assert "ALERT critical-warning" in hot, hot
    assert "temperature" in hot
    assert [a["alert"] for a in hook_alerts(guest)] == ["critical-warning"] * 2
