"""Logs of timestamped smartctl snapshots (e.g. appended by cron), split into documents."""

from dataclasses import dataclass, field
from typing import Any

from ssdlab.errors import ParseError
from ssdlab.parse.number_bounds import refuse_long_digit_runs
from ssdlab.parse.smartctl_text import (
    _ATTR_BRIEF,
    _ATTR_HEADER_BRIEF,
    _ATTR_HEADER_OLD,
    _ATTR_OLD,
    _ATTR_REVISION,
    _BANNER,
    _DEVSTAT_TITLE,
    _NVME_LOG,
    _SECTION,
    IDENTITY_FROM_LINE_KEY,
    MODEL_OVERRIDE_KEY,
    ZONE_ASSUMED_KEY,
    smartctl_text_to_json,
)
from ssdlab.parse.timestamps import parse_timestamp

# ---------------------------------------------------------------------------------------------
# Cron logs: many timestamped runs appended to one file.

_IDENTITY_KEYS = (
    "model_family",
    "model_name",
    "serial_number",
    "firmware_version",
    "wwn",
    "user_capacity",
    "logical_block_size",
    "physical_block_size",
    "rotation_rate",
    "form_factor",
    "in_smartctl_database",
    "ata_version",
    "sata_version",
    "nvme_pci_vendor",
    "nvme_ieee_oui_identifier",
    "nvme_total_capacity",
    "nvme_version",
    "nvme_namespaces",
)


@dataclass(frozen=True, slots=True)
class LogSnapshot:
    """One smartctl run from a log file of many.

    `taken_at_s`: Unix time from the run's date line or, without one, its "Local Time is:" line;
    None when neither is there. `zone_assumed`: that time had no (or an unknown) time zone and
    was taken as UTC. `time_source`: "date line" or "local time". `doc`: the run as
    smartctl_text_to_json gives it, with identity filled in from earlier runs of the same drive.
    `line`: 1-based line where the run starts in the log.
    """

    taken_at_s: float | None
    doc: dict[str, Any]
    line: int
    zone_assumed: bool = False
    time_source: str | None = None


@dataclass
class _Block:
    start: int  # 1-based line number
    stamp: tuple[float, bool] | None
    lines: list[str] = field(default_factory=list)
    markers: set[str] = field(default_factory=set)
    attribute_ids: set[int] = field(default_factory=set)
    has_content: bool = False
    ends_partial: bool = False


def _marker(line: str) -> str | None:
    """Lines that appear once per smartctl run; a second one starts a new run."""
    stripped = line.strip()
    if _BANNER.fullmatch(stripped):
        return "banner"
    if (section := _SECTION.fullmatch(stripped)) is not None:
        return "section " + section.group("name")
    if _ATTR_REVISION.fullmatch(stripped):
        return "attribute revision"  # printed just before the table header
    if _ATTR_HEADER_OLD.fullmatch(stripped) or _ATTR_HEADER_BRIEF.fullmatch(stripped):
        return "attributes"
    if _NVME_LOG.fullmatch(stripped):
        return "nvme log"
    if _DEVSTAT_TITLE.fullmatch(stripped):
        return "devstat"
    return None


def _row_ids(lines: list[str], start: int) -> set[int]:
    """The attribute IDs of the table rows from `start` up to the first line that is not one."""
    found: set[int] = set()
    for line in lines[start:]:
        row = line.expandtabs(8).strip()
        match = _ATTR_OLD.fullmatch(row) or _ATTR_BRIEF.fullmatch(row)
        if match is None:
            break
        ident = match.group("id")
        found.add(int(ident, 16) if ident.startswith("0x") else int(ident))
    return found


def _split_blocks(text: str) -> list[_Block]:
    """Runs of the log. With date lines in it, a run is everything from one date line to the
    next (it may hold several smartctl calls, e.g. ``-i`` then ``-A``); without, a run starts at
    each banner. Either way a repeated table or section also starts a new run."""
    lines = [line.rstrip("\r") for line in text.split("\n")]
    partial_index = len(lines) - 1 if not text.endswith("\n") else -1
    stamps = [parse_timestamp(line) if line.strip() else None for line in lines]
    dated = any(stamp is not None for stamp in stamps)
    blocks: list[_Block] = []
    current: _Block | None = None
    for index, (line, stamp) in enumerate(zip(lines, stamps, strict=True)):
        if stamp is not None:
            current = _Block(start=index + 1, stamp=stamp)
            blocks.append(current)
            continue
        marker = _marker(line)
        if (
            marker == "attributes"
            and current is not None
            and marker in current.markers
            and not (_row_ids(lines, index + 1) & current.attribute_ids)
        ):
            marker = None  # the same table continued under a header of its own
        if marker is not None and (
            current is None
            or (marker != "banner" and marker in current.markers)
            or (marker == "banner" and current.has_content and not dated)
        ):
            current = _Block(start=index + 1, stamp=None)
            blocks.append(current)
        if current is None:
            continue  # lines before the first run (shell noise, a header comment)
        if marker == "banner":
            # A new smartctl call inside a dated run: its sections may repeat the earlier
            # call's section headers without starting a new run.
            current.markers = {"banner"}
        elif marker is not None:
            current.markers.add(marker)
        current.lines.append(line)
        current.attribute_ids |= _row_ids([line], 0)
        current.ends_partial = index == partial_index
        if line.strip():
            current.has_content = True
    return blocks


