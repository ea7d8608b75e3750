"""Find fio, check its version, and run job files with JSON+ output and per-interval logs."""

import dataclasses
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import ToolError
from ssdlab.model.run import Capture
from ssdlab.parse.fio_json import MIN_FIO_VERSION, parse_fio_version
from ssdlab.system.environment import process_start_ticks, read_boot_id, read_pid_namespace
from ssdlab.system.openers import JOB_FILE, PROC, processes_inside
from ssdlab.system.process import ProcessRunner

FIO_PACKAGE = "fio"


@dataclass(frozen=True, slots=True)
class FioTool:
    path: str
    version_text: str
    version: tuple[int, int]


def find_fio(runner: ProcessRunner) -> FioTool:
    """The fio named by $SSDLAB_FIO, else the one on PATH; raise ToolError if missing or old."""
    wanted = os.environ.get("SSDLAB_FIO") or "fio"
    path = shutil.which(wanted)
    if path is None:
        raise ToolError(
            f"fio was not found ({wanted!r}); install it with 'apt-get install {FIO_PACKAGE}' "
            "(Debian/Ubuntu) or 'dnf install fio', or point SSDLAB_FIO at a fio binary"
        )
    capture = runner.run([path, "--version"], tool="fio", timeout_s=30)
    text = capture.stdout.strip()
    version = parse_fio_version(text)
    if capture.exit_code != 0 or version is None:
        raise ToolError(f"{path} --version did not answer like fio: {text or capture.stderr!r}")
    if version < MIN_FIO_VERSION:
        need = ".".join(map(str, MIN_FIO_VERSION))
        raise ToolError(
            f"{path} is {text}, but ssdlab needs fio {need} or newer (for JSON+ output and "
            "per-interval logs); install a newer fio or point SSDLAB_FIO at one"
        )
    return FioTool(path=path, version_text=text, version=version)


def fio_engines(runner: ProcessRunner, fio: FioTool) -> tuple[str, ...]:
    """The ioengines this fio lists (``fio --enghelp``); empty when it lists none."""
    capture = runner.run([fio.path, "--enghelp"], tool="fio", timeout_s=30)
    if capture.exit_code != 0:
        return ()
    lines = capture.stdout.splitlines()
    return tuple(line.strip() for line in lines if line[:1].isspace() and line.strip())


class UnknownEngine(ToolError):
    """An --ioengine this fio does not have: a usage mistake, refused in one line."""

    exit_code = 2


# fio engines that run programs, burn CPU, talk to the network or only create, stat, truncate
# or delete files: a "benchmark" with them measures no storage I/O
NOT_STORAGE_ENGINES = frozenset(
    {"exec", "cpuio", "net", "netsplice", "filecreate", "filestat", "filedelete", "ftruncate"}
)
COMMON_ENGINES = ("libaio", "io_uring", "psync", "sync", "posixaio", "mmap", "null")


def check_ioengine(runner: ProcessRunner, fio: FioTool, engine: str) -> None:
    """Raise UnknownEngine unless this fio has the ioengine `engine`: one it lists, or one it
    can load (``fio --enghelp=NAME`` says 'not found' / 'not loadable' for an unknown one;
    an engine without options also exits 1, so its words decide, not its status)."""
    if engine in NOT_STORAGE_ENGINES:
        raise UnknownEngine(
            f"--ioengine {engine}: fio's {engine} engine does no reads or writes of data on the "
            "target, so its numbers would not be the drive's; use libaio, io_uring or psync"
        )
    engines = fio_engines(runner, fio)
    if engine in engines:
        return
    capture = runner.run([fio.path, f"--enghelp={engine}"], tool="fio", timeout_s=30)
    answer = f"{capture.stdout}\n{capture.stderr}"
    if "not found" in answer or "not loadable" in answer:
        common = ", ".join(e for e in COMMON_ENGINES if e in engines)
        raise UnknownEngine(
            f"--ioengine {engine}: {fio.version_text} has no such ioengine; 'fio --enghelp' "
            "lists the ones it has" + (f" ({common}, ...)" if common else "")
        )


@dataclass(frozen=True, slots=True)
class FioRun:
    capture: Capture
    logs: dict[str, str]  # per-interval log files fio wrote, by file name


_ETA_PERCENT_RE = re.compile(r"\]\[(\d+(?:\.\d+)?)%\]")
RESULT_FILE = "result.json"


def parse_eta_percent(line: str) -> float | None:
    """The fraction done from one of fio's status lines ('...: [W(1)][75.0%][w=16.0MiB/s]...')."""
    match = _ETA_PERCENT_RE.search(line)
    return None if match is None else min(1.0, float(match.group(1)) / 100.0)


