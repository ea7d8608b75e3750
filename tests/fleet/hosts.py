"""Test hosts for ssdlab's fleet runs: lab nodes made on this machine, each a Linux network
namespace running a real OpenSSH server on its own address, reached with the real ssh client.

`start_hosts(count, workdir)` makes `count` nodes (node1, node2, ...) and returns a `FleetLab`:
its `ssh_config` (used as `ssh -F <ssh_config> node1 ...`) logs in as root with a key made for
the lab and checks each node's real host key against the lab's own `known_hosts`, so nothing
of the machine's own ssh set-up (/root/.ssh, /etc/ssh) is read or written. `write_inventory_ini`
and `write_inventory_yaml` write an Ansible inventory listing the nodes; `cut(host)` partitions
the network to one node and `restore(host)` brings it back; `close()` removes everything.

Each node: namespace `ssdlab-t<pid>-<k>`, a veth pair (`ssdt<pid>h<k>` on this side, with
10.237.<n>.<4i+1>/30; `ssdt<pid>n<k>` in the namespace, with 10.237.<n>.<4i+2>/30), `lo` up, no
default route: traffic goes only to those addresses and 127.0.0.0/8. `<n>` is a /24 no other
lab on this machine uses, chosen under a lock file. Every name carries the pid of the process
that made it, so a lab left behind by a killed test run is swept by the next `start_hosts`
(only names of this pattern whose pid no longer exists; nothing else is touched). The sshds are
children of this process (killed with it: PR_SET_PDEATHSIG) and `close()` also runs at exit.

Needs root, iproute2 (`ip`), openssh-server (/usr/sbin/sshd) and openssh-client (`ssh`,
`ssh-keygen`); `missing_requirements()` says what is missing.
"""

import atexit
import contextlib
import ctypes
import fcntl
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, ClassVar

SSHD = Path("/usr/sbin/sshd")
SSH_PORT = 22
CONNECT_TIMEOUT_S = 5  # the ssh_config's ConnectTimeout: how long an ssh to a cut node takes
READY_TIMEOUT_S = 600.0  # a hang guard: an sshd accepts as soon as it is up, however loaded
NAMESPACE_PREFIX = "ssdlab-t"
VETH_PREFIX = "ssdt"
MAX_HOSTS = 64  # /30 subnets in one 10.237.<n>.0/24
LOCK_FILE = Path(tempfile.gettempdir()) / "ssdlab-fleet-lab.lock"
DEFAULT_GROUP = "ssdlab_nodes"
# the routing protocol number that marks a lab's fallback route (`unreachable 10.237.<n>.0/24`):
# whatever happens to a node's link, nothing sent to the lab's addresses leaves this machine
ROUTE_PROTO = "237"

_NAMESPACE_RE = re.compile(rf"^{re.escape(NAMESPACE_PREFIX)}(\d+)-(\d+)$")
_VETH_RE = re.compile(rf"^{re.escape(VETH_PREFIX)}(\d+)[hn](\d+)$")
_PR_SET_PDEATHSIG = 1


class FleetLabError(RuntimeError):
    """The test hosts could not be made or used."""


class NamespaceUnavailable(FleetLabError):
    """This machine (or container) does not let this process make network namespaces."""


@dataclass(frozen=True, slots=True)
class TestHost:
    """One lab node. `address`/`port` is where its sshd listens (inside `namespace`);
    `host_address` is this machine's end of the link, on `host_veth`."""

    __test__: ClassVar[bool] = False  # not a pytest test class

    name: str
    namespace: str
    address: str
    port: int
    host_address: str
    host_veth: str
    namespace_veth: str
    host_key: Path  # the sshd's private host key; its public half is host_key + ".pub"
    sshd_config: Path
    sshd_log: Path


