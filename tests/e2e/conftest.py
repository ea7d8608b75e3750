"""Helpers for end-to-end tests: run the real ssdlab command, make loop devices."""

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

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


def run_ssdlab(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> Result:
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


def sha256_of(path: str, size: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        digest.update(handle.read(size))
    return digest.hexdigest()


def _can_loop() -> str | None:
    if os.geteuid() != 0:
        return "needs root"
    if shutil.which("losetup") is None or not Path("/dev/loop-control").exists():
        return "no loop device support"
    return None


needs_loop = pytest.mark.skipif(_can_loop() is not None, reason=str(_can_loop()))


class LoopDevices:
    """Creates loop devices over image files in a temp dir; tears everything down afterwards."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.devices: list[str] = []
        self.mounts: list[str] = []
        self.swaps: list[str] = []

    def create(self, size_bytes: int = 32 * 2**20, pattern: bytes = b"") -> str:
        image = self.folder / f"img{len(self.devices)}.bin"
        with image.open("wb") as handle:
            if pattern:
                chunk = (pattern * (2**20 // len(pattern) + 1))[: 2**20]
                for _ in range(size_bytes // 2**20):
                    handle.write(chunk)
            else:
                handle.truncate(size_bytes)
        device = subprocess.run(
            ["losetup", "-f", "--show", str(image)], capture_output=True, text=True, check=True
        ).stdout.strip()
        self.devices.append(device)
        return device

    def mkfs_and_mount(self, device: str) -> Path:
        subprocess.run(["mkfs.ext4", "-q", "-F", device], check=True, capture_output=True)
        mount_point = self.folder / f"mnt{len(self.mounts)}"
        mount_point.mkdir()
        subprocess.run(["mount", device, str(mount_point)], check=True)
        self.mounts.append(str(mount_point))
        return mount_point

    def swapon(self, device: str) -> None:
        subprocess.run(["mkswap", device], check=True, capture_output=True)
        subprocess.run(["swapon", device], check=True)
        self.swaps.append(device)

    def cleanup(self) -> None:
        for swap in self.swaps:
            subprocess.run(["swapoff", swap], check=False)
        for mount_point in reversed(self.mounts):
            subprocess.run(["umount", "-l", mount_point], check=False)
        for device in self.devices:
            subprocess.run(["losetup", "-d", device], check=False)


@pytest.fixture
def loops(tmp_path: Path) -> Iterator[LoopDevices]:
    manager = LoopDevices(tmp_path)
    try:
        yield manager
    finally:
        manager.cleanup()
