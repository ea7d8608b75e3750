"""A stop requested while a child was being started reaches it: ProcessRunner asks again
(SIGINT to its group, once a second) for as long as `should_stop()` holds, so a child that
started after `stop()` looked, or that missed the first SIGINT while setting up, still ends."""

import signal
import sys
import textwrap
from pathlib import Path

from ssdlab.system.process import ProcessRunner

SLEEPER = "import signal, time; signal.signal(signal.SIGINT, signal.SIG_DFL); time.sleep(600)"

# A child that, like fio in its set-up, lets the first SIGINT pass and ends on the second.
STUBBORN = textwrap.dedent(
    """
    import signal, sys, time
    seen = []
    def on_int(*_):
        seen.append(1)
        if len(seen) >= 2:
            print("stopped after", len(seen), "SIGINTs", flush=True)
            sys.exit(7)
    signal.signal(signal.SIGINT, on_int)
    open(sys.argv[1], "w").close()  # its handler is in place
    for _ in range(6000):  # 10 minutes: ending by itself would mean the stop never came
        time.sleep(0.1)
    """
)


def test_a_stop_requested_at_the_start_ends_the_child_at_once() -> None:
    capture = ProcessRunner().run(
        # SIGINT back to its default: a child of a process that ignores it (a pytest-xdist
        # worker, a shell's background job) inherits the ignoring, and Python keeps it
        [sys.executable, "-c", SLEEPER],
        tool="python",
        timeout_s=900,
        should_stop=lambda: True,
    )
    assert capture.exit_code == -signal.SIGINT


def test_a_child_that_missed_the_first_sigint_is_asked_again(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    capture = ProcessRunner().run(
        [sys.executable, "-c", STUBBORN, str(ready)],
        tool="python",
        timeout_s=600,
        should_stop=ready.exists,
    )
    assert capture.exit_code == 7
    assert "stopped after 2 SIGINTs" in capture.stdout


def test_the_streaming_wait_asks_again_too(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    lines: list[str] = []
    capture = ProcessRunner().run(
        [sys.executable, "-c", STUBBORN, str(ready)],
        tool="python",
        timeout_s=600,
        on_output=lines.append,
        should_stop=ready.exists,
    )
    assert capture.exit_code == 7
    assert "stopped after 2 SIGINTs" in lines


def test_without_a_stop_the_child_runs_to_its_end() -> None:
    capture = ProcessRunner().run(
        [sys.executable, "-c", "print('done')"], tool="python", should_stop=lambda: False
    )
    assert (capture.exit_code, capture.stdout) == (0, "done\n")
