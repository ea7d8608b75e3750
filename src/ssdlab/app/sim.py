"""`ssdlab sim` and `sim sweep`: the run a request asks for (checked in app/sim_setup.py)
simulated and stored (runner/sim.py), then given as its document; `sim presets`: the drive
presets, their sources and the command that simulates one.

The command line keeps the edges: the signal guard (a simulation stops at its next check when
`should_stop` says, keeping what finished) and the progress display (`on_point`)."""

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ssdlab.app.command_context import command_context
from ssdlab.app.runs import run_document, stored_run
from ssdlab.model.next_command import next_command
from ssdlab.report.document import Document
from ssdlab.runner.sim import Progress, SimRunSpec, run_simulation
from ssdlab.sim.presets import APPROXIMATION, Preset, load_presets


@dataclass(frozen=True, slots=True)
class SimOutcome:
    run_id: int
    document: Document


def simulate(
    conn: sqlite3.Connection,
    spec: SimRunSpec,
    on_point: Progress,
    should_stop: Callable[[], bool],
) -> SimOutcome:
    """Simulate and store every point of `spec`, then read the run back as its document."""
    run_id = run_simulation(conn, spec, on_point=on_point, should_stop=should_stop)
    return SimOutcome(run_id, run_document(stored_run(conn, run_id)))


@dataclass(frozen=True, slots=True)
class PresetList:
    """The presets, what they are (`note`), the command that simulates one (`hint`), and all
    of it as the `--json` document (format `ssdlab-sim-presets`)."""

    presets: tuple[Preset, ...]
    note: str
    hint: str
    document: dict[str, Any]


def _preset_json(preset: Preset) -> dict[str, Any]:
    return {
        "name": preset.name,
        "summary": preset.summary,
        "logical_bytes": preset.logical_bytes,
        "physical_bytes": preset.physical_bytes,
        "page_bytes": preset.page_bytes,
        "pages_per_block": preset.pages_per_block,
        "bits_per_cell": preset.bits_per_cell,
        "slc_static_bytes": preset.slc_static_bytes,
        "slc_dynamic": preset.slc_dynamic,
        "pe_cycles": preset.pe_cycles,
        "gc": preset.gc,
        "source": preset.source,
        "assumed": preset.assumed,
    }


def list_presets(database: Path | None) -> PresetList:
    """Every shipped preset; `database` the store a simulation would be stored in."""
    presets = tuple(load_presets().values())
    document = {
        "format": "ssdlab-sim-presets",
        "format_version": 1,
        "note": APPROXIMATION,
        "presets": [_preset_json(p) for p in presets],
    }
    hint = next_command(command_context(database), ("sim", "--preset", "NAME"))
    return PresetList(presets, APPROXIMATION, hint, document)
