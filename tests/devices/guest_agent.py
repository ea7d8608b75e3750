"""The device tier's agent: the guest's first process after its init (tests/devices/guest_init.py).

It speaks JSON lines on the virtio-serial port named ``ssdlab.agent``. Every request runs in a
thread of its own, so a command can run in the background (fio writing) while others run:

- ``{"id": N, "op": "run", "argv": [...], "env": {...}, "timeout_s": T}`` runs argv (no shell)
  and answers ``{"id": N, "exit_code": C, "stdout": ..., "stderr": ..., "seconds": S}``
  (exit_code null and "timed_out": true when it ran past T and was killed);
- ``{"id": N, "op": "signal", "target": M, "signal": 2}`` signals the process of request M
  and answers ``{"id": N, "sent": true|false}``;
- ``{"id": N, "op": "zygote", "env": {...}}`` starts the zygote: a Python process (this file
  with --zygote) that imports ssdlab once; then ``{"op": "ssdlab", "args": [...], ...}`` is
  answered like "run" for ``python -m ssdlab ARGS``, run in a child the zygote forks. The child
  runs the module as ``python -m`` does (runpy, its own argv, environment, standard streams and
  exit code); only the interpreter's start and ssdlab's imports are not repeated, which cost
  tens of seconds a call in an emulated guest reading Python over 9p.

It answers ``{"id": 0, "ready": true, ...}`` once, when it starts. It is PID 1 of the guest,
so it never exits: an error in a request is answered, not raised.
"""

import atexit
import gc
import importlib
import json
import os
import pkgutil
import runpy
import select
import signal
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

PORT_NAME = "ssdlab.agent"
BASE_ENV = {
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME": "/tmp",
    "XDG_DATA_HOME": "/tmp/xdg-data",
    "XDG_CACHE_HOME": "/tmp/xdg-cache",
    "LANG": "C.UTF-8",
    "TERM": "dumb",
}


def find_port() -> Path:
    for entry in Path("/sys/class/virtio-ports").iterdir():
        if (entry / "name").read_text().strip() == PORT_NAME:
            return Path("/dev") / entry.name
    raise RuntimeError(f"no virtio-serial port named {PORT_NAME}")


