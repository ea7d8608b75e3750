"""Stores for the tests of `ssdlab metrics`, built through ssdlab's own store functions from
real inputs: the smartctl and nvme-cli captures of tests/data/smart, the MX500 cron log of
tests/data/smart-text (tests/replay_logs.py), and the runs of the store an earlier ssdlab
wrote (tests/data/store/main-98b38bc.sqlite: quick, profile, imported, simulated and endurance
runs), collected from a lab node as `ssdlab fleet collect` does.

`varied_store` holds what the exporter has to tell apart: drives watched, checked now and then
or only ever read from saved files; series with and without a day of history, wear that steps,
stands still (the erase-count fallback) or goes down; samples without a time; samples taken at
the same second; a serial with the key's separator in it; quick runs complete, failed,
interrupted and imported, on a drive, on a device without samples and on a plain file, one
judged against a baseline; endurance runs finished and running; a user's spec sheet."""

import dataclasses
import json
import shutil
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ssdlab.model.health import HEALTH_METRICS, HealthSample, HealthValue
from ssdlab.model.run import Capture, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.target import DeviceIdentity
from ssdlab.parse.nvme_json import parse_nvme_smart_log
from ssdlab.parse.smartctl_json import normalise_smartctl, parse_smartctl_json
from ssdlab.parse.smartctl_log import split_snapshot_log
from ssdlab.store.captures import add_capture
from ssdlab.store.db import open_store
from ssdlab.store.devices import upsert_device
from ssdlab.store.findings import add_finding
from ssdlab.store.health import add_health_sample
from ssdlab.store.lifecycle import NewRun, create_run, finish_run
from ssdlab.store.merge import copy_runs
from ssdlab.store.specs import StoredSpecSheet, put_spec_sheet
from ssdlab.store.steps import add_step_result, load_step_results
from tests.conftest import ROOT
from tests.replay_logs import wear_series, write_log

SMART = ROOT / "tests" / "data" / "smart"
OLD_STORE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"
CENTRAL = "lab-central"  # the host the store's own runs were made on
START_S = 1_767_225_600.0  # the MX500 capture's own time (2026-01-01)
HOUR_S = 3600.0
GB = 1e9

MX500_SHEET = """schema = 1
key = "crucial-mx500-500gb-test"
vendor = "Crucial"
model = "MX500"
capacity = "500GB"
part_numbers = ["CT500MX500SSD1"]
interface = "SATA 6 Gb/s"
tbw_tb = 180
warranty_years = 5
sources = ["a sheet added by the user (ssdlab spec add), for the test"]
"""


@dataclass(frozen=True)
class VariedStore:
    """A store built by `varied_store`: its path, and the time to export it at (the finished
    endurance run is recent then)."""

    path: Path
    now_s: float


def mx500() -> HealthSample:
    return parse_smartctl_json((SMART / "ata-crucial-mx500-devstat-wrap.json").read_text())


def moved(sample: HealthSample, taken_at_s: float | None, **values: float) -> HealthSample:
    """The sample at another time with some counters at other values, each keeping the
    provenance (source, unit, resolution) the parser gave it."""
    changed: dict[str, HealthValue] = {}
    for name, value in values.items():
        assert name in HEALTH_METRICS, name
        old: HealthValue = getattr(sample, name)
        changed[name] = dataclasses.replace(old, value=value)
    return dataclasses.replace(sample, taken_at_s=taken_at_s, **changed)  # type: ignore[arg-type]


def renamed(sample: HealthSample, *, serial: str, model: str | None = None) -> HealthSample:
    identity = dataclasses.replace(
        sample.identity, serial=serial, model=model or sample.identity.model
    )
    return dataclasses.replace(sample, identity=identity)


def new_run(
    conn: sqlite3.Connection,
    kind: str,
    started_at_s: float,
    *,
    host: str = CENTRAL,
    profile: str | None = None,
    device_id: int | None = None,
    target: str = "/dev/sdb",
) -> int:
    return create_run(
        conn,
        NewRun(
            kind=kind,
            profile=profile or kind,
            profile_version=1,
            preset=None,
            target_kind="device" if target.startswith("/dev/") else "file",
            target_path=target,
            target_json=json.dumps({"path": target}),
            device_id=device_id,
            settings_json="{}",
            plan_json="{}",
            environment_json="{}",
            started_at_s=started_at_s,
            host=host,
            pid=1,
            boot_id=None,
        ),
    )


def sample_run(
    conn: sqlite3.Connection,
    kind: str,
    phase: str,
    samples: Sequence[HealthSample],
    *,
    host: str = CENTRAL,
    target: str = "/dev/sdb",
) -> int:
    """A health, watch or import run holding `samples`, finished after the last."""
    times = [s.taken_at_s for s in samples if s.taken_at_s is not None] or [START_S]
    run_id = new_run(conn, kind, min(times) - 1.0, host=host, target=target)
    for sample in samples:
        add_health_sample(conn, run_id, phase, sample)
    finish_run(conn, run_id, RunStatus.COMPLETE, None, max(times) + 1.0)
    return run_id


