"""The one note a run's documents give about its machine (other I/O on the target's device,
other processes' CPU time, the CPU frequency governor, a virtual machine, a store on the
target's device), from the machine check stored in its environment. A run stored without the
check (before ssdlab made it, or a kind of run that makes none) has no note and no new key."""

from collections.abc import Mapping
from typing import Any

from ssdlab.analysis.machine import machine_note
from ssdlab.model.json_fields import FieldMismatch, decode_fields
from ssdlab.model.machine import MACHINE_KEY, MachineCheck
from ssdlab.model.run import RunRecord


def machine_check(run: RunRecord) -> MachineCheck | None:
    """The run's stored machine check; None when it has none (or one this ssdlab cannot read)."""
    stored = run.environment.get(MACHINE_KEY)
    if not isinstance(stored, Mapping):
        return None
    try:
        return decode_fields(MachineCheck, dict(stored))
    except FieldMismatch:
        return None


def run_machine_note(run: RunRecord) -> str | None:
    check = machine_check(run)
    return None if check is None else machine_note(check)


def machine_data(run: RunRecord) -> dict[str, Any]:
    """The JSON key a document gains with the check: `machine_note`, the note's text (None
    when nothing matters); the figures themselves are in `environment.machine`. Nothing for a
    run without the check."""
    check = machine_check(run)
    return {} if check is None else {"machine_note": machine_note(check)}
