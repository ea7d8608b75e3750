"""A recorded sequence of health snapshots, replayed in place of a live drive.

For demonstrations and tests of long runs: each call returns the next snapshot of a smartctl
log (as `ssdlab health --import` reads it) through the same parsers as live data, with the
time it was recorded. Every sample says it is a replay in its sources, and every capture is
stored under the tool name "replay", so nothing presents it as live data.
"""

import dataclasses
import threading
import time

from ssdlab.errors import ParseError, UsageError
from ssdlab.model.run import Capture
from ssdlab.parse.smartctl_json import normalise_smartctl
from ssdlab.parse.smartctl_log import split_snapshot_log
from ssdlab.system.health import HealthReading
from ssdlab.system.user_files import LOG_FILE_BYTES, read_user_file

REPLAY_TOOL = "replay"


class HealthReplay:
    """Callable like `read_health`: the next recorded snapshot on each call."""

    def __init__(self, path: str) -> None:
        data = read_user_file(path, LOG_FILE_BYTES, "the health replay")
        text = data.decode("utf-8", errors="replace")
        try:
            self._snapshots = split_snapshot_log(text)
        except ParseError as error:
            raise UsageError(
                f"the health replay {path} is not a log of smartctl snapshots: {error}"
            ) from None
        self._lines = text.splitlines()
        self._path = path
        self._next = 0
        self._lock = threading.Lock()

    @property
    def path(self) -> str:
        return self._path

    def __call__(self) -> HealthReading:
        with self._lock:
            index = self._next
            self._next += 1
        if index >= len(self._snapshots):
            return HealthReading(None, (), (f"replay of {self._path} has no more snapshots",))
        snapshot = self._snapshots[index]
        end = (
            self._snapshots[index + 1].line - 1
            if index + 1 < len(self._snapshots)
            else len(self._lines)
        )
        now = time.time()
        capture = Capture(
            REPLAY_TOOL,
            (REPLAY_TOOL, self._path, f"snapshot {index + 1}"),
            0,
            "\n".join(self._lines[snapshot.line - 1 : end]) + "\n",
            "",
            now,
            now,
        )
        try:
            sample = normalise_smartctl(snapshot.doc, taken_at_s=snapshot.taken_at_s)
        except ParseError as error:
            return HealthReading(None, (capture,), (f"replayed snapshot unreadable: {error}",))
        label = f"replay of {self._path}, snapshot {index + 1} of {len(self._snapshots)}"
        sample = dataclasses.replace(sample, sources=(*sample.sources, label))
        return HealthReading(sample, (capture,), (f"health replayed from {self._path}",))
