"""Signals during a run: the first stops fio and finishes cleanly, the second ends at once.

SIGHUP (the terminal was closed) is a stop like SIGTERM: fio is stopped, the state written and
the run marked interrupted. The terminal is gone by then, so what ssdlab still prints goes to
/dev/null instead of failing. A hangup arrives more than once (from the kernel and from the
shell) and counts once. Under `nohup` SIGHUP is ignored, and stays ignored.
"""

import os
import signal
import stat
from collections.abc import Callable
from types import FrameType


def stop_signals() -> tuple[signal.Signals, ...]:
    """SIGINT, SIGTERM and SIGHUP, unless SIGHUP is ignored (`nohup`: keep running)."""
    wanted = [signal.SIGINT, signal.SIGTERM]
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        wanted.append(signal.SIGHUP)
    return tuple(wanted)


OUTPUTS = (1, 2)


def terminal_outputs() -> frozenset[int]:
    """stdout and stderr where they are a terminal: asked before a hangup, because a hung-up
    terminal no longer answers the question."""
    return frozenset(fd for fd in OUTPUTS if os.isatty(fd))


def _went_with_terminal(fd: int, terminals: frozenset[int]) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return fd in terminals or os.isatty(fd) or stat.S_ISFIFO(mode)


def detach_from_terminal(terminals: frozenset[int]) -> None:
    """After a hangup, point stdout and stderr at /dev/null when they were the terminal (or a
    pipe to a program that went with it): writing there now fails, and a failed progress line
    must not keep a stopping run from recording its state. Files and sockets (a log, the
    journal) are kept."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        for fd in OUTPUTS:
            if _went_with_terminal(fd, terminals):
                os.dup2(devnull, fd)
    finally:
        os.close(devnull)


class SignalGuard:
    """First Ctrl-C / SIGTERM / SIGHUP: stop fio and finish cleanly. Second: end at once."""

    def __init__(self, on_first: Callable[[], None], on_second: Callable[[], None]) -> None:
        self._on_first = on_first
        self._on_second = on_second
        self._count = 0
        self._hung_up = False
        self.first_signal: str | None = None  # e.g. 'SIGTERM', once one has come
        self._terminals: frozenset[int] = frozenset()
        self._previous: dict[int, object] = {}

    def _handle(self, signum: int, _frame: FrameType | None) -> None:
        if signum == signal.SIGHUP:
            if self._hung_up:
                return  # the same hangup again (the shell passes it on too)
            self._hung_up = True
            detach_from_terminal(self._terminals)
        self._count += 1
        if self._count == 1:
            self.first_signal = signal.Signals(signum).name
            self._on_first()
        else:
            self._on_second()

    def __enter__(self) -> "SignalGuard":
        self._terminals = terminal_outputs()
        for signum in stop_signals():
            self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        if self._hung_up:  # a late copy of the hangup must not cut the report short
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