def quick_run(
    conn: sqlite3.Connection,
    steps: Sequence[StepResult],
    started_at_s: float,
    *,
    status: RunStatus = RunStatus.COMPLETE,
    device_id: int | None = None,
    samples: Sequence[HealthSample] = (),
    host: str = CENTRAL,
    speed: float = 1.0,
    target: str = "/dev/sdb",
) -> int:
    """A quick run of the given passes (throughput and IOPS scaled by `speed`), with its
    health samples before and after."""
    run_id = new_run(conn, "quick", started_at_s, host=host, device_id=device_id, target=target)
    if samples:
        add_health_sample(conn, run_id, "before", samples[0])
    for step in steps:
        capture = Capture("fio", ("fio", "--output-format=json+"), 0, "{}", "", 0.0, 1.0)
        capture_id = add_capture(conn, run_id, capture)
        add_step_result(
            conn,
            run_id,
            dataclasses.replace(
                step,
                capture_id=capture_id,
                bw_bytes_per_s=step.bw_bytes_per_s * speed,
                iops=step.iops * speed,
                series=(),
            ),
        )
    for sample in samples[1:]:
        add_health_sample(conn, run_id, "after", sample)
    finish_run(conn, run_id, status, None, started_at_s + 600.0)
    return run_id


def old_store_copy(folder: Path, name: str) -> Path:
    """The store an earlier ssdlab wrote, copied (and migrated when opened)."""
    path = folder / name
    shutil.copyfile(OLD_STORE, path)
    return path


def template_steps(folder: Path, run_id: int) -> list[StepResult]:
    conn = open_store(old_store_copy(folder, f"steps-{run_id}.sqlite"))
    try:
        return load_step_results(conn, run_id, with_series=False)
    finally:
        conn.close()


def _watched_mx500(conn: sqlite3.Connection) -> HealthSample:
    """MX500 watched every 2 h for 80 h: WAF 2.5, wear stepping every 16 h."""
    base = renamed(mx500(), serial="MX-WATCH-1")
    series = [
        moved(
            base,
            START_S + i * 2 * HOUR_S,
            host_written_bytes=5.888e12 + i * 20 * GB,
            nand_written_bytes=9.8176e12 + i * 50 * GB,
            wear_used_pct=3.0 + i // 8,
            erase_count_avg=40.0 + 3 * i,
            temperature_c=30.0 + i % 7,
        )
        for i in range(40)
    ]
    sample_run(conn, "watch", "watch", series)
    return series[-1]


def _erase_count_mx500(conn: sqlite3.Connection) -> None:
    """Another MX500 checked every 6 h: its wear indicator stands still, its erases count."""
    base = renamed(mx500(), serial="MX-ERASE-1")
    for i in range(10):
        sample = moved(
            base,
            START_S + i * 6 * HOUR_S,
            host_written_bytes=5.888e12 + i * 40 * GB,
            nand_written_bytes=9.8176e12 + i * 90 * GB,
            wear_used_pct=10.0,
            erase_count_avg=150.0 + 2 * i,
        )
        sample_run(conn, "health", "check", [sample])


