"""ssdlab runs that outlive the SSH connection that started them: what `ssdlab node` does on a
lab node for `ssdlab fleet` on the central machine.

A job is a folder in the jobs folder, named by its id (UTC time, then random: sortable and
unique). `start_jobs` writes `argv.json` there for each command line it is given and starts a
supervisor each (`ssdlab node supervise DIR`), all at once, each in a session of its own, stdin
/dev/null and its output in `supervisor.log`: a closed SSH channel or a hangup of the caller
never reaches it. The supervisor starts `python -m ssdlab ARGV…` (the same installation) with
its stdout and stderr in `stdout` and `stderr`, records `job.json` (argv, both pids, start
time, host, boot id), waits, and records `exit.json` (exit
code, end time). Every JSON file is written to a temporary name and renamed, so a reader sees
all of it or none. `follow_jobs` reads the two outputs of several jobs from given byte offsets
as they grow, each record naming its job, so a central machine follows every run of a node
through one connection and, after losing it, reads on without repeats.
"""

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ssdlab.errors import SsdlabError, TargetError, UsageError
from ssdlab.model.next_command import CommandContext, next_command
from ssdlab.system.block import read_device_identity, resolve_block_device
from ssdlab.system.devicetarget import is_block_device_path
from ssdlab.system.environment import process_start_ticks, read_boot_id, tool_version
from ssdlab.system.filetarget import probe_direct_io
from ssdlab.system.write_gate import check_output_folder

ARGV_FILE = "argv.json"
JOB_FILE = "job.json"
EXIT_FILE = "exit.json"
STREAMS = ("stderr", "stdout")
POLL_S = 0.2
START_WAIT_S = 30.0  # how long `start_jobs` waits for the supervisors to record the job
CHUNK_BYTES = 1 << 16  # a line longer than this is sent in pieces
JSONDict = dict[str, Any]


@dataclass(frozen=True, slots=True)
class JobStart:
    job: str
    dir: str
    pid: int  # the supervisor's


def new_job_id(now: float | None = None) -> str:
    """'20261126T120000.123Z-1a2b3c4d': UTC time to the millisecond, then random."""
    at = time.time() if now is None else now
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(at))
    return f"{stamp}.{int(at % 1 * 1000):03d}Z-{secrets.token_hex(4)}"


def job_dir(jobs_dir: Path, job: str) -> Path:
    """The folder of job `job`, refusing a name that would lead out of the jobs folder."""
    listing = next_command(CommandContext(), ("node", "jobs", "--jobs-dir", str(jobs_dir)))
    if not job or job.startswith(".") or "/" in job or "\0" in job:
        raise UsageError(f"{job!r} is not a job id; {listing} lists them")
    folder = jobs_dir / job
    if not (folder / ARGV_FILE).is_file():
        raise UsageError(f"there is no job {job} in {jobs_dir}; {listing} lists them")
    return folder


def write_json_atomic(path: Path, data: JSONDict | list[str]) -> None:
    """Written to a new temporary name beside `path`, flushed, then renamed over it."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temporary, flags, 0o644)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(data) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def read_json(path: Path) -> Any:
    """A JSON file, or None when it is not there (or not whole: never, with atomic writes)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _new_file(path: Path) -> int:
    """A descriptor of a file made new here (never a device, a link or someone's file)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_APPEND
    return os.open(path, flags, 0o644)


def _jobs_folder(jobs_dir: Path) -> Path:
    """The jobs folder, made when missing (not on the kernel's own filesystems)."""
    folder = check_output_folder(str(jobs_dir), "--jobs-dir")
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o755)
    except OSError as error:
        raise TargetError(f"cannot make the jobs folder {folder}: {error.strerror}") from error
    return folder


def _make_job_dir(folder: Path) -> Path:
    try:
        path = folder / new_job_id()
        path.mkdir(mode=0o755)
    except OSError as error:
        raise TargetError(f"cannot make a job folder in {folder}: {error.strerror}") from error
    return path


