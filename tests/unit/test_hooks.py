"""system/hooks.py: an alert hook is an argv run without a shell, the document on its stdin; a
hook that fails, is missing or hangs comes back as a result that says so."""

import json
import sys
import time
from pathlib import Path

import pytest

from ssdlab.system.hooks import run_hook
from tests.conftest import HANG_S


def script(tmp_path: Path, body: str) -> list[str]:
    path = tmp_path / "hook.py"
    path.write_text(body, encoding="utf-8")
    return [sys.executable, str(path)]


def test_the_document_reaches_the_hooks_stdin(tmp_path: Path) -> None:
    out = tmp_path / "got.json"
    argv = script(
        tmp_path, "import sys, pathlib\npathlib.Path(sys.argv[1]).write_text(sys.stdin.read())\n"
    )
    result = run_hook([*argv, str(out)], json.dumps({"alert": "x"}), 10)
    assert not result.failed
    assert (result.exit_code, result.timed_out, result.error) == (0, False, None)
    assert json.loads(out.read_text()) == {"alert": "x"}


def test_arguments_are_not_interpreted_by_a_shell(tmp_path: Path) -> None:
    argv = script(tmp_path, "import sys\nprint(sys.argv[1:])\n")
    result = run_hook([*argv, "$HOME", "a;b", "*"], "", 10)
    assert result.stdout.strip() == "['$HOME', 'a;b', '*']"


def test_a_failing_hook_says_its_status(tmp_path: Path) -> None:
    argv = script(tmp_path, "import sys\nsys.stderr.write('no pager')\nsys.exit(1)\n")
    result = run_hook(argv, "{}", 10)
    assert result.failed
    assert result.exit_code == 1
    assert result.error == "exited with status 1"
    assert "no pager" in result.stderr


def test_a_hook_that_does_not_read_stdin_is_fine(tmp_path: Path) -> None:
    result = run_hook(script(tmp_path, "pass\n"), "x" * 1_000_000, 10)
    assert not result.failed


def test_a_missing_hook_is_a_result_not_an_exception(tmp_path: Path) -> None:
    result = run_hook([str(tmp_path / "no-such-hook")], "{}", 10)
    assert result.failed
    assert result.exit_code is None
    assert result.error == "could not start: not found"


def test_a_hanging_hook_is_killed_with_its_children(tmp_path: Path) -> None:
    marker = tmp_path / "child-pid"
    body = (
        "import subprocess, sys, time, pathlib\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"pathlib.Path({str(marker)!r}).write_text(str(child.pid))\n"
        "time.sleep(600)\n"
    )
    # the time limit runs from the hook's start: on a loaded machine the hook may not have
    # started its child by then, so the limit grows until it has (the test waits for that)
    for limit in (1, 4, 16, 64, 256):
        result = run_hook(script(tmp_path, body), "{}", limit)
        if marker.exists():
            break
    assert result.failed
    assert result.timed_out
    assert result.error is not None
    assert "time limit" in result.error
    assert gone(int(marker.read_text()))  # killed with the hook's process group


def gone(pid: int) -> bool:
    """The process has ended (a zombie until its new parent reaps it counts as ended); waits
    for that as long as only a hang could take."""
    deadline = time.monotonic() + HANG_S
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


def test_a_command_string_is_refused() -> None:
    with pytest.raises(TypeError):
        run_hook("echo hi", "", 1)  # type: ignore[arg-type]
