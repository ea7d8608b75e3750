"""`ssdlab fleet deploy`: this ssdlab, installed on every node from wheels made here.

In three steps, each on every host at once (at most `parallel`), a host that fails being
reported and never holding up the others:

1. probe: the node's python3 says its version, platform and glibc, where the venv resolves
   to there, and what `fleet deploy` installed in it before (a marker in the venv naming the
   version and build, and what `VENV/bin/ssdlab --version` answers);
2. wheels (here, once): ssdlab's wheel and its dependencies' for this machine
   (system/wheels.py, cached), or the `--wheels` folder; a node whose Python or platform
   they do not fit gets binary wheels downloaded for it, or is refused with the reason;
3. per node: a venv made without pip (`python3 -m venv --without-pip`: first, as it is the
   cheap step that fails on a bad path), the wheels it lacks copied as one tar stream over
   ssh into `<venv>.wheels` (beside the venv), pip run from its own wheel with
   `--no-index`, `VENV/bin/ssdlab --version` checked, the marker written, and `ssdlab node
   facts` read for the system tools the node lacks. A node whose venv already holds this
   build is "up to date" and only its facts are read (unless `force`).
"""

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ssdlab.errors import FleetError
from ssdlab.fleet.deploy_plan import (
    MissingTool,
    NodePython,
    command_advice,
    download_options,
    extract_words,
    facts_words,
    install_words,
    is_up_to_date,
    marker_words,
    missing_tools,
    mkdir_words,
    node_problem,
    parse_probe,
    platform_key,
    probe_words,
    unfit_wheels,
    venv_path,
    venv_words,
    version_words,
)
from ssdlab.fleet.reach import FleetReach, fleet_hosts, ssh_settings
from ssdlab.model.fleet import FleetHost, RemoteResult
from ssdlab.system.ssh import SshSettings, multiplexed, on_every_host, run_remote
from ssdlab.system.wheels import (
    SsdlabSource,
    WheelSet,
    find_source,
    given_set,
    local_set,
    node_set,
    requires_python,
    tar_stream,
)

INSTALLED = "installed"
UP_TO_DATE = "up to date"
FAILED = "failed"
PROBE_TIMEOUT_S = 120.0
STEP_TIMEOUT_S = 300.0  # mkdir, venv, --version, marker, facts
INSTALL_TIMEOUT_S = 1800.0  # pip installing numpy, scipy, vl-convert on a slow node
COPY_BYTES_PER_S = 1_000_000  # the slowest link a copy is given time for (plus STEP_TIMEOUT_S)

Progress = Callable[[str, str], None]  # (host name or "here", what it is doing now)


@dataclass(frozen=True, slots=True)
class DeployOptions:
    settings: SshSettings
    wheels: Path | None = None  # --wheels DIR: use these instead of making them here
    force: bool = False  # reinstall where this build is already installed
    cache: Path | None = None  # the wheel cache (None: $XDG_CACHE_HOME/ssdlab/wheels)


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
    seconds: dict[str, float] = field(default_factory=dict)  # probe, venv, copy, install, check


@dataclass(frozen=True, slots=True)
class DeployReport:
    version: str
    build: str
    wheels: WheelSet | None  # None: no host needed any
    hosts: tuple[HostDeploy, ...]

    @property
    def failed(self) -> bool:
        return any(host.state == FAILED for host in self.hosts)


@dataclass(frozen=True, slots=True)
class DeployRequest:
    reach: FleetReach
    wheels: Path | None = None  # --wheels DIR
    force: bool = False  # --force


def deploy_fleet(request: DeployRequest, progress: Progress) -> DeployReport:
    """`ssdlab fleet deploy`: this ssdlab on every host of the inventory."""
    hosts = fleet_hosts(request.reach)
    options = DeployOptions(ssh_settings(request.reach), request.wheels, request.force)
    return deploy(hosts, options, progress)


def deploy(hosts: Sequence[FleetHost], options: DeployOptions, progress: Progress) -> DeployReport:
    given: WheelSet | None = None
    source: SsdlabSource | None = None
    if options.wheels is not None:
        given = given_set(options.wheels)
        version, build = given.version, given.build
    else:
        source = find_source()
        version, build = source.version, source.build
    with multiplexed(options.settings) as settings:
        probed: dict[str, float] = {}  # seconds each probe took, by host
        probes = on_every_host(
            hosts, lambda h: _probe(h, settings, progress, probed), settings.parallel
        )
        todo = [
            host
            for host in hosts
            if _needs_install(probes[host.name], options.force, version, build)
        ]
        chosen = _Sets(options, given, source, progress)
        if todo:
            chosen.prepare(todo, probes)
        steps = _Steps(settings, progress, version, probed)
        done = on_every_host(
            hosts,
            lambda h: steps.finish(h, probes[h.name], chosen.by_host.get(h.name)),
            settings.parallel,
        )
    used = chosen.local if todo else None
    return DeployReport(version, build, used, tuple(done[h.name] for h in hosts))


