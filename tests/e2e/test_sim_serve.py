"""`ssdlab sim serve` end to end: a simulated drive served through FUSE that fio writes and
verifies through the kernel (direct I/O), whose counters are those of the simulator replaying
the requests fio logged, whose discards reach the FTL, whose health ssdlab reads like a
drive's, and which is unmounted when it stops.

The drives are small (64 MiB) and served with no waits (`time_scale=0`), so each test takes a
few seconds; nothing is timed."""

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ssdlab.app.sim_serve import ServeRequest, ServeSpec, plan_serve, serving
from ssdlab.app.sim_setup import SimRequest
from ssdlab.errors import UsageError
from ssdlab.sim import Workload, read_trace, simulate
from ssdlab.system.virtual_drive_fs import fuse_problem
from ssdlab.system.virtual_drive_health import read_virtual_drive
from tests.conftest import needs_fio
from tests.e2e.conftest import run_ssdlab, ssdlab_argv, ssdlab_env

MiB = 2**20
FUSE_PROBLEM = fuse_problem()
needs_fuse = pytest.mark.skipif(FUSE_PROBLEM is not None, reason=str(FUSE_PROBLEM))
pytestmark = [needs_fuse]


def _drive(**options: object) -> SimRequest:
    given: dict[str, object] = {
        "capacity": 64 * MiB,
        "spare": "7%",
        "pages_per_block": 64,
        "slc_dynamic": True,
    }
    given.update(options)
    return SimRequest(**given)  # type: ignore[arg-type]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[ServeSpec]:
    mount = tmp_path / "mnt"
    mount.mkdir()
    request = ServeRequest(
        mountpoint=str(mount),
        drive=_drive(initial="full"),
        time_scale=0.0,
        backing=str(tmp_path),
    )
    with serving(plan_serve(request)) as spec:
        yield spec
    assert not os.path.ismount(mount)


