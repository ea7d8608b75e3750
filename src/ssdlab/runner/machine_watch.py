"""A run's machine check as the run goes: the check made before it, the counters sampled
around every fio pass, and the record kept in the run's environment (`environment["machine"]`,
rewritten between passes). When the store shares the target's device, the store is written
only between passes: its files are made durable before each pass starts, so that nothing of
ssdlab's reaches that device while fio measures it."""

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from ssdlab.analysis.machine import pass_load
from ssdlab.errors import ParseError
from ssdlab.model.json_fields import FieldMismatch, decode_fields, encode
from ssdlab.model.machine import MACHINE_KEY, FioIo, LoadSnapshot, MachineCheck
from ssdlab.parse.machine_load import fio_io

SAME_DEVICE_NOTICE = (
    "the store is on the same device as the target: ssdlab writes it only between passes"
)


class MachineWatch:
    """The check of one run (or of one resumed life of it: the passes of the earlier ones are
    kept) and the sampler of its passes."""

    def __init__(self, check: MachineCheck, snapshot: Callable[[], LoadSnapshot]) -> None:
        self._check = check
        self._snapshot = snapshot

    @property
    def check(self) -> MachineCheck:
        return self._check

    @property
    def defers_store(self) -> bool:
        """Whether the store is written only between passes (it is on the target's device)."""
        return self._check.store_on_target_device is True

    def continue_from(self, environment: Mapping[str, Any]) -> None:
        """A resumed run keeps the passes its earlier lives recorded."""
        stored = environment.get(MACHINE_KEY)
        if not isinstance(stored, Mapping):
            return
        try:
            earlier = decode_fields(MachineCheck, dict(stored))
        except FieldMismatch:
            return
        self._check = replace(self._check, passes=(*earlier.passes, *self._check.passes))

    def before_pass(self) -> LoadSnapshot:
        return self._snapshot()

    def after_pass(
        self, step_key: str, round_index: int, before: LoadSnapshot, fio_stdout: str
    ) -> None:
        """Sample again as fio has ended, and keep the pass's load (in memory)."""
        after = self._snapshot()
        done: FioIo | None
        try:
            done = fio_io(fio_stdout)
        except ParseError:
            done = None  # a failed or cut-short fio: the device's counters are kept
        load = pass_load(step_key, round_index, before, after, done)
        self._check = replace(self._check, passes=(*self._check.passes, load))

    def environment(self, environment: Mapping[str, Any]) -> dict[str, Any]:
        """`environment` (a run's, as stored) with this check in it."""
        return {**environment, MACHINE_KEY: encode(self._check)}