def _needs_install(probe: "NodePython | HostDeploy", force: bool, version: str, build: str) -> bool:
    """A reachable node whose venv does not hold this build (or any, with `force`)."""
    if not isinstance(probe, NodePython):
        return False
    return force or not is_up_to_date(probe, version, build)


def _node(probe: "NodePython | HostDeploy") -> NodePython:
    assert isinstance(probe, NodePython)
    return probe


# --- step 1: the probe -------------------------------------------------------------------------


def _probe(
    host: FleetHost, settings: SshSettings, progress: Progress, probed: dict[str, float]
) -> "NodePython | HostDeploy":
    """The node's Python, or the host's failure; the seconds it took go into `probed`."""
    try:
        venv = venv_path(host)
    except FleetError as error:
        return HostDeploy(host.name, FAILED, None, reason=str(error))
    progress(host.name, "probing python3")
    result = run_remote(
        host,
        probe_words(venv),
        settings,
        timeout_s=settings.connect_timeout_s + PROBE_TIMEOUT_S,
    )
    probed[host.name] = round(result.ended_at_s - result.started_at_s, 3)
    seconds = {"probe": probed[host.name]}
    if not result.ok:
        return HostDeploy(host.name, FAILED, venv, reason=_probe_failure(result), seconds=seconds)
    try:
        return parse_probe(host.name, result.text)
    except FleetError as error:
        return HostDeploy(host.name, FAILED, venv, reason=str(error), seconds=seconds)


def _probe_failure(result: RemoteResult) -> str:
    if result.error is None and result.returncode == 127:
        return "no python3 on the node; install it (apt-get install python3)"
    if result.error is None and result.returncode == 255:
        return f"unreachable: {result.failure()}"
    return result.failure()


# --- step 2: the wheels ------------------------------------------------------------------------


class _Sets:
    """The wheel set each host to install gets (or why it gets none)."""

    def __init__(
        self,
        options: DeployOptions,
        given: WheelSet | None,
        source: SsdlabSource | None,
        progress: Progress,
    ):
        self.options = options
        self.local = given
        self.source = source
        self.progress = progress
        self.by_host: dict[str, WheelSet | str] = {}
        self._by_kind: dict[str, WheelSet | str] = {}

    def say(self, text: str) -> None:
        self.progress("here", text)

    def prepare(
        self, todo: Sequence[FleetHost], probes: dict[str, "NodePython | HostDeploy"]
    ) -> None:
        if self.local is None:
            assert self.source is not None  # no --wheels: made from what runs here
            self.local = local_set(self.source, self.say, self.options.cache)
            how = "from the cache" if self.local.cached else "built"
            self.say(f"{len(self.local.files)} wheels {how} in {self.local.seconds:.1f} s")
        requires = requires_python(self.local.ssdlab)
        for host in todo:
            node = _node(probes[host.name])
            problem = node_problem(node, requires)
            self.by_host[host.name] = problem if problem else self._for_node(node, self.local)

    def _for_node(self, node: NodePython, local: WheelSet) -> WheelSet | str:
        unfit = unfit_wheels(local.names, node)
        if not unfit:
            return local
        kind = platform_key(node)
        if self.options.wheels is not None:
            return (
                f"the wheels in {self.options.wheels} do not fit the node's Python "
                f"{node.short_version} ({kind}): {unfit[0]}; give wheels built for it"
            )
        if kind not in self._by_kind:
            self._by_kind[kind] = self._download(node, local, kind)
        return self._by_kind[kind]

    def _download(self, node: NodePython, local: WheelSet, kind: str) -> WheelSet | str:
        try:
            found = node_set(local, kind, download_options(node), self.say, self.options.cache)
        except FleetError as error:
            return f"no wheels for the node's Python {node.short_version} ({kind}): {error}"
        unfit = unfit_wheels(found.names, node)
        if unfit:
            return f"the wheels downloaded for {kind} do not fit it ({unfit[0]}); give --wheels DIR"
        return found


# --- step 3: copy, install, check --------------------------------------------------------------


