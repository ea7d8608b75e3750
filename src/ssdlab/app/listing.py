"""`ssdlab runs`: the stored runs a filter selects, newest first, a page at a time, read from
the plain, indexed columns of the run rows only (store/listing.py): the same time with 100
runs stored as with 100,000, and none of the report code imported."""

import sqlite3
from dataclasses import dataclass, field

from ssdlab.model.run import RunKind
from ssdlab.store.listing import RunFilter, RunListing, count_run_listings, list_run_listings
from ssdlab.store.run_rows import UnreadableRun

_TOOL_SHORT = {"CrystalDiskMark": "CDM", "KDiskMark": "KDM"}


@dataclass(frozen=True, slots=True)
class ListingRequest:
    wanted: RunFilter = field(default_factory=RunFilter)
    limit: int = 50  # runs on the page
    offset: int = 0  # newest runs that match skipped first


@dataclass(frozen=True, slots=True)
class Listing:
    runs: tuple[RunListing | UnreadableRun, ...]
    more: int  # older runs that match too (counted only when the page is full)
    request: ListingRequest

    @property
    def filtered(self) -> bool:
        """Whether the page was narrowed by a filter or an offset (an empty page then means no
        match, not an empty store)."""
        return self.request.wanted != RunFilter() or self.request.offset > 0


def list_stored_runs(conn: sqlite3.Connection, request: ListingRequest) -> Listing:
    listed = list_run_listings(conn, request.limit, request.wanted, request.offset)
    more = 0
    if len(listed) == request.limit:  # a full page: count what is left on the indexes
        more = max(count_run_listings(conn, request.wanted) - request.offset - len(listed), 0)
    return Listing(tuple(listed), more, request)


def run_label(run: RunListing) -> str:
    """What a run is, as people name it: 'quick (real)', 'pts-iops', 'sim', 'import (CDM 8)'."""
    if run.kind is RunKind.QUICK:
        return f"quick ({run.preset})" if run.preset else "quick"
    if run.kind is RunKind.IMPORT:
        tool = run.source_tool
        if tool is None:
            return "import"
        words = tool.split()
        if words and words[0] in _TOOL_SHORT:
            major = words[1].split(".")[0] if len(words) > 1 else ""
            tool = f"{_TOOL_SHORT[words[0]]} {major}".strip()
        return f"import ({tool})"
    if run.kind is RunKind.PROFILE or (run.kind is RunKind.SIM and run.profile == "model-fit"):
        return run.profile  # a fitted model is stored as a sim run (app/model_fit.py)
    return run.kind.value


def listing_json(listing: Listing) -> dict[str, object]:
    """The document `runs --json` prints: each run's columns, and the page."""
    request = listing.request
    return {
        "format": "ssdlab-runs",
        "format_version": 1,
        "runs": [_run_json(r) for r in listing.runs],
        "page": {"offset": request.offset, "limit": request.limit, "more": listing.more},
    }


def _run_json(r: RunListing | UnreadableRun) -> dict[str, object]:
    """One run of `runs --json`: `host` is the inventory name of a collected run (its node's
    own hostname is `node_host`), this machine's name for a run made here."""
    if isinstance(r, UnreadableRun):
        return {"id": r.run_id, "unreadable": r.problem}
    return {
        "id": r.run_id,
        "profile": run_label(r),
        "kind": r.kind,
        "profile_name": r.profile,
        "preset": r.preset,
        "status": r.status.value,
        "status_reason": r.status_reason,
        "target_kind": r.target_kind,
        "target": r.target_path,
        "started_at_s": r.started_at_s,
        "ended_at_s": r.ended_at_s,
        "uuid": r.uuid,
        "host": r.host,
        "node_host": r.node_host,
        "collected_at_s": r.collected_at_s,
        "drive_model": r.drive_model,
        "drive_serial": r.drive_serial,
    }
