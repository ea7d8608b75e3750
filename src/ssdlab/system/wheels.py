"""The wheels `ssdlab fleet deploy` copies to nodes without network: ssdlab itself and every
runtime dependency, made here by pip and kept in a cache folder
($XDG_CACHE_HOME/ssdlab/wheels/<version>-<python tag>-<platform>/).

ssdlab's own wheel comes from its source tree when it is installed editable (found through
the distribution's direct_url.json), from the wheel file it was installed from when that is
still there, or else is packed again from the installed files (their RECORD). Its build id
names exactly that code: a hash of the source tree, of the wheel, or of the RECORD. The
dependencies are pinned to the versions installed here (a constraints file made from this
environment), so every node gets the libraries this machine runs with. Both are reused from
the cache while their build id and pins are the same.
"""

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import ssdlab
from ssdlab.errors import FleetError

PIP_TIMEOUT_S = 1800
STALE_AFTER_S = 3600  # a cache folder of another build unused this long is removed
COMPLETE = "complete.json"  # written last into a cache folder: the folder is whole
TREE_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "MANIFEST.in", "README.md")
DIST_INFO_SKIP = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}
WHEELS_HINT = "or give wheels you built with --wheels DIR"

Say = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class SsdlabSource:
    """Where ssdlab's own wheel comes from: `tree` (an editable install's source folder),
    `wheel` (the wheel file it was installed from) or `installed` (the installed files)."""

    kind: str
    path: Path
    version: str
    build: str  # names this very code: <kind>-<hash>


@dataclass(frozen=True, slots=True)
class WheelSet:
    """Wheel files that install ssdlab `version` (build `build`) without an index."""

    files: tuple[Path, ...]
    ssdlab: Path
    pip: Path
    version: str
    build: str
    cached: bool
    seconds: float
    given: bool = False  # the user's folder (--wheels), not made here

    @property
    def size(self) -> int:
        return sum(path.stat().st_size for path in self.files)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(path.name for path in self.files)


# --- this machine ------------------------------------------------------------------------------


def local_python_tag() -> str:
    prefix = "cp" if sys.implementation.name == "cpython" else sys.implementation.name[:2]
    return f"{prefix}{sys.version_info[0]}{sys.version_info[1]}"


def local_platform() -> str:
    return re.sub(r"[-.]", "_", sysconfig.get_platform())


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ssdlab" / "wheels"


def _short_hash(parts: Iterable[bytes]) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()[:16]


# --- where ssdlab's own wheel comes from -------------------------------------------------------


def find_source() -> SsdlabSource:
    """How ssdlab's wheel can be made from the ssdlab that runs here: its source tree when it
    runs from one (an editable install, or a checkout on PYTHONPATH), else the wheel it was
    installed from, else its installed files."""
    tree = _source_tree()
    if tree is not None:
        return SsdlabSource("tree", tree, ssdlab.__version__, f"tree-{_tree_hash(tree)}")
    dists = _installed()
    if not dists:
        raise FleetError(
            f"the ssdlab that runs here ({Path(ssdlab.__file__).parent}) was not installed "
            f"from a wheel and has no source tree to build one from; {WHEELS_HINT}"
        )
    dist = dists[0]
    direct = _direct_url(dist)
    if direct is not None:
        url, _info = direct
        path = Path(unquote(urlparse(url).path))
        if url.startswith("file://") and path.suffix == ".whl" and path.is_file():
            return SsdlabSource("wheel", path, dist.version, f"wheel-{_file_hash(path)}")
    record = dist.read_text("RECORD") or ""
    root = Path(str(dist.locate_file("")))
    return SsdlabSource(
        "installed", root, dist.version, f"installed-{_short_hash([record.encode()])}"
    )


def _installed() -> list[metadata.Distribution]:
    """ssdlab's installed distributions that list their files (a source tree's egg-info
    does not)."""
    return [d for d in metadata.distributions(name="ssdlab") if d.read_text("RECORD")]


def _source_tree() -> Path | None:
    """The project folder when the running ssdlab is a source tree's: the editable install's
    (its direct_url.json), or a checkout on PYTHONPATH (src/ssdlab beside a pyproject.toml
    naming the project ssdlab)."""
    package = Path(ssdlab.__file__).resolve().parent
    for dist in metadata.distributions(name="ssdlab"):
        direct = _direct_url(dist)
        if direct is None or not direct[0].startswith("file://"):
            continue
        tree = Path(unquote(urlparse(direct[0]).path))
        if direct[1].get("dir_info", {}).get("editable") and package.is_relative_to(tree.resolve()):
            return tree
    for root in (package.parent.parent, package.parent):
        project = root / "pyproject.toml"
        if project.is_file() and re.search(
            r'^name\s*=\s*"ssdlab"', project.read_text(encoding="utf-8"), re.MULTILINE
        ):
            return root
    return None