@dataclass
class FleetLab:
    """The nodes of one `start_hosts` call and the client files that reach them."""

    workdir: Path
    hosts: list[TestHost] = field(default_factory=list)
    ssh_config: Path = field(init=False)
    known_hosts: Path = field(init=False)
    client_key: Path = field(init=False)
    authorized_keys: Path = field(init=False)
    subnet: int | None = None  # the <n> of 10.237.<n>.0/24
    _sshds: dict[str, "subprocess.Popen[bytes]"] = field(default_factory=dict, repr=False)
    _logs: list[IO[bytes]] = field(default_factory=list, repr=False)
    _namespaces: list[str] = field(default_factory=list, repr=False)
    _veths: list[str] = field(default_factory=list, repr=False)
    closed: bool = False

    def __post_init__(self) -> None:
        self.ssh_config = self.workdir / "ssh_config"
        self.known_hosts = self.workdir / "known_hosts"
        self.client_key = self.workdir / "client_key"
        self.authorized_keys = self.workdir / "authorized_keys"

    def __enter__(self) -> "FleetLab":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # --- using the nodes -------------------------------------------------------------------

    def host(self, name: str) -> TestHost:
        for host in self.hosts:
            if host.name == name:
                return host
        raise KeyError(f"no host {name!r} in this lab ({', '.join(h.name for h in self.hosts)})")

    def ssh_argv(self, host: TestHost, argv: Sequence[str]) -> list[str]:
        """The ssh command line that runs `argv` (words, quoted for the remote shell) on
        `host` through the lab's ssh_config."""
        return ["ssh", "-F", str(self.ssh_config), "--", host.name, shlex.join(argv)]

    def ssh(
        self, host: TestHost, argv: Sequence[str], timeout_s: float = 600
    ) -> "subprocess.CompletedProcess[str]":
        """Run `argv` on `host` over ssh; exit status 255 is ssh's own failure."""
        return subprocess.run(
            self.ssh_argv(host, argv),
            capture_output=True,
            text=True,
            check=False,
            timeout=timeout_s,
            stdin=subprocess.DEVNULL,
        )

    def run_in(
        self, host: TestHost, argv: Sequence[str], timeout_s: float = 600
    ) -> "subprocess.CompletedProcess[str]":
        """Run `argv` inside `host`'s namespace directly (ip netns exec), without ssh."""
        return subprocess.run(
            ["ip", "netns", "exec", host.namespace, *argv],
            capture_output=True,
            text=True,
            check=False,
            timeout=timeout_s,
            stdin=subprocess.DEVNULL,
        )

    def cut(self, host: TestHost) -> None:
        """Partition the network to `host`: the node's end of its link goes down, so this side
        loses carrier and keeps its route. Packets to the node are dropped (never sent
        anywhere else), new connections time out, open ones die by their keepalives; the
        node's sshd and whatever runs there keep running."""
        _ip("-n", host.namespace, "link", "set", "dev", host.namespace_veth, "down")

    def restore(self, host: TestHost) -> None:
        """Undo `cut`: the link comes back up; returns once the node's sshd answers again."""
        _ip("-n", host.namespace, "link", "set", "dev", host.namespace_veth, "up")
        _wait_for_sshd(host, self._sshds.get(host.name))

    @contextlib.contextmanager
    def partitioned(self, host: TestHost) -> Iterator[None]:
        """`cut(host)` for the body of a with block, `restore(host)` after it, even on error."""
        self.cut(host)
        try:
            yield
        except BaseException:
            # the body's failure (or Ctrl-C) is the one to report, not a failed restore
            with contextlib.suppress(Exception):
                self.restore(host)
            raise
        self.restore(host)

    def sshd_pid(self, host: TestHost) -> int:
        return self._sshds[host.name].pid

    # --- inventories -----------------------------------------------------------------------

    def _host_vars(self, host: TestHost, extra: Mapping[str, str]) -> dict[str, str | int]:
        values: dict[str, str | int] = {
            "ansible_host": host.address,
            "ansible_port": host.port,
            "ansible_user": "root",
            "ansible_ssh_common_args": shlex.join(["-F", str(self.ssh_config)]),
        }
        values.update(extra)
        return values

    def write_inventory_ini(
        self,
        path: Path,
        host_vars: Mapping[str, Mapping[str, str]] | None = None,
        group_vars: Mapping[str, str] | None = None,
        group: str = DEFAULT_GROUP,
        hosts: Sequence[TestHost] | None = None,
    ) -> Path:
        """Write an Ansible INI inventory: the nodes (all, or `hosts`) in group `group`, each
        with ansible_host/port/user and `ansible_ssh_common_args='-F <ssh_config>'`, plus
        `host_vars[name]` on its line and `group_vars` under `[group:vars]`.

        Ansible reads an INI value as a Python literal when it is one ("1" is a number,
        "[...]" a list) and as a string otherwise; values here are strings, quoted for
        Ansible's shell-like splitting of host lines."""
        host_vars = host_vars or {}
        lines = [f"[{_name(group)}]"]
        for host in self._chosen(hosts, host_vars):
            values = self._host_vars(host, host_vars.get(host.name, {}))
            words = [f"{_name(k)}={shlex.quote(str(v))}" for k, v in values.items()]
            lines.append(" ".join([_name(host.name), *words]))
        if group_vars:
            lines += ["", f"[{group}:vars]"]
            lines += [f"{_name(k)}={_ini_group_value(v)}" for k, v in group_vars.items()]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    def write_inventory_yaml(
        self,
        path: Path,
        host_vars: Mapping[str, Mapping[str, str]] | None = None,
        group_vars: Mapping[str, str] | None = None,
        group: str = DEFAULT_GROUP,
        hosts: Sequence[TestHost] | None = None,
    ) -> Path:
        """The same inventory as `write_inventory_ini`, in Ansible's YAML format
        (all: children: <group>: hosts: ..., vars: ...). Every string is double-quoted (JSON
        strings are YAML), so no value is read as a number, boolean or list."""
        host_vars = host_vars or {}
        lines = ["all:", "  children:", f"    {_name(group)}:", "      hosts:"]
        for host in self._chosen(hosts, host_vars):
            lines.append(f"        {_name(host.name)}:")
            values = self._host_vars(host, host_vars.get(host.name, {}))
            lines += [f"          {_name(k)}: {_yaml_value(v)}" for k, v in values.items()]
        if group_vars:
            lines.append("      vars:")
            lines += [f"        {_name(k)}: {_yaml_value(v)}" for k, v in group_vars.items()]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    def _chosen(
        self, hosts: Sequence[TestHost] | None, host_vars: Mapping[str, object]
    ) -> Sequence[TestHost]:
        unknown = set(host_vars) - {host.name for host in self.hosts}
        if unknown:
            raise KeyError(f"host_vars names hosts not in this lab: {sorted(unknown)}")
        return self.hosts if hosts is None else hosts

    # --- cleanup ---------------------------------------------------------------------------

    def close(self) -> None:
        """Kill the sshds and everything else running in the namespaces, delete the
        namespaces and veths. Safe to call more than once; runs at exit if not called."""
        if self.closed:
            return
        for process in self._sshds.values():
            _stop(process)
        for namespace in self._namespaces:
            _kill_namespace_processes(namespace)
        for veth in self._veths:
            _ip("link", "del", "dev", veth, check=False)
        for namespace in self._namespaces:
            _ip("netns", "del", namespace, check=False)
        if self.subnet is not None:
            _ip("route", "del", *_fallback_route(self.subnet), check=False)
        for log in self._logs:
            log.close()
        self.closed = True
        _LABS.pop(id(self), None)


