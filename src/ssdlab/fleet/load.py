"""`ssdlab fleet load`: one fio job on every host at once (aggregate load on a shared array or
an NVMe-oF target), through fio's own client/server, reached only over SSH.

fio's server has no authentication and no encryption, listens on every interface by default,
and runs whatever a client sends (exec_prerun, ioengine=exec: programs as root; filename=: any
file or device). So: the job is checked here first (plan/load_job.py: only I/O to its
filename=); each host answers `node facts` (its fio must be this machine's fio version
exactly: fio's client and server must match) and `node check FILE` for every file of the job
(the node's own safety checks, which see its mounts, holders and serials; a device is written
only when the inventory names it in ssdlab_destroy_data); a host that fails is left out with
its reason. Each remaining host then runs `ssdlab node fio-server` with its unix socket (in a
new 0700 folder) forwarded by ssh to a socket in a private folder here, and this machine's fio
is the client of all of them. The servers stop when their ssh ends, on success, failure or
Ctrl-C. fio's client does what the servers tell it, and a server may tell it to send any file
it names or to write a log under any name (fio's SENDFILE and IOLOG): the client runs confined
to that private folder (system/sandbox.py: bubblewrap), where no other file of this machine
exists for it.

The load is stored as one run (kind fleet-load): the client's capture first (argv, job text,
stdout, and as its files the latency histogram logs every server sent back), then one step
result per host (keyed by its inventory name) and one for all hosts together, the hosts' fio
versions and refusals as a facts finding, and all hosts' latency over time, from their
histograms merged, as another (fleet/load_latency.py).
"""

import contextlib
import json
import secrets
import sqlite3
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ssdlab import __version__
from ssdlab.errors import FleetError, ParseError
from ssdlab.fleet.doctor import check_host
from ssdlab.fleet.load_latency import (
    LATENCY_FINDING,
    latency_section,
    read_histogram_logs,
    socket_name,
)
from ssdlab.model.fleet import FleetHost
from ssdlab.model.result import DirectionMetrics, FioJobResult
from ssdlab.model.run import Capture, RunKind, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.target import TargetKind
from ssdlab.parse.fio_client_json import parse_fio_client_json
from ssdlab.plan.load_job import LoadJob, logged_job_text
from ssdlab.runner.run_row import RunHeader, create_run
from ssdlab.store.captures import add_capture
from ssdlab.store.findings import add_finding
from ssdlab.store.lifecycle import finish_run, to_json
from ssdlab.store.steps import add_step_result
from ssdlab.system.fio import FioTool
from ssdlab.system.fio_server import ServerTunnel
from ssdlab.system.process import ProcessRunner
from ssdlab.system.sandbox import Confinement
from ssdlab.system.ssh import SshSettings, on_every_host, run_remote

LOAD_KIND = RunKind.FLEET_LOAD
CONFINED_CLIENT = (
    "fleet load runs fio's client confined to its folder (a node's fio server could make an "
    "unconfined client send it any file of this machine, or write one anywhere)"
)
LOAD_PROFILE_VERSION = 1
ALL_HOSTS = "all-hosts"
ALL_HOSTS_LABEL = "all hosts"
HOSTS_FINDING = "fleet-load-hosts"
NODE_TIMEOUT_S = 120.0
READY_TIMEOUT_S = 60.0
REMOTE_FOLDER = "/tmp/ssdlab-fio-"
SEMANTICS = (
    "One fio job run on every host at once through fio's client/server (fio's own numbers).",
    "Each host's figures are its jobs summed; 'all hosts' is fio's 'All clients' entry: "
    "all hosts' bytes and I/Os over the longest host's runtime (so a little below the sum of "
    "the hosts' rates when they ran for different times), mean latency weighted by I/Os, and "
    "no percentiles (fio gives none); its latency over time comes from every host's "
    "histograms merged (all_hosts_latency).",
)


@dataclass(frozen=True, slots=True)
class LoadSetup:
    """What a load runs with once its job has been checked: where the inventory and the job
    came from, the job, the servers' socket and the SSH settings."""

    inventory: str
    job_path: str
    job: LoadJob
    server: str | None  # the socket path on every node (--server); None: a new one per host
    ssh: SshSettings


@dataclass(frozen=True, slots=True)
class HostState:
    """A host after its checks: its fio version (None: not known) and why it is left out."""

    host: FleetHost
    fio_version: str | None
    refusal: str | None = None


