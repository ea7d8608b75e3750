"""fio's server for one `ssdlab fleet load`, on a unix socket only, and the SSH tunnel to it.

On the node (`ssdlab node fio-server --socket PATH`): the socket's folder is created new with
mode 0700 (a folder already there is refused: nothing planted in it beforehand, no link, is
used), `fio --server=sock:PATH` starts in it as a child (its working directory, so anything
fio writes stays there), and once the socket exists one JSON line says so. Then it waits until
its stdin ends or its stdout's reader is gone (the SSH connection ended) or a signal comes,
stops fio and its job processes and removes the folder.

On the central machine: `ServerTunnel` runs that command over ssh with the node's socket
forwarded to a local one, stdin kept open so that closing it ends the server.
"""

import contextlib
import errno
import json
import os
import queue
import select
import shutil
import signal
import stat
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ssdlab.errors import FleetError, ToolError, UsageError
from ssdlab.model.fleet import FleetHost
from ssdlab.system.guard import PARENT_GONE, guarded
from ssdlab.system.process_tree import end_with_parent, kill_tree
from ssdlab.system.signals import SignalGuard
from ssdlab.system.ssh import SshSettings, spawn_ssh, ssh_argv

SERVER_LOG = "fio-server.log"
READY_TIMEOUT_S = 15.0
_POLL_MS = 500


@dataclass(frozen=True, slots=True)
class ServerEnd:
    """Why the server stopped: 'stdin closed', 'connection gone', 'SIGTERM', 'fio exited'."""

    reason: str
    fio_exit: int | None


def make_socket_folder(socket_path: str) -> Path:
    """The socket's folder, created new (mode 0700); UsageError when anything is there."""
    folder = Path(socket_path).parent
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        raise UsageError(
            f"{folder} exists already; the fio server's socket must be in a new folder that "
            "ssdlab creates (give another --socket, or remove it if it is a leftover)"
        ) from None
    except OSError as error:
        raise UsageError(
            f"cannot create {folder} ({error.strerror}); give another --socket"
        ) from error
    os.chmod(folder, 0o700)
    return folder


def _remove_folder(folder: Path, inode: int) -> None:
    """Remove the folder made for the socket, only while the path is still that folder."""
    with contextlib.suppress(OSError):
        status = folder.lstat()
        if stat.S_ISDIR(status.st_mode) and status.st_ino == inode:
            shutil.rmtree(folder, ignore_errors=True)


