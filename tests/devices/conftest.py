"""The live-device tier: ssdlab's device paths on emulated drives, through the real kernel
drivers and the real smartctl, nvme-cli, fio, blkdiscard, hdparm and sg3_utils.

Collected only when asked for: by `make test-devices` (SSDLAB_DEVICE_TIER=1), or when
tests/devices is named on pytest's command line; a plain `pytest` (`make test`) leaves it out.
One guest serves every test of a session (tests/devices/guest_machine.py). Where QEMU cannot
start at all, every test skips with one line that says why; a slow guest is waited for, never
skipped.
"""

import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.devices.guest_client import Guest, Timing
from tests.devices.guest_image import prepare
from tests.devices.guest_machine import QEMU, QemuDidNotStart, running_guest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TIMINGS = ROOT / "tests" / "artefacts" / "device-tier-timings.json"
TIER_ENV = "SSDLAB_DEVICE_TIER"
# folders the guest mounts afresh over the host's root (tests/devices/guest_init.py)
GUEST_OWN_FOLDERS = tuple(Path(p) for p in ("/tmp", "/run", "/dev/shm", "/proc", "/sys"))


def _named_on_command_line(config: pytest.Config) -> bool:
    for arg in config.invocation_params.args:
        path = Path(config.invocation_params.dir, str(arg).split("::")[0]).resolve()
        if path == HERE or HERE in path.parents:
            return True
    return False


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:  # noqa: ARG001
    if os.environ.get(TIER_ENV) == "1" or _named_on_command_line(config):
        return None
    return True


_session_started = time.monotonic()
_load_at_start = os.getloadavg()
_guest_state: dict[str, object] = {}


@pytest.fixture(scope="session")
def guest() -> Iterator[Guest]:
    """The one guest of the session, its zygote started (ssdlab imported once). Its disk
    images and logs are in a folder of its own (not pytest's tmp_path, which another pytest
    of the same user may prune while the guest runs), removed afterwards."""
    if "skip" not in _guest_state and shutil.which(QEMU) is None:
        _guest_state["skip"] = (
            f"DEVICE TIER SKIPPED: QEMU cannot start here: {QEMU} is not installed "
            "(apt-get install qemu-system-x86; `make test-devices` installs it)"
        )
    if "skip" in _guest_state:
        pytest.skip(str(_guest_state["skip"]))
    hidden = next((d for d in GUEST_OWN_FOLDERS if d == ROOT or d in ROOT.parents), None)
    if hidden is not None:  # the guest would not find this checkout: its init would die
        pytest.exit(
            f"DEVICE TIER: this checkout ({ROOT}) is under {hidden}, which the guest mounts as "
            "a tmpfs of its own over the host's root; clone it elsewhere (e.g. under $HOME)",
            returncode=1,
        )
    image = prepare()
    folder = Path(tempfile.mkdtemp(prefix="ssdlab-guest-"))
    try:
        with running_guest(image, folder) as machine:
            machine.timings.insert(0, Timing("boot to the agent", machine.boot_seconds))
            machine.start_zygote()
            _guest_state["guest"] = machine
            yield machine
    except QemuDidNotStart as error:
        _guest_state["skip"] = f"DEVICE TIER SKIPPED: QEMU cannot start here: {error}"
        pytest.skip(str(_guest_state["skip"]))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    machine = _guest_state.get("guest")
    if "skip" in _guest_state:
        terminalreporter.write_line(str(_guest_state["skip"]), red=True, bold=True)
    if not isinstance(machine, Guest):
        return
    total = time.monotonic() - _session_started
    load = os.getloadavg()
    lines = [f"{t.seconds:8.1f} s  {t.what}" for t in machine.timings]
    terminalreporter.section("device tier timings")
    for line in lines:
        terminalreporter.write_line(line)
    terminalreporter.write_line(
        f"total {total:.0f} s under {machine.accel}; load average at the start "
        f"{_load_at_start[0]:.2f}, at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
        f"({os.cpu_count()} cores: above that the guest shares them)"
    )
    TIMINGS.parent.mkdir(parents=True, exist_ok=True)
    TIMINGS.write_text(
        json.dumps(
            {
                "accel": machine.accel,
                "total_s": total,
                "load_average_at_start": _load_at_start,
                "load_average": load,
                "timings": [{"what": t.what, "seconds": t.seconds} for t in machine.timings],
            },
            indent=1,
        )
    )
