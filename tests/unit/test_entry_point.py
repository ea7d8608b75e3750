"""The `ssdlab` command's entry point sets its Ctrl-C handler before anything heavy loads: the
console script and `python -m ssdlab` both go through `ssdlab.__main__.entry`."""

import subprocess
import sys
import tomllib

from tests.conftest import ROOT

# SIGINT as a terminal gives it (a suite run as a shell's background job inherits it ignored)
PROBE = """
import signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
import ssdlab.__main__ as entry_module
loaded = sorted(m for m in sys.modules if m.startswith("ssdlab.cli"))
print(loaded, entry_module._guard(), signal.getsignal(signal.SIGINT) is entry_module._end_now)
"""


def test_the_console_script_is_the_light_entry_point() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["scripts"] == {"ssdlab": "ssdlab.__main__:entry"}


def test_the_entry_point_guards_ctrl_c_before_loading_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "src")},
        check=True,
    )
    assert done.stdout.split() == ["[]", "True", "True"]