# --- making a lab ------------------------------------------------------------------------------

_LABS: dict[int, FleetLab] = {}
_counter = 0


def missing_requirements() -> str | None:
    """Why test hosts cannot be made here, or None when they can."""
    if os.geteuid() != 0:
        return "fleet test hosts need root (network namespaces)"
    for tool in ("ip", "ssh", "ssh-keygen"):
        if shutil.which(tool) is None:
            package = "iproute2" if tool == "ip" else "openssh-client"
            return f"fleet test hosts need `{tool}` (apt-get install {package})"
    if not os.access(SSHD, os.X_OK):
        return f"fleet test hosts need {SSHD} (apt-get install openssh-server)"
    return None


def start_hosts(count: int, workdir: Path) -> FleetLab:
    """Make `count` nodes (node1..node<count>), each with a running sshd, and the client
    files in `workdir` (created if missing). Cleans up whatever it made if it fails."""
    if not 1 <= count <= MAX_HOSTS:
        raise ValueError(f"count must be 1..{MAX_HOSTS}, not {count}")
    reason = missing_requirements()
    if reason is not None:
        raise FleetLabError(reason)
    workdir.mkdir(parents=True, exist_ok=True)
    lab = FleetLab(workdir=workdir)
    _LABS[id(lab)] = lab
    try:
        _keygen(lab.client_key, "ssdlab fleet test client")
        lab.authorized_keys.write_text(
            Path(f"{lab.client_key}.pub").read_text(encoding="utf-8"), encoding="utf-8"
        )
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation dir
        with _lock():
            sweep_stale()
            lab.subnet = _free_subnet()
            _ip("route", "replace", *_fallback_route(lab.subnet))
            for index in range(1, count + 1):
                lab.hosts.append(_make_node(lab, index))
        _write_client_files(lab)
        for host in lab.hosts:
            _start_sshd(lab, host)
        for host in lab.hosts:
            _wait_for_sshd(host, lab._sshds[host.name])
    except BaseException:
        lab.close()
        raise
    return lab