@pytest.fixture
def loop(served: ServeSpec) -> Iterator[str]:
    """A loop device over the served drive file (direct I/O), detached after the test."""
    if os.geteuid() != 0 or shutil.which("losetup") is None:
        pytest.skip("needs root and losetup for a loop device")
    attach = ["losetup", "--find", "--show", "--direct-io=on", served.drive_path]
    done = subprocess.run(attach, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot attach a loop device: {done.stderr.strip()}")
    try:
        yield done.stdout.strip()
    finally:
        subprocess.run(["losetup", "-d", done.stdout.strip()], capture_output=True, check=False)


def _counters(spec: ServeSpec) -> dict[str, int]:
    doc = json.loads(Path(spec.health_path).read_text())
    counters: dict[str, int] = doc["counters"]
    return counters


def _fio(*args: str) -> dict[str, object]:
    done = subprocess.run(
        ["fio", "--output-format=json", *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr + done.stdout[-2000:]
    result: dict[str, object] = json.loads(done.stdout)
    return result


@needs_fio
def test_fio_verifies_random_writes_through_the_drive(served: ServeSpec) -> None:
    common = [
        f"--filename={served.drive_path}",
        "--direct=1",
        "--rw=randwrite",
        "--size=64M",
        "--verify=crc32c",
        "--do_verify=1",
        "--randseed=34",
        "--verify_state_save=0",
    ]
    _fio("--name=mixed", *common, "--bsrange=4k-128k", "--ioengine=psync")
    _fio("--name=queued", *common, "--bs=4k", "--ioengine=libaio", "--iodepth=16")
    counters = _counters(served)
    assert counters["host_write_bytes"] == 2 * 64 * MiB  # both jobs wrote every byte once
    assert counters["host_read_bytes"] == 2 * 64 * MiB  # and read it all back to verify
    assert counters["nand_write_bytes"] > counters["host_write_bytes"]  # full from the start


@needs_fio
@pytest.mark.parametrize("core", ["python", "rust"])
def test_the_counters_are_the_simulators_for_the_requests_fio_logged(
    served: ServeSpec, tmp_path: Path, core: str
) -> None:
    from ssdlab.sim import available_cores

    if core not in available_cores():
        pytest.skip("ssdlab_simcore is not built (make install builds it with cargo)")
    log = tmp_path / "writes.iolog"
    _fio(
        "--name=logged",
        f"--filename={served.drive_path}",
        "--direct=1",
        "--rw=randwrite",
        "--bs=4k",
        "--size=64M",
        "--io_size=24M",
        "--norandommap",
        "--randseed=7",
        "--ioengine=psync",
        f"--write_iolog={log}",
    )
    health = _counters(served)
    assert health["host_write_bytes"] == 24 * MiB
    trace = read_trace(log.read_text(), "iolog", capacity_bytes=served.config.logical_bytes)
    replay = simulate(
        served.config,
        Workload(kind="trace", trace=trace),
        host_bytes=24 * MiB,
        interval_bytes=24 * MiB,
        core=core,
    )
    last = replay.intervals[-1]
    assert health["nand_write_bytes"] == last.nand_write_bytes
    assert health["nand_write_bytes"] > health["host_write_bytes"]  # GC copied pages
    assert health["erase_count_max"] == last.erase_count_max
    assert health["erase_count_min"] == last.erase_count_min
    assert health["free_blocks"] == last.free_blocks
    assert health["waf"] == pytest.approx(replay.waf)
    reading = read_virtual_drive(served.drive_path)
    assert reading.sample is not None
    assert reading.sample.nand_written_bytes.value == last.nand_write_bytes
    assert reading.sample.erase_count_max.value == last.erase_count_max
    units = -(-24 * MiB // 512_000)
    assert reading.sample.host_written_bytes.value == units * 512_000


def _punch_hole(path: str, offset: int, length: int) -> None:
    if shutil.which("fallocate") is None:
        pytest.skip("fallocate (util-linux) is not installed")
    argv = ["fallocate", "--punch-hole", "--offset", str(offset), "--length", str(length), path]
    subprocess.run(argv, check=True, capture_output=True)


def test_a_discard_reaches_the_ftl_and_reads_back_zeros(served: ServeSpec) -> None:
    fd = os.open(served.drive_path, os.O_RDWR)
    try:
        os.pwrite(fd, b"\xa5" * MiB, 4 * MiB)
        _punch_hole(served.drive_path, 4 * MiB + 64 * 1024, 128 * 1024)
        data = os.pread(fd, MiB, 4 * MiB)
    finally:
        os.close(fd)
    counters = _counters(served)
    assert counters["trim_bytes"] == 128 * 1024
    assert counters["trim_commands"] == 1
    assert data[: 64 * 1024] == b"\xa5" * (64 * 1024)
    assert data[64 * 1024 : 192 * 1024] == bytes(128 * 1024)
    assert data[192 * 1024 :] == b"\xa5" * (MiB - 192 * 1024)


@needs_fio
@pytest.mark.root
@pytest.mark.loop
def test_fio_discards_through_a_loop_device_and_health_reads_it(
    served: ServeSpec, loop: str, tmp_path: Path
) -> None:
    _fio("--name=trim", f"--filename={loop}", "--rw=randtrim", "--bs=64k", "--size=8M")
    shown = run_ssdlab("health", loop, "--json", "--db", str(tmp_path / "db"))
    assert _counters(served)["trim_bytes"] == 8 * MiB
    assert shown.code == 0, shown.stderr
    sample = json.loads(shown.stdout)["sample"]
    assert sample["identity"]["model"] == "ssdlab virtual drive"
    assert sample["nand_written_bytes"]["value"] == 0  # nothing written since it was served


def _stored_samples(db: str) -> list[tuple[str, float]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT model, nand_written_bytes FROM health_samples ORDER BY id")
        return [(str(model), float(nand)) for model, nand in rows]


@needs_fio
@pytest.mark.root
@pytest.mark.loop
def test_endure_on_a_loop_device_over_the_drive_samples_its_health(
    served: ServeSpec, loop: str, tmp_path: Path
) -> None:
    db = str(tmp_path / "db")
    endured = run_ssdlab(
        "endure", loop, "--destroy-data", loop, "--size", "64MiB",
        "--iteration-bytes", "32MiB", "--until-written", "64MiB", "--health-every", "1s",
        "--db", db,
    )  # fmt: skip
    assert endured.code == 0, endured.stderr
    samples = _stored_samples(db)
    assert len(samples) >= 2  # before and after, and any taken while fio ran
    assert {model for model, _ in samples} == {"ssdlab virtual drive"}
    assert samples[-1][1] == _counters(served)["nand_write_bytes"]  # nothing written since


def test_watch_samples_the_drive_file(served: ServeSpec, tmp_path: Path) -> None:
    db = str(tmp_path / "db")
    watched = run_ssdlab("watch", served.drive_path, "--every", "1s", "--count", "2", "--db", db)
    assert watched.code == 0, watched.stderr
    assert [model for model, _ in _stored_samples(db)] == ["ssdlab virtual drive"] * 2


def test_health_reads_the_drive_file_as_a_drive(served: ServeSpec, tmp_path: Path) -> None:
    with open(served.drive_path, "r+b", buffering=0) as f:
        f.write(b"x" * 4096 * 256)
    db = str(tmp_path / "db")
    shown = run_ssdlab("health", served.drive_path, "--json", "--db", db)
    assert shown.code == 0, shown.stderr
    doc = json.loads(shown.stdout)
    sample = doc["sample"]
    assert sample["identity"]["serial"].startswith("SIM-")
    assert sample["nand_written_bytes"]["value"] == _counters(served)["nand_write_bytes"]
    assert sample["host_written_bytes"]["value"] == 3 * 512_000  # 1 MiB in data units, up
    assert sample["erase_count_max"]["value"] is not None
    printed = run_ssdlab("health", served.drive_path, "--db", db)
    assert "erase blocks free" in printed.stdout + printed.stderr  # the note no field holds
    runs = run_ssdlab("runs", "--json", "--db", db)
    assert json.loads(runs.stdout)["runs"][0]["kind"] == "health"


def test_serve_stops_on_sigterm_unmounts_and_says_what_was_written(tmp_path: Path) -> None:
    mount = tmp_path / "mnt"
    mount.mkdir()
    argv = ssdlab_argv(
        "sim", "serve", str(mount), "--capacity", "16MiB", "--pages-per-block", "64",
        "--time-scale", "0", "--backing", str(tmp_path), "--json",
    )  # fmt: skip
    server = subprocess.Popen(
        argv, env=ssdlab_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        health = mount / "health.json"
        deadline = time.monotonic() + 60
        while not health.exists():
            assert server.poll() is None, server.communicate()[1]
            assert time.monotonic() < deadline, "the drive was not mounted in 60 s"
            time.sleep(0.05)
        with open(mount / "drive", "r+b", buffering=0) as f:
            f.write(b"y" * 8192)
        server.send_signal(signal.SIGTERM)
        out, err = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert server.returncode == 0, err
    assert not os.path.ismount(mount)
    assert os.listdir(mount) == []
    doc = json.loads(out)
    assert doc["counters"]["host_write_bytes"] == 8192
    assert "virtual drive at" in err


def _drawn(
    tmp_path: Path, seed: int, idle_gc: float | None = None
) -> tuple[ServeSpec, dict[str, Any]]:
    """A 32 MiB drive drawn from `seed`, served with no waits, and its secret file as kept."""
    mount = tmp_path / "mnt"
    mount.mkdir()
    secret = tmp_path / "secret.json"
    request = ServeRequest(
        mountpoint=str(mount),
        drive=SimRequest(capacity=32 * MiB),
        random_config=seed,
        secret=str(secret),
        time_scale=0.0,
        backing=str(tmp_path),
        idle_gc_mb_per_s=idle_gc,
    )
    spec = plan_serve(request)
    kept: dict[str, Any] = json.loads(secret.read_text())
    return spec, kept


def test_a_drawn_drive_is_kept_in_the_secret_file_and_shown_only_by_its_digest(
    tmp_path: Path,
) -> None:
    spec, kept = _drawn(tmp_path, 42)
    assert kept["config_sha256"] == spec.digest
    assert kept["config"]["logical_bytes"] == 32 * MiB
    with serving(spec):
        health = json.loads(Path(spec.health_path).read_text())
    assert health["identity"]["config_sha256"] == spec.digest
    assert "config" not in health
    assert json.dumps(kept["config"]) not in json.dumps(health)


def test_bad_requests_are_refused_before_anything_is_mounted(tmp_path: Path) -> None:
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "file").write_text("x")
    with pytest.raises(UsageError, match="not empty"):
        plan_serve(ServeRequest(mountpoint=str(busy)))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UsageError, match="--secret FILE"):
        plan_serve(ServeRequest(mountpoint=str(empty), random_config=1))
    drawn = ServeRequest(
        mountpoint=str(empty),
        drive=SimRequest(spare="20%"),
        random_config=1,
        secret=str(tmp_path / "s"),
    )
    with pytest.raises(UsageError, match="drop --spare"):
        plan_serve(drawn)
    assert not (tmp_path / "s").exists()


def test_a_drive_served_without_c0_reads_as_one_without_nand_writes(tmp_path: Path) -> None:
    """`--no-c0`: `ssdlab health` reads the host writes and no NAND writes, as on a consumer
    drive without a NAND counter (the case docs/model-fit.md, *On a real drive*, covers)."""
    mount = tmp_path / "mnt"
    mount.mkdir()
    request = ServeRequest(mountpoint=str(mount), drive=_drive(), time_scale=0.0,
                           backing=str(tmp_path), c0=False)  # fmt: skip
    with serving(plan_serve(request)) as spec:
        with open(spec.drive_path, "r+b", buffering=0) as f:
            f.write(b"x" * 4096 * 256)
        shown = run_ssdlab("health", spec.drive_path, "--json", "--db", str(tmp_path / "db"))
        assert _counters(spec)["nand_write_bytes"] > 0  # the drive wrote NAND; it does not say
    assert shown.code == 0, shown.stderr
    sample = json.loads(shown.stdout)["sample"]
    assert sample["host_written_bytes"]["value"] == 3 * 512_000
    assert sample["nand_written_bytes"]["value"] is None
    assert sample["erase_count_max"]["value"] is None


@pytest.mark.parametrize("idle_gc", [None, 50.0])
def test_a_drive_with_idle_gc_cleans_in_the_pauses_the_host_leaves(
    tmp_path: Path, idle_gc: float | None
) -> None:
    """`--idle-gc`: served with no waits (`time_scale=0`), any pause between two requests is
    idle enough, so after random overwrites of a full drive it has every free block its spare
    allows, its NAND counters holding the moves; without idle GC only GC's low watermark."""
    spec, kept = _drawn(tmp_path, 5, idle_gc)  # greedy, no SLC cache, 39 % spare
    assert kept.get("idle_gc_mb_per_s") == idle_gc
    assert kept["config_sha256"] == spec.digest  # the same drive, with idle GC or without
    config = spec.config
    pages = config.logical_bytes // 4096
    with serving(spec):
        with open(spec.drive_path, "r+b", buffering=0) as f:
            f.write(b"x" * config.logical_bytes)  # full
            for n in range(3000):
                f.seek((n * 7919) % pages * 4096)
                f.write(b"y" * 4096)
        counters = _counters(spec)
    logical_blocks = -(-config.logical_pages // config.pages_per_block)
    spare_blocks = config.native_blocks - logical_blocks - 1  # one open block kept
    if idle_gc is None:
        assert counters["free_blocks"] <= config.gc_free_blocks_high + 1
    else:
        assert counters["free_blocks"] >= spare_blocks - 1  # at most an SLC block still open
    assert counters["nand_write_bytes"] >= counters["host_write_bytes"]


def test_sim_serve_help_shows_idle_gc_with_an_example() -> None:
    shown = run_ssdlab("sim", "serve", "--help")
    assert shown.code == 0, shown.stderr
    assert "--idle-gc MB/S" in shown.stdout
    assert "--idle-gc 200" in shown.stdout
