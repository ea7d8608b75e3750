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


def _python(code: str) -> "subprocess.CompletedProcess[str]":
    """`code` run by a new interpreter that imports ssdlab from this checkout."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "src")},
        check=False,
    )


def test_the_entry_point_guards_ctrl_c_before_loading_the_command_line() -> None:
    done = _python(PROBE)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "True", "True"]


# a KeyboardInterrupt raised inside a weakref callback, as when Ctrl-C comes while the import
# system's module-lock callback runs: the interpreter cannot raise it and would print
# "Exception ignored in …" and carry on
SWALLOWED = """
import signal, weakref
signal.signal(signal.SIGINT, signal.SIG_DFL)
import ssdlab.__main__ as entry_module
entry_module._guard()
entry_module._let_the_command_handle_it()
class Held: pass
def interrupted(_ref):
    raise KeyboardInterrupt
held = Held()
ref = weakref.ref(held, interrupted)
print("working", flush=True)
del held
print("carried on")
"""


def test_a_ctrl_c_the_interpreter_would_swallow_ends_the_command_with_the_line() -> None:
    done = _python(SWALLOWED)
    assert (done.returncode, done.stdout, done.stderr) == (
        130,
        "working\n",
        "ssdlab: interrupted\n",
    )


OTHER_UNRAISABLE = SWALLOWED.replace("raise KeyboardInterrupt", "raise ValueError('kept')")


def test_other_unraisable_errors_are_reported_as_the_interpreter_does() -> None:
    done = _python(OTHER_UNRAISABLE)
    assert done.returncode == 0
    assert done.stdout == "working\ncarried on\n"
    assert "Exception ignored in" in done.stderr
    assert "ValueError: kept" in done.stderr


# Ctrl-C right as the command's output is flushed, after the command returned (the flush is
# where the interrupt lands): the seeded Ctrl-C test met it once in a loaded suite run, as a
# traceback through __main__.py
AT_THE_FLUSH = """
import signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
import ssdlab.__main__ as entry_module
import ssdlab.cli.main as cli_main
def command(on_ready=None):
    on_ready()
    print("the command's output")
    return 0
cli_main.main = command
flushes = []
def flush():
    flushes.append(1)
    if len(flushes) == 1:
        raise KeyboardInterrupt
    sys.stdout.flush()
entry_module._flush = flush
raise SystemExit(entry_module.entry())
"""


def test_a_ctrl_c_while_the_output_is_flushed_ends_with_the_line() -> None:
    done = _python(AT_THE_FLUSH)
    assert (done.returncode, done.stdout, done.stderr) == (
        130,
        "the command's output\n",
        "ssdlab: interrupted\n",
    )
