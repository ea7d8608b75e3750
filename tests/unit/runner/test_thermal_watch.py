"""The drive's temperatures read each second of a pass (runner/thermal_watch.py), with readers
that replay captured real outputs: nvme-cli's smart-log of QEMU's emulated NVMe
(tests/data/devices/README.md) and of a real drive (tests/data/smart/README.md), and real
smartctl JSON from ../shared/testdata/smart (skipped when absent). The runner's passes run real
fio on the null ioengine (no I/O reaches a disk)."""

import threading
from pathlib import Path

import pytest

from ssdlab.model.finding_names import THERMAL
from ssdlab.model.plan import FioJob
from ssdlab.model.profile import ProfilePlan, ProfileStep, StepRole
from ssdlab.model.run import Capture, RunStatus
from ssdlab.model.target import DeviceIdentity, Target, TargetKind
from ssdlab.parse.temperature_reading import smartctl_temperatures
from ssdlab.runner.events import Event
from ssdlab.runner.pass_thermal import pass_finding_name
from ssdlab.runner.profile import ProfileRunner
from ssdlab.runner.thermal_watch import PassSampler, ThermalWatch
from ssdlab.store.db import open_store
from ssdlab.store.findings import load_findings
from ssdlab.store.stored_run import read_run
from ssdlab.system.environment import collect_environment
from ssdlab.system.fio import find_fio
from ssdlab.system.process import ProcessRunner
from ssdlab.system.temperature import (
    TemperatureRead,
    TemperatureSource,
    limits_of,
    reading_of,
    temperature_source,
)
from tests.conftest import HANG_S, load_json_object, needs_fio, shared_smart_sample

DATA = Path(__file__).parents[2] / "data"
QEMU_SMART_LOG = DATA / "devices" / "nvme-smart-log-nvme1n1.json"  # 323 K, no sensors
DRIVE_SMART_LOG = DATA / "smart" / "nvme-cli-2.x-smart-log.json"  # 311 K; sensors 311, 318 K
NVME = DeviceIdentity("nvme1n1", "/dev/nvme1n1", transport="nvme")


def _source() -> TemperatureSource:
    source = temperature_source(NVME, which=lambda tool: f"/usr/sbin/{tool}")
    assert isinstance(source, TemperatureSource)
    return source


def _capture(path: Path, argv: tuple[str, ...]) -> Capture:
    return Capture("nvme", argv, 0, path.read_text(encoding="utf-8"), "", 0.0, 0.0)


def _replay(path: Path) -> TemperatureRead:
    source = _source()
    return reading_of(source, _capture(path, source.argv))


def test_an_nvme_drive_is_read_with_smart_log_and_its_kelvin_converted() -> None:
    source = _source()
    assert source.argv[:3] == ("nvme", "smart-log", "/dev/nvme1n1")
    assert source.limits_argv == ("nvme", "id-ctrl", "/dev/nvme1n1", "-o", "json")
    qemu = _replay(QEMU_SMART_LOG)
    assert qemu.temperatures == (50.0, ())  # 323 K
    assert qemu.counters is not None
    assert qemu.counters.warning_temp_time_min == 0
    drive = _replay(DRIVE_SMART_LOG)
    assert drive.temperatures == (38.0, (38.0, 45.0))  # 311 K; sensors 311 K, 318 K


def test_without_nvme_cli_smartctl_reads_it_and_a_loop_device_has_none() -> None:
    smartctl_only = temperature_source(NVME, which=lambda t: None if t == "nvme" else t)
    assert isinstance(smartctl_only, TemperatureSource)
    assert smartctl_only.argv == ("smartctl", "-A", "-j", "/dev/nvme1n1")
    loop = DeviceIdentity("loop3", "/dev/loop3", transport="loop")
    assert temperature_source(loop) == "a loop device has no temperature"
    assert "no block device" in str(temperature_source(None))