class Agent:
    def __init__(self, port: Path) -> None:
        self.fd = os.open(port, os.O_RDWR)  # a port opens once: one descriptor both ways
        self.lock = threading.Lock()
        self.processes: dict[int, subprocess.Popen[bytes] | int] = {}
        self.zygote: Zygote | None = None

    def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message) + "\n").encode()
        with self.lock:
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view) :]

    def serve(self) -> None:
        self.send({"id": 0, "ready": True, "pid": os.getpid(), "uname": os.uname().release})
        buffer = b""
        while True:
            chunk = os.read(self.fd, 65536)
            if not chunk:
                time.sleep(0.05)  # the host is not connected: wait for it
                continue
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if line.strip():
                    threading.Thread(target=self.handle, args=(line,), daemon=True).start()

    def handle(self, line: bytes) -> None:
        request: dict[str, Any] = {}
        try:
            request = json.loads(line)
            if request["op"] == "run":
                self.send(self.run(request))
            elif request["op"] == "signal":
                self.send(self.signal(request))
            elif request["op"] == "zygote":
                self.zygote = Zygote(request.get("env", {}))
                self.send({"id": request["id"], "started": True, **self.zygote.wait_ready()})
            elif request["op"] == "ssdlab":
                self.send(self.run_ssdlab(request))
            else:
                self.send({"id": request.get("id"), "error": f"unknown op {request['op']}"})
        except Exception:  # an answer, never the end of PID 1
            self.send({"id": request.get("id"), "error": traceback.format_exc()})

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        env = {**BASE_ENV, **request.get("env", {})}
        started = time.monotonic()
        process = subprocess.Popen(
            request["argv"],
            env=env,
            cwd=request.get("cwd", "/tmp"),
            stdin=subprocess.DEVNULL if request.get("stdin") is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.processes[request["id"]] = process
        timed_out = False
        stdin = None if request.get("stdin") is None else request["stdin"].encode()
        try:
            stdout, stderr = process.communicate(stdin, timeout=request.get("timeout_s"))
        except subprocess.TimeoutExpired:
            timed_out = True
            process.kill()
            stdout, stderr = process.communicate()
        finally:
            self.processes.pop(request["id"], None)
        return {
            "id": request["id"],
            "exit_code": None if timed_out else process.returncode,
            "timed_out": timed_out,
            "stdout": stdout.decode("utf-8", "replace"),
            "stderr": stderr.decode("utf-8", "replace"),
            "seconds": time.monotonic() - started,
        }

    def run_ssdlab(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.zygote is None:
            raise RuntimeError("no zygote: send the zygote op first")
        started = time.monotonic()
        tag = request["id"]
        out, err = f"/tmp/.agent-{tag}.out", f"/tmp/.agent-{tag}.err"
        pid = self.zygote.fork(
            tag, request["args"], {**BASE_ENV, **request.get("env", {})}, out, err
        )
        self.processes[tag] = pid
        try:
            exit_code, timed_out = self.zygote.wait_exit(pid, request.get("timeout_s"))
        finally:
            self.processes.pop(tag, None)
        texts = []
        for path in (out, err):
            texts.append(Path(path).read_bytes().decode("utf-8", "replace"))
            os.unlink(path)
        return {
            "id": tag,
            "exit_code": exit_code,
            "timed_out": timed_out,
            "stdout": texts[0],
            "stderr": texts[1],
            "seconds": time.monotonic() - started,
        }

    def signal(self, request: dict[str, Any]) -> dict[str, Any]:
        process = self.processes.get(request["target"])
        if isinstance(process, int):
            try:
                os.kill(process, signal.Signals(request["signal"]))
            except ProcessLookupError:
                return {"id": request["id"], "sent": False}
            return {"id": request["id"], "sent": True}
        if process is None or process.poll() is not None:
            return {"id": request["id"], "sent": False}
        process.send_signal(signal.Signals(request["signal"]))
        return {"id": request["id"], "sent": True}


class Zygote:
    """The agent's side of the zygote: fork requests out, pids and exit codes back."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--zygote"],
            env={**BASE_ENV, **env},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd="/tmp",
        )
        self.lock = threading.Lock()
        self.cond = threading.Condition()
        self.pids: dict[int, int] = {}  # request tag -> pid
        self.exits: dict[int, int] = {}  # pid -> exit code
        self.ready: dict[str, Any] | None = None
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            message = json.loads(line)
            with self.cond:
                if "ready" in message:
                    self.ready = message
                elif "exit_code" in message:
                    self.exits[message["pid"]] = message["exit_code"]
                else:
                    self.pids[message["tag"]] = message["pid"]
                self.cond.notify_all()

    def wait_ready(self) -> dict[str, Any]:
        with self.cond:
            while self.ready is None:
                if self.process.poll() is not None:
                    raise RuntimeError(f"the zygote exited ({self.process.returncode})")
                self.cond.wait(1.0)
            return self.ready

    def fork(self, tag: int, args: list[str], env: dict[str, str], out: str, err: str) -> int:
        line = json.dumps({"tag": tag, "args": args, "env": env, "stdout": out, "stderr": err})
        assert self.process.stdin is not None
        with self.lock:
            self.process.stdin.write(line.encode() + b"\n")
            self.process.stdin.flush()
        with self.cond:
            while tag not in self.pids:
                self.cond.wait(1.0)
            return self.pids.pop(tag)

    def wait_exit(self, pid: int, timeout_s: float | None) -> tuple[int | None, bool]:
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        with self.cond:
            while pid not in self.exits:
                if deadline is not None and time.monotonic() > deadline:
                    os.kill(pid, signal.SIGKILL)
                    while pid not in self.exits:
                        self.cond.wait(1.0)
                    self.exits.pop(pid)
                    return None, True
                self.cond.wait(1.0)
            return self.exits.pop(pid), False


def zygote_main() -> None:
    """Import ssdlab, then fork a child for every request: each runs ``python -m ssdlab``."""
    requests = os.fdopen(os.dup(0), "rb", buffering=0)
    answers = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    started = time.monotonic()
    loaded, failed = preload()
    gc.freeze()
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)

    def say(message: dict[str, Any]) -> None:
        os.write(answers, (json.dumps(message) + "\n").encode())

    say(
        {
            "ready": True,
            "preload_s": time.monotonic() - started,
            "modules": loaded,
            "failed": failed,
        }
    )
    buffer = b""
    while True:
        readable, _, _ = select.select([requests, wake_read], [], [])
        if wake_read in readable:
            os.read(wake_read, 4096)
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            say({"pid": pid, "exit_code": os.waitstatus_to_exitcode(status)})
        if requests in readable:
            chunk = requests.read(65536)
            if not chunk:
                return
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                request = json.loads(line)
                pid = os.fork()
                if pid == 0:
                    os.close(answers)
                    os.close(wake_read)
                    os.close(wake_write)
                    run_child(request)
                say({"tag": request["tag"], "pid": pid})


def preload() -> tuple[int, list[str]]:
    """Import every ssdlab module (and what they import) that imports cleanly."""
    import ssdlab

    failed = []
    count = 0
    for module in pkgutil.walk_packages(ssdlab.__path__, "ssdlab."):
        if module.name == "ssdlab.__main__":
            continue
        try:
            importlib.import_module(module.name)
            count += 1
        except Exception as error:  # an optional dependency: the child imports it if needed
            failed.append(f"{module.name}: {error}")
    return count, failed


def run_child(request: dict[str, Any]) -> None:
    """In the forked child: become ``python -m ssdlab ARGS`` and exit with its code."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd, path in ((1, request["stdout"]), (2, request["stderr"])):
            target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(target, fd)
            os.close(target)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["env"].get("HOME", "/tmp"))
        sys.argv = ["ssdlab", *request["args"]]
        try:
            runpy.run_module("ssdlab", run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exit_:
            if exit_.code is None:
                code = 0
            elif isinstance(exit_.code, int):
                code = exit_.code
            else:
                print(exit_.code, file=sys.stderr)
                code = 1
        except BaseException:
            traceback.print_exc()
            code = 1
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def main() -> None:
    os.makedirs(BASE_ENV["XDG_DATA_HOME"], exist_ok=True)
    while True:  # PID 1: never return
        try:
            Agent(find_port()).serve()
        except Exception:
            traceback.print_exc(file=sys.stderr)
            time.sleep(1)


if __name__ == "__main__":
    if sys.argv[1:] == ["--zygote"]:
        zygote_main()
    else:
        main()
