"""The pure parts of `ssdlab fleet deploy`: where the venv and its wheels go on a node, the
words of every remote command, what a node's first probe says about its Python, which wheels
fit that Python, and what a node's `ssdlab node facts` says is missing.

A node is probed once with its own `python3` (a short script given with `-c`, written for old
Pythons too so that a node too old for ssdlab says so instead of failing on syntax). The
wheels built here fit a node when each wheel has a tag among the tags that node's Python
accepts: wheel names are read and the node's tags made by `packaging` (pip's own rule), given
the node's platforms, which are listed here because packaging makes manylinux tags only from
the glibc of the machine it runs on. Otherwise binary wheels are downloaded for the node's
platform or it is refused.
"""

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import InvalidWheelFilename, parse_wheel_filename

from ssdlab.errors import FleetError
from ssdlab.model.fleet import FleetHost
from ssdlab.system.doctor import PACKAGES

DEFAULT_VENV = "~/.local/share/ssdlab/venv"
MARKER = "ssdlab-deploy.json"  # in the venv: the version and build `fleet deploy` installed
WHEELS_SUFFIX = ".wheels"  # the wheels' folder beside the venv: <venv>.wheels
NODE_PYTHON = "python3"
TOOLS = ("fio", "smartctl", "nvme")  # the system tools a node's runs use
# the oldest glibc 2.x a manylinux tag names: 2.5 on x86 (manylinux1), else 2.17 (manylinux2014)
OLDEST_MANYLINUX_MINOR = {"x86_64": 5, "i686": 5}
OLDEST_OTHER_MINOR = 17
LEGACY_MANYLINUX = {5: "manylinux1", 12: "manylinux2010", 17: "manylinux2014"}  # glibc 2.x

# Runs on the node as `python3 -c PROBE VENV`. Old syntax on purpose (no f-strings, no
# walrus): a Python 3.5 still prints its version, so the refusal can say what it is.
PROBE = r"""
import json, os, platform, subprocess, sys
venv = os.path.abspath(os.path.expanduser(sys.argv[1]))
wheels = venv + sys.argv[2]
out = {"python": list(sys.version_info[:3]), "implementation": sys.implementation.name,
       "machine": platform.machine(), "system": platform.system(),
       "libc": list(platform.libc_ver()), "venv_module": True, "venv": venv,
       "wheels": wheels, "marker": None, "installed": None, "present": {}}
try:
    import venv as _venv
except ImportError:
    out["venv_module"] = False
try:
    with open(os.path.join(venv, sys.argv[3])) as handle:
        out["marker"] = json.load(handle)
except (OSError, ValueError):
    pass
try:
    for name in os.listdir(wheels):
        if name.endswith(".whl"):
            out["present"][name] = os.path.getsize(os.path.join(wheels, name))
except OSError:
    pass
command = os.path.join(venv, "bin", "ssdlab")
if os.access(command, os.X_OK):
    try:
        done = subprocess.run([command, "--version"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=60)
        if done.returncode == 0:
            out["installed"] = done.stdout.decode("utf-8", "replace").strip()
    except Exception:
        pass
print(json.dumps(out))
"""

# Writes the marker once the venv's ssdlab answered with our version: VENV/bin/python -c …
WRITE_MARKER = r"""
import sys
with open(sys.argv[1], "w") as handle:
    handle.write(sys.argv[2] + "\n")
"""


@dataclass(frozen=True, slots=True)
class NodePython:
    """What a node's first probe found: its python3, where the venv resolves to there, what
    `fleet deploy` installed before (the marker) and which wheels are already beside it."""

    version: tuple[int, int, int]
    implementation: str
    machine: str
    system: str
    glibc: tuple[int, int] | None
    venv_module: bool
    venv: str  # absolute, as the node resolves it
    wheels: str  # absolute: the wheels' folder beside the venv
    installed: str | None  # what VENV/bin/ssdlab --version said, if it answered
    marker: Mapping[str, object] | None
    present: Mapping[str, int]  # wheel file name → size, already in the wheels' folder

    @property
    def short_version(self) -> str:
        return f"{self.version[0]}.{self.version[1]}"

    @property
    def python_tag(self) -> str:
        prefix = "cp" if self.implementation == "cpython" else self.implementation[:2]
        return f"{prefix}{self.version[0]}{self.version[1]}"


@dataclass(frozen=True, slots=True)
class MissingTool:
    tool: str
    package: str  # the Debian package that brings it


# --- paths -------------------------------------------------------------------------------------


