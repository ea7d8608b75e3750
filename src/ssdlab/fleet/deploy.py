"""`ssdlab fleet deploy`: this ssdlab, installed on every node from wheels made here.

What stays ssdlab's own is the wheel set, made once here: ssdlab's wheel from the code that
runs and its dependencies' pinned to the versions installed here (system/wheels.py, cached by
build), or the `--wheels` folder. Everything per node is the collection's deploy playbook
(ssdlab.bench, playbooks/deploy.yml), run by Ansible `--parallel` hosts at once in a private
temporary folder (system/ansible_play.py): the probe of the node's Python and venv, the venv
made without pip, the wheels it lacks copied, pip run from its own wheel with `--no-index`,
the `--version` check, the marker, and `ssdlab node facts`. Whether the wheels fit the node is
the node's own pip's judgement: a pip that finds no wheel for the node's Python says so, and
the host's row says to make the wheels on a machine like the node.

The playbook prints what this reads through the collection's `ssdlab_events` callback: per
host `ssdlab_node` (its Python and venv) and `ssdlab_deployed` (state, version, missing tools,
root, bytes copied); a host that fails or cannot be reached gets its reason in one line.
"""

import shlex
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ssdlab.errors import FleetError
from ssdlab.fleet.deploy_plan import (
    MissingTool,
    command_advice,
    fit_problem,
    missing_from,
    venv_path,
)
from ssdlab.fleet.deploy_steps import Progress, StepClock
from ssdlab.fleet.play_hosts import play_host, run_fleet_play
from ssdlab.fleet.reach import FleetReach, fleet_hosts, ssh_settings
from ssdlab.fleet.wheel_folder import link_wheels
from ssdlab.model.fleet import FleetHost
from ssdlab.system.ansible_play import PlayEvent, PlayOutcome, last_words
from ssdlab.system.ssh import SshSettings
from ssdlab.system.wheels import WheelSet, find_source, given_set, local_set

INSTALLED = "installed"
UP_TO_DATE = "up to date"
FAILED = "failed"
INSTALL_TIMEOUT_S = 1800  # a task's limit: pip installing numpy, scipy, vl-convert on a slow node
VENV_TASK = "Make the venv, without pip"
PIP_TASKS = (
    "Install ssdlab and its dependencies, never from an index",
    "Put this build of ssdlab in place (its dependencies left as they are)",
)


@dataclass(frozen=True, slots=True)
class HostDeploy:
    """What `fleet deploy` did on one host."""

    host: str
    state: str  # installed, up to date, failed
    venv: str | None
    reason: str | None = None  # why it failed, in one line
    version: str | None = None  # what the venv's ssdlab --version answered
    missing: tuple[MissingTool, ...] = ()
    is_root: bool | None = None
    facts_problem: str | None = None  # why the node's facts could not be read
    ssdlab_command: str | None = None  # the inventory line to use, when it differs
    copied_bytes: int = 0
    seconds: dict[str, float] = field(default_factory=dict)  # probe, venv, copy, install, ...


@dataclass(frozen=True, slots=True)
class DeployReport:
    version: str
    build: str
    wheels: WheelSet | None
    hosts: tuple[HostDeploy, ...]

    @property
    def failed(self) -> bool:
        return any(host.state == FAILED for host in self.hosts)


@dataclass(frozen=True, slots=True)
class DeployRequest:
    reach: FleetReach
    wheels: Path | None = None  # --wheels DIR
    force: bool = False  # --force
    cache: Path | None = None  # the wheel cache (None: $XDG_CACHE_HOME/ssdlab/wheels)


def deploy_fleet(request: DeployRequest, progress: Progress) -> DeployReport:
    """`ssdlab fleet deploy`: this ssdlab on every host of the inventory."""
    hosts = fleet_hosts(request.reach)
    settings = ssh_settings(request.reach)
    wheels = _wheel_set(request, progress)
    refused: dict[str, HostDeploy] = {}
    inventory: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory(prefix="ssdlab-deploy-", ignore_cleanup_errors=True) as own:
        folder = link_wheels(wheels, Path(own) / "wheels")
        private = Path(own) / "ansible"  # Ansible's folder, and where the seat packs the wheels
        private.mkdir()
        for host in hosts:
            try:
                variables = deploy_host(host, folder, settings, request.force)
            except FleetError as error:
                refused[host.name] = HostDeploy(host.name, FAILED, None, reason=str(error))
                continue
            inventory[host.name] = variables | {"ssdlab_seat_tmp": str(private)}
        outcome = None
        if inventory:
            clock = StepClock(progress, wheels)
            outcome = run_fleet_play(
                "deploy.yml", inventory, settings, INSTALL_TIMEOUT_S,
                private=private, on_event=clock.seen,
            )  # fmt: skip
    rows = tuple(refused.get(host.name) or host_deploy(host, outcome, request) for host in hosts)
    return DeployReport(wheels.version, wheels.build, wheels, rows)


