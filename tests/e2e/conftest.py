"""Helpers for end-to-end tests: run the real ssdlab command, make loop devices."""

import hashlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import HANG_S

ROOT = Path(__file__).resolve().parents[2]
# Small and quick: the real procedure, at a scale that keeps the suite short.
FAST = ["--size", "8MiB", "--measure", "0.3", "--count", "1", "--interval", "0", "--preset", "real"]


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str


def ssdlab_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("COLUMNS", None)
    env.update(extra or {})
    return env


def ssdlab_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "ssdlab", *args]


def start_ssdlab(
    *args: str,
    env: dict[str, str] | None = None,
    output: int = subprocess.PIPE,
    preexec_fn: Callable[[], object] | None = None,
) -> "subprocess.Popen[str]":
    """`ssdlab ARGS` started in the background: no stdin, its output piped (or `output`)."""
    return subprocess.Popen(
        ssdlab_argv(*args),
        env=ssdlab_env(env),
        stdin=subprocess.DEVNULL,
        stdout=output,
        stderr=output,
        text=True,
        preexec_fn=preexec_fn,
    )


def run_ssdlab(*args: str, env: dict[str, str] | None = None, timeout: float = HANG_S) -> Result:
    done = subprocess.run(
        ssdlab_argv(*args),
        capture_output=True,
        text=True,
        env=ssdlab_env(env),
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    return Result(done.returncode, done.stdout, done.stderr)


def sha256_of(path: str, size: int, offset: int = 0) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        handle.seek(offset)
        digest.update(handle.read(size))
    return digest.hexdigest()


def _can_loop() -> str | None:
    if os.geteuid() != 0:
        return "needs root to create loop devices"
    if shutil.which("losetup") is None:
        return "losetup is not installed"
    if not Path("/dev/loop-control").exists():
        return "the kernel offers no loop devices (/dev/loop-control missing)"
    return None


needs_loop = pytest.mark.skipif(_can_loop() is not None, reason=str(_can_loop()))


IMAGE_BYTES = 32 * 2**20


def run(*argv: str) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr}")
    return done.stdout