@pytest.mark.parametrize(
    ("name", "composite", "sensors"),
    [
        ("samsung-pm9a1-MZVL21T0HCLR-nvme.json", 29.0, (29.0, 30.0)),
        ("micron-5300-MTFDDAK1T9TDS-sata.json", 24.0, ()),
    ],
)
def test_real_smartctl_json_gives_the_composite_and_the_sensors(
    name: str, composite: float, sensors: tuple[float, ...]
) -> None:
    doc = load_json_object(shared_smart_sample(name))
    assert smartctl_temperatures(doc) == (composite, sensors)


@pytest.mark.parametrize(
    ("path", "composite"),
    [
        (DATA / "smart" / "local-vda-x-j-unable-to-detect.json", None),  # this VM's disk
        (DATA / "devices" / "smartctl-x-j-scsi-virtio.json", None),  # 0 °C: no temperature page
        (DATA / "devices" / "smartctl-x-j-sata-ahci.json", 31.0),  # QEMU's emulated SATA
    ],
)
def test_a_virtual_disk_gives_no_temperature_and_the_run_is_told_why(
    path: Path, composite: float | None
) -> None:
    vda = DeviceIdentity("vda", "/dev/vda", transport="virtio")
    source = temperature_source(vda, which=lambda tool: f"/usr/sbin/{tool}")
    assert isinstance(source, TemperatureSource)
    assert source.argv == ("smartctl", "-A", "-j", "/dev/vda")
    reading = reading_of(source, _capture(path, source.argv))
    if composite is None:
        assert reading.temperatures is None
        assert reading.problem == "smartctl reports no temperature for this drive"
    else:
        assert reading.temperatures == (composite, ())


def test_a_reading_without_json_or_temperature_is_no_reading() -> None:
    source = _source()
    broken = reading_of(source, Capture("nvme", source.argv, 1, "", "open: No such device\n", 0, 0))
    assert broken.temperatures is None
    assert "printed no JSON: open: No such device" in broken.problem
    empty = reading_of(source, Capture("nvme", source.argv, 0, '{"temperature": 0}', "", 0, 0))
    assert empty.temperatures is None
    assert "no temperature" in empty.problem


def test_id_ctrl_limits_are_read_from_a_stored_call() -> None:
    source = _source()
    capture = Capture("nvme", source.limits_argv, 0, '{"wctemp": 343, "cctemp": 373}', "", 0, 0)
    limits = limits_of(source, capture)
    assert limits is not None
    assert (limits.wctemp_k, limits.cctemp_k) == (343, 373)


def test_the_sampler_keeps_every_reading_and_is_joined_when_stopped() -> None:
    readings = [_replay(QEMU_SMART_LOG), _replay(DRIVE_SMART_LOG)]
    calls: list[int] = []
    six = threading.Event()

    def read() -> TemperatureRead:
        calls.append(1)
        if len(calls) >= 6:
            six.set()
        if len(calls) == 3:
            raise OSError("the reading's own trouble")  # counted, never fatal
        return readings[len(calls) % 2]

    sampler = PassSampler(read, period_s=0.0).start()
    assert six.wait(HANG_S), "the sampler stopped reading"  # readings, not time
    taken = sampler.stop()
    assert not sampler._thread.is_alive()  # it never outlives its pass
    assert taken.failed_reads == 1
    assert "the reading's own trouble" in taken.problem
    assert len(taken.samples) == len(calls) - 1
    assert {s.composite_c for s in taken.samples} == {50.0, 38.0}
    elapsed = [s.elapsed_s for s in taken.samples]
    assert elapsed == sorted(elapsed)
    assert elapsed[0] >= 0
    assert taken.counters_before is not None
    assert taken.counters_after is not None


def test_stopping_ends_a_reading_under_way_and_does_not_count_it_failed() -> None:
    first = _replay(QEMU_SMART_LOG)
    hung = threading.Event()
    killed = threading.Event()
    calls: list[int] = []

    def read() -> TemperatureRead:
        calls.append(1)
        if len(calls) == 1:
            return first
        hung.set()
        killed.wait()  # a drive that does not answer, until the call is killed
        return TemperatureRead(None, None, None, "nvme printed no JSON: killed")

    sampler = PassSampler(read, period_s=0.0, cancel=killed.set).start()
    hung.wait()
    taken = sampler.stop()
    assert not sampler._thread.is_alive()
    assert [s.composite_c for s in taken.samples] == [50.0]
    assert taken.failed_reads == 0


