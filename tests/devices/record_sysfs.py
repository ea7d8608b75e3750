"""Record the NVMe part of the guest's sysfs as JSON (run inside the guest, standard library only).

`python tests/devices/record_sysfs.py` prints ``{path: {"link": target} | {"text": content}}``
for the NVMe controllers, subsystems and namespace block devices and the /sys/dev entries that
lead to them; tests/data/sysfs/build_qemu_nvme.py lays it out as the tree ``qemu_nvme``.
"""

import contextlib
import json
import os
import sys
from pathlib import Path

SYS = Path("/sys")
FILES = {"dev", "model", "serial", "firmware_rev", "subsysnqn", "transport", "cntlid", "size",
         "nsid", "state", "partition", "start", "removable", "ro"}  # fmt: skip


def record(entries: dict[str, dict[str, str]], path: Path) -> None:
    key = str(path.relative_to(SYS))
    if path.is_symlink():
        entries[key] = {"link": os.readlink(path)}
    elif path.is_file() and path.name in FILES:
        with contextlib.suppress(OSError):
            entries[key] = {"text": path.read_text()}


def walk(entries: dict[str, dict[str, str]], directory: Path, depth: int) -> None:
    for entry in sorted(directory.iterdir()):
        if entry.name in ("device", "subsystem", "driver", "firmware_node", "bdi"):
            if entry.name == "device":
                record(entries, entry)
            continue
        record(entries, entry)
        if depth > 0 and entry.is_dir() and not entry.is_symlink():
            walk(entries, entry, depth - 1)


def main() -> None:
    entries: dict[str, dict[str, str]] = {}
    directories = set()
    for cls in ("nvme", "nvme-subsystem"):
        for link in sorted((SYS / "class" / cls).iterdir()):
            record(entries, link)
            directories.add(link.resolve())
    for link in sorted((SYS / "class" / "block").iterdir()):
        if link.name.startswith("nvme"):
            record(entries, link)
    for kind in ("char", "block"):
        for link in sorted((SYS / "dev" / kind).iterdir()):
            if link.resolve().name.startswith("nvme") or link.resolve() in directories:
                record(entries, link)
    for directory in sorted(directories):
        walk(entries, directory, 1)
    json.dump(entries, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
