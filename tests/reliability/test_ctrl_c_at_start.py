"""Ctrl-C at any moment of a command's life, start-up included (modules loading, arguments being
parsed, the store being opened), ends ssdlab with exit status 130 and the one line
`ssdlab: interrupted`, or the command completes: never a traceback.

SIGINT is sent at seeded, increasing delays after the start (sometimes twice), until the command
completes before the signal three times in a row. The outcomes are classified, none is timed:

- exit 130 and exactly `ssdlab: interrupted` on stderr: ssdlab's own answer;
- the command's own exit status (0, or 2 for a usage error): it completed first;
- ended by SIGINT without a traceback: the interpreter had not yet set its handler, or had
  already given it back while exiting (after all the command had to say), and the signal's
  default action ended it (a shell reports exit 130);
- a traceback with no frame in ssdlab's source: the interpreter was still starting (its site
  packages, or runpy finding the module) and never reached ssdlab's first line.

Any traceback through ssdlab's own files fails the test.
"""

import random
import re
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import HANG_S
from tests.e2e.conftest import ROOT, run_ssdlab, ssdlab_argv, ssdlab_env

LINE = "ssdlab: interrupted\n"
FIO_JSON = ROOT / "tests" / "data" / "fio" / "null-ioengine.json"
MAX_TRIES = 150
DONE_IN_A_ROW = 3
SOURCE = str(ROOT / "src" / "ssdlab")


def _outcome(code: int, stderr: str, completes_with: int) -> str:
    frames = re.findall(r'File "([^"]+)"', stderr)
    ours = [frame for frame in frames if frame.startswith(SOURCE)]
    assert not ours, f"a traceback through ssdlab (exit {code}):\n{stderr}"
    if code == 130:
        assert stderr == LINE, f"exit 130 must say one line, not:\n{stderr}"
        return "interrupted"
    if code == completes_with:
        assert "Traceback" not in stderr, stderr
        return "completed"
    if code == -signal.SIGINT and "Traceback" not in stderr:
        # before the interpreter set its handler, or after it gave it back while exiting
        return "by the signal's default action"
    assert "Traceback" in stderr or "Fatal Python error" in stderr, f"exit {code}:\n{stderr}"
    return "while the interpreter started"


def _as_at_a_terminal() -> None:
    """SIGINT back to its default in the child, as a command typed at a terminal has it: a
    suite started as a shell's background job (`make test &`) inherits it ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _try_once(argv: list[str], delay: float, twice: bool, completes_with: int) -> str:
    child = subprocess.Popen(
        argv,
        env=ssdlab_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_as_at_a_terminal,
    )
    time.sleep(delay)
    if child.poll() is None:
        child.send_signal(signal.SIGINT)
        if twice:
            child.send_signal(signal.SIGINT)
    _, stderr = child.communicate(timeout=HANG_S)
    return _outcome(child.returncode, stderr, completes_with)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("ctrl-c") / "ssdlab.db"
    done = run_ssdlab("import", str(FIO_JSON), "--db", str(db))
    assert done.code == 0, done.stderr
    return db


# each command, and the exit status it completes with
COMMANDS = {
    "runs": (["runs", "--db", "{db}"], 0),
    "plan": (["plan", "quick", "{folder}", "--size", "8MiB"], 0),
    "bad option": (["quick", "--count", "many"], 2),  # argparse's usage error
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_ctrl_c_at_seeded_moments_never_shows_a_traceback(
    store: Path, tmp_path: Path, name: str
) -> None:
    rng = random.Random(f"ctrl-c-{name}")
    words, completes_with = COMMANDS[name]
    argv = ssdlab_argv(*(w.format(db=store, folder=tmp_path) for w in words))
    seen: Counter[str] = Counter()
    delay, in_a_row = 0.0, 0
    for _ in range(MAX_TRIES):
        outcome = _try_once(argv, delay, rng.random() < 0.25, completes_with)
        seen[outcome] += 1
        in_a_row = in_a_row + 1 if outcome == "completed" else 0
        if in_a_row >= DONE_IN_A_ROW:
            break
        # a step of a few ms, and a fortieth of the delay: early moments (modules loading)
        # are tried closely, and a command slowed by the machine's load is crossed in tens
        # of tries, not hundreds
        delay += rng.uniform(0.002, 0.03) + delay / 40
    assert seen["interrupted"] > 0, f"no signal reached ssdlab itself: {dict(seen)}"
