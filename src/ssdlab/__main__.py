"""The `ssdlab` command (`python -m ssdlab`, and the console script's `entry`).

Ctrl-C at any moment ends it with one line and exit status 130, never a traceback: while its
modules load and its arguments are parsed (nothing is open yet), SIGINT writes the line and
ends the process at once; the command itself gets the KeyboardInterrupt it expects (and its
signal guard) from `cli/main.py`; once the command is done and its output flushed, SIGINT
ends the process at once again, so the interpreter's shutdown is never interrupted midway (a
Ctrl-C while that output is flushed ends it with the line and 130 as well).

One moment inside a command cannot raise: a KeyboardInterrupt that comes while a callback runs
(the import system's module-lock callback, at the end of a lazy import) is swallowed by the
interpreter, which would print "Exception ignored in …" and go on as if no Ctrl-C came. While
the command runs, such an interrupt ends the process as during start-up (the line, exit 130);
fio's guard and the store's transactions cover an end there as they cover `kill -9`.

The handler is set before anything else is imported, through `_signal`, the C module under
`signal` that the interpreter loads at its own start: `import signal` would first import `enum`,
milliseconds during which Ctrl-C would still raise a KeyboardInterrupt nobody catches. A Ctrl-C
before this file runs at all (while the interpreter itself starts) is the interpreter's.
"""

import _signal  # type: ignore[import-not-found]  # no stub; see the docstring
import os
import sys
from types import FrameType

INTERRUPTED = 130
LINE = b"ssdlab: interrupted\n"
SIGINT: int = _signal.SIGINT
SIG_IGN: int = _signal.SIG_IGN


def _say_interrupted() -> None:
    try:
        os.write(2, LINE)
    except OSError:  # no stderr left to say it on
        return


def _end_now(_signum: int, _frame: FrameType | None) -> None:
    _signal.signal(SIGINT, SIG_IGN)  # a second Ctrl-C: the line once
    _say_interrupted()
    os._exit(INTERRUPTED)


def _guard() -> bool:
    """End at once on SIGINT from now on, unless SIGINT is ignored (`nohup`, a background
    job); whether the guard is in place. Refused outside the main thread (ValueError)."""
    try:
        if _signal.getsignal(SIGINT) == SIG_IGN:
            return False
        _signal.signal(SIGINT, _end_now)
    except ValueError:  # not the main thread: signals are not this caller's to set
        return False
    return True


def _swallowed_interrupt(unraisable: "sys.UnraisableHookArgs") -> None:
    """A Ctrl-C the interpreter could not raise (it came while a callback ran) ends the
    process with the line; anything else unraisable is reported as the interpreter does."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        _signal.signal(SIGINT, SIG_IGN)
        _flush()
        _say_interrupted()
        os._exit(INTERRUPTED)
    sys.__unraisablehook__(unraisable)


def _let_the_command_handle_it() -> None:
    """From here on SIGINT raises KeyboardInterrupt, which the command and cli/main.py
    handle (a run's signal guard replaces it while fio runs)."""
    if _signal.getsignal(SIGINT) is _end_now:
        _signal.signal(SIGINT, _signal.default_int_handler)
        sys.unraisablehook = _swallowed_interrupt


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed or broken output: nothing more to say there
            continue


# ssdlab's numpy work is on small arrays (a wear fit of a few hundred points): OpenBLAS's thread
# pool would only start and spin, 0.1 s of CPU per process (a tenth of a 1,000-drive scrape)
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "1")


def entry() -> int:
    """Run the command line; its exit status."""
    guarded = _guard()
    os.environ.setdefault(*BLAS_THREADS)  # before numpy is imported; a user's setting stays
    try:
        from ssdlab.cli.main import main

        return main(on_ready=_let_the_command_handle_it)
    except KeyboardInterrupt:  # right after the command returned, before the guard is back
        _signal.signal(SIGINT, SIG_IGN)
        _flush()
        _say_interrupted()
        return INTERRUPTED
    finally:
        if guarded:
            try:
                _flush()
            except KeyboardInterrupt:  # while the command's output was flushed: the line, 130
                _signal.signal(SIGINT, SIG_IGN)
                _flush()
                _say_interrupted()
                os._exit(INTERRUPTED)
            _signal.signal(SIGINT, _end_now)


if __name__ == "__main__":
    raise SystemExit(entry())