def run_fio_job(
    runner: ProcessRunner,
    fio: FioTool,
    job_text: str,
    *,
    timeout_s: float | None,
    on_fraction: Callable[[float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    read_folder: Callable[[Path], None] | None = None,
) -> FioRun:
    """Write the job file into a private temporary folder, run fio there, collect its logs.
    `read_folder`, when given, is called with the folder once fio has ended, before it is
    removed (files the job wrote that are not kept, such as a per-I/O log read as it is).

    With `on_fraction`, fio writes its JSON to a file and prints a status line every second,
    whose "% done" is passed on as a fraction (for size-bound jobs whose length in time is not
    known beforehand); the capture's stdout is then the JSON file, byte for byte.
    """
    with job_folder(FIO_FOLDER) as workdir:
        job_path = workdir / JOB_FILE
        job_path.write_text(job_text, encoding="utf-8")
        argv = [fio.path, "--output-format=json+", str(job_path)]
        on_output = None
        if on_fraction is not None:
            argv[1:1] = [f"--output={RESULT_FILE}", "--eta=always", "--eta-newline=1"]

            def on_output(line: str) -> None:
                fraction = parse_eta_percent(line)
                if fraction is not None:
                    on_fraction(fraction)

        capture = runner.run(
            argv,
            tool="fio",
            cwd=workdir,
            timeout_s=timeout_s,
            tool_version=fio.version_text,
            input_text=job_text,
            on_output=on_output,
            should_stop=should_stop,
            guard=True,
        )
        result = workdir / RESULT_FILE
        if on_fraction is not None:
            text = result.read_text(encoding="utf-8", errors="replace") if result.exists() else ""
            capture = dataclasses.replace(capture, stdout=text)
        logs = {
            entry.name: entry.read_text(encoding="utf-8", errors="replace")
            for entry in sorted(workdir.iterdir())
            if entry.name.endswith(".log")
        }
        if read_folder is not None:
            read_folder(workdir)
    return FioRun(capture=capture, logs=logs)


def check_job_parses(runner: ProcessRunner, fio: FioTool, job_text: str) -> Capture:
    """fio --parse-only on a job file; the capture's exit code tells whether fio accepted it."""
    with job_folder(PARSE_FOLDER) as folder:
        job_path = folder / JOB_FILE
        job_path.write_text(job_text, encoding="utf-8")
        return runner.run(
            [fio.path, "--parse-only", str(job_path)],
            tool="fio",
            cwd=folder,
            timeout_s=60,
            tool_version=fio.version_text,
            input_text=job_text,
        )


# Job folders: ssdlab-fio-<pid>-<random> in the temporary directory, with an owner file that
# names the process (pid, its start time, boot id, PID namespace). They are removed when the
# job ends; one left behind by a killed ssdlab is removed by `ssdlab doctor --cleanup` once
# neither its ssdlab nor a fio it started is alive.
FIO_FOLDER = "ssdlab-fio-"
PARSE_FOLDER = "ssdlab-parse-"
OWNER_FILE = "ssdlab-owner.json"
_FOLDER_RE = re.compile(r"^(ssdlab-fio-|ssdlab-parse-)(?:(\d+)-)?[A-Za-z0-9_]+$")


@contextmanager
def job_folder(prefix: str) -> Iterator[Path]:
    """A private temporary folder named and marked as this process's, removed at the end."""
    pid = os.getpid()
    with tempfile.TemporaryDirectory(prefix=f"{prefix}{pid}-") as name:
        folder = Path(name)
        owner = {
            "pid": pid,
            "start_ticks": process_start_ticks(pid),
            "boot_id": read_boot_id(),
            "pid_namespace": read_pid_namespace(),
        }
        (folder / OWNER_FILE).write_text(json.dumps(owner, sort_keys=True), encoding="utf-8")
        yield folder


@dataclass(frozen=True, slots=True)
class JobFolder:
    """A job folder found in the temporary directory."""

    path: str
    pid: int | None  # the ssdlab that made it (None: an older ssdlab named it without)
    in_use: str | None  # why it may still be in use; None: its ssdlab and fio are gone


def _read_owner(folder: Path) -> dict[str, object] | None:
    try:
        data = json.loads((folder / OWNER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _owner_alive(pid: int | None, owner: dict[str, object] | None, proc_root: Path) -> str | None:
    if pid is None:
        return None
    if owner is None:  # not written yet, or lost: judge by the pid alone (kept if it exists)
        return f"pid {pid} still runs" if (proc_root / str(pid)).exists() else None
    boot_id = read_boot_id()
    if owner.get("boot_id") not in (None, boot_id) and boot_id is not None:
        return None  # the machine restarted since
    namespace = owner.get("pid_namespace")
    if namespace is not None and namespace != read_pid_namespace():
        return f"made in another PID namespace ({namespace}), where ssdlab cannot look"
    ticks = process_start_ticks(pid, proc_root)
    if ticks is None or ticks != owner.get("start_ticks", ticks):
        return None  # gone, or the pid now names another process
    return f"ssdlab (pid {pid}) still runs"


def job_folder_in_use(folder: Path, proc_root: Path = PROC) -> str | None:
    """Why a job folder may still be in use (its ssdlab alive, or a process such as a fio
    left running inside it); None when nothing uses it and it can be removed."""
    match = _FOLDER_RE.match(folder.name)
    pid = int(match.group(2)) if match and match.group(2) else None
    reason = _owner_alive(pid, _read_owner(folder), proc_root)
    if reason is not None:
        return reason
    inside = processes_inside(folder, proc_root)
    if inside:
        return ", ".join(f"{o.name} (pid {o.pid})" for o in inside) + " still runs in it"
    return None


def find_job_folders(temp_root: Path | None = None, proc_root: Path = PROC) -> list[JobFolder]:
    """ssdlab's job folders in the temporary directory ($TMPDIR, else /tmp), each with whether
    it may still be in use."""
    root = temp_root or Path(tempfile.gettempdir())
    try:
        entries = sorted(root.iterdir())
    except OSError:
        return []
    found = []
    for entry in entries:
        match = _FOLDER_RE.match(entry.name)
        if match is None or entry.is_symlink() or not entry.is_dir():
            continue
        pid = int(match.group(2)) if match.group(2) else None
        found.append(JobFolder(str(entry), pid, job_folder_in_use(entry, proc_root)))
    return found


def remove_job_folder(folder: JobFolder, proc_root: Path = PROC) -> bool:
    """Remove a job folder left behind, asking again right before that nothing uses it."""
    path = Path(folder.path)
    if path.is_symlink() or not path.is_dir() or job_folder_in_use(path, proc_root) is not None:
        return False
    shutil.rmtree(path, ignore_errors=True)
    return not path.exists()
