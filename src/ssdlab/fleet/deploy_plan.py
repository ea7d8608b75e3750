"""The pure parts of `ssdlab fleet deploy`: where the venv goes on a node, the inventory line
to advise, whether pip's failure means the wheels do not fit the node's Python, and what a
node lacks of the system tools its runs use.

Whether a wheel fits a node is not judged here: the node's own pip, run with `--no-index`,
judges it by its own rules and says why it found no wheel; this only recognises that answer.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from ssdlab.errors import FleetError
from ssdlab.model.fleet import FleetHost
from ssdlab.system.doctor import PACKAGES

DEFAULT_VENV = "~/.local/share/ssdlab/venv"
# what pip says when no wheel in the folder fits the Python that runs it
UNFIT = (
    "Could not find a version that satisfies the requirement",
    "No matching distribution found for",
    "is not a supported wheel on this platform",
    "requires a different Python",
)


@dataclass(frozen=True, slots=True)
class MissingTool:
    tool: str
    package: str  # the Debian package that brings it


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


def fit_problem(pip_stderr: str) -> str | None:
    """pip's own reason when it found no wheel for the node's Python among the given ones
    (its first ERROR line saying so), or None when pip failed for another reason."""
    for line in pip_stderr.splitlines():
        said = line.strip()
        if said.startswith("ERROR") and any(words in said for words in UNFIT):
            return said.removeprefix("ERROR:").strip()
    return None


def missing_from(tools: object) -> tuple[MissingTool, ...]:
    """The tools the deploy playbook names as missing, each with its Debian package."""
    if not isinstance(tools, Sequence) or isinstance(tools, str):
        return ()
    return tuple(MissingTool(str(tool), PACKAGES.get(str(tool), str(tool))) for tool in tools)


def install_hint(missing: Sequence[MissingTool]) -> str | None:
    if not missing:
        return None
    packages = " ".join(sorted({tool.package for tool in missing}))
    return f"apt-get install {packages}"
