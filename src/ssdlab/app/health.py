"""`ssdlab health`: a drive's health read now, or a saved smartctl/nvme-cli file or a log of
many readings read back; stored (app/health_readings.py says as what), and given as the
sections the terminal prints and the JSON document `--json` prints (format `ssdlab-health` for
one sample, `ssdlab-health-series` for a series, with its wear, projection and counter steps)."""

import dataclasses
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ssdlab.analysis.steps import counter_step_timing
from ssdlab.analysis.wear import analyse_series, timeline
from ssdlab.app.health_readings import (
    CHECK_PHASE,
    SavedReading,
    checked_elapsed,
    is_readable_drive,
    new_drive_run,
    read_drive,
    samples_from_file,
    store_file_samples,
    store_reading,
    vendor_map,
)
from ssdlab.app.rated_endurance import GivenRating, rating_for
from ssdlab.errors import SsdlabError, UsageError
from ssdlab.model.health import HealthSample
from ssdlab.model.run import RunKind, RunStatus
from ssdlab.report.health import Section, health_json, health_sections, series_sections
from ssdlab.runner.session import RunSession
from ssdlab.store.lifecycle import finish_run

ONE_SAMPLE = "--elapsed is the time between samples; this input holds only one"


@dataclass(frozen=True, slots=True)
class HealthRequest:
    """A drive or a saved file (`target`), or a log of many readings (`import_log`); how a
    saved input is read; the counter whose steps a series times; the rating given."""

    target: str | None = None
    import_log: str | None = None
    saved: SavedReading = field(default_factory=SavedReading)
    step_metric: str = "erase_count_avg"
    rating: GivenRating = field(default_factory=GivenRating)


@dataclass(frozen=True, slots=True)
class HealthOutcome:
    """What was read and stored: the sections, the `--json` document, the stored sample ids
    (None for a reading that stored no sample) and the notes of a drive read now."""

    sections: tuple[Section, ...]
    document: dict[str, Any]
    sample_ids: tuple[int | None, ...]
    notes: tuple[str, ...] = ()


def _sample_json(sample: HealthSample, sample_id: int | None) -> dict[str, Any]:
    return {"sample_id": sample_id, **dataclasses.asdict(sample)}


def _one_sample(sample: HealthSample, sample_id: int | None, notes: Sequence[str]) -> HealthOutcome:
    sections = health_sections(sample)
    document = {
        "format": "ssdlab-health",
        "format_version": 1,
        "sample": _sample_json(sample, sample_id),
        **health_json(sample, sections),
    }
    return HealthOutcome(sections, document, (sample_id,), tuple(notes))


def _series(
    session: RunSession, request: HealthRequest, samples: list[HealthSample], ids: list[int]
) -> HealthOutcome:
    elapsed_s = request.saved.elapsed_s
    rated = rating_for(session.conn, request.rating, samples[-1])
    report = analyse_series(samples, rated=rated, elapsed_s=elapsed_s)
    timed = timeline(samples, elapsed_s=elapsed_s).samples
    steps = counter_step_timing(timed, request.step_metric)
    sections = health_sections(samples[-1]) + series_sections(report, steps)
    document = {
        "format": "ssdlab-health-series",
        "format_version": 1,
        "sample_ids": ids,
        "latest_sample": _sample_json(samples[-1], ids[-1]),
        "series": dataclasses.asdict(report),
        "steps": [dataclasses.asdict(s) for s in steps],
        **health_json(samples[-1], sections),
    }
    return HealthOutcome(sections, document, tuple(ids))


def _saved(session: RunSession, request: HealthRequest, path: str) -> HealthOutcome:
    samples = samples_from_file(path, request.saved)
    if len(samples) == 1 and request.saved.elapsed_s is not None:
        raise UsageError(ONE_SAMPLE)
    run_id, ids = store_file_samples(session.conn, path, samples)
    finish_run(session.conn, run_id, RunStatus.COMPLETE, None, time.time())
    if len(samples) == 1:
        return _one_sample(samples[0], ids[0], ())
    return _series(session, request, samples, ids)


def _drive(session: RunSession, request: HealthRequest, device: str) -> HealthOutcome:
    if request.saved.elapsed_s is not None:
        raise UsageError(ONE_SAMPLE)
    names = vendor_map(request.saved.vendor_map)
    conn = session.conn
    run_id = new_drive_run(conn, RunKind.HEALTH, os.path.realpath(device), {})
    reading = read_drive(device, names)
    sample_id = store_reading(conn, run_id, CHECK_PHASE, reading)
    status = RunStatus.COMPLETE if reading.sample else RunStatus.FAILED
    finish_run(conn, run_id, status, "; ".join(reading.notes) or None, time.time())
    if reading.sample is None:
        raise SsdlabError("; ".join(reading.notes) or "no health data")
    return _one_sample(reading.sample, sample_id, reading.notes)


def check_health(session: RunSession, request: HealthRequest) -> HealthOutcome:
    """Read the drive, file or log the request names, store it and lay it out."""
    if not request.target and not request.import_log:
        raise UsageError("name a block device or a saved smartctl/nvme-cli file, or --import LOG")
    checked_elapsed(request.saved.elapsed_s)
    if request.import_log or not is_readable_drive(str(request.target)):
        return _saved(session, request, str(request.import_log or request.target))
    return _drive(session, request, str(request.target))