def _make_node(lab: FleetLab, index: int) -> TestHost:
    global _counter
    _counter += 1
    pid = os.getpid()
    namespace = f"{NAMESPACE_PREFIX}{pid}-{_counter}"
    host_veth = f"{VETH_PREFIX}{pid}h{_counter}"
    namespace_veth = f"{VETH_PREFIX}{pid}n{_counter}"
    base = 4 * (index - 1)
    host_address = f"10.237.{lab.subnet}.{base + 1}"
    address = f"10.237.{lab.subnet}.{base + 2}"
    made = _ip("netns", "add", namespace, check=False)
    if made.returncode != 0:
        raise NamespaceUnavailable(
            f"cannot make network namespace {namespace}: {made.stderr.strip()}"
        )
    lab._namespaces.append(namespace)
    # fixed MAC addresses (locally administered, unique per lab and node) and permanent
    # neighbour entries: no ARP, so a cut link drops packets silently (connections time out
    # as they do across a real partition) and a restored link works at once
    host_mac = f"02:ed:00:{lab.subnet:02x}:{index:02x}:01"
    namespace_mac = f"02:ed:00:{lab.subnet:02x}:{index:02x}:02"
    veth = ["link", "add", host_veth, "address", host_mac, "type", "veth"]
    _ip(*veth, "peer", "name", namespace_veth, "address", namespace_mac, "netns", namespace)
    lab._veths.append(host_veth)
    # addrgenmode none: no IPv6 link-local address, so nothing but the lab's own traffic
    _ip("addr", "add", f"{host_address}/30", "dev", host_veth)
    _ip("neigh", "replace", address, "lladdr", namespace_mac, "nud", "permanent", "dev", host_veth)
    _ip("link", "set", "dev", host_veth, "addrgenmode", "none", "up")
    inside = ["-n", namespace]
    _ip(*inside, "addr", "add", f"{address}/30", "dev", namespace_veth)
    neighbour = ["neigh", "replace", host_address, "lladdr", host_mac, "nud", "permanent"]
    _ip(*inside, *neighbour, "dev", namespace_veth)
    _ip(*inside, "link", "set", "dev", namespace_veth, "addrgenmode", "none", "up")
    _ip(*inside, "link", "set", "dev", "lo", "up")
    name = f"node{index}"
    node_dir = lab.workdir / name
    node_dir.mkdir(exist_ok=True)
    host_key = node_dir / "ssh_host_ed25519_key"
    _keygen(host_key, f"ssdlab fleet test {name}")
    return TestHost(
        name=name,
        namespace=namespace,
        address=address,
        port=SSH_PORT,
        host_address=host_address,
        host_veth=host_veth,
        namespace_veth=namespace_veth,
        host_key=host_key,
        sshd_config=node_dir / "sshd_config",
        sshd_log=node_dir / "sshd.log",
    )


def _sshd_config(lab: FleetLab, host: TestHost) -> str:
    settings = [
        ("HostKey", _quoted(host.host_key)),
        ("ListenAddress", host.address),
        ("Port", str(host.port)),
        ("AddressFamily", "inet"),
        ("PermitRootLogin", "prohibit-password"),
        ("PubkeyAuthentication", "yes"),
        ("PasswordAuthentication", "no"),
        ("KbdInteractiveAuthentication", "no"),
        ("UsePAM", "no"),
        ("AuthorizedKeysFile", _quoted(lab.authorized_keys)),
        ("StrictModes", "no"),
        ("PidFile", "none"),
        ("MaxSessions", "64"),
        ("MaxStartups", "64"),
        ("ClientAliveInterval", "2"),
        ("ClientAliveCountMax", "3"),
        ("AllowStreamLocalForwarding", "yes"),
        ("StreamLocalBindUnlink", "yes"),
        ("Subsystem", "sftp internal-sftp"),  # Ansible copies files with sftp
    ]
    return "".join(f"{key} {value}\n" for key, value in settings)


