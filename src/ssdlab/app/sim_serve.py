"""`ssdlab sim serve`: a simulated drive served as a file through FUSE, a drive fio measures
through the kernel like any other, whose health log ssdlab reads like any drive's.

The request (a drive from `--preset` and the options over it, as `ssdlab sim` takes them, or
one drawn at random from `--random-config SEED` and kept in `--secret FILE`, which the
measuring side does not read) is checked into a `ServeSpec` before anything is mounted.
`serve` serves it in this process until a signal; `serving` serves it in a child process for
as long as a `with` block lasts (tests, campaigns), and unmounts it after.
"""

import json
import math
import os
import pickle
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from ssdlab import __version__
from ssdlab.app.sim_setup import (
    TYPICAL_PE,
    SimRequest,
    build_config,
    memory_limit,
    parse_pct,
)
from ssdlab.errors import UsageError
from ssdlab.model.units import format_binary_bytes, format_decimal_bytes
from ssdlab.model.virtual_drive import DRIVE_NAME, HEALTH_NAME
from ssdlab.sim.config import SimConfig
from ssdlab.sim.drive_health import DriveLabel, health_document
from ssdlab.sim.memory import check_memory
from ssdlab.sim.presets import find_preset
from ssdlab.sim.random_config import config_digest, config_json, draw_config
from ssdlab.sim.virtual_drive import DriveCounters, VirtualDrive
from ssdlab.sim.workload import Workload
from ssdlab.system.virtual_drive_fs import (
    ServedDrive,
    check_mountpoint,
    fuse_problem,
    serve_drive,
    start_server,
)
from ssdlab.system.write_gate import write_output