class VersionMismatch(FleetError):
    """A host's fio is not this machine's: fio's client and server must be the same version."""

    def __init__(self, local: str, versions: Mapping[str, str | None]) -> None:
        differing = ", ".join(f"{name} {v or 'unknown'}" for name, v in versions.items())
        super().__init__(
            f"fio versions differ (this machine: {local}; {differing}); fio's client and "
            "servers must be the same version: install that fio on every node (fleet deploy "
            "names it) or leave the others out with --limit"
        )
        self.local = local
        self.versions = dict(versions)


class ClientStop:
    """Signals during a load. While fio's client runs, the first one stops it (SIGINT: it
    ends the servers' jobs and still prints what they did, kept as the capture, the run
    interrupted); at any other time, or the second time, the load ends at once (the servers
    are stopped on the way out, the run marked interrupted)."""

    def __init__(self, runner: ProcessRunner) -> None:
        self.runner = runner
        self.running = False
        self.stopped = False

    def first_signal(self) -> None:
        if not self.running:
            raise KeyboardInterrupt
        self.stopped = True
        self.runner.stop()

    def second_signal(self) -> None:
        raise KeyboardInterrupt


@dataclass(frozen=True, slots=True)
class LoadOutcome:
    run_id: int
    status: RunStatus
    reason: str | None
    local_fio: str
    ran: tuple[str, ...]  # the hosts the load ran on, in inventory order
    left_out: dict[str, str]
    versions: dict[str, str | None]
    steps: tuple[StepResult, ...]
    latency: dict[str, Any] | None = None  # all hosts' latency over time (load_latency.py)


def same_fio(a: str | None, b: str | None) -> bool:
    """'fio-3.33' and '3.33' name the same fio."""
    if a is None or b is None:
        return False
    return a.strip().removeprefix("fio-") == b.strip().removeprefix("fio-")


def target_problem(host: FleetHost, filename: str) -> str | None:
    """Why `filename` is not one of the host's targets (nor a file under a target folder)."""
    for target in host.targets:
        if filename == target or filename.startswith(target.rstrip("/") + "/"):
            return None
    listed = ", ".join(host.targets) or "none"
    return (
        f"{filename} is not one of its ssdlab_targets ({listed}); add it to the inventory or "
        "leave the host out with --limit"
    )


def _node_words(host: FleetHost, *words: str) -> list[str]:
    db = ["--db", host.db] if host.db else []
    return [*host.command, "node", *words, *db]


def _json_answer(text: str) -> dict[str, object] | None:
    for line in reversed(text.splitlines()):
        with contextlib.suppress(ValueError):
            value = json.loads(line)
            if isinstance(value, dict):
                return value
    return None


def _fio_version(host: FleetHost, ssh: SshSettings, deploy: str) -> tuple[str | None, str | None]:
    """(the node's fio version, why it could not be had), from the node's facts as fleet
    doctor reads them."""
    check = check_host(host, ssh, deploy)
    if check.problem is not None:
        return None, check.problem
    if check.fio_version is None:
        return None, "fio is not installed on the node (node facts names none)"
    return check.fio_version, None


def check_words(host: FleetHost, job: LoadJob, filename: str) -> list[str]:
    """`node check FILE` as the job uses FILE: read or write, its size, direct or buffered,
    and --destroy-data FILE only when the job writes and the inventory names FILE there."""
    words = ["check", filename, "--mode", "write" if job.writes else "read"]
    if job.size_bytes is not None:
        words += ["--size", str(job.size_bytes)]
    if not job.direct:
        words.append("--buffered")
    if job.writes and filename in host.destroy_data:
        words += ["--destroy-data", filename]
    return _node_words(host, *words)


def _node_check(host: FleetHost, job: LoadJob, filename: str, ssh: SshSettings) -> str | None:
    result = run_remote(host, check_words(host, job, filename), ssh, timeout_s=NODE_TIMEOUT_S)
    answer = _json_answer(result.text) if result.ok else None
    if answer is None:
        return f"node check {filename} failed: {result.failure()}"
    if answer.get("ok") is True:
        return None
    return f"{filename}: {answer.get('reason') or 'refused by the node'}"


