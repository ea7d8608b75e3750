"""The benchmarks' hand-run anchor starts fio exactly as ssdlab does: a stand-in for fio, started
by ssdlab's own runner and by bench/fio_anchor.py, reports the same view of its start."""

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from ssdlab.system.fio import FioTool, run_fio_job
from ssdlab.system.process import ProcessRunner
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

from fio_anchor import anchor_argv, run_anchor, temporary_root

# What a process can see of how it was started; printed as JSON instead of running a job.
STAND_IN = """\
import ctypes, json, os, sys
value = ctypes.c_int(0)
ctypes.CDLL(None).prctl(2, ctypes.byref(value), 0, 0, 0)  # PR_GET_PDEATHSIG
cwd = os.getcwd()
print(json.dumps({
    "own_session": os.getsid(0) == os.getpid(),
    "own_group": os.getpgid(0) == os.getpid(),
    "fds": [os.readlink(f"/proc/self/fd/{fd}").split(":")[0] for fd in (0, 1, 2)],
    "cwd_parent": os.path.dirname(cwd),
    "cwd_files": sorted(f for f in os.listdir(cwd) if f != "ssdlab-owner.json"),
    "job_in_cwd": os.path.dirname(sys.argv[-1]) == cwd,
    "job_absolute": os.path.isabs(sys.argv[-1]),
    "job_text": open(sys.argv[-1]).read(),
    "options": sys.argv[1:-1],
    "death_signal": value.value,
    "environment": dict(os.environ),
}))
"""


def stand_in(tmp_path: Path) -> str:
    path = tmp_path / "fio"
    path.write_text(f"#!{sys.executable}\n{STAND_IN}", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_anchor_starts_fio_as_ssdlab_does(tmp_path: Path) -> None:
    fio = stand_in(tmp_path)
    job = "[global]\nioengine=null\n\n[a]\nrw=read\n"
    tool = FioTool(path=fio, version_text="fio-3.33", version=(3, 33))
    capture = run_fio_job(ProcessRunner(), tool, job, timeout_s=60, should_stop=lambda: False)
    assert capture.capture.exit_code == 0, capture.capture.stderr
    theirs: dict[str, Any] = json.loads(capture.capture.stdout)

    run = run_anchor(fio, job, ssdlab_argv=capture.capture.argv)
    assert run.returncode == 0, run.stderr
    ours: dict[str, Any] = json.loads(run.stdout)

    assert ours == theirs
    assert not ours["own_session"]  # fio is in its guard's session and group
    assert not ours["own_group"]
    assert ours["fds"] == ["/dev/null", "pipe", "pipe"]
    assert ours["cwd_parent"] == temporary_root()
    assert ours["job_in_cwd"]
    assert ours["job_absolute"]
    assert ours["death_signal"] == 0  # the guard is tied to the caller, not fio
    # the environment is passed on as it is (the test runner may add COLUMNS and LINES)
    assert dict(os.environ).items() <= ours["environment"].items()


def test_anchor_refuses_an_argv_it_would_not_reproduce(tmp_path: Path) -> None:
    job = tmp_path / "job.fio"
    assert anchor_argv("/usr/bin/fio", job, ["/usr/bin/fio", "--output-format=json+", "/x/job.fio"])
    for odd in (
        ["/usr/bin/fio", "--output-format=json", "/x/job.fio"],
        ["/usr/local/bin/fio", "--output-format=json+", "/x/job.fio"],
        ["/usr/bin/fio", "--output-format=json+", "job.fio"],
        ["/usr/bin/fio", "--output=r.json", "--output-format=json+", "/x/job.fio"],
    ):
        try:
            anchor_argv("/usr/bin/fio", job, odd)
        except RuntimeError:
            continue
        raise AssertionError(f"accepted {odd}")