def _wheel_set(request: DeployRequest, progress: Progress) -> WheelSet:
    """The `--wheels` folder, or the wheels of the ssdlab that runs here (made once, cached)."""
    if request.wheels is not None:
        return given_set(request.wheels)

    def say(text: str) -> None:
        progress("here", text)

    made = local_set(find_source(), say, request.cache)
    say(f"{len(made.files)} wheels {'from the cache' if made.cached else 'built'} "
        f"in {made.seconds:.1f} s")  # fmt: skip
    return made


def deploy_host(
    host: FleetHost, folder: Path, settings: SshSettings, force: bool
) -> dict[str, object]:
    """A host's variables in the deploy play's inventory: how ssh reaches it (as `fleet
    collect` gives them), the wheels' folder, its venv and the Python that makes it, and
    whether to install anyway."""
    found = play_host(host, settings) | {
        "ssdlab_wheels": str(folder),
        "ssdlab_venv": venv_path(host),
        "ssdlab_force": force,
    }
    return found | ({"ssdlab_python": host.python} if host.python else {})


# --- each host's row, from the play's events ----------------------------------------------------


def host_deploy(host: FleetHost, outcome: PlayOutcome | None, request: DeployRequest) -> HostDeploy:
    """The host's row: what its `ssdlab_deployed` says, or why it failed."""
    events = [] if outcome is None else [e for e in outcome.events if e.host == host.name]
    node = _var(events, "ssdlab_node")
    venv = str(node["venv"]) if node and node.get("venv") else None
    seconds = StepClock.seconds(events, outcome.started_s if outcome else None)
    advice = command_advice(host, venv_path(host), venv)
    failed = next((e for e in events if e.event in ("failed", "unreachable")), None)
    if failed is not None:
        reason = failure_reason(failed, host, venv, node, request)
        return HostDeploy(host.name, FAILED, venv, reason=reason, ssdlab_command=advice,
                          seconds=seconds)  # fmt: skip
    done = _var(events, "ssdlab_deployed")
    if done is None:
        said = last_words(outcome) if outcome is not None else "no play ran"
        return HostDeploy(host.name, FAILED, venv, reason=said, seconds=seconds)
    missing = missing_from(done.get("missing_tools"))
    is_root = done.get("is_root")
    return HostDeploy(
        host.name,
        INSTALLED if done.get("state") == INSTALLED else UP_TO_DATE,
        str(done.get("venv") or venv),
        version=str(done["version"]) if done.get("version") else None,
        missing=missing,
        is_root=is_root if isinstance(is_root, bool) else None,
        facts_problem=None if "missing_tools" in done else "ssdlab node facts: no tools",
        ssdlab_command=advice,
        copied_bytes=int(str(done.get("copied_bytes") or 0)),
        seconds=seconds,
    )


def _var(events: Sequence[PlayEvent], name: str) -> Mapping[str, object] | None:
    """The last value a debug task printed of the variable `name`."""
    found = [e.fields[name] for e in events if isinstance(e.fields.get(name), Mapping)]
    return found[-1] if found else None


def _python(node: Mapping[str, object] | None) -> str | None:
    found = (node or {}).get("python")
    return ".".join(str(part) for part in found[:2]) if isinstance(found, list) else None


def failure_reason(
    event: PlayEvent,
    host: FleetHost,
    venv: str | None,
    node: Mapping[str, object] | None,
    request: DeployRequest,
) -> str:
    """Why the host failed, in one line, with what to do."""
    said = " ".join(str(event.fields.get("msg") or "no message").split())
    stderr = str(event.fields.get("stderr") or "")
    last = next((line.strip() for line in reversed(stderr.splitlines()) if line.strip()), said)
    if event.event == "unreachable":
        return f"unreachable: ssh failed: {said}"
    if event.task == VENV_TASK:
        return (
            f"python3 -m venv cannot make {venv} ({last}); give ssdlab_venv a folder it can create"
        )
    if event.task in PIP_TASKS:
        python = _python(node)
        problem = fit_problem(stderr)
        if problem is not None:
            command = ["ssdlab", "fleet", "deploy", str(request.reach.inventory), "--limit",
                       host.name, "--wheels", "DIR"]  # fmt: skip
            return (
                f"the wheels do not fit the node's Python {python or '(unknown)'} ({problem}); "
                "make them on a machine like the node (ssdlab fleet wheels DIR there) and run: "
                f"{shlex.join(command)}"
            )
        return f"pip install on the node failed: {last}"
    if event.action.endswith("command") and event.fields.get("rc") == 127:
        return "no python3 on the node; install it (apt-get install python3) or set ssdlab_python"
    if event.action.endswith("assert"):
        return said
    detail = f": {last}" if last != said else ""
    return f"{event.task or event.action}: {said}{detail}"