def _check_host(
    host: FleetHost, job: LoadJob, ssh: SshSettings, local: str, deploy: str
) -> HostState:
    version, problem = _fio_version(host, ssh, deploy)
    if problem is not None or not same_fio(version, local):
        return HostState(host, version, problem)
    for filename in job.filenames:
        refusal = target_problem(host, filename) or _node_check(host, job, filename, ssh)
        if refusal is not None:
            return HostState(host, version, refusal)
    return HostState(host, version)


def check_hosts(
    hosts: Sequence[FleetHost], job: LoadJob, ssh: SshSettings, local: FioTool, deploy: str
) -> dict[str, HostState]:
    """Every host's facts and checks, in parallel (`deploy`: the command that installs ssdlab
    on a host that lacks it). VersionMismatch when a host that answered has another fio than
    this machine."""
    states = on_every_host(
        hosts, lambda h: _check_host(h, job, ssh, local.version_text, deploy), ssh.parallel
    )
    versions = {name: s.fio_version for name, s in states.items() if s.fio_version is not None}
    if any(not same_fio(v, local.version_text) for v in versions.values()):
        raise VersionMismatch(local.version_text, versions)
    return states


# --- results -------------------------------------------------------------------------------


def _weighted(parts: Sequence[DirectionMetrics], field: str) -> float | None:
    known = [(getattr(p, field), p.total_ios or 0) for p in parts if getattr(p, field) is not None]
    ios = sum(n for _, n in known)
    return sum(v * n for v, n in known) / ios if known and ios > 0 else None


def direction_total(parts: Sequence[DirectionMetrics]) -> DirectionMetrics | None:
    """One direction of several jobs: amounts and rates added, means weighted by I/Os; no
    percentiles (they cannot be combined), unless there is one job."""
    if len(parts) <= 1:
        return parts[0] if parts else None
    mins = [p.lat_min_ns for p in parts if p.lat_min_ns is not None]
    maxes = [p.lat_max_ns for p in parts if p.lat_max_ns is not None]
    return DirectionMetrics(
        io_bytes=sum(p.io_bytes for p in parts),
        total_ios=(
            None
            if any(p.total_ios is None for p in parts)
            else sum(p.total_ios or 0 for p in parts)
        ),
        runtime_s=max(p.runtime_s for p in parts),
        bw_bytes_per_s=sum(p.bw_bytes_per_s for p in parts),
        iops=sum(p.iops for p in parts),
        lat_mean_ns=_weighted(parts, "lat_mean_ns"),
        lat_min_ns=min(mins) if mins else None,
        lat_max_ns=max(maxes) if maxes else None,
        lat_stddev_ns=None,
        clat_mean_ns=_weighted(parts, "clat_mean_ns"),
    )


def jobs_step(key: str, label: str, jobs: Sequence[FioJobResult]) -> StepResult | None:
    """The step result of one host's jobs (or fio's sums), None when they did no I/O."""
    read = direction_total([j.read for j in jobs if j.read is not None])
    write = direction_total([j.write for j in jobs if j.write is not None])
    both = [d for d in (read, write) if d is not None]
    if not both:
        return None
    direction = "mix" if len(both) == 2 else ("read" if read is not None else "write")
    return StepResult(
        step_key=key,
        step_label=label,
        direction=direction,
        round_index=1,
        discarded=False,
        bw_bytes_per_s=sum(d.bw_bytes_per_s for d in both),
        iops=sum(d.iops for d in both),
        lat_mean_ns=_weighted(both, "lat_mean_ns"),
        read=read,
        write=write,
    )


def load_steps(stdout: str, hosts_by_socket: Mapping[str, str]) -> tuple[StepResult, ...]:
    """Per host (in the order given) and for all hosts: the steps of fio's client output.
    ParseError when a server fio names is not one of ours."""
    output = parse_fio_client_json(stdout)
    found: dict[str, Sequence[FioJobResult]] = {}
    for address, result in output.servers:
        if address not in hosts_by_socket:
            raise ParseError(f"fio reported a server at {address}, which this load did not start")
        found[hosts_by_socket[address]] = result.jobs
    steps = [
        jobs_step(name, name, found[name]) for name in hosts_by_socket.values() if name in found
    ]
    host_steps = [step for step in steps if step is not None]
    if output.all_clients:
        total = jobs_step(ALL_HOSTS, ALL_HOSTS_LABEL, output.all_clients)
    elif len(host_steps) == 1:
        total = replace(host_steps[0], step_key=ALL_HOSTS, step_label=ALL_HOSTS_LABEL)
    else:
        total = None
    if not host_steps:
        raise ParseError("fio's client output holds no host that did any I/O")
    return (*host_steps, *([total] if total is not None else []))