class _Steps:
    def __init__(
        self, settings: SshSettings, progress: Progress, version: str, probed: dict[str, float]
    ):
        self.settings = settings
        self.progress = progress
        self.version = version
        self.probed = probed
        self._streams: dict[tuple[Path, ...], bytes] = {}
        self._lock = threading.Lock()

    def finish(
        self, host: FleetHost, probe: "NodePython | HostDeploy", chosen: "WheelSet | str | None"
    ) -> HostDeploy:
        if isinstance(probe, HostDeploy):
            return probe
        node = probe
        advice = command_advice(host, venv_path(host), node.venv)
        if isinstance(chosen, str):
            return HostDeploy(host.name, FAILED, node.venv, reason=chosen, ssdlab_command=advice)
        seconds = {"probe": self.probed.get(host.name, 0.0)}
        copied = 0
        state = UP_TO_DATE
        if chosen is not None:
            try:
                copied = self._install(host, node, chosen, seconds)
            except _StepFailed as failed:
                return HostDeploy(
                    host.name, FAILED, node.venv, reason=str(failed), ssdlab_command=advice,
                    seconds=seconds,
                )  # fmt: skip
            state = INSTALLED
        return self._facts(host, node, state, advice, copied, seconds)

    def _run(
        self,
        host: FleetHost,
        words: Sequence[str],
        what: str,
        *,
        timeout_s: float = STEP_TIMEOUT_S,
        input_bytes: bytes | None = None,
    ) -> RemoteResult:
        result = run_remote(
            host, words, self.settings, timeout_s=timeout_s, input_bytes=input_bytes
        )
        if not result.ok:
            raise _StepFailed(f"{what}: {result.failure()}")
        return result

    def _install(
        self, host: FleetHost, node: NodePython, wheels: WheelSet, seconds: dict[str, float]
    ) -> int:
        started = time.monotonic()
        self.progress(host.name, f"making the venv {node.venv}")
        self._run(
            host,
            venv_words(node.venv),
            f"python3 -m venv cannot make {node.venv} (give ssdlab_venv a folder it can create)",
        )
        seconds["venv"] = round(time.monotonic() - started, 3)
        started = time.monotonic()
        copied = self._copy(host, node, wheels)
        seconds["copy"] = round(time.monotonic() - started, 3)
        started = time.monotonic()
        self.progress(
            host.name, f"installing ssdlab {wheels.version} and {len(wheels.files) - 1} wheels"
        )
        names = [path.name for path in wheels.files]
        pip_failed = "pip install on the node failed"
        self._run(host, install_words(node, wheels.pip.name, names), pip_failed,
                  timeout_s=INSTALL_TIMEOUT_S)  # fmt: skip
        if node.installed is not None:  # the same version may be in there: this build wins
            words = install_words(node, wheels.pip.name, names, only=wheels.ssdlab.name)
            self._run(host, words, pip_failed, timeout_s=INSTALL_TIMEOUT_S)
        seconds["install"] = round(time.monotonic() - started, 3)
        started = time.monotonic()
        self.progress(host.name, "checking the installed ssdlab")
        said = self._run(host, version_words(node), "the installed ssdlab does not start").text
        if said.split()[-1:] != [wheels.version]:
            raise _StepFailed(
                f"the venv's ssdlab says {said.strip()!r}, not ssdlab {wheels.version}; "
                "deploy again with --force"
            )
        self._run(host, marker_words(node, wheels.version, wheels.build), "writing the marker")
        seconds["check"] = round(time.monotonic() - started, 3)
        return copied

    def _copy(self, host: FleetHost, node: NodePython, wheels: WheelSet) -> int:
        """The wheels the node lacks (ssdlab's own always), as one tar stream."""
        needed = tuple(
            path
            for path in wheels.files
            if path == wheels.ssdlab or node.present.get(path.name) != path.stat().st_size
        )
        stream = self._stream(needed)
        self.progress(
            host.name,
            f"copying {len(needed)} wheel{'s' if len(needed) != 1 else ''} "
            f"({len(stream) / 2**20:.1f} MiB) to {node.wheels}",
        )
        self._run(host, mkdir_words(node.wheels), f"cannot make the folder {node.wheels}")
        self._run(
            host,
            extract_words(node.wheels),
            f"copying the wheels into {node.wheels} failed",
            input_bytes=stream,
            timeout_s=STEP_TIMEOUT_S + len(stream) / COPY_BYTES_PER_S,
        )
        return len(stream)

    def _stream(self, files: tuple[Path, ...]) -> bytes:
        with self._lock:
            if files not in self._streams:
                self._streams[files] = tar_stream(files)
            return self._streams[files]

    def _facts(
        self,
        host: FleetHost,
        node: NodePython,
        state: str,
        advice: str | None,
        copied: int,
        seconds: dict[str, float],
    ) -> HostDeploy:
        self.progress(host.name, "reading the node's facts")
        version = self.version if state == INSTALLED else _said_version(node)
        result = run_remote(host, facts_words(node), self.settings, timeout_s=STEP_TIMEOUT_S)
        problem: str | None = None
        missing: tuple[MissingTool, ...] = ()
        is_root: bool | None = None
        try:
            if not result.ok:
                raise FleetError(f"ssdlab node facts failed: {result.failure()}")
            facts = json.loads(result.text)
            missing = tuple(missing_tools(facts))
            root = facts.get("is_root")
            is_root = root if isinstance(root, bool) else None
        except (FleetError, ValueError, AttributeError) as error:
            problem = str(error) if isinstance(error, FleetError) else "ssdlab node facts: not JSON"
        return HostDeploy(
            host.name,
            state,
            node.venv,
            version=version,
            missing=missing,
            is_root=is_root,
            facts_problem=problem,
            ssdlab_command=advice,
            copied_bytes=copied,
            seconds=seconds,
        )


def _said_version(node: NodePython) -> str | None:
    words = (node.installed or "").split()
    return words[-1] if words else None


class _StepFailed(Exception):
    """A remote step failed; its message is the host's one-line reason."""