def _direct_url(dist: metadata.Distribution) -> tuple[str, dict[str, Any]] | None:
    text = dist.read_text("direct_url.json")
    if not text:
        return None
    try:
        found = json.loads(text)
    except ValueError:
        return None
    return str(found.get("url", "")), found


def _tree_files(tree: Path) -> list[Path]:
    package = Path(ssdlab.__file__).resolve().parent
    files = [tree / name for name in TREE_FILES if (tree / name).is_file()]
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            files.append(path)
    return files


def _tree_hash(tree: Path) -> str:
    """A hash of the files a wheel of the source tree is made from (the package's files and
    the project's metadata files): a change to any of them is a new build."""
    parts: list[bytes] = []
    for path in _tree_files(tree):
        parts += [str(path.relative_to(tree) if path.is_relative_to(tree) else path).encode()]
        parts.append(path.read_bytes())
    return _short_hash(parts)


def _file_hash(path: Path) -> str:
    return _short_hash([path.read_bytes()])


# --- pip ---------------------------------------------------------------------------------------


def _pip(args: Sequence[str], what: str) -> None:
    argv = [sys.executable, "-m", "pip", "--disable-pip-version-check", *args]
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=PIP_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired as error:
        raise FleetError(f"{what}: pip took more than {PIP_TIMEOUT_S} s; {WHEELS_HINT}") from error
    if done.returncode != 0:
        lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith("ERROR")]
        said = (errors or lines or ["no message"])[0]
        if "No module named pip" in done.stderr:
            said = f"pip is not installed for {sys.executable}"
        raise FleetError(f"{what} failed ({said}); {WHEELS_HINT}")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _installed_versions() -> dict[str, str]:
    """The version of every distribution installed here, by normalised name (ssdlab left
    out), the first found on sys.path winning as it does for imports."""
    found: dict[str, str] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name and _normal(name) != "ssdlab":
            found.setdefault(_normal(name), dist.version)
    return found


def _constraints(installed: dict[str, str]) -> str:
    """Every distribution installed here pinned to its version: the dependencies the nodes
    get are the ones this machine runs with."""
    return "".join(f"{name}=={version}\n" for name, version in sorted(installed.items()))


def _pinned_alike(files: Sequence[Path], installed: dict[str, str]) -> bool:
    """Whether cached wheels are still the versions installed here (a dependency upgraded
    here since is a new set)."""
    for path in files:
        parts = path.name.split("-")
        if installed.get(_normal(parts[0]), parts[1]) != parts[1]:
            return False
    return True