DEFAULT_SERVE_CAPACITY = 1 << 30
# wall seconds per model second: the defaults' 1 GiB TLC drive then writes at about 220 MB/s
# into its SLC cache and 44 MB/s native, so fio fills it in seconds, while a request's model
# time stays well above what the FUSE round trip itself costs (see docs/sim.md)
DEFAULT_TIME_SCALE = 10.0
MAX_SERVE_CAPACITY = 16 << 30  # the Python core keeps ~100 B per page
READY_TIMEOUT_S = 60.0
# the options of `ssdlab sim` that describe the drive (a drawn drive takes none but --capacity)
DRIVE_OPTIONS = (
    "preset",
    "spare",
    "spare_of",
    "page_size",
    "pages_per_block",
    "gc",
    "slc_static",
    "slc_dynamic",
    "bits_per_cell",
    "initial",
    "seed",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ServeRequest:
    """A drive to serve: the drive options of `ssdlab sim` (`drive`), or a configuration drawn
    from `random_config` (then kept in `secret`), the mount point, where the data is kept, the
    time scale and the rated P/E cycles."""

    mountpoint: str
    drive: SimRequest = field(default_factory=SimRequest)
    random_config: int | None = None
    secret: str | None = None
    time_scale: float = DEFAULT_TIME_SCALE
    backing: str | None = None
    c0: bool = True  # False: no OCP C0h log in its health (no NAND writes: --no-c0)
    idle_gc_mb_per_s: float | None = None  # None: no idle GC (--idle-gc MB/s)


@dataclass(frozen=True, slots=True)
class ServeSpec:
    """A checked request: the drive's configuration and what it tells of itself."""

    mountpoint: str
    config: SimConfig
    pe_cycles: float
    time_scale: float
    backing_dir: str
    hidden: bool  # drawn at random: its configuration is in the secret file only
    c0: bool = True  # its health holds the OCP C0h log (NAND writes, erase counts)
    idle_gc_bytes_per_s: float | None = None  # it cleans blocks while idle, at this rate

    @property
    def drive_path(self) -> str:
        return os.path.join(self.mountpoint, DRIVE_NAME)

    @property
    def health_path(self) -> str:
        return os.path.join(self.mountpoint, HEALTH_NAME)

    @property
    def digest(self) -> str:
        return config_digest(self.config)


def _config(request: ServeRequest) -> tuple[SimConfig, float | None]:
    """The drive's configuration, and the rated P/E cycles its preset gives (None: none)."""
    drive = request.drive
    if request.random_config is None:
        if request.secret:
            raise UsageError("--secret keeps a drawn configuration: give --random-config SEED")
        spare = None if drive.spare is None else parse_pct(drive.spare, "--spare")
        if spare is not None and spare <= 0:
            raise UsageError(f"--spare {drive.spare}: spare must be more than 0 %")
        preset = find_preset(drive.preset) if drive.preset else None
        if drive.capacity is None:
            drive = replace(drive, capacity=DEFAULT_SERVE_CAPACITY)
        return build_config(drive, preset, spare), float(preset.pe_cycles) if preset else None
    if not request.secret:
        raise UsageError(
            "--random-config draws a drive to keep hidden: name the file that keeps it, "
            "--secret FILE (the measuring side must not read it)"
        )
    given = [
        f.name.replace("_", "-")
        for f in fields(SimRequest)
        if f.name in DRIVE_OPTIONS and getattr(drive, f.name) != f.default
    ]
    if given:
        raise UsageError(
            f"--random-config draws the whole drive; drop {', '.join('--' + g for g in given)} "
            "(only --capacity is kept)"
        )
    if not 0 <= request.random_config < 2**64:
        raise UsageError(f"--random-config must be in 0 … 2^64−1, not {request.random_config}")
    return draw_config(request.random_config, drive.capacity or DEFAULT_SERVE_CAPACITY), None


def plan_serve(request: ServeRequest) -> ServeSpec:
    """The drive the request asks for, checked (configuration, mount point, FUSE), and its
    secret written when it is drawn at random; nothing is mounted."""
    problem = fuse_problem()
    if problem:
        raise UsageError(problem)
    config, preset_pe = _config(request)
    if config.logical_bytes > MAX_SERVE_CAPACITY:
        raise UsageError(
            f"a served drive is at most {MAX_SERVE_CAPACITY >> 30} GiB (its FTL is the Python "
            "core, kept in memory); a small drive fills in seconds: try --capacity 1GiB"
        )
    if not (math.isfinite(request.time_scale) and request.time_scale >= 0):
        raise UsageError(f"--time-scale must be 0 or more, not {request.time_scale:g}")
    limit = memory_limit()
    if limit is not None:  # the drive's FTL is the Python core's, one page at a time
        check_memory(config, Workload(kind="uniform"), "python", 1, limit)
    check_mountpoint(request.mountpoint)
    backing = request.backing or tempfile.gettempdir()
    if not os.path.isdir(backing):
        raise UsageError(f"--backing {backing} is not a directory")
    pe = request.drive.pe_cycles if request.drive.pe_cycles is not None else preset_pe
    if pe is None:
        pe = float(TYPICAL_PE.get(config.bits_per_cell, 3000))
    elif not (math.isfinite(pe) and pe > 0):
        raise UsageError(f"--pe-cycles must be positive, not {pe:g}")
    idle_gc = request.idle_gc_mb_per_s
    if idle_gc is not None and not (math.isfinite(idle_gc) and idle_gc > 0):
        raise UsageError(f"--idle-gc must be a rate above 0 MB/s, not {idle_gc:g}")
    spec = ServeSpec(
        mountpoint=os.path.abspath(request.mountpoint),
        config=config,
        pe_cycles=pe,
        time_scale=request.time_scale,
        backing_dir=backing,
        hidden=request.random_config is not None,
        c0=request.c0,
        idle_gc_bytes_per_s=None if idle_gc is None else idle_gc * 1e6,
    )
    if request.secret:
        secret = {
            "format": "ssdlab-virtual-drive-config",
            "format_version": 1,
            "random_config": request.random_config,
            "config_sha256": spec.digest,
            "rated_pe_cycles": pe,
            "config": config_json(config),
        }
        if idle_gc is not None:  # a served drive's behaviour, not part of its configuration
            secret["idle_gc_mb_per_s"] = idle_gc
        write_output(request.secret, json.dumps(secret, indent=2) + "\n", "--secret")
    return spec


class _Health:
    """The drive's health document as bytes, rendered from its counters at each reading."""

    def __init__(self, drive: VirtualDrive, spec: ServeSpec) -> None:
        self._drive = drive
        self._label = DriveLabel(
            serial=f"SIM-{spec.digest[:16].upper()}",
            firmware=__version__,
            capacity_bytes=spec.config.logical_bytes,
            rated_pe_cycles=spec.pe_cycles,
            config_sha256=spec.digest,
        )
        self._started = time.monotonic()
        self._c0 = spec.c0

    def __call__(self) -> bytes:
        document = health_document(
            self._drive.counters(),
            self._label,
            time.monotonic() - self._started,
            time.time(),
            c0=self._c0,
        )
        return (json.dumps(document, indent=2) + "\n").encode()


def serve(spec: ServeSpec) -> DriveCounters:
    """Serve the drive until SIGINT, SIGTERM or SIGHUP; its counters when it stopped."""
    drive = VirtualDrive(spec.config, spec.idle_gc_bytes_per_s)
    served = ServedDrive(drive, _Health(drive, spec), spec.backing_dir, spec.time_scale)
    serve_drive(served, spec.mountpoint)
    return drive.counters()


def serve_pickled(payload: bytes) -> None:
    """The child `serving` starts: serve the pickled spec until SIGTERM."""
    spec = pickle.loads(payload)
    serve(spec)


@contextmanager
def serving(spec: ServeSpec, ready_timeout_s: float = READY_TIMEOUT_S) -> Iterator[ServeSpec]:
    """The drive served by a child process while the block runs; unmounted after it."""
    child = start_server(__name__, "serve_pickled", pickle.dumps(spec))
    try:
        deadline = time.monotonic() + ready_timeout_s
        while not os.path.exists(spec.health_path):
            if child.poll() is not None:
                status = child.returncode
                raise UsageError(f"the virtual drive did not start (exit status {status})")
            if time.monotonic() > deadline:
                raise UsageError(f"the virtual drive was not mounted in {ready_timeout_s:g} s")
            time.sleep(0.05)
        yield spec
    finally:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
        try:
            child.wait(30.0)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def mounted(spec: ServeSpec) -> bool:
    return Path(spec.mountpoint).is_mount()


def _described(config: SimConfig) -> str:
    cache = []
    if config.slc_static_bytes:
        cache.append(f"{format_binary_bytes(config.slc_static_bytes)} static")
    if config.slc_dynamic:
        cache.append("dynamic")
    return (
        f"spare {config.spare_of_logical:.1%} of logical, {config.bits_per_cell} bits per cell, "
        f"SLC cache {' + '.join(cache) or 'none'}, GC {config.gc_policy.value}, "
        f"start {config.initial_state}"
    )


def serving_lines(spec: ServeSpec) -> list[str]:
    """What the command says when the drive is about to be served."""
    size = format_binary_bytes(spec.config.logical_bytes)
    what = (
        f"configuration hidden (sha256 {spec.digest[:16]}…)"
        if spec.hidden
        else _described(spec.config)
    )
    return [
        f"a {size} virtual drive at {spec.drive_path}: {what}",
        f"its health log: {spec.health_path} (ssdlab health {spec.drive_path})"
        + ("" if spec.c0 else "; no OCP C0h log: it reports no NAND writes"),
        f"time scale {spec.time_scale:g} (wall seconds per model second)"
        + _idle_gc_text(spec)
        + "; stop with Ctrl-C",
    ]


def _idle_gc_text(spec: ServeSpec) -> str:
    rate = spec.idle_gc_bytes_per_s
    if rate is None:
        return ""
    return f"; idle GC at up to {format_decimal_bytes(round(rate))}/s of model time"


def counters_document(spec: ServeSpec, counters: DriveCounters) -> dict[str, object]:
    """`sim serve --json`: the drive's counters when it stopped (format ssdlab-virtual-drive)."""
    return {
        "format": "ssdlab-virtual-drive",
        "format_version": 1,
        "config_sha256": spec.digest,
        "counters": {**asdict(counters), "waf": counters.waf},
    }


def stopped_text(counters: DriveCounters) -> str:
    waf = "n/a" if counters.waf is None else f"{counters.waf:.3f}"
    return (
        f"stopped and unmounted: host wrote {format_decimal_bytes(counters.host_write_bytes)}, "
        f"NAND {format_decimal_bytes(counters.nand_write_bytes)} (WAF {waf}), "
        f"{counters.erases:,} erases, {counters.free_blocks} of {counters.total_blocks} "
        "blocks free"
    )
