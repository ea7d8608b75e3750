"""The device tier's guest as the tests talk to it: commands through the guest's agent
(tests/devices/guest_agent.py, JSON lines on a virtio-serial port), `ssdlab` calls through its
zygote, and QEMU's QMP monitor for what only the host can do to a drive.
"""

import json
import os
import socket
import subprocess
import sys
import threading
import time
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# the longest any single step may take before the tier gives up on the guest: a guard
# against a hung guest, not a measure of speed
BOOT_LIMIT_S = 1200.0


class GuestError(RuntimeError):
    """The guest could not be started or reached, or a call to it failed."""


@dataclass
class Result:
    argv: list[str]
    exit_code: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False

    def check(self) -> "Result":
        if self.exit_code != 0:
            raise AssertionError(
                f"{' '.join(self.argv)} exited {self.exit_code}\n"
                f"stdout:\n{self.stdout}\nstderr:\n{self.stderr}"
            )
        return self


@dataclass
class Timing:
    what: str
    seconds: float


@dataclass
class Background:
    """A command running in the guest; `wait` gives its Result."""

    guest: "Guest"
    request_id: int
    argv: list[str]

    def wait(self, limit_s: float = BOOT_LIMIT_S) -> Result:
        return self.guest.answer(self.request_id, self.argv, limit_s)

    def signal(self, number: int) -> bool:
        reply = self.guest.request({"op": "signal", "target": self.request_id, "signal": number})
        return bool(reply.get("sent"))


@dataclass
class Guest:
    """A running guest: send it commands (`run`, `start`) and QMP commands (`qmp`)."""

    folder: Path
    process: "subprocess.Popen[bytes]"
    agent: socket.socket
    qmp_socket: socket.socket
    accel: str
    boot_seconds: float = 0.0
    timings: list[Timing] = field(default_factory=list)
    _next_id: int = 1
    _replies: dict[int, dict[str, Any]] = field(default_factory=dict)
    _cond: threading.Condition = field(default_factory=threading.Condition)
    _qmp_lock: threading.Lock = field(default_factory=threading.Lock)
    _qmp_file: Any = None

    # -- the agent
    def _reader(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = self.agent.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                with self._cond:
                    self._replies[-1] = {"error": "the guest's agent closed its channel"}
                    self._cond.notify_all()
                return
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                message = json.loads(line)
                with self._cond:
                    self._replies[int(message.get("id") or 0)] = message
                    self._cond.notify_all()

    def _wait_reply(self, request_id: int, limit_s: float) -> dict[str, Any]:
        deadline = time.monotonic() + limit_s
        with self._cond:
            while request_id not in self._replies:
                if -1 in self._replies:
                    raise GuestError(f"{self._replies[-1]['error']}; {self.console_tail()}")
                if self.process.poll() is not None:
                    raise GuestError(f"QEMU exited ({self.process.returncode})")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise GuestError(f"no answer from the guest in {limit_s:.0f} s")
                self._cond.wait(min(left, 1.0))
            return self._replies.pop(request_id)

    def _send(self, message: dict[str, Any]) -> int:
        with self._cond:
            request_id = self._next_id
            self._next_id += 1
        self.agent.sendall((json.dumps({**message, "id": request_id}) + "\n").encode())
        return request_id

    def request(self, message: dict[str, Any], limit_s: float = 60.0) -> dict[str, Any]:
        reply = self._wait_reply(self._send(message), limit_s)
        if "error" in reply:
            raise GuestError(reply["error"])
        return reply

    def start(
        self,
        argv: list[str],
        env: dict[str, str] | None = None,
        timeout_s: float = 900.0,
        stdin_text: str | None = None,
    ) -> Background:
        message = {
            "op": "run",
            "argv": argv,
            "env": env or {},
            "timeout_s": timeout_s,
            "stdin": stdin_text,
        }
        return Background(self, self._send(message), argv)

    def answer(self, request_id: int, argv: list[str], limit_s: float) -> Result:
        reply = self._wait_reply(request_id, limit_s)
        if "error" in reply:
            raise GuestError(reply["error"])
        result = Result(
            argv,
            reply["exit_code"],
            reply["stdout"],
            reply["stderr"],
            reply["seconds"],
            reply.get("timed_out", False),
        )
        self.timings.append(Timing(" ".join(argv[:6]), result.seconds))
        return result

    def run(
        self,
        argv: list[str],
        env: dict[str, str] | None = None,
        timeout_s: float = 900.0,
        stdin_text: str | None = None,
    ) -> Result:
        return self.start(argv, env, timeout_s, stdin_text).wait(timeout_s + 60)

    def python_argv(self, *args: str) -> list[str]:
        """`python -m ssdlab ARGS` as a process of its own (the interpreter started anew)."""
        return [sys.executable, "-m", "ssdlab", *args]

    def start_zygote(self) -> dict[str, Any]:
        """Start the guest's zygote, which imports ssdlab once for every later `ssdlab` call."""
        started = time.monotonic()
        reply = self.request({"op": "zygote", "env": ssdlab_env()}, limit_s=BOOT_LIMIT_S)
        self.timings.append(Timing("zygote: import ssdlab", time.monotonic() - started))
        return reply

    def start_ssdlab(self, *args: str, timeout_s: float = 900.0) -> Background:
        """`python -m ssdlab ARGS` in the guest, forked from the zygote, in the background."""
        message = {"op": "ssdlab", "args": list(args), "env": ssdlab_env(), "timeout_s": timeout_s}
        return Background(self, self._send(message), ["ssdlab", *args])

    def ssdlab(self, *args: str, timeout_s: float = 900.0) -> Result:
        return self.start_ssdlab(*args, timeout_s=timeout_s).wait(timeout_s + 60)

    # -- QMP
    def qmp(self, command: str, **arguments: Any) -> Any:
        with self._qmp_lock:
            message: dict[str, Any] = {"execute": command}
            if arguments:
                message["arguments"] = arguments
            self.qmp_socket.sendall((json.dumps(message) + "\n").encode())
            while True:
                reply = json.loads(self._qmp_file.readline())
                if "event" in reply:
                    continue
                if "error" in reply:
                    raise GuestError(f"QMP {command}: {reply['error']}")
                return reply.get("return")

    def console_tail(self, lines: int = 30) -> str:
        try:
            text = (self.folder / "console.log").read_text(errors="replace")
        except OSError:
            return "(no console log)"
        return "guest console:\n" + "\n".join(text.splitlines()[-lines:])

    def cpu_seconds(self) -> float | None:
        """QEMU's CPU time so far (user + system, all its threads): what the guest cost the
        host, whatever else shared the cores."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        cpu = self.cpu_seconds()
        if cpu is not None:
            self.timings.append(Timing("QEMU's CPU time (user + system, all vCPUs)", cpu))
        if self.process.poll() is None:
            with suppress(GuestError, OSError, ValueError):
                self.qmp("quit")
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._qmp_file is not None:
            self._qmp_file.close()
        self.agent.close()
        self.qmp_socket.close()


def ssdlab_env() -> dict[str, str]:
    return {"PYTHONPATH": str(ROOT / "src"), "COLUMNS": "200"}
