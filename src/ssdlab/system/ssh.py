"""The fleet's transport: the user's own OpenSSH client, run without a shell on this side.

Everything the user set up for ssh holds (~/.ssh/config, the agent, ProxyJump, known_hosts);
the inventory's `ansible_ssh_common_args` come first, so they win over ssdlab's defaults (ssh
keeps the first value it is given for an option). Connections to one host are multiplexed
through a control socket in a private folder, so the many short commands of a fleet command
cost one login per host. Commands run on many hosts at once, at most `parallel` at a time;
one that fails or hangs (cut off by its time limit) is reported and never holds up the others.
"""

import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar

from ssdlab.errors import FleetError
from ssdlab.model.fleet import FleetHost, RemoteResult

T = TypeVar("T")
SSH_HINT = "install OpenSSH's client (apt-get install openssh-client)"


@dataclass(frozen=True, slots=True)
class SshSettings:
    connect_timeout_s: int = 10
    alive_interval_s: int = 5  # a silent connection is probed this often…
    alive_count: int = 3  # …and given up after this many unanswered probes
    parallel: int = 16  # hosts worked on at once
    control_dir: Path | None = None  # None: no multiplexing


def remote_command(words: Sequence[str]) -> str:
    """The command line the remote login shell runs: every word quoted, except a leading `~/`,
    which stays bare so that the remote shell expands it to the remote home."""
    parts = []
    for word in words:
        if word.startswith("~/"):
            parts.append("~/" + shlex.quote(word[2:]) if word[2:] else "~/")
        else:
            parts.append(shlex.quote(word))
    return " ".join(parts)


def ssh_argv(
    host: FleetHost,
    remote: Sequence[str],
    settings: SshSettings,
    forwards: Sequence[tuple[str, str]] = (),
) -> list[str]:
    """The ssh command line that runs `remote` (words) on `host`. `forwards` are pairs (local
    unix socket, remote unix socket) forwarded for the life of the command."""
    argv = ["ssh", *host.ssh_args]
    argv += ["-o", "BatchMode=yes", "-o", f"ConnectTimeout={settings.connect_timeout_s}"]
    argv += ["-o", f"ServerAliveInterval={settings.alive_interval_s}"]
    argv += ["-o", f"ServerAliveCountMax={settings.alive_count}"]
    if settings.control_dir is not None:
        argv += ["-o", "ControlMaster=auto", "-o", "ControlPersist=60"]
        argv += ["-o", f"ControlPath={settings.control_dir}/%C"]
    if host.port is not None:
        argv += ["-p", str(host.port)]
    if host.user is not None:
        argv += ["-l", host.user]
    if host.key_file is not None:
        argv += ["-i", host.key_file]
    for local, far in forwards:
        argv += ["-o", "ExitOnForwardFailure=yes", "-o", "StreamLocalBindUnlink=yes"]
        argv += ["-L", f"{local}:{far}"]
    return [*argv, "--", host.address, remote_command(remote)]


@contextmanager
def multiplexed(settings: SshSettings) -> Iterator[SshSettings]:
    """`settings` with a private folder for control sockets, closed (masters told to exit)
    and removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="ssdlab-ssh-"))
    try:
        yield SshSettings(
            settings.connect_timeout_s,
            settings.alive_interval_s,
            settings.alive_count,
            settings.parallel,
            folder,
        )
    finally:
        close_masters(folder)
        shutil.rmtree(folder, ignore_errors=True)


def close_masters(folder: Path) -> None:
    """Tell the ssh master connections whose control sockets are in `folder` to exit."""
    for socket_path in folder.iterdir():
        if socket_path.is_socket():
            subprocess.run(
                ["ssh", "-o", f"ControlPath={socket_path}", "-O", "exit", "ssdlab-fleet-node"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=10,
                check=False,
            )


def run_remote(
    host: FleetHost,
    remote: Sequence[str],
    settings: SshSettings,
    *,
    timeout_s: float,
    input_bytes: bytes | None = None,
) -> RemoteResult:
    """Run `remote` on `host` to the end or the time limit; never raises for a host that
    fails."""
    argv = ssh_argv(host, remote, settings)
    started = time.time()
    stdin = subprocess.PIPE if input_bytes is not None else subprocess.DEVNULL
    child = spawn_ssh(argv, stdin, subprocess.PIPE)
    try:
        out, err = child.communicate(input_bytes, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _end(child)
        out, err = child.communicate()
        return RemoteResult(
            host.name,
            tuple(remote),
            None,
            out or b"",
            err.decode("utf-8", "replace"),
            started,
            time.time(),
            error=f"no answer within {timeout_s:g} s (the host or its network hangs)",
        )
    return RemoteResult(
        host.name,
        tuple(remote),
        child.returncode,
        out or b"",
        err.decode("utf-8", "replace"),
        started,
        time.time(),
    )


def spawn_ssh(
    argv: Sequence[str], stdin: int | IO[bytes], stdout: int | IO[bytes]
) -> "subprocess.Popen[bytes]":
    """Start one ssh in a session of its own (a Ctrl-C here reaches ssdlab, which ends its ssh
    processes itself), stderr piped; a missing ssh is a one-line error."""
    try:
        return subprocess.Popen(
            list(argv),
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as error:
        raise FleetError(f"cannot start ssh ({error.strerror}); {SSH_HINT}") from error


def _end(child: "subprocess.Popen[bytes]") -> None:
    try:
        os.killpg(child.pid, signal.SIGTERM)
        child.wait(timeout=5)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        child.kill()


def on_every_host(
    hosts: Iterable[FleetHost],
    work: Callable[[FleetHost], T],
    parallel: int,
) -> dict[str, T]:
    """`work(host)` for every host, at most `parallel` at once; results by host name, in the
    hosts' order. `work` reports a host's failure in its result and does not raise."""
    ordered = list(hosts)
    with ThreadPoolExecutor(max_workers=max(1, min(parallel, len(ordered) or 1))) as pool:
        futures = {host.name: pool.submit(work, host) for host in ordered}
        return {name: future.result() for name, future in futures.items()}


class RemoteStream:
    """A long command on one host whose output is read line by line while it runs (progress);
    `lines` yields them until the command ends or the connection drops."""

    def __init__(
        self,
        host: FleetHost,
        remote: Sequence[str],
        settings: SshSettings,
        forwards: Sequence[tuple[str, str]] = (),
    ) -> None:
        self.host = host
        self.argv = ssh_argv(host, remote, settings, forwards)
        self._lock = threading.Lock()
        self.child = spawn_ssh(self.argv, subprocess.DEVNULL, subprocess.PIPE)
        self._stderr: list[str] = []
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()

    def _read_stderr(self) -> None:
        assert self.child.stderr is not None
        for raw in self.child.stderr:
            with self._lock:
                self._stderr.append(raw.decode("utf-8", "replace"))

    def lines(self) -> Iterator[str]:
        assert self.child.stdout is not None
        for raw in self.child.stdout:
            yield raw.decode("utf-8", "replace").rstrip("\n")

    def finish(self) -> tuple[int, str]:
        """Wait for the command; its exit code (255: ssh itself failed) and its stderr."""
        code = self.child.wait()
        self._reader.join(timeout=5)
        with self._lock:
            return code, "".join(self._stderr)

    def stop(self) -> None:
        if self.child.poll() is None:
            _end(self.child)
