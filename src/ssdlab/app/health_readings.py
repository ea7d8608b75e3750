"""Health readings as `health`, `wear` and `watch` take them: a drive of this machine read now
(smartctl, nvme-cli), a saved file or log read back, and the run each is stored under.

A drive read now is stored as a run of kind `health` (or `watch`) on its device node, with
this machine's environment. A saved file or log is a reading of a drive of whatever machine
wrote it: it is stored as an import (kind `import`, profile `import`, target kind `import`,
its samples in phase `import`), its target naming the file and the drive the file names
(`target["device"]`, without a device node of this machine), and its environment only the
ssdlab that read it; the run's host is the machine that read the file, as for every import.
So no reader takes the drive for one of this machine's: `show` names the drive and no fio,
kernel or host as what produced the figures, and `metrics` gives a drive known only from files
no host (it reads the samples' phase, which stores made before also have)."""

import json
import os
import platform
import sqlite3
from dataclasses import dataclass

from ssdlab import __version__
from ssdlab.errors import UsageError
from ssdlab.model.health import HealthSample
from ssdlab.model.run import RunKind
from ssdlab.model.target import TargetKind
from ssdlab.parse.health_file import read_health_text
from ssdlab.parse.smart_vendors import VendorMap, load_vendor_map
from ssdlab.runner.run_row import RunHeader, create_run
from ssdlab.store.captures import add_capture
from ssdlab.store.health import add_health_sample
from ssdlab.store.lifecycle import to_json
from ssdlab.system.environment import collect_environment, tool_version
from ssdlab.system.health import HealthReading, read_health
from ssdlab.system.nvme_nodes import is_drive_path, read_drive_identity
from ssdlab.system.process import ProcessRunner
from ssdlab.system.user_files import (
    LOG_FILE_BYTES,
    SMALL_FILE_BYTES,
    read_user_file,
    read_user_text,
)
from ssdlab.system.virtual_drive_health import is_virtual_drive, read_virtual_drive

CHECK_PHASE = "check"  # `health` (and `wear`) of a drive read now
WATCH_PHASE = "watch"
FILE_PHASE = "import"  # a sample read from a saved file or log


@dataclass(frozen=True, slots=True)
class SavedReading:
    """How a saved health file or log is read: `vendor_map` a TOML file of attribute names,
    `model` for a log without identity lines, `interval_s` the time between the readings of a
    log that carries no times, `elapsed_s` the time from its first reading to its last."""

    vendor_map: str | None = None
    model: str | None = None
    interval_s: float | None = None
    elapsed_s: float | None = None


def vendor_map(path: str | None) -> VendorMap:
    """The shipped attribute map, with the --vendor-map file's names over it."""
    if not path:
        return load_vendor_map()
    text = read_user_text(path, SMALL_FILE_BYTES, "the --vendor-map file")
    try:
        return load_vendor_map(text, origin=str(path))
    except ValueError as error:
        raise UsageError(f"--vendor-map {path}: {error}") from None


def checked_elapsed(elapsed_s: float | None) -> float | None:
    """--elapsed, refused when it is not a positive time."""
    if elapsed_s is not None and not elapsed_s > 0:
        raise UsageError(
            f"--elapsed must be a positive time such as 97h or 4d, not {elapsed_s:g} s"
        )
    return elapsed_s


def samples_from_file(path: str, reading: SavedReading) -> list[HealthSample]:
    """The samples of a saved health file of any format parse.health_file reads; a log that
    carries no times is spaced by `interval_s` (or `elapsed_s`), its last line at the file's
    modification time."""
    text = read_user_file(path, LOG_FILE_BYTES, "the health file").decode("utf-8", "replace")
    interval_s, elapsed_s = reading.interval_s, reading.elapsed_s
    if interval_s is not None and elapsed_s is not None:
        raise UsageError("give --interval (time between readings) or --elapsed, not both")
    if interval_s is not None and not interval_s > 0:
        raise UsageError(f"--interval must be a positive time such as 5m, not {interval_s:g} s")
    return read_health_text(
        text,
        name=path,
        vendor_map=vendor_map(reading.vendor_map),
        model=reading.model,
        interval_s=interval_s,
        elapsed_s=elapsed_s,
        end_s=os.stat(path).st_mtime,
    )