def test_a_drive_without_temperature_is_probed_once_and_never_sampled() -> None:
    calls: list[int] = []

    def read() -> TemperatureRead:
        calls.append(1)
        return TemperatureRead(None, None, None, "smartctl reports no temperature for this drive")

    watch = ThermalWatch(read, "smartctl -A -j /dev/vda")
    assert watch.probe().sampled is False
    assert watch.start() is None
    assert watch.start() is None
    assert len(calls) == 1
    assert ThermalWatch(None, "", "a loop device has no temperature").start() is None


# ---- a run's passes with a replaying reader ----------------------------------------------


def _plan() -> ProfilePlan:
    job = FioJob(
        global_options=(
            ("ioengine", "null"), ("size", "16m"), ("time_based", ""), ("runtime", "300ms"),
            ("write_bw_log", "w"), ("log_avg_msec", "50"),
        ),
        sections=(("w", (("rw", "write"), ("bs", "4096"))),),
    )  # fmt: skip
    step = ProfileStep("w", "w", StepRole.MEASURE, "write", job, log_interval_ms=50, expected_s=0.3)
    return ProfilePlan("demo", 1, (), "/dev/null", "file", False, steps=(step, step))


TARGET = Target(TargetKind.FILE, "/dev/null", 16 * 2**20, "/dev/null")


def _run(db: Path, watch: ThermalWatch) -> tuple[int, RunStatus]:
    conn = open_store(db)
    processes = ProcessRunner()
    events: list[Event] = []
    runner = ProfileRunner(conn, find_fio(processes), events.append, processes)
    outcome = runner.execute(
        _plan(), TARGET, collect_environment(None), device_id=None, keep_file=True,
        thermal=watch,
    )  # fmt: skip
    conn.close()
    return outcome.run_id, outcome.status


@needs_fio
def test_a_run_stores_each_pass_temperatures_and_its_thermal_findings(tmp_path: Path) -> None:
    reading = _replay(DRIVE_SMART_LOG)
    watch = ThermalWatch(lambda: reading, "nvme smart-log /dev/nvme1n1", period_s=0.05)
    run_id, status = _run(tmp_path / "db", watch)
    assert status is RunStatus.COMPLETE
    conn = open_store(tmp_path / "db")
    stored = read_run(conn, run_id)
    assert stored is not None
    captures = [s.capture_id for s in stored.steps]
    assert sorted(stored.temperatures) == sorted(c for c in captures if c is not None)
    for samples in stored.temperatures.values():
        assert samples
        assert all(s.composite_c == 38.0 for s in samples)
        assert samples[0].sensors_c == (38.0, 45.0)
    findings = {f.name: f.body for f in load_findings(conn, run_id)}
    assert findings[THERMAL]["sampled"] is True
    assert findings[THERMAL]["capture_id"] > 0  # the probe's raw output, stored first
    first = findings[pass_finding_name("w", 1)]
    assert first["readings"] == len(stored.temperatures[captures[0]])  # type: ignore[index]
    assert first["max_c"] == 38.0
    assert first["throttling"]["short"] is True  # 0.3 s: too short to tell
    assert [c["requirement"] for c in first["checks"]][:2] == ["TTHROTTLE-5", "TTHROTTLE-7"]


@needs_fio
def test_a_run_on_a_drive_without_temperature_records_it_once_and_succeeds(
    tmp_path: Path,
) -> None:
    watch = ThermalWatch(None, "", "a loop device has no temperature")
    run_id, status = _run(tmp_path / "db", watch)
    assert status is RunStatus.COMPLETE
    conn = open_store(tmp_path / "db")
    stored = read_run(conn, run_id)
    assert stored is not None
    assert stored.temperatures == {}
    assert len(stored.steps) == 2
    thermal = [f for f in load_findings(conn, run_id) if f.name.startswith(THERMAL)]
    assert [(f.name, f.body["sampled"], f.body["reason"]) for f in thermal] == [
        (THERMAL, False, "a loop device has no temperature")
    ]