# --- running -------------------------------------------------------------------------------


@dataclass(slots=True)
class _Server:
    host: FleetHost
    local: str  # the forwarded socket here, in the load's folder
    name: str  # ...as fio's client is given it: relative to that folder, its working directory
    remote: str
    tunnel: ServerTunnel | None = None


def _remote_socket(request: LoadSetup) -> str:
    if request.server is not None:
        return request.server
    return f"{REMOTE_FOLDER}{secrets.token_hex(8)}/fio.sock"


@contextlib.contextmanager
def _servers(
    hosts: Sequence[FleetHost], request: LoadSetup, folder: Path
) -> Iterator[tuple[list[_Server], dict[str, str]]]:
    """Every host's fio server, started together; yields those that answered and, by host,
    why the others did not. Every server is stopped afterwards, whatever happened."""
    servers = [
        _Server(
            host,
            str(folder / socket_name(index)),
            socket_name(index),
            _remote_socket(request),
        )
        for index, host in enumerate(hosts)
    ]
    failed: dict[str, str] = {}
    try:
        for server in servers:
            words = [*server.host.command, "node", "fio-server", "--socket", server.remote]
            server.tunnel = ServerTunnel(
                server.host, words, request.ssh, server.local, server.remote
            )
        for server in servers:
            assert server.tunnel is not None
            try:
                server.tunnel.ready(READY_TIMEOUT_S)
            except FleetError as error:
                failed[server.host.name] = f"its fio server did not start: {error}"
        yield [s for s in servers if s.host.name not in failed], failed
    finally:
        tunnels = [s.tunnel for s in servers if s.tunnel is not None]
        for tunnel in tunnels:
            tunnel.hang_up()
        for tunnel in tunnels:
            tunnel.close()


def _header(request: LoadSetup, states: Mapping[str, HostState], local: FioTool) -> RunHeader:
    hosts = [name for name, state in states.items() if state.refusal is None]
    target = {
        "kind": "fleet",
        "inventory": request.inventory,
        "files": list(request.job.filenames),
        "hosts": hosts,
    }
    settings = {
        "job": request.job_path,
        "jobs": list(request.job.jobs),
        "writes": request.job.writes,
        "server": request.server,
        "semantics": list(SEMANTICS),
    }
    environment = {"ssdlab_version": __version__, "fio_version": local.version_text}
    return RunHeader(
        kind=LOAD_KIND,
        profile=LOAD_KIND,
        profile_version=LOAD_PROFILE_VERSION,
        preset=None,
        target_kind=TargetKind.FLEET,
        target_path=request.inventory,
        target_json=to_json(target),
        settings_json=to_json(settings),
        plan_json=to_json({"job_text": request.job.text}),
        environment_json=to_json(environment),
    )


def _client_argv(fio: FioTool, servers: Sequence[_Server], job_file: Path) -> list[str]:
    """fio's client reaches each server by its socket's name relative to the load's folder:
    it names each log a server sends `NAME.SOCKET`, so the logs land in that folder."""
    argv = [fio.path, "--output-format=json"]
    for server in servers:
        argv += [f"--client=sock:{server.name}", str(job_file)]
    return argv


def _failure(capture: Capture) -> str:
    lines = [line.strip() for line in capture.stderr.splitlines() if line.strip()]
    return f"fio exited with {capture.exit_code}: {lines[-1] if lines else 'no message'}"


def _store_steps(
    conn: sqlite3.Connection,
    run_id: int,
    capture: Capture,
    capture_id: int,
    by_socket: Mapping[str, str],
) -> tuple[tuple[StepResult, ...], str | None]:
    """The steps parsed from the stored capture; (steps, why the run failed)."""
    if capture.exit_code is None:
        return (), "fio's client was killed"
    try:
        steps = load_steps(capture.stdout, by_socket)
    except ParseError as error:
        return (), str(error) if capture.exit_code == 0 else _failure(capture)
    stored = tuple(replace(step, capture_id=capture_id) for step in steps)
    for step in stored:
        add_step_result(conn, run_id, step)
    return stored, None if capture.exit_code == 0 else _failure(capture)