def _merge(into: dict[str, Any], doc: dict[str, Any]) -> None:
    for key, value in doc.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def _parse_block(block: _Block) -> dict[str, Any]:
    """One run's doc; several smartctl calls in one dated run are merged, later ones winning."""
    calls: list[list[str]] = [[]]
    for line in block.lines:
        if _BANNER.fullmatch(line.strip()) and any(part.strip() for part in calls[-1]):
            calls.append([])
        calls[-1].append(line)
    doc: dict[str, Any] = {}
    for number, call in enumerate(calls):
        last = number == len(calls) - 1
        chunk = "\n".join(call) + ("" if last and block.ends_partial else "\n")
        _merge(doc, smartctl_text_to_json(chunk))
    return doc


def _pick_time(block: _Block, doc: dict[str, Any]) -> tuple[float | None, bool, str | None]:
    candidates: list[tuple[float, bool, str]] = []
    if block.stamp is not None:
        candidates.append((block.stamp[0], block.stamp[1], "date line"))
    local = doc.get("local_time", {})
    if "time_t" in local:
        candidates.append((float(local["time_t"]), bool(local.get(ZONE_ASSUMED_KEY)), "local time"))
    for epoch, assumed, source in candidates:
        if not assumed:
            return epoch, False, source
    if candidates:
        return candidates[0]
    return None, False, None


def _inherit_identity(
    doc: dict[str, Any], known: dict[str, Any], known_line: int | None, line: int
) -> tuple[dict[str, Any], int | None]:
    """Fill doc's missing identity from `known`; return the identity later runs should use."""
    own = {key: doc[key] for key in _IDENTITY_KEYS if key in doc}
    if own:
        clash = any(
            key in known and key in own and known[key] != own[key]
            for key in ("model_name", "serial_number")
        )
        merged = dict(own) if clash else {**known, **own}
        filled = False
        for key, value in merged.items():
            if key not in doc:
                doc[key] = value
                filled = True
        if filled and known_line is not None:
            doc[IDENTITY_FROM_LINE_KEY] = known_line
        return merged, line
    if known:
        for key, value in known.items():
            doc[key] = value
        if known_line is not None:
            doc[IDENTITY_FROM_LINE_KEY] = known_line
    return known, known_line


def split_snapshot_log(text: str, *, model_override: str | None = None) -> list[LogSnapshot]:
    """The smartctl runs in a log that a cron job appended to, in file order.

    A run starts at a date line (``date``, ``date -Is``, ``date +%s``, ``=== 2024-05-01 12:00:00
    ===`` and the other forms parse_timestamp reads) or, without one, at smartctl's banner. Runs
    are parsed with smartctl_text_to_json; a run that lacks identity lines (``smartctl -A``)
    takes them from the latest earlier run that had them (until a run shows another model or
    serial), and `model_override` replaces the model of every run. Raises ParseError when no run
    is found or when any run cannot be parsed (the message names its line).
    """
    refuse_long_digit_runs(text, "smartctl log")
    blocks = _split_blocks(text)
    if not blocks:
        raise ParseError("no smartctl runs found in this log")
    snapshots: list[LogSnapshot] = []
    known: dict[str, Any] = {}
    known_line: int | None = None
    for block in blocks:
        if not block.has_content:
            raise ParseError(f"line {block.start}: a date line with no smartctl output after it")
        try:
            doc = _parse_block(block)
        except ParseError as error:
            raise ParseError(f"run starting at line {block.start}: {error}") from error
        known, known_line = _inherit_identity(doc, known, known_line, block.start)
        if model_override is not None:
            doc["model_name"] = model_override
            doc[MODEL_OVERRIDE_KEY] = True
        taken_at, assumed, source = _pick_time(block, doc)
        snapshots.append(
            LogSnapshot(
                taken_at_s=taken_at,
                doc=doc,
                line=block.start,
                zone_assumed=assumed,
                time_source=source,
            )
        )
    return snapshots