def _launch(folder: Path, argv: list[str]) -> tuple[Path, "subprocess.Popen[bytes]"]:
    """A new job folder for `argv` and its supervisor, started in a session of its own."""
    path = _make_job_dir(folder)
    write_json_atomic(path / ARGV_FILE, argv)
    log = _new_file(path / "supervisor.log")
    try:
        supervisor = subprocess.Popen(
            [sys.executable, "-m", "ssdlab", "node", "supervise", str(path)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
    except OSError as error:
        raise SsdlabError(f"cannot start the job's supervisor: {error.strerror}") from error
    finally:
        os.close(log)
    return path, supervisor


def _recorded(path: Path, supervisor: "subprocess.Popen[bytes]", deadline: float) -> JobStart:
    """The job once its supervisor has recorded it (so `follow` and `jobs` find it)."""
    while not (path / JOB_FILE).exists():
        if supervisor.poll() is not None or time.monotonic() > deadline:
            problem = (path / "supervisor.log").read_text(errors="replace").strip()
            raise SsdlabError(f"the job's supervisor did not start: {problem or 'no output'}")
        time.sleep(0.01)
    return JobStart(path.name, str(path), supervisor.pid)


def start_jobs(jobs_dir: Path, argvs: Sequence[list[str]]) -> list[JobStart | str]:
    """Start `ssdlab ARGV…` for every command line, each under a supervisor that no hangup of
    this process reaches, all at once; return once every supervisor has recorded its job. Per
    command line its job, or why it did not start (one failing never holds up the others)."""
    folder = _jobs_folder(jobs_dir)  # a jobs folder that cannot be used fails them all
    launched: list[tuple[Path, subprocess.Popen[bytes]] | str] = []
    for argv in argvs:
        try:
            launched.append(_launch(folder, argv))
        except SsdlabError as error:
            launched.append(str(error))
    deadline = time.monotonic() + START_WAIT_S
    started: list[JobStart | str] = []
    for each in launched:
        if isinstance(each, str):
            started.append(each)
            continue
        try:
            started.append(_recorded(*each, deadline))
        except SsdlabError as error:
            started.append(str(error))
    return started


def _exit_record(code: int) -> JSONDict:
    """What exit.json says: a shell-style code, and the signal when one ended the child."""
    if code >= 0:
        return {"exit": code, "ended_at_s": time.time()}
    name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
    return {"exit": 128 - code, "signal": name, "ended_at_s": time.time()}


def supervise(path: Path) -> int:
    """The supervisor: run the job's ssdlab, record it, wait, record its exit code. SIGTERM and
    SIGINT are passed on to the child (it stops cleanly and stores what it has); a hangup is
    ignored (there is no terminal to lose)."""
    argv = read_json(path / ARGV_FILE)
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        raise UsageError(f"{path / ARGV_FILE} holds no command line")
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    children: list[subprocess.Popen[bytes]] = []
    pending: list[int] = []  # a stop that came before the child was there

    def forward(signum: int, _frame: object) -> None:
        if children:
            children[0].send_signal(signum)
        else:
            pending.append(signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    out, err = _new_file(path / "stdout"), _new_file(path / "stderr")
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "ssdlab", *argv],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
        )
    finally:
        os.close(out)
        os.close(err)
    children.append(child)
    for signum in pending:
        child.send_signal(signum)
    write_json_atomic(
        path / JOB_FILE,
        {
            "argv": argv,
            "supervisor_pid": os.getpid(),
            "supervisor_start_ticks": process_start_ticks(os.getpid()),
            "child_pid": child.pid,
            "started_at_s": time.time(),
            "hostname": socket.gethostname(),
            "boot_id": read_boot_id(),
        },
    )
    code = child.wait()
    write_json_atomic(path / EXIT_FILE, _exit_record(code))
    return 0


def _running(pid: object, ticks: object = None) -> bool:
    """Whether process `pid` runs (a zombie has ended), and is the one that started at
    `ticks` when they are given (not a later process given the same pid)."""
    if not isinstance(pid, int):
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    if stat[stat.rindex(")") + 2 :].startswith("Z"):
        return False
    return ticks is None or process_start_ticks(pid) == ticks


def lost_reason(job: JSONDict) -> str | None:
    """Why a job without an exit record will never have one, or None while it may run."""
    boot_id = read_boot_id()
    if job.get("boot_id") and boot_id and job["boot_id"] != boot_id:
        return "the node restarted since the job started"
    pid = job.get("supervisor_pid")
    if not isinstance(pid, int):
        return "the job records no supervisor"
    if not _running(pid, job.get("supervisor_start_ticks")):
        child = job.get("child_pid")
        still = f"; its ssdlab (pid {child}) still runs" if _running(child) else ""
        return f"its supervisor (pid {pid}) ended without recording an exit code{still}"
    return None


def _lost(path: Path) -> str | None:
    job = read_json(path / JOB_FILE)
    if isinstance(job, dict):
        return lost_reason(job)
    if time.time() - path.stat().st_mtime < START_WAIT_S:
        return None  # the supervisor is starting
    return "its supervisor never started"


def job_state(path: Path) -> JSONDict:
    """One job as `ssdlab node jobs` lists it: running, exited (with its code) or lost."""
    argv = read_json(path / ARGV_FILE)
    job = read_json(path / JOB_FILE)
    ended = read_json(path / EXIT_FILE)
    state: JSONDict = {"job": path.name, "dir": str(path), "argv": argv}
    if isinstance(job, dict):
        state["started_at_s"] = job.get("started_at_s")
        state["pid"] = job.get("supervisor_pid")
    if isinstance(ended, dict):
        return {**state, "state": "exited", **ended}
    reason = _lost(path)
    if reason is not None and not (path / EXIT_FILE).exists():  # not ended just now
        return {**state, "state": "lost", "lost": reason}
    return {**state, "state": "running" if isinstance(job, dict) else "starting"}


def list_jobs(jobs_dir: Path) -> list[JSONDict]:
    if not jobs_dir.is_dir():
        return []
    folders = sorted(p for p in jobs_dir.iterdir() if (p / ARGV_FILE).is_file())
    return [job_state(folder) for folder in folders]


def _read_from(path: Path, offset: int, final: bool) -> tuple[str, int] | None:
    """Text in `path` from byte `offset`: whole lines (or a long piece) while the job runs,
    everything once it has ended; None when there is nothing new."""
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            data = handle.read(CHUNK_BYTES)
    except FileNotFoundError:
        return None
    if not final and len(data) < CHUNK_BYTES:
        data = data[: data.rfind(b"\n") + 1]
    text, used = decode_exactly(data, final)
    if used == 0:
        return None
    return text, offset + used


def decode_exactly(data: bytes, final: bool) -> tuple[str, int]:
    """UTF-8 text of `data` whose own UTF-8 is as long as the bytes it stands for (so that a
    reader counting bytes resumes at the right offset): a byte that is not UTF-8 reads as '?';
    a character cut at the end of `data` is left for the next read unless `final`."""
    parts: list[str] = []
    start = 0
    while start < len(data):
        try:
            parts.append(data[start:].decode("utf-8"))
            start = len(data)
        except UnicodeDecodeError as error:
            parts.append(data[start : start + error.start].decode("utf-8"))
            cut = start + error.start
            if error.reason == "unexpected end of data" and not final:
                return "".join(parts), cut
            parts.append("?" * (error.end - error.start))
            start += error.end
    return "".join(parts), len(data)


def _drain(path: Path, offsets: dict[str, int], final: bool) -> Iterator[JSONDict]:
    for stream in STREAMS:
        while (piece := _read_from(path / stream, offsets[stream], final)) is not None:
            text, end = piece
            yield {"job": path.name, "stream": stream, "offset": offsets[stream], "text": text}
            offsets[stream] = end


def _step(path: Path, offsets: dict[str, int]) -> tuple[list[JSONDict], bool]:
    """What job `path` wrote since `offsets`, and whether it has ended (its last record then
    says how: {"exit", "ended_at_s"}, or {"exit": None, "lost"})."""
    ended = read_json(path / EXIT_FILE)  # before reading: output after it is all there
    lost = None if ended is not None else _lost(path)
    records = list(_drain(path, offsets, final=ended is not None or lost is not None))
    if isinstance(ended, dict):
        keys = ("exit", "ended_at_s", "signal")
        return [*records, {"job": path.name, **{k: ended[k] for k in keys if k in ended}}], True
    if lost is not None and not (path / EXIT_FILE).exists():
        return [*records, {"job": path.name, "exit": None, "lost": lost}], True
    return records, False


def follow_jobs(
    jobs: dict[Path, dict[str, int]], sleep: Callable[[float], None] = time.sleep
) -> Iterator[JSONDict]:
    """The outputs of every job (folder: bytes into its stderr and stdout already read) as
    they grow, each record naming its job and saying where its piece starts, then each job's
    end; until every job has ended."""
    running = dict(jobs)
    while True:
        for path, offsets in list(running.items()):
            records, ended = _step(path, offsets)
            yield from records
            if ended:
                del running[path]
        if not running:
            return
        sleep(POLL_S)


# What a node has: `ssdlab node facts`


def tool_facts(tool: str) -> JSONDict | None:
    """{path, version} of fio (the one ssdlab would run: $SSDLAB_FIO or fio on this PATH),
    smartctl or nvme; None when it is missing."""
    wanted = os.environ.get("SSDLAB_FIO", "fio") if tool == "fio" else tool
    path = shutil.which(wanted)
    if path is None:
        return None
    return {"path": path, "version": tool_version("nvme" if tool == "nvme" else path)}


def direct_io_problem(directory: str) -> str | None:
    """Why O_DIRECT does not work in `directory` (as `ssdlab doctor` says it), or None."""
    folder = Path(directory).expanduser().absolute()
    if not folder.is_dir():
        return f"{folder} is not a directory"
    try:
        return probe_direct_io(folder)
    except (OSError, TargetError) as error:
        return f"cannot test {folder}: {error}"


def target_summary(path: str) -> JSONDict:
    """What a target path is: whether it exists, a block device (with its identity) or not."""
    summary: JSONDict = {"path": path, "exists": os.path.exists(path), "is_block_device": False}
    if not summary["exists"]:
        return summary
    if not is_block_device_path(path):
        summary["size_bytes"] = os.stat(path).st_size if os.path.isfile(path) else None
        return summary
    try:
        device = read_device_identity(resolve_block_device(path))
    except (OSError, SsdlabError) as error:
        return {**summary, "is_block_device": True, "problem": str(error)}
    return {
        **summary,
        "is_block_device": True,
        "name": device.name,
        "size_bytes": device.capacity_bytes,
        "model": device.model,
        "serial": device.serial,
        "firmware": device.firmware,
        "transport": device.transport,
    }