def _facts_body(
    states: Mapping[str, HostState],
    left_out: Mapping[str, str],
    local: FioTool,
    remote: dict[str, str],
) -> dict[str, object]:
    return {
        "local_fio_version": local.version_text,
        "fio_versions": {name: state.fio_version for name, state in states.items()},
        "left_out": dict(left_out),
        "server_sockets": remote,
    }


def run_load(
    conn: sqlite3.Connection,
    request: LoadSetup,
    states: Mapping[str, HostState],
    local: FioTool,
    stop: ClientStop,
) -> LoadOutcome:
    """Run the load on the hosts whose checks passed and store it (see the module)."""
    left_out = {name: s.refusal for name, s in states.items() if s.refusal is not None}
    hosts = [s.host for s in states.values() if s.refusal is None]
    if not hosts:
        raise FleetError(f"no host is left to run the load: {_reasons(left_out)}")
    run_id = create_run(conn, _header(request, states, local))
    status = RunStatus.INTERRUPTED
    reason: str | None = "stopped before fio ended"
    steps: tuple[StepResult, ...] = ()
    latency: dict[str, Any] | None = None
    remote: dict[str, str] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="ssdlab-load-") as name:
            folder = Path(name)
            job_file = folder / "job.fio"
            text = logged_job_text(request.job)
            job_file.write_text(text, encoding="utf-8")
            with _servers(hosts, request, folder) as (servers, failed):
                left_out.update(failed)
                remote = {s.host.name: s.remote for s in servers}
                if not servers:
                    status, reason = RunStatus.FAILED, f"no fio server started: {_reasons(failed)}"
                    raise FleetError(f"no host is left to run the load: {_reasons(left_out)}")
                capture = _run_client(stop, local, servers, job_file, text)
                by_socket = {server.name: server.host.name for server in servers}
                logs, unread = read_histogram_logs(folder, by_socket)
                capture_id = add_capture(conn, run_id, capture, logs)  # raw first
            if stop.stopped:  # cut short: fio's numbers kept as the capture, not counted
                reason = "stopped by a signal while fio ran; its output is kept as the capture"
            else:
                steps, reason = _store_steps(conn, run_id, capture, capture_id, by_socket)
                status = RunStatus.COMPLETE if reason is None else RunStatus.FAILED
                latency = _store_latency(conn, run_id, steps, logs, unread)
    finally:
        add_finding(
            conn,
            run_id,
            HOSTS_FINDING,
            "facts",
            _facts_body(states, left_out, local, remote),
            time.time(),
        )
        finish_run(conn, run_id, status, reason, time.time())
    ran = tuple(name for name in states if name in remote)
    versions = {name: s.fio_version for name, s in states.items()}
    return LoadOutcome(
        run_id, status, reason, local.version_text, ran, left_out, versions, steps, latency
    )


def _store_latency(
    conn: sqlite3.Connection,
    run_id: int,
    steps: Sequence[StepResult],
    logs: Mapping[str, str],
    unread: Mapping[str, str],
) -> dict[str, Any] | None:
    """All hosts' latency over time from the histogram logs, stored as a finding; None when
    fio's output gave no steps (nothing to set it beside)."""
    hosts = tuple(step.step_key for step in steps if step.step_key != ALL_HOSTS)
    total = next((step for step in steps if step.step_key == ALL_HOSTS), None)
    if not hosts:
        return None
    ios = {
        "read": None if total is None or total.read is None else total.read.total_ios,
        "write": None if total is None or total.write is None else total.write.total_ios,
    }
    section = latency_section(logs, unread, hosts, ios)
    add_finding(conn, run_id, LATENCY_FINDING, "facts", section, time.time())
    return section


def _run_client(
    stop: ClientStop, local: FioTool, servers: Sequence[_Server], job_file: Path, text: str
) -> Capture:
    stop.running = True
    try:
        return stop.runner.run(
            _client_argv(local, servers, job_file),
            tool="fio",
            cwd=job_file.parent,
            tool_version=local.version_text,
            input_text=text,
            confine=Confinement(job_file.parent, CONFINED_CLIENT),
        )
    except BaseException:
        stop.runner.kill()  # a second signal: the client goes now, the servers with their ssh
        raise
    finally:
        stop.running = False


def _reasons(left_out: Mapping[str, str]) -> str:
    return "; ".join(f"{name}: {why}" for name, why in left_out.items()) or "no host"
