"""Signals during a run: the first stops fio and finishes cleanly, the second ends at once."""

import signal
from collections.abc import Callable
from types import FrameType


class SignalGuard:
    """First Ctrl-C / SIGTERM: stop fio and finish cleanly. Second: end at once."""

    def __init__(self, on_first: Callable[[], None], on_second: Callable[[], None]) -> None:
        self._on_first = on_first
        self._on_second = on_second
        self._count = 0
        self._previous: dict[int, object] = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self._count += 1
        if self._count == 1:
            self._on_first()
        else:
            self._on_second()

    def __enter__(self) -> "SignalGuard":
        for signum in (signal.SIGINT, signal.SIGTERM):
            self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