def venv_path(host: FleetHost) -> str:
    """The venv `fleet deploy` installs into on `host`, as the inventory gives it (a leading
    `~/` is the remote home): `ssdlab_venv`, else ~/.local/share/ssdlab/venv."""
    chosen = (host.venv or DEFAULT_VENV).strip()
    if chosen in {"", "/", "~", "~/"}:
        raise FleetError(
            f"host {host.name}: ssdlab_venv={host.venv!r} is not a folder for a venv; "
            "give a path such as ~/.local/share/ssdlab/venv"
        )
    return chosen.rstrip("/")


def venv_command(venv: str) -> str:
    return f"{venv}/bin/ssdlab"


def command_advice(host: FleetHost, venv: str, resolved: str | None) -> str | None:
    """`ssdlab_command=…` to put in the inventory when the host's `ssdlab_command` does not
    start the deployed venv's ssdlab; None when it does."""
    wanted = {venv_command(venv)}
    if resolved is not None:
        wanted.add(venv_command(resolved))
    if len(host.command) == 1 and host.command[0] in wanted:
        return None
    return f"ssdlab_command={venv_command(venv)}"


# --- remote commands ---------------------------------------------------------------------------


def probe_words(venv: str) -> list[str]:
    return [NODE_PYTHON, "-c", PROBE, venv, WHEELS_SUFFIX, MARKER]


def mkdir_words(folder: str) -> list[str]:
    return ["mkdir", "-p", "--", folder]


def extract_words(folder: str) -> list[str]:
    """tar reads the stream on its stdin into `folder`."""
    return ["tar", "-x", "-C", folder, "-f", "-"]


def venv_words(venv: str) -> list[str]:
    """A venv without pip: works where Debian's python3 lacks ensurepip (python3-venv); pip
    then runs from its own wheel."""
    return [NODE_PYTHON, "-m", "venv", "--without-pip", venv]


def install_words(
    node: NodePython, pip_wheel: str, wheels: Sequence[str], *, only: str | None = None
) -> list[str]:
    """pip, run from its wheel by the venv's python, installs exactly `wheels` (file names in
    the node's wheels folder), never from an index. `only`: reinstall that one wheel alone,
    its dependencies left as they are (a new build of the same version)."""
    pip = [f"{node.venv}/bin/python", f"{node.wheels}/{pip_wheel}/pip", "install"]
    pip += ["--no-index", "--find-links", node.wheels, "--disable-pip-version-check"]
    pip += ["--no-cache-dir", "--no-warn-script-location", "--quiet"]
    if only is not None:
        return [*pip, "--force-reinstall", "--no-deps", f"{node.wheels}/{only}"]
    return [*pip, *(f"{node.wheels}/{name}" for name in wheels)]


def version_words(node: NodePython) -> list[str]:
    return [venv_command(node.venv), "--version"]


def facts_words(node: NodePython) -> list[str]:
    return [venv_command(node.venv), "node", "facts"]


def marker_words(node: NodePython, version: str, build: str) -> list[str]:
    text = json.dumps({"version": version, "build": build}, sort_keys=True)
    return [f"{node.venv}/bin/python", "-c", WRITE_MARKER, f"{node.venv}/{MARKER}", text]


# --- the probe ---------------------------------------------------------------------------------


def parse_probe(host: str, text: str) -> NodePython:
    """The probe's JSON line; a FleetError when it is not what the probe prints."""
    try:
        found = json.loads(text.strip().splitlines()[-1])
        version = tuple(int(part) for part in found["python"][:3])
        libc = found.get("libc") or ["", ""]
        return NodePython(
            version=(version[0], version[1], version[2]),
            implementation=str(found["implementation"]),
            machine=str(found["machine"]),
            system=str(found["system"]),
            glibc=_glibc(libc),
            venv_module=bool(found["venv_module"]),
            venv=str(found["venv"]),
            wheels=str(found["wheels"]),
            installed=found.get("installed"),
            marker=found.get("marker") if isinstance(found.get("marker"), dict) else None,
            present={str(k): int(v) for k, v in (found.get("present") or {}).items()},
        )
    except (ValueError, KeyError, IndexError, TypeError) as error:
        raise FleetError(
            f"host {host}: python3 there answered the probe with {text.strip()[:80]!r}; "
            "check that python3 on the node is CPython 3"
        ) from error


def _glibc(libc: Sequence[object]) -> tuple[int, int] | None:
    if len(libc) < 2 or libc[0] != "glibc":
        return None
    parts = str(libc[1]).split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (ValueError, IndexError):
        return None


