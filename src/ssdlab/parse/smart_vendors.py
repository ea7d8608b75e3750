"""The vendor SMART attribute map: which attribute means what, in which unit, on which drives.

The map is data (``smart_vendors.toml`` beside this module; its header documents the schema).
Entries are keyed on a model-family / model regex plus the attribute ID (or the Device
Statistics page and offset) because drivedb names drift between smartmontools versions; the name
is only a hint (``name_match`` / ``name_skip`` tell OEM variants of one family apart). Users add
or override entries with a TOML file in the same schema: ``load_vendor_map(extra_toml=text)``.
"""

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from ssdlab.errors import ParseError
from ssdlab.model.health import HEALTH_METRICS
from ssdlab.model.toml_text import TomlError, parse_toml

METRIC_NONE = "none"
"""An entry with this metric declares the attribute meaningless on the matching drives."""

LOGICAL_SECTOR = "logical_sector"
"""``unit_bytes`` value meaning "the drive's logical_block_size"."""

EntryKind = Literal["attribute", "devstat"]
Field = Literal["raw", "norm", "worst"]
Direction = Literal["used", "remaining"]

BUILTIN_PRIORITY = 50
USER_PRIORITY = 100

_FIELDS: frozenset[str] = frozenset({"raw", "norm", "worst"})
_DIRECTIONS: frozenset[str] = frozenset({"used", "remaining"})
_CALIBRATIONS: frozenset[str] = frozenset({"page_size"})
_GROUP_KEYS = frozenset({"name", "family", "model", "firmware", "attribute", "devstat"})
_COMMON_KEYS = frozenset(
    {
        "family",
        "model",
        "firmware",
        "metric",
        "unit",
        "unit_bytes",
        "scale",
        "priority",
        "note",
        "min",
        "max",
    }
)
_ATTRIBUTE_KEYS = _COMMON_KEYS | {
    "id",
    "plus",
    "field",
    "raw_shift",
    "raw_bits",
    "direction",
    "name_match",
    "name_skip",
    "calibrate",
}
_DEVSTAT_KEYS = _COMMON_KEYS | {"page", "offset", "direction"}
_PLACEHOLDER_NAME = re.compile(r"^(Unknown_(SSD_)?Attribute|Not_In_Use|Reserved)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class VendorEntry:
    """One row of the map: this attribute (or devstat entry) on these drives means this metric."""

    kind: EntryKind
    metric: str  # a HEALTH_METRICS name, or METRIC_NONE
    unit: str  # one raw count, in words ("32 MiB", "logical sector", "%")
    group: str  # the [[vendor]] name, for provenance
    family: re.Pattern[str] | None = None
    model: re.Pattern[str] | None = None
    firmware: re.Pattern[str] | None = None
    attribute_id: int | None = None  # kind == "attribute"
    plus_ids: tuple[int, ...] = ()
    page: int | None = None  # kind == "devstat"
    offset: int | None = None
    unit_bytes: float | None = None  # bytes per count (byte metrics), unless per_logical_sector
    per_logical_sector: bool = False
    scale: float = 1.0  # metric units per count (non-byte metrics)
    field: Field = "raw"
    raw_shift: int = 0
    raw_bits: int | None = None  # None: all of raw.value
    direction: Direction = "used"
    min_value: float | None = None
    max_value: float | None = None
    name_match: re.Pattern[str] | None = None
    name_skip: re.Pattern[str] | None = None
    calibrate: str | None = None
    priority: int = BUILTIN_PRIORITY
    note: str | None = None
    origin: str = "built-in"

    @property
    def generic(self) -> bool:
        """True for fallbacks that apply to every drive (no family and no model pattern)."""
        return self.family is None and self.model is None

    @property
    def is_bytes(self) -> bool:
        return self.metric.endswith("_bytes")

    def applies_to(self, *, family: str | None, model: str | None, firmware: str | None) -> bool:
        """Family OR model matches (or the entry is generic), and firmware too when given."""
        if self.firmware is not None and (
            firmware is None or self.firmware.search(firmware) is None
        ):
            return False
        if self.generic:
            return True
        return bool(
            (self.family is not None and family is not None and self.family.search(family))
            or (self.model is not None and model is not None and self.model.search(model))
        )

    def accepts_name(self, name: str | None) -> bool:
        """Whether the attribute's drivedb name is compatible with this entry."""
        text = name or ""
        if self.generic and _PLACEHOLDER_NAME.search(text):
            return False
        if self.name_match is not None and self.name_match.search(text) is None:
            return False
        return self.name_skip is None or self.name_skip.search(text) is None

    @property
    def slot(self) -> tuple[str, int, int]:
        """What the entry reads: ("attribute", id, 0) or ("devstat", page, offset)."""
        if self.kind == "attribute":
            return ("attribute", self.attribute_id or 0, 0)
        return ("devstat", self.page or 0, self.offset or 0)

    @property
    def key(self) -> tuple[object, ...]:
        """Identity for overrides: a user entry with the same key replaces the built-in one."""
        return (
            *self.slot,
            _pattern_text(self.family),
            _pattern_text(self.model),
            _pattern_text(self.firmware),
            self.metric,
        )


@dataclass(frozen=True, slots=True)
class VendorMap:
    """All entries; ``for_drive`` picks the ones that apply, best first."""

    entries: tuple[VendorEntry, ...]

    def for_drive(
        self, *, family: str | None, model: str | None, firmware: str | None
    ) -> tuple[VendorEntry, ...]:
        """Entries for one drive, highest priority first; "none" entries hide lower ones."""
        matching = [
            e for e in self.entries if e.applies_to(family=family, model=model, firmware=firmware)
        ]
        # Stable sort: at equal priority user entries (listed first) come first.
        matching.sort(key=lambda e: -e.priority)
        hidden: dict[tuple[str, int, int], int] = {}
        result: list[VendorEntry] = []
        for entry in matching:
            if entry.slot in hidden and entry.priority < hidden[entry.slot]:
                continue
            if entry.metric == METRIC_NONE:
                hidden[entry.slot] = entry.priority
                continue
            result.append(entry)
        return tuple(result)

    def is_known_drive(
        self, *, family: str | None, model: str | None, firmware: str | None
    ) -> bool:
        """True when at least one vendor-specific (non-generic) entry applies."""
        return any(
            not e.generic and e.applies_to(family=family, model=model, firmware=firmware)
            for e in self.entries
        )


def load_vendor_map(extra_toml: str | None = None, origin: str = "user") -> VendorMap:
    """The built-in map, plus (and overridden by) the entries of a user TOML text (read
    from `origin`, the name its errors give).

    Raises ParseError naming the bad entry when either text breaks the schema.
    """
    builtin = _builtin_entries()
    if extra_toml is None:
        return VendorMap(builtin)
    user = parse_vendor_map(extra_toml, origin=origin, default_priority=USER_PRIORITY)
    replaced = {e.key for e in user}
    return VendorMap(user + tuple(e for e in builtin if e.key not in replaced))


@functools.cache
def _builtin_entries() -> tuple[VendorEntry, ...]:
    text = resources.files("ssdlab.parse").joinpath("smart_vendors.toml").read_text("utf-8")
    return parse_vendor_map(text, origin="built-in", default_priority=BUILTIN_PRIORITY)


def parse_vendor_map(
    text: str, *, origin: str, default_priority: int = BUILTIN_PRIORITY
) -> tuple[VendorEntry, ...]:
    """Validate a vendor-map TOML text (schema in smart_vendors.toml) into entries."""
    try:
        data = parse_toml(text, f"{origin} vendor map")
    except TomlError as error:
        raise ParseError(str(error)) from None
    unknown_top = set(data) - {"vendor"}
    if unknown_top:
        raise ParseError(f"{origin} vendor map: unknown top-level keys {sorted(unknown_top)}")
    groups = data.get("vendor", [])
    if not isinstance(groups, list):
        raise ParseError(f"{origin} vendor map: 'vendor' must be an array of tables ([[vendor]])")
    entries: list[VendorEntry] = []
    for index, group in enumerate(groups):
        where = f"{origin} vendor map, [[vendor]] #{index + 1}"
        if not isinstance(group, dict):
            raise ParseError(f"{where}: not a table")
        entries.extend(_parse_group(group, where, origin, default_priority))
    return tuple(entries)


def _parse_group(
    group: Mapping[str, Any], where: str, origin: str, default_priority: int
) -> list[VendorEntry]:
    unknown = set(group) - _GROUP_KEYS
    if unknown:
        raise ParseError(f"{where}: unknown keys {sorted(unknown)}")
    name = _opt_str(group, "name", where) or f"#{where.rsplit('#', 1)[-1]}"
    where = f"{where} ({name})"
    entries: list[VendorEntry] = []
    for kind in ("attribute", "devstat"):
        rows = group.get(kind, [])
        if not isinstance(rows, list):
            raise ParseError(f"{where}: '{kind}' must be an array of tables")
        for index, row in enumerate(rows):
            row_where = f"{where}, {kind} #{index + 1}"
            if not isinstance(row, dict):
                raise ParseError(f"{row_where}: not a table")
            merged = {k: group[k] for k in ("family", "model", "firmware") if k in group}
            merged.update(row)
            entries.append(_parse_entry(kind, merged, row_where, name, origin, default_priority))
    return entries


def _parse_entry(
    kind: EntryKind,
    row: Mapping[str, Any],
    where: str,
    group: str,
    origin: str,
    default_priority: int,
) -> VendorEntry:
    allowed = _ATTRIBUTE_KEYS if kind == "attribute" else _DEVSTAT_KEYS
    unknown = set(row) - allowed
    if unknown:
        raise ParseError(f"{where}: unknown keys {sorted(unknown)}")
    metric = _req_str(row, "metric", where)
    if metric != METRIC_NONE and metric not in HEALTH_METRICS:
        raise ParseError(
            f"{where}: metric {metric!r} is not one of {', '.join(HEALTH_METRICS)} or 'none'"
        )
    is_bytes = metric.endswith("_bytes")
    unit_bytes, per_sector = _unit_bytes(row, where, is_bytes and metric != METRIC_NONE)
    scale = _opt_number(row, "scale", where)
    if scale is not None and (is_bytes or scale <= 0):
        raise ParseError(f"{where}: 'scale' must be > 0 and is not used for byte metrics")
    direction = row.get("direction", "used")
    if direction not in _DIRECTIONS:
        raise ParseError(f"{where}: direction must be 'used' or 'remaining'")
    if direction == "remaining" and metric != "wear_used_pct":
        raise ParseError(f"{where}: direction 'remaining' only applies to wear_used_pct")
    field = row.get("field", "raw")
    if field not in _FIELDS:
        raise ParseError(f"{where}: field must be one of {sorted(_FIELDS)}")
    calibrate = _opt_str(row, "calibrate", where)
    if calibrate is not None and (calibrate not in _CALIBRATIONS or not is_bytes):
        raise ParseError(f"{where}: calibrate must be 'page_size' and only for byte metrics")
    raw_shift = _opt_int(row, "raw_shift", where, 0, 63) or 0
    raw_bits = _opt_int(row, "raw_bits", where, 1, 64)
    priority = _opt_int(row, "priority", where, -1000, 1000)
    family = _pattern(row, "family", where)
    model = _pattern(row, "model", where)
    if kind == "attribute":
        attribute_id = _opt_int(row, "id", where, 1, 255)
        if attribute_id is None:
            raise ParseError(f"{where}: 'id' (1-255) is required")
        plus = row.get("plus", [])
        if not isinstance(plus, list) or not all(
            isinstance(p, int) and not isinstance(p, bool) and 1 <= p <= 255 for p in plus
        ):
            raise ParseError(f"{where}: 'plus' must be a list of attribute ids")
        page = offset = None
    else:
        attribute_id, plus = None, []
        page = _opt_int(row, "page", where, 0, 255)
        offset = _opt_int(row, "offset", where, 0, 4095)
        if page is None or offset is None:
            raise ParseError(f"{where}: 'page' and 'offset' are required for devstat entries")
    return VendorEntry(
        kind=kind,
        metric=metric,
        unit=_req_str(row, "unit", where),
        group=group,
        family=family,
        model=model,
        firmware=_pattern(row, "firmware", where),
        attribute_id=attribute_id,
        plus_ids=tuple(plus),
        page=page,
        offset=offset,
        unit_bytes=unit_bytes,
        per_logical_sector=per_sector,
        scale=1.0 if scale is None else scale,
        field=field,
        raw_shift=raw_shift,
        raw_bits=raw_bits,
        direction=direction,
        min_value=_opt_number(row, "min", where),
        max_value=_opt_number(row, "max", where),
        name_match=_pattern(row, "name_match", where),
        name_skip=_pattern(row, "name_skip", where),
        calibrate=calibrate,
        priority=default_priority if priority is None else priority,
        note=_opt_str(row, "note", where),
        origin=origin,
    )


# no unit, scale or bound of a SMART attribute is larger (raw values are at most 48 bits)
_LARGEST = 2**64


def _unit_bytes(row: Mapping[str, Any], where: str, required: bool) -> tuple[float | None, bool]:
    value = row.get("unit_bytes")
    if value is None:
        if required:
            raise ParseError(f"{where}: byte metrics need 'unit_bytes' (bytes per raw count)")
        return None, False
    if not required:
        raise ParseError(f"{where}: 'unit_bytes' is only for *_bytes metrics")
    if value == LOGICAL_SECTOR:
        return None, True
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not 0 < value <= _LARGEST  # nan, inf and 10^400 are not a unit (and break the store)
    ):
        raise ParseError(f"{where}: 'unit_bytes' must be a positive number or 'logical_sector'")
    return float(value), False


def _pattern(row: Mapping[str, Any], key: str, where: str) -> re.Pattern[str] | None:
    text = _opt_str(row, key, where)
    if text is None:
        return None
    try:
        return re.compile(text, re.IGNORECASE)
    except re.error as error:
        raise ParseError(f"{where}: '{key}' is not a valid regular expression ({error})") from error


def _pattern_text(pattern: re.Pattern[str] | None) -> str | None:
    return None if pattern is None else pattern.pattern


def _req_str(row: Mapping[str, Any], key: str, where: str) -> str:
    value = _opt_str(row, key, where)
    if value is None:
        raise ParseError(f"{where}: '{key}' is required")
    return value


def _opt_str(row: Mapping[str, Any], key: str, where: str) -> str | None:
    value = row.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ParseError(f"{where}: '{key}' must be a non-empty string")
    return value


def _opt_int(row: Mapping[str, Any], key: str, where: str, low: int, high: int) -> int | None:
    value = row.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ParseError(f"{where}: '{key}' must be an integer from {low} to {high}")
    return value


def _opt_number(row: Mapping[str, Any], key: str, where: str) -> float | None:
    value = row.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not abs(value) <= _LARGEST:
        raise ParseError(f"{where}: '{key}' must be a finite number")
    return float(value)