def is_readable_drive(path: str) -> bool:
    """A drive whose health can be read now: a block device, an NVMe controller, or a virtual
    drive (`ssdlab sim serve`'s drive file)."""
    return is_drive_path(path) or is_virtual_drive(path)


def read_drive(device: str, names: VendorMap, *, no_wake: bool = False) -> HealthReading:
    """The health of a drive of this machine, read now (a virtual drive, or a loop device over
    one, from its health log)."""
    if is_virtual_drive(device):
        return read_virtual_drive(device)
    identity = read_drive_identity(device)
    return read_health(
        os.path.realpath(device),
        ProcessRunner(),
        vendor_map=names,
        usb=identity.transport == "usb",
        no_wake=no_wake,
    )


def new_drive_run(conn: sqlite3.Connection, kind: RunKind, device: str, settings: object) -> int:
    """The run of a drive of this machine (`health`, `wear` of a device, `watch`): its node
    (or a replay's name), this machine's environment."""
    environment = collect_environment(tool_version("fio"))
    return create_run(
        conn,
        RunHeader(
            kind=kind,
            profile=kind,
            profile_version=1,
            preset=None,
            target_kind=TargetKind.DEVICE if device.startswith("/dev/") else TargetKind.FILE,
            target_path=device,
            target_json=json.dumps({"path": device}),
            settings_json=json.dumps(settings, sort_keys=True),
            plan_json="{}",
            environment_json=to_json(environment),
        ),
    )


def _file_drive(samples: list[HealthSample]) -> dict[str, object] | None:
    """The drive the file names, as an import keeps it (`target["device"]`); None when it
    names none. No device node: the file's is one of the machine that wrote it."""
    identity = samples[-1].identity
    drive: dict[str, object] = {
        "model": identity.model,
        "serial": identity.serial,
        "firmware": identity.firmware,
        "capacity_bytes": identity.capacity_bytes,
    }
    if all(value is None for value in drive.values()):
        return None
    return {**drive, "protocol": identity.protocol, "path": None}


def store_file_samples(
    conn: sqlite3.Connection, path: str, samples: list[HealthSample]
) -> tuple[int, list[int]]:
    """A saved file's samples stored as a run of their own (see the module's docstring):
    (run id, sample ids); `path` as the user gave it."""
    where = os.path.abspath(path)
    target: dict[str, object] = {"kind": "import", "path": where, "read_from_file": True}
    drive = _file_drive(samples)
    if drive is not None:
        target["device"] = drive
    environment = {"ssdlab_version": __version__, "python_version": platform.python_version()}
    run_id = create_run(
        conn,
        RunHeader(
            kind=RunKind.IMPORT,
            profile=RunKind.IMPORT,
            profile_version=1,
            preset=None,
            target_kind=TargetKind.IMPORT,
            target_path=where,
            target_json=to_json(target),
            settings_json=json.dumps({"source": path}, sort_keys=True),
            plan_json="{}",
            environment_json=to_json(environment),
        ),
    )
    return run_id, [add_health_sample(conn, run_id, FILE_PHASE, s) for s in samples]


def store_reading(
    conn: sqlite3.Connection, run_id: int, phase: str, reading: HealthReading
) -> int | None:
    """A reading's captures (raw first), then its sample; the sample's id, None without one."""
    capture_ids = tuple(add_capture(conn, run_id, c) for c in reading.captures)
    if reading.sample is None:
        return None
    return add_health_sample(conn, run_id, phase, reading.sample, capture_ids)
