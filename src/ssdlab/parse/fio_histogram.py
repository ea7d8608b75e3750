"""Completion-latency histograms (clat_ns bins) from fio's json+ output."""

import json
from collections.abc import Mapping


def clat_bins_of(output: str) -> tuple[dict[int, int], ...]:
    """Every job's read and write clat_ns bins (latency ns → count) of a fio json+ output, in
    job order, read before write; empty when the output is not JSON or holds no bins."""
    try:
        jobs = json.loads(output).get("jobs", [])
    except (json.JSONDecodeError, AttributeError):
        return ()
    found = []
    for job in jobs:
        for direction in ("read", "write"):
            bins = job.get(direction, {}).get("clat_ns", {}).get("bins")
            if isinstance(bins, dict) and bins:
                found.append({int(k): int(v) for k, v in bins.items()})
    return tuple(found)


def clat_bins_by_capture(outputs: Mapping[int, str]) -> dict[int, tuple[dict[int, int], ...]]:
    """`clat_bins_of` of every fio output, by capture id."""
    return {capture_id: clat_bins_of(output) for capture_id, output in outputs.items()}


def clat_by_direction(output: str) -> dict[str, tuple[dict[int, int], int | None]]:
    """Per direction (read, write, trim) of a fio json+ output: its clat_ns bins added over
    the jobs, and the largest clat_ns max of them (None when fio gave none); a direction
    without I/Os is left out."""
    try:
        jobs = json.loads(output).get("jobs", [])
    except (json.JSONDecodeError, AttributeError):
        return {}
    found: dict[str, tuple[dict[int, int], int | None]] = {}
    for job in jobs:
        for direction in ("read", "write", "trim"):
            clat = job.get(direction, {}).get("clat_ns", {})
            bins = clat.get("bins")
            if not isinstance(bins, dict) or not bins:
                continue
            added, largest = found.get(direction, ({}, None))
            for value, count in bins.items():
                added[int(value)] = added.get(int(value), 0) + int(count)
            top = clat.get("max")
            if isinstance(top, int | float):
                largest = int(top) if largest is None else max(largest, int(top))
            found[direction] = (added, largest)
    return found
