"""nvme-cli calls for the OCP Latency Monitor of a run's drive (docs/ocp.md): its C3h page read
raw, and Feature C5h set.

The page is read with `nvme get-log DEV --log-id=0xc3 --log-len=512 --raw-binary`, which every
nvme-cli has (Debian 12's 2.3 has only some of the ocp plugin): its stdout is the page itself,
read as bytes and kept as latin-1 text so that the capture stored holds every byte
(`page_bytes` gives them back).
The feature is set with `nvme ocp set-latency-monitor-feature` when `nvme ocp help` lists it,
else with `nvme set-feature --feature-id=0xc5` and the data nvme-cli's own command would send
(model/latency_monitor.py), written to a file of its own.
"""

import tempfile
from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import ParseError, ToolError
from ssdlab.model.latency_monitor import (
    DATA_BYTES,
    FEATURE_ID,
    MonitorSetting,
    feature_data,
    ocp_plugin_args,
)
from ssdlab.model.ocp_logs import LatencyMonitorLog
from ssdlab.model.run import Capture
from ssdlab.parse.drive_outputs import C3, read_raw_page
from ssdlab.system.process import ProcessRunner

NVME = "nvme"
RAW_ENCODING = "latin-1"
TIMEOUT_S = 30.0
PLUGIN_COMMAND = "set-latency-monitor-feature"


def get_log_argv(device: str) -> list[str]:
    return [NVME, "get-log", device, "--log-id=0xc3", "--log-len=512", "--raw-binary"]


def page_bytes(capture: Capture) -> bytes:
    """The raw page a get-log capture holds (stdout read as latin-1)."""
    return page_bytes_of(capture.stdout)


def page_bytes_of(stdout: str) -> bytes:
    """The bytes of a binary output kept as latin-1 text (ProcessRunner's binary_stdout)."""
    return stdout.encode(RAW_ENCODING, errors="replace")


def nvme_said(capture: Capture) -> str:
    """nvme-cli's own words of a failed call, on one line."""
    text = " ".join((capture.stderr or "").split()) or " ".join(
        capture.stdout.encode(RAW_ENCODING, errors="replace").decode("utf-8", "replace").split()
    )
    status = "killed" if capture.exit_code is None else f"exit status {capture.exit_code}"
    return f"{text} ({status})" if text else status


@dataclass(frozen=True, slots=True)
class PageRead:
    """One read of C3h: the capture (raw first), the page decoded, or why there is none."""

    capture: Capture | None
    log: LatencyMonitorLog | None
    problem: str | None  # the drive has no page, or it is not a C3h ssdlab reads


def decode_c3(capture: Capture) -> PageRead:
    """A get-log capture decoded (pure): the log, or why not."""
    if capture.exit_code != 0:
        return PageRead(capture, None, f"nvme-cli said: {nvme_said(capture)}")
    try:
        output = read_raw_page(page_bytes(capture), "C3h")
    except ParseError as error:
        return PageRead(capture, None, str(error))
    page = output.page
    if output.kind != C3 or page is None:
        return PageRead(capture, None, "the page read is not a C3h (its GUID is another's)")
    if not isinstance(page.log, LatencyMonitorLog):
        return PageRead(capture, None, page.problem or "the C3h page could not be decoded")
    return PageRead(capture, page.log, None)


def read_c3(processes: ProcessRunner, device: str) -> PageRead:
    """C3h read raw from the drive; a call that cannot run is a page not read."""
    try:
        capture = processes.run(
            get_log_argv(device), tool=NVME, timeout_s=TIMEOUT_S, binary_stdout=True
        )
    except ToolError as error:
        return PageRead(None, None, str(error))
    return decode_c3(capture)


def has_plugin_command(processes: ProcessRunner) -> bool:
    """Whether this nvme-cli's ocp plugin has set-latency-monitor-feature (`nvme ocp help`)."""
    try:
        capture = processes.run([NVME, "ocp", "help"], tool=NVME, timeout_s=TIMEOUT_S)
    except ToolError:
        return False
    return PLUGIN_COMMAND in f"{capture.stdout}\n{capture.stderr}"


def set_feature_argv(device: str, data_file: str) -> list[str]:
    """`nvme set-feature` as nvme-cli's set-latency-monitor-feature sends it: Save set, the
    data from `data_file`; NSID FFFFFFFFh (nvme-cli 2.3's set-feature takes 0 as 'the
    device's own namespace', and C5h is the controller's)."""
    return [
        NVME,
        "set-feature",
        device,
        "--namespace-id=0xffffffff",
        f"--feature-id={FEATURE_ID:#x}",
        f"--data-len={DATA_BYTES}",
        f"--data={data_file}",
        "--save",
    ]


def enable_monitor(
    processes: ProcessRunner, device: str, setting: MonitorSetting
) -> tuple[Capture, ...]:
    """Set Feature C5h (the ocp plugin's command when there is one); every call's capture,
    the setting's last. ToolError when nvme-cli cannot be run."""
    if has_plugin_command(processes):
        argv = [NVME, "ocp", PLUGIN_COMMAND, device, *ocp_plugin_args(setting)]
        return (processes.run(argv, tool=NVME, timeout_s=TIMEOUT_S),)
    with tempfile.TemporaryDirectory(prefix="ssdlab-c5-") as folder:
        data_file = Path(folder) / "latency-monitor.bin"
        data_file.write_bytes(feature_data(setting))
        argv = set_feature_argv(device, str(data_file))
        return (processes.run(argv, tool=NVME, timeout_s=TIMEOUT_S),)