def _odd_drives(conn: sqlite3.Connection) -> None:
    base = mx500()
    # the wear counter went down (a reset): no wear rate
    reset = renamed(base, serial="MX-RESET-1")
    wears = (5.0, 5.0, 6.0, 7.0, 4.0, 8.0)
    sample_run(
        conn,
        "watch",
        "watch",
        [moved(reset, START_S + i * HOUR_S, wear_used_pct=w) for i, w in enumerate(wears)],
    )
    # two samples at the same second, and one a second later
    unknown = parse_smartctl_json((SMART / "ata-unknown-vendor.json").read_text())
    for i, temperature in enumerate((39.0, 41.0, 40.0)):
        sample_run(
            conn,
            "health",
            "check",
            [moved(unknown, START_S + (i // 2), temperature_c=temperature)],
        )
    # a serial and a model with the device key's separator in them
    odd = renamed(base, serial="S|1", model="ODD|MODEL")
    sample_run(
        conn,
        "watch",
        "watch",
        [moved(odd, START_S + i * 30 * HOUR_S, wear_used_pct=3.0 + i) for i in range(4)],
    )
    # one timed sample and one without a time: the series is placed by power-on hours
    half = renamed(base, serial="MX-HALF-1")
    sample_run(conn, "health", "check", [moved(half, START_S, power_on_hours=15000.0)])
    sample_run(conn, "health", "check", [moved(half, None, power_on_hours=15100.0)])


def _saved_files(conn: sqlite3.Connection, folder: Path) -> None:
    """Drives known from saved files only (`health FILE`, `health --import LOG`), and one a
    node watches whose newest sample is a file read here."""
    nvme = parse_nvme_smart_log((SMART / "nvme-cli-2.x-smart-log.json").read_text())
    for hours in (6031.0, 6131.0):  # nvme-cli gives no time: placed by power-on hours
        sample_run(conn, "import", "import", [moved(nvme, None, power_on_hours=hours)])
    text = write_log(folder / "wear.log", wear_series(30, waf=3.0)).read_text()
    logged = [normalise_smartctl(s.doc, taken_at_s=s.taken_at_s) for s in split_snapshot_log(text)]
    sample_run(conn, "import", "import", logged, target=str(folder / "wear.log"))
    node = renamed(mx500(), serial="MX-NODE-1")
    sample_run(
        conn,
        "watch",
        "watch",
        [moved(node, START_S + i * HOUR_S, wear_used_pct=3.0 + i) for i in range(5)],
        host="lab-9",
    )
    sample_run(conn, "import", "import", [moved(node, START_S + 10 * HOUR_S)], target="/tmp/x")


def _quick_runs(conn: sqlite3.Connection, folder: Path, latest: HealthSample) -> None:
    """Quick runs on the watched MX500 (with samples), on a device without samples, on a plain
    file; failed and interrupted ones, which are not exported."""
    big = template_steps(folder, 1)  # 12 tests, one measured pass each, mixes included
    small = template_steps(folder, 2)
    device = upsert_device(
        conn,
        DeviceIdentity(
            "sdb", "/dev/sdb", model="CT500MX500SSD1", serial="MX-WATCH-1", firmware="M3CR023"
        ),
    )
    t = START_S + 81 * HOUR_S
    samples = [moved(latest, t), moved(latest, t + 600.0)]
    quick_run(conn, big, t - 3 * HOUR_S, device_id=device, samples=samples, speed=0.9)
    judged = quick_run(conn, big, t, device_id=device, samples=samples, speed=1.1)
    quick_run(conn, big, t + HOUR_S, device_id=device, samples=samples, status=RunStatus.FAILED)
    quick_run(conn, small, t + 2 * HOUR_S, device_id=device, status=RunStatus.INTERRUPTED)
    keys = sorted({s.step_key for s in big})
    baseline = {
        "name": "nightly",
        "reference_run_ids": [1],
        "tests": [
            {"key": keys[0], "verdict": "worse", "regression": True},
            {"key": keys[1], "verdict": "not significant", "regression": False},
            {"key": keys[2], "verdict": "n/a"},
        ],
    }
    add_finding(conn, judged, "baseline", "verdict", baseline, t + 700.0)
    other = upsert_device(
        conn, DeviceIdentity("sdc", "/dev/sdc", model=" Samsung SSD ", serial=" S3Z ", firmware="")
    )
    quick_run(conn, small, t, device_id=other, speed=0.5, target="/dev/sdc")
    for i, speed in enumerate((0.7, 0.8)):  # a file on a filesystem: no drive labels
        quick_run(conn, small, t + i, speed=speed, target=str(folder / "quick.tmp"), host="lab-4")


def _collected_node(conn: sqlite3.Connection, folder: Path, files: bool) -> float:
    """The runs of a lab node collected into this store (without the health files it read
    unless `files`); its endurance run collected once as it finished and once while it ran.
    Returns when the node's endurance run ended."""
    node = open_store(old_store_copy(folder, "node.sqlite"))
    try:
        if not files:
            node.execute("DELETE FROM runs WHERE kind = 'import' AND profile = 'import'")
        copy_runs(node, conn, host="lab-7", collected_at_s=START_S)
        (ended,) = node.execute(
            "SELECT ended_at_s FROM runs WHERE profile = 'endurance'"
        ).fetchone()
        # another UUID, as ssdlab writes them (a collect refuses any other)
        node.execute(
            "UPDATE runs SET status = 'running', ended_at_s = NULL, uuid = ?"
            " WHERE profile = 'endurance'",
            ("6e0de2a1-5b7c-4d3e-9f10-2a3b4c5d6e7f",),
        )
        copy_runs(node, conn, host="lab-8", collected_at_s=START_S)
    finally:
        node.close()
    return float(ended)


def varied_store(folder: Path, *, files: bool = True) -> VariedStore:
    """The store described in this module's docstring, at folder/varied.sqlite; with `files`
    False, without the drives read from saved files."""
    path = folder / "varied.sqlite"
    conn = open_store(path)
    try:
        put_spec_sheet(conn, StoredSpecSheet("crucial-mx500-500gb-test", MX500_SHEET, "t", 0.0))
        latest = _watched_mx500(conn)
        _erase_count_mx500(conn)
        _odd_drives(conn)
        if files:
            _saved_files(conn, folder)
        _quick_runs(conn, folder, latest)
        ended = _collected_node(conn, folder, files)
    finally:
        conn.close()
    return VariedStore(path, ended + 3 * 86400.0)