def _write_client_files(lab: FleetLab) -> None:
    known = []
    for host in lab.hosts:
        public = Path(f"{host.host_key}.pub").read_text(encoding="utf-8").split()
        where = host.address if host.port == 22 else f"[{host.address}]:{host.port}"
        known.append(f"{where} {public[0]} {public[1]}\n")
    lab.known_hosts.write_text("".join(known), encoding="utf-8")
    blocks = [
        f"Host {host.name}\n    HostName {host.address}\n    Port {host.port}\n"
        for host in lab.hosts
    ]
    blocks.append(
        "Host *\n"
        "    User root\n"
        f"    IdentityFile {_quoted(lab.client_key)}\n"
        "    IdentitiesOnly yes\n"
        f"    UserKnownHostsFile {_quoted(lab.known_hosts)}\n"
        "    GlobalKnownHostsFile /dev/null\n"
        "    StrictHostKeyChecking yes\n"
        "    UpdateHostKeys no\n"
        "    BatchMode yes\n"
        f"    ConnectTimeout {CONNECT_TIMEOUT_S}\n"
        "    ServerAliveInterval 2\n"
        "    ServerAliveCountMax 3\n"
    )
    lab.ssh_config.write_text("\n".join(blocks), encoding="utf-8")


def _start_sshd(lab: FleetLab, host: TestHost) -> None:
    host.sshd_config.write_text(_sshd_config(lab, host), encoding="utf-8")
    log = host.sshd_log.open("ab")
    lab._logs.append(log)
    argv = ["ip", "netns", "exec", host.namespace, str(SSHD), "-D", "-e"]
    argv += ["-f", str(host.sshd_config)]
    lab._sshds[host.name] = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        preexec_fn=_die_with_parent,
        start_new_session=True,  # a Ctrl-C of the tests reaches the tests, not the nodes
    )


def _wait_for_sshd(host: TestHost, process: "subprocess.Popen[bytes] | None") -> None:
    """Wait until the sshd of `host` sends its SSH banner on a new TCP connection."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    last = "no attempt"
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            last = f"sshd exited with status {process.returncode}"
            break
        try:
            with socket.create_connection((host.address, host.port), timeout=1) as conn:
                conn.settimeout(2)
                banner = conn.recv(64)
            if banner.startswith(b"SSH-"):
                return
            last = f"answered {banner!r}, not an SSH banner"
        except OSError as error:
            last = str(error)
        time.sleep(0.02)
    log = (
        host.sshd_log.read_text(encoding="utf-8", errors="replace")
        if host.sshd_log.exists()
        else ""
    )
    raise FleetLabError(
        f"sshd of {host.name} (namespace {host.namespace}) does not accept connections on "
        f"{host.address}:{host.port} ({last}); its log {host.sshd_log}:\n{log.strip() or '(empty)'}"
    )


# --- sweeping what killed test runs left -------------------------------------------------------


def sweep_stale() -> list[str]:
    """Remove namespaces and veths of the lab patterns whose pid no longer exists (or is this
    process but belongs to no open lab of it: a dead run's pid reused). Returns their names."""
    ours = {name for lab in _LABS.values() for name in (*lab._namespaces, *lab._veths)}
    removed = []
    # veths first: deleting the host side removes the pair at once, while a deleted
    # namespace takes its veths with it only when the kernel gets round to it
    for veth in _link_names():
        match = _VETH_RE.match(veth)
        if match and _is_stale(int(match.group(1)), veth, ours):
            _ip("link", "del", "dev", veth, check=False)
            removed.append(veth)
    for namespace in _namespace_names():
        match = _NAMESPACE_RE.match(namespace)
        if match and _is_stale(int(match.group(1)), namespace, ours):
            _kill_namespace_processes(namespace)
            _ip("netns", "del", namespace, check=False)
            removed.append(namespace)
    used = _addressed_subnets() | {lab.subnet for lab in _LABS.values() if not lab.closed}
    for subnet in _routed_subnets() - used:
        _ip("route", "del", *_fallback_route(subnet), check=False)
        removed.append(f"10.237.{subnet}.0/24")
    return removed


def _fallback_route(subnet: int) -> list[str]:
    return ["unreachable", f"10.237.{subnet}.0/24", "proto", ROUTE_PROTO]


def _addressed_subnets() -> set[int]:
    """The <n> of every 10.237.<n>.x address on this machine's links."""
    used = set()
    for line in _ip("-o", "-4", "addr", "show", check=False).stdout.splitlines():
        found = re.search(r"\binet 10\.237\.(\d+)\.", line)
        if found:
            used.add(int(found.group(1)))
    return used


def _routed_subnets() -> set[int]:
    """The <n> of every lab fallback route on this machine."""
    listed = _ip("-4", "route", "show", "type", "unreachable", "proto", ROUTE_PROTO, check=False)
    found = re.findall(r"\b10\.237\.(\d+)\.0/24\b", listed.stdout)
    return {int(subnet) for subnet in found}


def _is_stale(pid: int, name: str, ours: set[str]) -> bool:
    if pid == os.getpid():
        return name not in ours
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _namespace_names() -> list[str]:
    listed = _ip("netns", "list", check=False).stdout
    return [line.split()[0] for line in listed.splitlines() if line.strip()]


def _link_names() -> list[str]:
    names = []
    for line in _ip("-o", "link", "show", check=False).stdout.splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            names.append(parts[1].strip().split("@")[0])
    return names


def _kill_namespace_processes(namespace: str) -> None:
    """SIGKILL every process in `namespace` (sshds, sessions, what the tests ran there)."""
    for _ in range(5):
        pids = [int(word) for word in _ip("netns", "pids", namespace, check=False).stdout.split()]
        pids = [pid for pid in pids if pid != os.getpid()]
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)


