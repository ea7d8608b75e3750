"""fio's status lines become progress fractions; a child's stdout is streamed line by line."""

import sys

import pytest

from ssdlab.system.fio import parse_eta_percent
from ssdlab.system.process import ProcessRunner


@pytest.mark.parametrize(
    ("line", "fraction"),
    [
        ("Jobs: 1 (f=1), 0B/s-16.0MiB/s: [W(1)][75.0%][w=16.0MiB/s][w=16 IOPS][eta 00m:01s]", 0.75),
        ("Jobs: 1 (f=1): [W(1)][100.0%][w=1MiB/s][eta 00m:00s]", 1.0),
        ("Jobs: 1 (f=1), 0B/s-16.0MiB/s", None),
        ("fio-3.33", None),
    ],
)
def test_eta_percent(line: str, fraction: float | None) -> None:
    assert parse_eta_percent(line) == fraction


def test_stdout_lines_are_streamed_and_carriage_returns_end_lines() -> None:
    seen: list[str] = []
    script = "import sys\nsys.stdout.write('a 10%\\rb 20%\\rc\\n'); sys.stderr.write('err')"
    capture = ProcessRunner().run(
        [sys.executable, "-c", script], tool="python", timeout_s=30, on_output=seen.append
    )
    assert seen == ["a 10%", "b 20%", "c"]
    assert capture.exit_code == 0
    assert capture.stderr == "err"
    assert capture.stdout == "a 10%\nb 20%\nc\n"  # universal newlines, as the lines were read


def test_streamed_child_is_stopped_at_the_time_limit() -> None:
    capture = ProcessRunner().run(
        [sys.executable, "-c", "import time; print('x', flush=True); time.sleep(30)"],
        tool="python",
        timeout_s=0.5,
        on_output=lambda _line: None,
    )
    assert capture.exit_code != 0
    assert "time limit" in capture.stderr
