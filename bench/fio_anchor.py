"""fio by hand, started exactly the way ssdlab starts it: the anchor of bench/overhead.py and
bench/null_modes.py.

ssdlab runs every pass with `ssdlab.system.fio.run_fio_job` through
`ssdlab.system.process.ProcessRunner`, which

- writes the job file as `job.fio` into a fresh private folder in the temporary directory
  (`tempfile`'s: `$TMPDIR`, else `/tmp`), and runs fio with that folder as its working
  directory (fio's per-interval logs land there);
- passes the job file by its absolute path: `fio --output-format=json+ /tmp/…/job.fio`;
- starts fio below its guard (`python -m ssdlab.guard FIO ARGS…`, `ssdlab.system.guard`), the
  guard in a session of its own (`setsid`, so also its own process group) with stdin on
  `/dev/null`, stdout and stderr on pipes read to the end, text mode, and a pre-exec function
  that ties the guard to the thread that started it (`prctl(PR_SET_PDEATHSIG, SIGUSR1)`; a
  pre-exec function also makes Python fork rather than vfork or posix_spawn); fio runs in the
  guard's session and group;
- passes its own environment on unchanged.

The anchor does the same (with ssdlab's own guard and pre-exec function,
`ssdlab.system.guard.guarded` and `ssdlab.system.process_tree.end_with_parent`), so that the
benchmark compares fio with fio, not fio with a different way of starting it;
`tests/bench/test_fio_anchor.py` starts a stand-in for fio both ways and checks that it sees the
same session, process group, stdin, stdout, stderr, working-directory kind, argument shape,
death signal and environment. Only what ssdlab does *around* fio (Python, the store, the
parser) is left out; the guard's start (about 40 ms per fio) is on both sides.
"""

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ssdlab.system.guard import PARENT_GONE, guarded
from ssdlab.system.process_tree import end_with_parent

JOB_FILE = "job.fio"  # ssdlab's name for it (ssdlab.system.openers.JOB_FILE)
FOLDER_PREFIX = "ssdlab-bench-hand-"


@dataclass(frozen=True, slots=True)
class AnchorRun:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    wall_s: float  # time.monotonic around the child, as ssdlab's captures are timed
    started_epoch_s: float
    ended_epoch_s: float


@contextlib.contextmanager
def job_folder(job_text: str) -> Iterator[Path]:
    """A fresh folder in the temporary directory ssdlab would use, holding `job.fio`."""
    folder = Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX))
    try:
        (folder / JOB_FILE).write_text(job_text, encoding="utf-8")
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def anchor_argv(fio: str, job_path: Path, ssdlab_argv: Sequence[str] | None = None) -> list[str]:
    """`fio --output-format=json+ /abs/job.fio`, or, given the argv ssdlab stored for the same
    pass, that argv with only the job file's folder swapped (checked: same fio, same options,
    same file name)."""
    mine = [fio, "--output-format=json+", str(job_path)]
    if ssdlab_argv is None:
        return mine
    theirs = list(ssdlab_argv)
    if theirs[:-1] != mine[:-1] or Path(theirs[-1]).name != job_path.name:
        raise RuntimeError(
            f"ssdlab ran fio as {theirs!r}, which the anchor does not reproduce ({mine!r})"
        )
    if not Path(theirs[-1]).is_absolute():
        raise RuntimeError(f"ssdlab passed a relative job path: {theirs!r}")
    return mine


def run_anchor(
    fio: str,
    job_text: str,
    *,
    ssdlab_argv: Sequence[str] | None = None,
    prefix: Sequence[str] = (),
    keep: Callable[[Path], None] | None = None,
) -> AnchorRun:
    """Run one job file the way ssdlab's ProcessRunner runs it. `prefix` (e.g. taskset) goes in
    front of fio; `keep(folder)` is called before the folder is removed (e.g. to read logs)."""
    with job_folder(job_text) as folder:
        argv = [*prefix, *anchor_argv(fio, folder / JOB_FILE, ssdlab_argv)]
        started_epoch = time.time()
        started = time.monotonic()
        child = subprocess.Popen(
            guarded(argv),
            cwd=folder,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            start_new_session=True,
            preexec_fn=end_with_parent(PARENT_GONE),
        )
        stdout, stderr = child.communicate()
        wall = time.monotonic() - started
        ended_epoch = time.time()
        if keep is not None:
            keep(folder)
    return AnchorRun(
        tuple(argv), child.returncode, stdout, stderr, wall, started_epoch, ended_epoch
    )


def environment_difference(ours: dict[str, str], theirs: dict[str, str]) -> list[str]:
    """Names of the environment variables that differ (a helper for the tests)."""
    return sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))


def temporary_root() -> str:
    """The temporary directory both ssdlab and the anchor put their job folders in."""
    return os.path.realpath(tempfile.gettempdir())