def _free_subnet() -> int:
    """A 10.237.<n>.0/24 with no address on this machine, starting from one given by the pid."""
    used = _addressed_subnets() | _routed_subnets()
    start = os.getpid() % 256
    for step in range(256):
        candidate = (start + step) % 256
        if candidate not in used:
            return candidate
    raise FleetLabError("no free 10.237.<n>.0/24 for test hosts: all 256 are in use")


@contextlib.contextmanager
def _lock() -> Iterator[None]:
    """Serialise sweeping and choosing subnets between test processes."""
    with LOCK_FILE.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# --- small helpers -----------------------------------------------------------------------------


def _ip(*args: str, check: bool = True) -> "subprocess.CompletedProcess[str]":
    done = subprocess.run(
        ["ip", *args], capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL
    )
    if check and done.returncode != 0:
        raise FleetLabError(f"ip {' '.join(args)} failed: {done.stderr.strip()}")
    return done


def _keygen(path: Path, comment: str) -> None:
    for stale in (path, Path(f"{path}.pub")):
        stale.unlink(missing_ok=True)
    argv = ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise FleetLabError(f"ssh-keygen failed for {path}: {done.stderr.strip()}")


def _stop(process: "subprocess.Popen[bytes]") -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL it when this test process dies (even by SIGKILL)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _quoted(path: Path) -> str:
    """A path for ssh_config/sshd_config: double-quoted, with ssh's % tokens escaped."""
    text = str(path).replace("%", "%%")
    if '"' in text:
        raise FleetLabError(f"test host files cannot live under a path with a quote: {path}")
    return f'"{text}"'


def _ini_group_value(value: str) -> str:
    """A value for an INI [group:vars] line: bare when plain, else a quoted Python literal
    (Ansible reads these lines' values with ast.literal_eval)."""
    if re.fullmatch(r"[A-Za-z_/.][A-Za-z0-9_/.,:@%+=-]*", value):
        return value
    return repr(value)


def _name(name: str) -> str:
    """A group, host or variable name as an inventory holds it unquoted."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", name):
        raise ValueError(f"not a plain inventory name: {name!r}")
    return name


def _yaml_value(value: str | int) -> str:
    """A YAML scalar: a number as it is, a string as a JSON string (always a YAML string)."""
    if isinstance(value, int):
        return str(value)
    return json.dumps(value)


def _close_all() -> None:
    for lab in list(_LABS.values()):
        with contextlib.suppress(Exception):
            lab.close()


atexit.register(_close_all)


# --- a node with another fio ---------------------------------------------------------------------

FAKE_FIO = '''#!/usr/bin/env python3
"""fio as a node with another fio version shows it: `--version` prints {version!r}; anything
else runs the real fio ({real}) with the same arguments. Made by ssdlab's fleet tests."""

import os
import sys

if sys.argv[1:] == ["--version"]:
    print({version!r})
    sys.exit(0)
os.execv({real!r}, [{real!r}, *sys.argv[1:]])
'''


def make_fake_fio(directory: Path, version: str = "fio-3.35", real: Path | None = None) -> Path:
    """Write an executable `fio` into `directory` that reports `version` and otherwise runs
    the real fio (`real`, default: fio on PATH now). Put `directory` first on the PATH of one
    node's ssdlab command, e.g. `env PATH=<directory>:/usr/sbin:/usr/bin:/sbin:/bin ssdlab`,
    to make that node's fio version differ from the others'."""
    if real is None:
        found = shutil.which("fio")
        if found is None:
            raise FleetLabError("no fio on PATH to wrap")
        real = Path(found).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "fio"
    if path.resolve() == real:
        raise FleetLabError(f"the fake fio would replace the real one at {real}")
    path.write_text(FAKE_FIO.format(version=version, real=str(real)), encoding="utf-8")
    path.chmod(0o755)
    return path
