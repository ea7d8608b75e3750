"""A program confined to a folder (system/sandbox.py, bubblewrap) sees none of this machine's
files but /usr and that folder, keeps nothing it writes elsewhere, and still gets the group's
Ctrl-C below its shielded guard, as fio's client of `fleet load` must."""

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ssdlab.errors import ToolError
from ssdlab.system import sandbox
from ssdlab.system.process import ProcessRunner
from ssdlab.system.sandbox import Confinement, confined

PYTHON = "/usr/bin/python3"  # the system's, under /usr: what a confined program can run
WHY = "this test confines the program"

pytestmark = pytest.mark.skipif(
    shutil.which("bwrap") is None or not Path(PYTHON).exists(),
    reason="needs bubblewrap (apt-get install bubblewrap) and /usr/bin/python3",
)

PROBE = """
import json, os, sys
seen = {}
for path in sys.argv[1:]:
    try:
        with open(path, "rb") as handle:
            seen[path] = handle.read().decode()
    except OSError as error:
        seen[path] = type(error).__name__
for path in ("/tmp/ssdlab-sandbox-escape", os.environ["OUTSIDE_WRITE"]):
    try:
        with open(path, "w") as handle:
            handle.write("escaped")
    except OSError:  # refused is as good as kept away
        continue
with open("inside.txt", "w") as handle:
    handle.write("kept")
print(json.dumps({"seen": seen, "cwd": os.getcwd(), "root": sorted(os.listdir("/"))}))
sys.exit(5)
"""


def test_a_confined_program_sees_only_usr_and_its_folder(tmp_path: Path) -> None:
    folder = tmp_path / "load"
    folder.mkdir()
    secret = tmp_path / "secret"
    secret.write_text("the seat's key", encoding="utf-8")
    outside = tmp_path / "written-outside"
    argv = [PYTHON, "-c", PROBE, str(secret), "/etc/hostname", "/root/.ssh/id_ed25519"]
    done = subprocess.run(
        confined(argv, folder, WHY),
        capture_output=True,
        text=True,
        check=False,
        env={"OUTSIDE_WRITE": str(outside)},
    )
    assert done.returncode == 5, done.stderr
    report = json.loads(done.stdout)
    assert set(report["seen"].values()) == {"FileNotFoundError"}
    assert report["cwd"] == str(folder.resolve())
    assert "etc" not in report["root"]
    assert "root" not in report["root"]
    assert not outside.exists()
    assert not Path("/tmp/ssdlab-sandbox-escape").exists()
    assert (folder / "inside.txt").read_text(encoding="utf-8") == "kept"


def test_without_bubblewrap_the_error_says_why_and_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real_which = shutil.which
    monkeypatch.setattr(
        sandbox.shutil, "which", lambda name: None if name == "bwrap" else real_which(name)
    )
    with pytest.raises(ToolError) as raised:
        confined([PYTHON, "-c", "pass"], tmp_path, WHY)
    assert WHY in str(raised.value)
    assert "apt-get install bubblewrap" in str(raised.value)


# a program that stops cleanly on Ctrl-C, as fio's client does: it says so and exits 3
STOPS_ON_CTRL_C = """
import signal, sys, time
def stop(_signum, _frame):
    print("stopping", flush=True)
    sys.exit(3)
signal.signal(signal.SIGINT, stop)
print("ready", flush=True)
while True:
    time.sleep(0.05)
"""


def test_a_confined_program_below_its_guard_gets_the_groups_ctrl_c(tmp_path: Path) -> None:
    """bubblewrap dies on SIGINT and kills what it runs; below a shielded guard it ignores
    the group's SIGINT, so the program stops as it chooses and its exit status comes back."""
    runner = ProcessRunner()
    lines: list[str] = []
    ready = threading.Event()

    def on_output(line: str) -> None:
        lines.append(line)
        if line.strip() == "ready":
            ready.set()

    def interrupt() -> None:
        ready.wait()
        runner.stop()  # SIGINT to the child's process group, as Ctrl-C in ssdlab does

    stopper = threading.Thread(target=interrupt)
    stopper.start()
    capture = runner.run(
        [PYTHON, "-c", STOPS_ON_CTRL_C],
        tool="probe",
        cwd=tmp_path,
        on_output=on_output,
        confine=Confinement(tmp_path, WHY),
    )
    stopper.join()
    assert capture.exit_code == 3, capture.stderr
    assert [line.strip() for line in lines] == ["ready", "stopping"]
    assert capture.argv == (PYTHON, "-c", STOPS_ON_CTRL_C)


def test_the_shielded_guard_leaves_the_group_signals_ignored_for_its_child() -> None:
    probe = "import signal; print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)"
    done = subprocess.run(
        [sys.executable, "-m", "ssdlab.guard", "--shield", PYTHON, "-c", probe],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3] / "src")},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert (done.returncode, done.stdout.strip()) == (0, "True"), done.stderr
