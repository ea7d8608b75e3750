"""`ssdlab fleet wheels DIR`: the wheels `fleet deploy` installs (ssdlab's own and its
dependencies', pinned to the versions installed here, with pip's) copied into a folder of the
user's, for the ssdlab.bench collection's deploy playbook or a site's own packaging. The folder
also gets `ssdlab-wheels.json`, naming the version and build they install (which the playbook
writes on each node, so either way of deploying sees the other's) and each wheel's size (a
wheel a node holds with that size is not sent again)."""

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import UsageError
from ssdlab.system.wheels import WheelSet, find_source, local_set

WHEELS_NOTE = "ssdlab-wheels.json"


@dataclass(frozen=True, slots=True)
class WheelsRequest:
    out: Path  # a new or empty folder
    cache: Path | None = None  # the wheel cache; None: ~/.cache/ssdlab/wheels


@dataclass(frozen=True, slots=True)
class WheelFolder:
    folder: Path  # absolute, as the playbook's ssdlab_wheels needs it
    wheels: WheelSet  # as made (or found in the cache) here
    names: tuple[str, ...]  # the files copied, by name

    @property
    def size(self) -> int:
        return sum((self.folder / name).stat().st_size for name in self.names)


def write_wheels(request: WheelsRequest, say: Callable[[str], None]) -> WheelFolder:
    """This ssdlab's wheel set, copied into `request.out`."""
    out = request.out
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out} is a file; give a new or empty folder for the wheels")
    if out.is_dir() and any(out.iterdir()):
        raise UsageError(
            f"{out} is not empty; give a new or empty folder (wheels of two builds in one "
            "folder would install either)"
        )
    made = local_set(find_source(), say, request.cache)
    out.mkdir(parents=True, exist_ok=True)
    for path in made.files:
        shutil.copy2(path, out / path.name)
    _write_note(made, out)
    return WheelFolder(out.resolve(), made, tuple(path.name for path in made.files))


def link_wheels(wheels: WheelSet, out: Path) -> Path:
    """`fleet deploy`'s folder for the deploy playbook: a new folder `out` of links to the
    wheels (in the cache or the `--wheels` folder) and the note naming their build."""
    out.mkdir()
    for path in wheels.files:
        (out / path.name).symlink_to(path.resolve())
    _write_note(wheels, out)
    return out.resolve()


def _write_note(wheels: WheelSet, out: Path) -> None:
    note = {
        "version": wheels.version,
        "build": wheels.build,
        "ssdlab": wheels.ssdlab.name,
        "pip": wheels.pip.name,
        "sizes": {path.name: path.stat().st_size for path in wheels.files},
    }
    (out / WHEELS_NOTE).write_text(json.dumps(note, indent=2) + "\n")


def wheels_document(found: WheelFolder) -> dict[str, object]:
    """`fleet wheels --json`."""
    return {
        "format": "ssdlab-fleet-wheels",
        "format_version": 1,
        "folder": str(found.folder),
        "version": found.wheels.version,
        "build": found.wheels.build,
        "cached": found.wheels.cached,
        "files": list(found.names),
        "bytes": found.size,
    }
