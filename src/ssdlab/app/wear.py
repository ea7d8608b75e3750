"""`ssdlab wear A B`: what happened between two health samples (writes, WAF, wear rate, days to
the end of rated life); each a stored sample id, a saved file, or a drive read now (stored)."""

import dataclasses
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ssdlab.analysis.wear import compare_samples
from ssdlab.app.health_readings import (
    CHECK_PHASE,
    SavedReading,
    checked_elapsed,
    is_readable_drive,
    new_drive_run,
    read_drive,
    samples_from_file,
    store_reading,
    vendor_map,
)
from ssdlab.app.rated_endurance import GivenRating, rating_for
from ssdlab.errors import SsdlabError, UsageError
from ssdlab.model.health import HealthSample
from ssdlab.model.run import RunKind, RunStatus
from ssdlab.report.health import Section, sections_json, wear_sections
from ssdlab.runner.session import RunSession
from ssdlab.store.health import load_health_sample
from ssdlab.store.lifecycle import finish_run


@dataclass(frozen=True, slots=True)
class WearRequest:
    """The two samples (a stored sample id, a saved file or a drive), how a saved file is
    read, and what the drive's counters need to be read right."""

    before: str
    after: str
    saved: SavedReading = field(default_factory=SavedReading)
    raw_nand_capacity_bytes: int | None = None
    slc_cached: bool = False
    rating: GivenRating = field(default_factory=GivenRating)


@dataclass(frozen=True, slots=True)
class WearOutcome:
    """Each sample's name ('sample 12', '/dev/sdb now (sample 14)', a file), the sections and
    the `--json` document (format `ssdlab-wear`)."""

    before: str
    after: str
    sections: tuple[Section, ...]
    document: dict[str, Any]


def _sample(session: RunSession, text: str, request: WearRequest) -> tuple[HealthSample, str]:
    if text.isdigit():
        stored = load_health_sample(session.conn, int(text))
        if stored is None:
            raise UsageError(f"there is no stored health sample {text}")
        return stored.sample, f"sample {text}"
    if is_readable_drive(text):
        names = vendor_map(request.saved.vendor_map)
        conn = session.conn
        run_id = new_drive_run(conn, RunKind.HEALTH, os.path.realpath(text), {})
        reading = read_drive(text, names)
        sample_id = store_reading(conn, run_id, CHECK_PHASE, reading)
        finish_run(conn, run_id, RunStatus.COMPLETE, None, time.time())
        if reading.sample is None:
            raise SsdlabError("; ".join(reading.notes) or f"no health data from {text}")
        return reading.sample, f"{text} now (sample {sample_id})"
    if Path(text).exists():
        return samples_from_file(text, request.saved)[-1], text
    raise UsageError(f"{text!r} is neither a stored sample id, a block device nor a file")


def compare_wear(session: RunSession, request: WearRequest) -> WearOutcome:
    """Both samples found (or read and stored), then compared."""
    elapsed_s = checked_elapsed(request.saved.elapsed_s)
    before, before_name = _sample(session, request.before, request)
    after, after_name = _sample(session, request.after, request)
    report = compare_samples(
        before,
        after,
        raw_nand_capacity_bytes=request.raw_nand_capacity_bytes,
        slc_cached=True if request.slc_cached else None,
        rated=rating_for(session.conn, request.rating, after),
        elapsed_s=elapsed_s,
    )
    sections = wear_sections(report)
    document = {
        "format": "ssdlab-wear",
        "format_version": 1,
        "before": before_name,
        "after": after_name,
        "report": dataclasses.asdict(report),
        "sections": sections_json(sections),
    }
    return WearOutcome(before_name, after_name, sections, document)