def need(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


@dataclass
class Loop:
    path: str  # /dev/loopN
    name: str  # loopN
    image: Path


@dataclass
class LoopLab:
    """Makes loop devices over images in a temp dir and undoes everything it did."""

    folder: Path
    loops: list[Loop] = field(default_factory=list)
    mounts: list[Path] = field(default_factory=list)
    swaps: list[str] = field(default_factory=list)

    def loop(
        self, image_bytes: int = IMAGE_BYTES, *, partitions: bool = False, pattern: bytes = b""
    ) -> Loop:
        """A loop device over a new image: sparse zeros, or `pattern` repeated throughout."""
        image = self.new_image(image_bytes, pattern)
        if partitions:
            write_mbr_with_one_partition(image, image_bytes)
        argv = ["losetup", "-f", "--show", *(["-P"] if partitions else []), str(image)]
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            pytest.skip(f"cannot create a loop device: {done.stderr.strip()}")
        path = done.stdout.strip()
        loop = Loop(path=path, name=Path(path).name, image=image)
        self.loops.append(loop)
        return loop

    def new_image(self, image_bytes: int, pattern: bytes = b"") -> Path:
        """A new image file in the lab's folder: sparse zeros, or `pattern` repeated."""
        image = self.folder / f"disk{len(self.loops)}.img"
        with image.open("wb") as handle:
            handle.truncate(image_bytes)
            if pattern:
                handle.seek(0)
                handle.write((pattern * (image_bytes // len(pattern) + 1))[:image_bytes])
        return image

    def mount_new_ext4(self, device: str, fs_bytes: int | None = None) -> Path:
        """Make and mount ext4; with `fs_bytes` the file system owns only the device's start,
        so the rest stays as it was however much the kernel writes to the mounted file system.
        """
        need("mkfs.ext4", "mount", "umount")
        run("mkfs.ext4", "-q", "-F", device, *([f"{fs_bytes // 1024}k"] if fs_bytes else []))
        mount_point = self.folder / f"mnt{len(self.mounts)}"
        mount_point.mkdir()
        run("mount", device, str(mount_point))
        self.mounts.append(mount_point)
        return mount_point

    def swapon(self, device: str, swap_bytes: int | None = None) -> None:
        need("mkswap", "swapon", "swapoff")
        run("mkswap", device, *([str(swap_bytes // 1024)] if swap_bytes else []))
        run("swapon", device)
        self.swaps.append(device)

    def release_mounts_and_swaps(self) -> None:
        """Swap off and unmount what the lab made, newest first."""
        for device in reversed(self.swaps):
            subprocess.run(["swapoff", device], capture_output=True, check=False)
        self.swaps.clear()
        for mount_point in reversed(self.mounts):
            done = subprocess.run(["umount", str(mount_point)], capture_output=True, check=False)
            if done.returncode != 0:
                subprocess.run(["umount", "-l", str(mount_point)], capture_output=True, check=False)
        self.mounts.clear()

    def undo(self) -> None:
        self.release_mounts_and_swaps()
        for loop in reversed(self.loops):
            subprocess.run(["losetup", "-d", loop.path], capture_output=True, check=False)


def write_mbr_with_one_partition(image: Path, image_bytes: int) -> None:
    """An MS-DOS partition table with one Linux partition from sector 2048 to the end."""
    start, count = 2048, image_bytes // 512 - 2048
    entry = (
        bytes([0x00, 0xFE, 0xFF, 0xFF, 0x83, 0xFE, 0xFF, 0xFF])
        + start.to_bytes(4, "little")
        + count.to_bytes(4, "little")
    )
    with image.open("r+b") as handle:
        handle.seek(446)
        handle.write(entry)
        handle.seek(510)
        handle.write(b"\x55\xaa")


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[LoopLab]:
    made = LoopLab(tmp_path)
    try:
        yield made
    finally:
        made.undo()


@dataclass
class StackLab(LoopLab):
    """A LoopLab that also stacks loop devices on other devices or files and adds partitions
    to its loop devices (addpart: the kernel here finds no partition table on a loop device
    by itself). Teardown undoes everything in the reverse order it was made: partitions are
    deleted after the loops stacked on them are detached and before their own disk is."""

    partitions: list[tuple[str, int, int]] = field(default_factory=list)  # (disk, number, after)

    def loop_over(
        self, backing: str, *, offset: int = 0, sizelimit: int = 0, partscan: bool = False
    ) -> Loop:
        """A loop device attached to an existing device node or file made by this lab."""
        argv = ["losetup", "-f", "--show", *(["-P"] if partscan else [])]
        if offset:
            argv += ["--offset", str(offset)]
        if sizelimit:
            argv += ["--sizelimit", str(sizelimit)]
        done = subprocess.run([*argv, backing], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            pytest.skip(f"cannot attach a loop device to {backing}: {done.stderr.strip()}")
        path = done.stdout.strip()
        loop = Loop(path=path, name=Path(path).name, image=Path(backing))
        self.loops.append(loop)
        return loop

    def disk(self, image_bytes: int = IMAGE_BYTES, *, pattern: bytes = b"") -> Loop:
        """A loop device over a new image, attached with partition scanning on, so that the
        kernel drops the partitions added to it when it is detached, whatever else failed."""
        return self.loop_over(str(self.new_image(image_bytes, pattern)), partscan=True)

    def partition(self, loop: Loop, number: int, start_sector: int, sectors: int) -> str:
        """Partition `number` of one of this lab's loop devices; its device node."""
        need("addpart", "delpart")
        run("addpart", loop.path, str(number), str(start_sector), str(sectors))
        self.partitions.append((loop.path, number, len(self.loops)))
        node = Path(f"{loop.path}p{number}")
        added = Path(f"/sys/class/block/{node.name}")  # the kernel has the partition
        deadline = time.monotonic() + HANG_S  # devtmpfs makes its node as the kernel adds it
        while added.exists() and not node.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        if node.exists():
            return str(node)
        pytest.skip(f"the kernel made no {node} for the partition added with addpart")

    def undo(self) -> None:
        self.release_mounts_and_swaps()
        for index in reversed(range(len(self.loops))):
            for device, number, after in reversed(self.partitions):
                if after == index + 1:
                    subprocess.run(
                        ["delpart", device, str(number)], capture_output=True, check=False
                    )
            subprocess.run(
                ["losetup", "-d", self.loops[index].path], capture_output=True, check=False
            )
        self.loops.clear()


@pytest.fixture
def stack_lab(tmp_path: Path) -> Iterator[StackLab]:
    made = StackLab(tmp_path)
    try:
        yield made
    finally:
        made.undo()
