"""The device tier's guest image: Debian's kernel and busybox, and an initramfs made of them.

Everything comes from Debian's packages through apt-get (`apt-get download`, unpacked with
dpkg-deb, never installed), into a cache folder kept between runs
(``$SSDLAB_DEVICE_CACHE``, else ``$XDG_CACHE_HOME/ssdlab/devices``, else
``~/.cache/ssdlab/devices``). The initramfs holds busybox, the kernel modules the guest needs
(virtio, 9p, NVMe, AHCI, virtio-SCSI, sd, sg) and /init (tests/devices/guest_init.py): it
mounts the host's root filesystem read-only over 9p and starts tests/devices/guest_agent.py
with the host's own Python, so the guest runs the host's smartctl, nvme-cli, fio, hdparm,
sg3_utils and ssdlab itself.

Run ``python -m tests.devices.guest_image`` to prepare (or check) the cache; it prints the
kernel and initramfs paths.
"""

import gzip
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.devices.guest_init import INIT_SCRIPT

HERE = Path(__file__).resolve().parent
KERNEL_META = "linux-image-amd64"
BUSYBOX = "busybox-static"
# what the guest loads, in this order (each module's own dependencies come first)
MODULES = (
    "virtio_pci",
    "virtio_console",
    "9pnet_virtio",
    "9p",
    "nvme",
    "ahci",
    "virtio_scsi",
    "sd_mod",
    "sg",
)
LAYOUT_VERSION = "1"  # change when the initramfs's layout changes: rebuilds every cache


@dataclass(frozen=True)
class GuestImage:
    kernel: Path
    initramfs: Path
    kernel_package: str  # e.g. linux-image-6.1.0-56-amd64 6.1.192-2
    release: str  # the kernel's release, e.g. 6.1.0-56-amd64


def cache_root() -> Path:
    if os.environ.get("SSDLAB_DEVICE_CACHE"):
        return Path(os.environ["SSDLAB_DEVICE_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ssdlab" / "devices"


def _run(argv: list[str], cwd: Path | None = None) -> str:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def _kernel_package() -> str:
    """The versioned kernel package linux-image-amd64 depends on (apt's lists refreshed once
    when they know no such package)."""
    for attempt in range(2):
        try:
            text = _run(["apt-cache", "depends", KERNEL_META])
        except RuntimeError:
            text = ""
        match = re.search(r"Depends: (linux-image-\S+)", text)
        if match:
            return match.group(1)
        if attempt == 0:
            _run(["apt-get", "update", "-q"])
    raise RuntimeError(f"apt-cache knows no {KERNEL_META}: is this Debian with apt-get?")


def _download(package: str, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    found = sorted(folder.glob(f"{package}_*.deb"))
    if not found:
        _run(["apt-get", "download", package], cwd=folder)
        found = sorted(folder.glob(f"{package}_*.deb"))
    if not found:
        raise RuntimeError(f"apt-get download {package} left no .deb in {folder}")
    return found[-1]


def _unpack(deb: Path, into: Path) -> None:
    if into.exists():
        return
    partial = into.with_name(into.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    _run(["dpkg-deb", "-x", str(deb), str(partial)])
    partial.rename(into)


def _module_order(modules_dir: Path) -> list[str]:
    """The .ko paths (relative to modules_dir) to load, dependencies first, from modules.dep;
    a module the kernel has built in is skipped."""
    deps: dict[str, list[str]] = {}
    for line in (modules_dir / "modules.dep").read_text().splitlines():
        name, _, rest = line.partition(":")
        deps[name] = rest.split()
    by_name = {Path(path).name.removesuffix(".ko").replace("-", "_"): path for path in deps}
    builtin = {
        Path(line).name.removesuffix(".ko").replace("-", "_")
        for line in (modules_dir / "modules.builtin").read_text().splitlines()
    }
    order: list[str] = []

    def visit(path: str) -> None:
        for dep in reversed(deps.get(path, [])):
            visit(dep)
        if path not in order:
            order.append(path)

    for module in MODULES:
        key = module.replace("-", "_")
        if key in builtin:
            continue
        if key not in by_name:
            raise RuntimeError(f"the kernel has no module {module}")
        visit(by_name[key])
    return order


def _cpio_entry(out: io.BytesIO, name: str, mode: int, data: bytes = b"", ino: int = 0) -> None:
    """One entry of a newc cpio archive (what the kernel unpacks as its initramfs)."""
    encoded = name.encode() + b"\0"
    fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(encoded), 0]
    out.write(b"070701" + b"".join(f"{value:08x}".encode() for value in fields))
    out.write(encoded)
    out.write(b"\0" * (-(110 + len(encoded)) % 4))
    out.write(data)
    out.write(b"\0" * (-len(data) % 4))


def _build_initramfs(busybox: Path, modules_dir: Path, target: Path) -> None:
    order = _module_order(modules_dir)
    out = io.BytesIO()
    inode = 1
    directories = ("bin", "dev", "proc", "sys", "newroot", "modules")
    for directory in directories:
        _cpio_entry(out, directory, 0o040755, ino=inode)
        inode += 1
    files = [
        ("init", 0o100755, INIT_SCRIPT.encode()),
        ("bin/busybox", 0o100755, busybox.read_bytes()),
        ("modules/order", 0o100644, "".join(Path(p).name + "\n" for p in order).encode()),
    ]
    files += [(f"modules/{Path(p).name}", 0o100644, (modules_dir / p).read_bytes()) for p in order]
    for name, mode, data in files:
        _cpio_entry(out, name, mode, data, ino=inode)
        inode += 1
    _cpio_entry(out, "TRAILER!!!", 0)
    partial = target.with_name(target.name + ".partial")
    partial.write_bytes(gzip.compress(out.getvalue(), compresslevel=1))
    partial.rename(target)


def prepare(root: Path | None = None) -> GuestImage:
    """The kernel and initramfs, downloaded and built on first use and cached."""
    root = root or cache_root()
    package = _kernel_package()
    kernel_deb = _download(package, root / "debs")
    busybox_deb = _download(BUSYBOX, root / "debs")
    kernel_dir = root / kernel_deb.stem
    _unpack(kernel_deb, kernel_dir)
    busybox_dir = root / busybox_deb.stem
    _unpack(busybox_deb, busybox_dir)
    release = package.removeprefix("linux-image-")
    modules_dir = kernel_dir / "lib" / "modules" / release
    if not (modules_dir / "modules.dep").exists():
        _run(["depmod", "-b", str(kernel_dir), release])
    initramfs = root / f"initramfs-{release}-{LAYOUT_VERSION}-{_init_stamp()}.cpio.gz"
    if not initramfs.exists():
        _build_initramfs(busybox_dir / "bin" / "busybox", modules_dir, initramfs)
        for old in root.glob("initramfs-*.cpio.gz"):
            if old != initramfs:
                old.unlink()  # built for an earlier init or kernel
    return GuestImage(
        kernel=kernel_dir / "boot" / f"vmlinuz-{release}",
        initramfs=initramfs,
        kernel_package=kernel_deb.stem.replace("_", " ").removesuffix(" amd64"),
        release=release,
    )


def _init_stamp() -> str:
    """A short hash of the init script, so an edited script makes a new initramfs."""
    return hashlib.sha256(INIT_SCRIPT.encode()).hexdigest()[:12]


if __name__ == "__main__":
    image = prepare()
    print(f"kernel:    {image.kernel} ({image.kernel_package})")
    print(f"initramfs: {image.initramfs}")
    sys.exit(0)