def node_problem(node: NodePython, requires: tuple[int, int]) -> str | None:
    """Why ssdlab cannot be installed with this node's python3 at all, or None."""
    if node.system != "Linux":
        return f"the node runs {node.system}; ssdlab runs on Linux only"
    if node.implementation != "cpython":
        return (
            f"python3 there is {node.implementation}; install CPython {requires[0]}.{requires[1]}+"
        )
    if node.version[:2] < requires:
        return (
            f"python3 there is {'.'.join(map(str, node.version))}; ssdlab needs "
            f"{requires[0]}.{requires[1]} or later: install python3.{requires[1]} (or newer) there"
        )
    if not node.venv_module:
        return "python3 there has no venv module; install python3-venv (Debian) or python3-libs"
    return None


def is_up_to_date(node: NodePython, version: str, build: str) -> bool:
    """The venv holds this very ssdlab: the marker names this build and it answers with our
    version."""
    marker = node.marker or {}
    said = (node.installed or "").split()
    return (
        marker.get("version") == version and marker.get("build") == build and said[-1:] == [version]
    )


# --- wheels and platforms ----------------------------------------------------------------------


def node_platforms(node: NodePython) -> tuple[str, ...]:
    """The platform tags a wheel may carry to run on this node, in pip's order: manylinux from
    the node's glibc down to the oldest for its architecture, each legacy name right after the
    glibc it stands for, then plain linux_<arch>."""
    arch = node.machine
    found: list[str] = []
    if node.glibc is not None and node.glibc[0] == 2:
        oldest = OLDEST_MANYLINUX_MINOR.get(arch, OLDEST_OTHER_MINOR)
        for minor in range(node.glibc[1], oldest - 1, -1):
            found.append(f"manylinux_2_{minor}_{arch}")
            if minor in LEGACY_MANYLINUX:
                found.append(f"{LEGACY_MANYLINUX[minor]}_{arch}")
    found.append(f"linux_{arch}")
    return tuple(found)


def platform_key(node: NodePython) -> str:
    """Names the wheel set downloaded for this node's kind (a folder in the cache)."""
    if node.glibc is not None:
        platform = f"manylinux_{node.glibc[0]}_{node.glibc[1]}_{node.machine}"
    else:
        platform = f"linux_{node.machine}"
    return f"{node.python_tag}-{platform}"


def wheel_tags(file_name: str) -> set[tuple[str, str, str]]:
    """The (interpreter, abi, platform) tags of a wheel file name, compressed tag sets
    (`cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64`) expanded."""
    try:
        _name, _version, _build, tags = parse_wheel_filename(file_name)
    except InvalidWheelFilename as error:
        raise FleetError(f"{file_name} is not a wheel file name: {error}") from None
    return {(tag.interpreter, tag.abi, tag.platform) for tag in tags}


def node_tags(node: NodePython) -> frozenset[Tag]:
    """Every tag the node's Python installs, as pip makes them for it: its own ABI, abi3 and
    none on its platforms, then the pure-Python tags."""
    version = node.version[:2]
    platforms = node_platforms(node)
    found = set(compatible_tags(version, node.python_tag, platforms))
    if node.implementation == "cpython":
        found |= set(cpython_tags(version, [node.python_tag], platforms))
    return frozenset(found)


def unfit_wheels(names: Iterable[str], node: NodePython) -> list[str]:
    """The wheels (file names) that this node's Python cannot install."""
    accepted = node_tags(node)
    return [name for name in names if not {Tag(*tag) for tag in wheel_tags(name)} & accepted]


def download_options(node: NodePython) -> list[str]:
    """pip download's options for binary wheels that fit this node's Python and platform."""
    options = ["--only-binary=:all:", "--python-version", node.short_version]
    if node.implementation == "cpython":
        options += ["--implementation", "cp"]
        for abi in (node.python_tag, "abi3", "none"):
            options += ["--abi", abi]
    for platform in node_platforms(node):
        options += ["--platform", platform]
    return options


# --- facts -------------------------------------------------------------------------------------


def missing_tools(facts: Mapping[str, object]) -> list[MissingTool]:
    """The system tools a node's `ssdlab node facts` document does not find, with the Debian
    package of each."""
    tools = facts.get("tools")
    if not isinstance(tools, Mapping):
        raise FleetError("ssdlab node facts printed no 'tools'; deploy again with --force")
    missing = []
    for tool in TOOLS:
        found = tools.get(tool)
        if not isinstance(found, Mapping) or not found.get("path"):
            missing.append(MissingTool(tool, PACKAGES[tool]))
    return missing


def install_hint(missing: Sequence[MissingTool]) -> str | None:
    if not missing:
        return None
    packages = " ".join(sorted({tool.package for tool in missing}))
    return f"apt-get install {packages}"
