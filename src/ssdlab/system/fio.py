"""Find fio, check its version, and run job files with JSON+ output and per-interval logs."""

import dataclasses
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import ToolError
from ssdlab.model.run import Capture
from ssdlab.parse.fio_json import MIN_FIO_VERSION, parse_fio_version
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
) -> FioRun:
    """Write the job file into a private temporary folder, run fio there, collect its logs.

    With `on_fraction`, fio writes its JSON to a file and prints a status line every second,
    whose "% done" is passed on as a fraction (for size-bound jobs whose length in time is not
    known beforehand); the capture's stdout is then the JSON file, byte for byte.
    """
    with tempfile.TemporaryDirectory(prefix="ssdlab-fio-") as folder:
        workdir = Path(folder)
        job_path = workdir / "job.fio"
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
    return FioRun(capture=capture, logs=logs)


def check_job_parses(runner: ProcessRunner, fio: FioTool, job_text: str) -> Capture:
    """fio --parse-only on a job file; the capture's exit code tells whether fio accepted it."""
    with tempfile.TemporaryDirectory(prefix="ssdlab-parse-") as folder:
        job_path = Path(folder) / "job.fio"
        job_path.write_text(job_text, encoding="utf-8")
        return runner.run(
            [fio.path, "--parse-only", str(job_path)],
            tool="fio",
            cwd=Path(folder),
            timeout_s=60,
            tool_version=fio.version_text,
            input_text=job_text,
        )