def _wheel_metadata(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return archive.read(name).decode("utf-8").splitlines()


# --- the cache ---------------------------------------------------------------------------------


def _complete(folder: Path) -> list[Path] | None:
    """The wheels of a finished cache folder, or None when it is missing or unfinished."""
    try:
        listed = json.loads((folder / COMPLETE).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    files = [folder / str(name) for name in listed]
    return files if all(path.is_file() for path in files) else None


def _fill(
    folder: Path,
    make: Callable[[Path], None],
    still_good: Callable[[list[Path]], bool] = lambda _files: True,
) -> tuple[list[Path], bool]:
    """The wheels of cache folder `folder`: reused when it is complete and `still_good`,
    else made by `make(temporary folder)` and moved into place whole. Other versions of it
    beside it (same prefix) unused for an hour are removed. Returns the files and whether
    they came from the cache."""
    found = _complete(folder)
    if found is not None and still_good(found):
        os.utime(folder)  # in use: not removed as stale by another build
        return found, True
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        make(work)
        names = sorted(path.name for path in work.glob("*.whl"))
        (work / COMPLETE).write_text(json.dumps({"files": names}) + "\n", encoding="utf-8")
        shutil.rmtree(folder, ignore_errors=True)
        work.rename(folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    _drop_old(folder)
    found = _complete(folder)
    if found is None:
        raise FleetError(f"the wheel cache {folder} could not be written; check its folder")
    return found, False


def _drop_old(folder: Path) -> None:
    """Remove the other versions of a cache folder (same prefix) unused for an hour: not
    one another deploy is copying from right now."""
    prefix = folder.name.split("-")[0] + "-"
    for old in folder.parent.glob(f"{prefix}*"):
        try:
            stale = old.stat().st_mtime < time.time() - STALE_AFTER_S
        except OSError:
            continue
        if old != folder and stale:
            shutil.rmtree(old, ignore_errors=True)


def _one(files: Sequence[Path], prefix: str, where: Path) -> Path:
    found = [path for path in files if path.name.lower().startswith(prefix)]
    if len(found) != 1:
        which = "no" if not found else f"{len(found)}"
        raise FleetError(
            f"{where} holds {which} {prefix.rstrip('-')} wheel(s); it needs exactly one "
            f"(e.g. pip download {prefix.rstrip('-')} -d {where})"
        )
    return found[0]


# --- making the wheels -------------------------------------------------------------------------


def local_set(source: SsdlabSource, say: Say, root: Path | None = None) -> WheelSet:
    """ssdlab's wheel and its dependencies' for this machine's Python and platform."""
    started = time.monotonic()
    key = root or cache_root()
    folder = key / f"{source.version}-{local_python_tag()}-{local_platform()}"
    own, own_cached = _fill(
        folder / f"self-{source.build.split('-')[-1]}", lambda work: _own_wheel(source, work, say)
    )
    ssdlab_wheel = _one(own, "ssdlab-", folder)
    requires = [line for line in _wheel_metadata(ssdlab_wheel) if line.startswith("Requires-Dist")]
    installed = _installed_versions()
    deps, deps_cached = _fill(
        folder / f"deps-{_short_hash([line.encode() for line in requires])}",
        lambda work: _dependency_wheels(ssdlab_wheel, _constraints(installed), work, say),
        lambda files: _pinned_alike(files, installed),
    )
    return WheelSet(
        files=(ssdlab_wheel, *deps),
        ssdlab=ssdlab_wheel,
        pip=_one(deps, "pip-", folder),
        version=source.version,
        build=source.build,
        cached=own_cached and deps_cached,
        seconds=time.monotonic() - started,
    )


def _own_wheel(source: SsdlabSource, work: Path, say: Say) -> None:
    if source.kind == "tree":
        say(f"building ssdlab's wheel from {source.path}")
        _pip(["wheel", "--no-deps", "--wheel-dir", str(work), str(source.path)], "pip wheel ssdlab")
    elif source.kind == "wheel":
        shutil.copy2(source.path, work / source.path.name)
    else:
        say(f"packing the installed ssdlab {source.version} ({source.path}) into a wheel")
        repack(_installed()[0], work)


def _dependency_wheels(ssdlab_wheel: Path, constraints: str, work: Path, say: Say) -> None:
    say("getting the wheels of ssdlab's dependencies (pinned to the versions installed here)")
    pins = work / "constraints.txt"
    pins.write_text(constraints, encoding="utf-8")
    args = ["wheel", "--prefer-binary", "--constraint", str(pins), "--wheel-dir", str(work)]
    _pip([*args, str(ssdlab_wheel), "pip"], "pip wheel (ssdlab's dependencies)")
    pins.unlink()
    (work / ssdlab_wheel.name).unlink(missing_ok=True)


def given_set(folder: Path) -> WheelSet:
    """The wheels in `folder` (--wheels DIR), as they are."""
    if not folder.is_dir():
        raise FleetError(f"--wheels {folder} is not a folder; give the folder holding the wheels")
    files = tuple(sorted(folder.glob("*.whl")))
    own = _one(files, "ssdlab-", folder)
    version = own.name.split("-")[1]
    return WheelSet(
        files=files,
        ssdlab=own,
        pip=_one(files, "pip-", folder),
        version=version,
        build=f"wheel-{_file_hash(own)}",
        cached=True,
        seconds=0.0,
        given=True,
    )


def repack(dist: metadata.Distribution, work: Path) -> Path:
    """A wheel of an installed distribution made from its installed files (RECORD): its
    package files and dist-info, without what the installer added (RECORD is written anew)."""
    files = dist.files or []
    info = next((f for f in files if str(f).endswith(".dist-info/METADATA")), None)
    wheel_text = dist.read_text("WHEEL") or ""
    tag = next((line.split(":", 1)[1].strip() for line in wheel_text.splitlines()
                if line.startswith("Tag:")), None)  # fmt: skip
    if info is None or tag is None:
        raise FleetError(f"the installed ssdlab has no METADATA or WHEEL tag; {WHEELS_HINT}")
    dist_info = str(info.parent)
    target = work / f"{dist_info.split('-')[0]}-{dist.version}-{tag}.whl"
    record: list[str] = []
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for entry in files:
            name = str(entry).replace(os.sep, "/")
            skip = name.startswith("../") or "__pycache__" in name or name.endswith(".pyc")
            if skip or (str(entry.parent) == dist_info and entry.name in DIST_INFO_SKIP):
                continue
            try:
                data = Path(str(dist.locate_file(entry))).read_bytes()
            except OSError as error:
                raise FleetError(
                    f"the installed ssdlab lacks {name} ({error.strerror}); {WHEELS_HINT}"
                ) from error
            archive.writestr(name, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append(f"{name},sha256={digest.decode()},{len(data)}")
        record.append(f"{dist_info}/RECORD,,")
        archive.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
    return target