def _stop_fio(child: "subprocess.Popen[bytes]") -> int | None:
    """SIGTERM to fio's process group (fio stops the job processes it forked); after 5 s,
    SIGKILL to it and every process below it (job processes are in sessions of their own)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGTERM)
    try:
        return child.wait(timeout=5)
    except subprocess.TimeoutExpired:
        kill_tree(child.pid)
    try:
        return child.wait(timeout=5)
    except subprocess.TimeoutExpired:
        return child.poll()


def _log_tail(folder: Path) -> str:
    try:
        lines = (folder / SERVER_LOG).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "no output"
    return " / ".join(line.strip() for line in lines[-3:] if line.strip()) or "no output"


def _wait_for_socket(socket_path: str, child: "subprocess.Popen[bytes]", folder: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if stat.S_ISSOCK(os.lstat(socket_path).st_mode):
                return
        if child.poll() is not None:
            raise ToolError(
                f"fio --server ended at once (exit {child.returncode}): {_log_tail(folder)}"
            )
        time.sleep(0.05)
    raise ToolError(f"fio --server made no socket at {socket_path} in {READY_TIMEOUT_S:g} s")


def _ended(stdin_fd: int, stdout_fd: int, poller: "select.poll") -> str | None:
    for fd, events in poller.poll(_POLL_MS):
        if fd == stdout_fd and events & (select.POLLERR | select.POLLHUP):
            return "connection gone"
        if fd == stdin_fd and events & (select.POLLIN | select.POLLHUP | select.POLLERR):
            try:
                data = os.read(stdin_fd, 4096)
            except OSError:
                return "stdin closed"
            if not data:
                return "stdin closed"
    return None


def _wait_for_end(child: "subprocess.Popen[bytes]", stdin_fd: int, stdout_fd: int) -> str:
    signalled: list[str] = []
    poller = select.poll()
    poller.register(stdin_fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    poller.register(stdout_fd, select.POLLERR | select.POLLHUP)
    guard = SignalGuard(on_first=lambda: signalled.append("signal"), on_second=lambda: None)
    with guard:
        while True:
            if signalled:
                return guard.first_signal or "signal"
            if child.poll() is not None:
                return "fio exited"
            reason = _ended(stdin_fd, stdout_fd, poller)
            if reason is not None:
                return reason


def serve(
    socket_path: str,
    fio_path: str,
    on_ready: Callable[[Path], None],
    stdin_fd: int = 0,
    stdout_fd: int = 1,
) -> ServerEnd:
    """Run `fio --server=sock:socket_path` until the caller's connection ends (see the
    module); `on_ready` is called once the socket exists. The folder goes in every case."""
    folder = make_socket_folder(socket_path)
    inode = folder.lstat().st_ino
    child: subprocess.Popen[bytes] | None = None
    try:
        with open(folder / SERVER_LOG, "wb") as log:
            if shutil.which(fio_path) is None:
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), fio_path)
            child = subprocess.Popen(
                guarded([fio_path, f"--server=sock:{socket_path}"]),
                cwd=folder,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                # a killed node command leaves no fio serving, nor its job processes
                preexec_fn=end_with_parent(PARENT_GONE),
            )
        _wait_for_socket(socket_path, child, folder)
        on_ready(folder)
        reason = _wait_for_end(child, stdin_fd, stdout_fd)
        return ServerEnd(reason, _stop_fio(child))
    except OSError as error:
        raise ToolError(f"cannot start {fio_path} --server ({error.strerror})") from error
    finally:
        if child is not None and child.poll() is None:
            _stop_fio(child)
        _remove_folder(folder, inode)


class ServerTunnel:
    """`ssdlab node fio-server` on one host over ssh, the node's socket forwarded to `local`.
    Its stdin stays open: `close()` ends it, and the node then stops fio and cleans up."""

    def __init__(
        self,
        host: FleetHost,
        remote: Sequence[str],
        settings: SshSettings,
        local: str,
        remote_socket: str,
    ) -> None:
        self.host = host
        self.local = local
        self.argv = ssh_argv(host, remote, settings, forwards=[(local, remote_socket)])
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: list[str] = []
        self.child = spawn_ssh(self.argv, subprocess.PIPE, subprocess.PIPE)
        assert self.child.stdout is not None
        assert self.child.stderr is not None
        self._readers = [
            threading.Thread(target=self._read_lines, args=(self.child.stdout,), daemon=True),
            threading.Thread(target=self._read_stderr, args=(self.child.stderr,), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _read_lines(self, stream: IO[bytes]) -> None:
        for raw in stream:
            self._lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self._lines.put(None)

    def _read_stderr(self, stream: IO[bytes]) -> None:
        for raw in stream:
            self._stderr.append(raw.decode("utf-8", "replace"))

    def stderr(self) -> str:
        return "".join(self._stderr)

    def ready(self, timeout_s: float) -> dict[str, object]:
        """The node's JSON line once its socket exists and ours is forwarded to it;
        FleetError with the node's or ssh's last words when it ends or stays silent."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise FleetError(f"no fio server within {timeout_s:g} s") from None
            if line is None:
                self.child.wait()
                self._readers[1].join(timeout=5)  # all of ssh's stderr, for its last words
                raise FleetError(f"the fio server did not start: {self._last_words()}")
            with contextlib.suppress(ValueError):
                value = json.loads(line)
                if isinstance(value, dict) and "socket" in value:
                    self._wait_for_local(deadline)
                    return value

    def _wait_for_local(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                if stat.S_ISSOCK(os.lstat(self.local).st_mode):
                    return
            time.sleep(0.05)
        raise FleetError(f"ssh made no forwarded socket at {self.local}")

    def _last_words(self) -> str:
        lines = [line.strip() for line in self.stderr().splitlines() if line.strip()]
        said = lines[-1] if lines else "no message"
        code = self.child.returncode
        return f"ssh failed: {said}" if code == 255 else f"exit {code}: {said}"

    def hang_up(self) -> None:
        """Close the server's stdin: the node stops fio and removes its folder."""
        with contextlib.suppress(OSError):
            if self.child.stdin is not None:
                self.child.stdin.close()

    def close(self, timeout_s: float = 20.0) -> int | None:
        """End the server (`hang_up`), then wait for ssh; after `timeout_s` it is ended. Its
        exit code."""
        self.hang_up()
        try:
            self.child.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.child.pid, signal.SIGTERM)
            try:
                self.child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.child.kill()
                self.child.wait()
        for reader in self._readers:
            reader.join(timeout=5)
        for stream in (self.child.stdout, self.child.stderr):
            if stream is not None:
                stream.close()
        return self.child.returncode
