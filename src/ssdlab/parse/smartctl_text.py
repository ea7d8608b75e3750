"""smartctl's text output turned into a dict shaped like its JSON output.

Raw strings are decoded in ``smart_raw``, times in ``timestamps``; logs of many snapshots are
split in ``smartctl_log``.

All health normalisation lives in ``smartctl_json`` (``normalise_smartctl``); this module only
rebuilds, from ``smartctl -A`` / ``-a`` / ``-x`` text (ATA/SATA, NVMe and SCSI/SAS, smartctl
5.4x-8.x layouts; the SCSI lines are read by ``smartctl_scsi_text``), the document
``smartctl -x -j`` would have printed, using the same key names and
nesting (smart.md §1): ``model_name``, ``serial_number``, ``firmware_version``, ``model_family``,
``user_capacity.{blocks,bytes}``, ``logical_block_size``, ``device.protocol``,
``smart_status.passed``, ``ata_smart_attributes.{revision,table[]}``,
``ata_device_statistics.pages[]``, ``nvme_smart_health_information_log``,
``temperature.current``, ``power_on_time.hours``, ``power_cycle_count``,
``local_time.{time_t,asctime}``. A key is left out when the text does not show its value (the
JSON leaves keys out too); nothing is ever filled in with 0.

Every document made here carries ``"ssdlab_text_source": True``. What text can and cannot give
back, compared with the JSON smartctl would have printed for the same drive:

* Attribute ``raw.value``. The JSON holds the raw integer built from the attribute's raw bytes;
  the text holds only ``raw.string``, formatted by the drive database's raw format, which the
  text does not name. The format is recognised from the string's shape. Exact
  (``raw["ssdlab_exact"] is True``): plain decimal and hex (raw48/56/64, hex48/56/64),
  ``w2 w1 w0`` (raw16), ``b5 b4 b3 b2 b1 b0`` (raw8), ``w0 (w2 w1)`` (raw16(raw16)),
  ``n (b5 b4 b3)`` (raw24(raw8)), the six-byte temperature fallback ``t (b5 b4 b3 b2 b1)``,
  ``HHHh+MMm+SSs`` (sec2hour), ``HHHh+MMm+SS.mmms`` (msec24hour32), ``HHHh+MMm (w2)``
  (min2hour), ``hi/lo`` when ``hi`` is 0 or ``lo`` needs more than 24 bits. Not exact
  (``ssdlab_exact`` False, best reconstruction in ``raw.value``):

  - ``50 (Average 17)`` (raw16(avg16)): word 2 is not printed; ``raw.value = w1 << 16 | w0``,
    which is the JSON value whenever word 2 is 0 (it is in every SSD sample seen, e.g. the
    Kingston A400's 1114162). Decode ``w0``/``w1`` from it as with JSON.
  - ``30 (Min/Max 27/33)`` / ``... #n)`` (tempminmax): the byte positions of min and max (and
    the 0x00/0xff padding bytes) differ by vendor and are not shown, so the 48-bit JSON value
    (e.g. 150324707352 for "24 (Min/Max 13/35)") cannot be rebuilt. ``raw.value`` is the
    printed leading integer (the current temperature; its low byte is what smartctl itself
    uses), negative temperatures as their two's-complement byte.
  - ``hi/lo`` with ``hi`` > 0 and ``lo`` < 2**24: raw24/raw24 (``hi << 24 | lo``, assumed) and
    raw24/raw32 (``hi << 32 | lo``) print alike.
  - ``HHHh+MMm`` without a suffix: min2hour (assumed, ``H*60+M``) and halfmin2hour (``H*120+M*2``
    plus an unprinted half minute) print alike. ``power_on_time`` is still exact.
  - ``n.d`` (temp10x): only word 0 is shown.
  - anything else: ``raw.value`` is the leading integer of the string, or None if it has none.

  Attribute flags: the ``-a`` layout prints the 16-bit flag word (exact); the ``-x`` (brief)
  layout prints only the six named bits plus ``+`` for "some other bit", so
  ``flags.value`` holds the named bits and ``flags["ssdlab_exact"]`` is False when ``+`` shows.
* Device Statistics: every printed entry is rebuilt exactly, flags included (the "supported"
  and "valid" bits are implied by the entry being printed and by its value not being "-"),
  except reserved flag bits (shown as ``+``). smartctl 6.x's older devstat layout is read too;
  it does not print the DSN/condition bits, so its flags are marked ``ssdlab_exact`` False.
* NVMe health log: numbers are printed in full with thousands separators (any of ``,.' ``);
  the bracketed ``[17.1 TB]`` is dropped, so the counts are exact. Counters above 2**64 are
  printed rounded by smartctl (``~`` prefix) and are as precise as that text.
* ``local_time.time_t`` comes from "Local Time is:", which names its zone by an abbreviation
  (``UTC``, ``CEST``, ``+07``). Numeric offsets and unambiguous abbreviations are exact; an
  ambiguous or unknown one (``CST``, ``IST``) is taken as UTC and marked
  ``local_time["ssdlab_zone_assumed"] = True``.
* Not in text at all: ``device.name``/``type``, ``smartctl.exit_status`` and ``argv``,
  ``form_factor.ata_value``, ``sata_value`` codes, ``json_format_version``. ``user_capacity.blocks``
  is recomputed as bytes / logical sector size.
* Globals the JSON derives (``temperature.current``, ``power_on_time``, ``power_cycle_count``)
  are derived as smartctl does (attributes 194/190, 9 and 12, then SCT status, then Device
  Statistics, in the order printed), which reproduces the JSON for the layouts recognised.

Reports arrive re-indented (pasted into a mail or a forum, TAB-indented, CRLF): every line is
read with its TABs expanded and its leading and trailing blanks removed, so indentation never
matters. An attribute ID the firmware lists twice is kept twice in the table, as ``smartctl -j``
lists it; smartctl's derived globals skip an ID whose two rows differ (smartctl_json says so).

Cut-off or damaged text is refused rather than half-read: a table or log that ends without its
closing line, a last line without its newline that a value would be read from, a row that does
not fit its table, two runs in one text (use split_snapshot_log), ATA, NVMe and SCSI lines
mixed, and smartctl's own "open device failed" messages all raise ParseError.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ssdlab.errors import ParseError
from ssdlab.parse.number_bounds import refuse_long_digit_runs
from ssdlab.parse.smart_raw import RawValue, decode_raw
from ssdlab.parse.smartctl_scsi_text import (
    ERROR_COUNTER_TITLE,
    SCSI_INFO,
    is_error_counter_row,
    read_error_counter_row,
    read_scsi_line,
)
from ssdlab.parse.timestamps import parse_timestamp

_ASCII_DIGITS = re.compile(r"[0-9]+")

TEXT_SOURCE_KEY = "ssdlab_text_source"
EXACT_KEY = "ssdlab_exact"
ZONE_ASSUMED_KEY = "ssdlab_zone_assumed"
IDENTITY_FROM_LINE_KEY = "ssdlab_identity_from_line"
MODEL_OVERRIDE_KEY = "ssdlab_model_override"
SOURCE_LABEL_KEY = "ssdlab_source_label"  # a document rebuilt from another tool's log

# ---------------------------------------------------------------------------------------------
# Line patterns of smartctl's text output.

_BANNER = re.compile(
    r"smartctl (?P<pre>pre-)?(?P<major>\d+)\.(?P<minor>\d+)(?:\.(?P<patch>\d+))?"
    r"(?:\s+\S+\s+r(?P<svn>\d+)\s*\[(?P<platform>[^\]]*)\]\s*(?P<build>.*))?"
)
_SECTION = re.compile(r"=== START OF (?P<name>.+) SECTION ===")
_HEALTH = re.compile(r"SMART overall-health self-assessment test result: (?P<result>\S+)")
_ATTR_REVISION = re.compile(r"SMART Attributes Data Structure revision number: (\d+)")
_ATTR_HEADER_OLD = re.compile(
    r"ID#\s*ATTRIBUTE_NAME\s+FLAG\s+VALUE\s+WORST\s+THRESH\s+TYPE\s+UPDATED\s+WHEN_FAILED"
    r"\s+RAW_VALUE"
)
_ATTR_HEADER_BRIEF = re.compile(
    r"ID#\s*ATTRIBUTE_NAME\s+FLAGS\s+VALUE\s+WORST\s+THRESH\s+FAIL\s+RAW_VALUE"
)
_NORM = r"(?:\d{1,3}|0x[0-9a-fA-F]{2}|-{3,4})"
_ATTR_ID = r"(?P<id>\d{1,3}|0x[0-9a-fA-F]{2})"
_ATTR_OLD = re.compile(
    rf"\s*{_ATTR_ID}\s+(?P<name>\S+?)\s*(?P<flagword>0x[0-9a-fA-F]{{4}})\s+"
    rf"(?P<value>{_NORM})\s+(?P<worst>{_NORM})\s+(?P<thresh>{_NORM})\s+"
    r"(?P<type>Pre-fail|Old_age)\s+(?P<updated>Always|Offline)\s+"
    r"(?P<fail>FAILING_NOW|In_the_past|-)\s+(?P<raw>\S(?:.*\S)?)\s*"
)
_ATTR_BRIEF = re.compile(
    rf"\s*{_ATTR_ID}\s+(?P<name>\S+?)\s*(?P<letters>[P-][O-][S-][R-][C-][K-])(?P<other>[+ ])\s+"
    rf"(?P<value>{_NORM})\s+(?P<worst>{_NORM})\s+(?P<thresh>{_NORM})\s+"
    r"(?P<fail>NOW|Past|-)\s+(?P<raw>\S(?:.*\S)?)\s*"
)
_LEGEND = re.compile(r"\s*\|.*")
_DEVSTAT_TITLE = re.compile(r"Device Statistics \((?:GP|SMART) Log 0x04\)")
_DEVSTAT_HEADER = re.compile(r"Page\s+Offset\s+Size\s+Value\s+(?:Flags\s+)?Description")
_DEVSTAT_PAGE = re.compile(
    r"(?:0x(?P<hex>[0-9a-fA-F]{2})|\s*(?P<dec>\d{1,3}))\s+=====\s+=\s+=\s+(?:===\s+)?"
    r"== (?P<name>.*?) \((?:rev (?P<rev>\d+)|(?P<bad>empty|invalid page.*))\) =="
)
_DEVSTAT_ROW = re.compile(
    r"0x(?P<page>[0-9a-fA-F]{2})\s+0x(?P<offset>[0-9a-fA-F]{3})\s+(?P<size>\d)\s+"
    r"(?P<value>-|-?\d+)\s+(?P<n>[N-])(?P<d>[D-])(?P<c>[C-])(?P<reserved>[+ ]) (?P<name>\S.*?)\s*"
)
_DEVSTAT_ROW_6X = re.compile(
    r"\s*(?P<page>\d{1,3})\s+0x(?P<offset>[0-9a-fA-F]{3})\s+(?P<size>\d)(?P<reserved>[+ ])\s*"
    r"(?P<value>-|-?\d+)(?P<n>[~ ]) (?P<name>\S.*?)\s*"
)
_DEVSTAT_GARBAGE = re.compile(r"0x[0-9a-fA-F]{2}\s+0x[0-9a-fA-F]{3}\s+-\s+-\s+\[.*\]")
_NVME_LOG = re.compile(
    r"SMART/Health Information \(NVMe Log 0x02(?:, NSID 0x(?P<nsid>[0-9a-fA-F]+))?\)"
)
_KEY_VALUE = re.compile(r"(?P<key>[A-Za-z][^:]*?):\s+(?P<value>\S(?:.*\S)?)\s*")
_SCT_TEMP = r"(-?\d+|\?)"
_SCT_LINES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(rf"Current Temperature:\s+{_SCT_TEMP} Celsius"), ("current",)),
    (
        re.compile(rf"Power Cycle Min/Max Temperature:\s+{_SCT_TEMP}/{_SCT_TEMP} Celsius"),
        ("power_cycle_min", "power_cycle_max"),
    ),
    (re.compile(rf"Power Cycle Max Temperature:\s+{_SCT_TEMP} Celsius"), ("power_cycle_max",)),
    (
        re.compile(rf"Lifetime\s+Min/Max Temperature:\s+{_SCT_TEMP}/{_SCT_TEMP} Celsius"),
        ("lifetime_min", "lifetime_max"),
    ),
    (re.compile(rf"Lifetime\s+Max Temperature:\s+{_SCT_TEMP} Celsius"), ("lifetime_max",)),
    (
        re.compile(rf"Min/Max recommended Temperature:\s+{_SCT_TEMP}/{_SCT_TEMP} Celsius"),
        ("op_limit_min", "op_limit_max"),
    ),
    (
        re.compile(rf"Min/Max Temperature Limit:\s+{_SCT_TEMP}/{_SCT_TEMP} Celsius"),
        ("limit_min", "limit_max"),
    ),
)

# Thousands separators of the locales smartctl prints in: ',' (en), '.' (de), "'" and '’'
# (de_CH), no-break spaces (fr, ru) — and U+FFFD, which is what a no-break space in a Latin-1
# or other non-UTF-8 locale becomes once the saved report is read as UTF-8.
_GROUPED_INT = re.compile(
    r"[0-9]{1,3}(?P<sep>[,.'\u2019\u00a0\u202f\ufffd ])[0-9]{3}(?:(?P=sep)[0-9]{3})*"
)
_BRACKET = re.compile(r"\s*\[[^\]]*\]$")

# NVMe health log: text label → JSON key. The first 15 are printed by every smartctl version.
_NVME_FIELDS: dict[str, str] = {
    "Critical Warning": "critical_warning",
    "Temperature": "temperature",
    "Available Spare": "available_spare",
    "Available Spare Threshold": "available_spare_threshold",
    "Percentage Used": "percentage_used",
    "Data Units Read": "data_units_read",
    "Data Units Written": "data_units_written",
    "Host Read Commands": "host_reads",
    "Host Write Commands": "host_writes",
    "Controller Busy Time": "controller_busy_time",
    "Power Cycles": "power_cycles",
    "Power On Hours": "power_on_hours",
    "Unsafe Shutdowns": "unsafe_shutdowns",
    "Media and Data Integrity Errors": "media_errors",
    "Error Information Log Entries": "num_err_log_entries",
    "Warning Comp. Temperature Time": "warning_temp_time",
    "Critical Comp. Temperature Time": "critical_comp_time",
    "Thermal Temp. 1 Transition Count": "thermal_mgmt_temperature_1_transition_count",
    "Thermal Temp. 1 Total Time": "thermal_mgmt_temperature_1_total_time",
    "Thermal Temp. 2 Transition Count": "thermal_mgmt_temperature_2_transition_count",
    "Thermal Temp. 2 Total Time": "thermal_mgmt_temperature_2_total_time",
}
_NVME_MANDATORY = tuple(_NVME_FIELDS)[:15]
_NVME_SENSOR = re.compile(r"Temperature Sensor (\d+)")
NVME_TEMPERATURE_SENSORS = 8  # the health log has eight sensor fields

_SATA_SPEED_UNITS = {"1.5 Gb/s": 15, "3.0 Gb/s": 30, "6.0 Gb/s": 60}
_DEVSTAT_GLOBALS: dict[tuple[int, int], tuple[str, ...]] = {
    (1, 0x008): ("power_cycle_count",),
    (1, 0x010): ("power_on_time", "hours"),
    (5, 0x008): ("temperature", "current"),
    (5, 0x020): ("temperature", "lifetime_max"),
    (5, 0x028): ("temperature", "lifetime_min"),
    (5, 0x050): ("temperature", "lifetime_over_limit_minutes"),
    (5, 0x058): ("temperature", "op_limit_max"),
    (5, 0x060): ("temperature", "lifetime_under_limit_minutes"),
    (5, 0x068): ("temperature", "op_limit_min"),
}


def _parse_count(text: str, what: str) -> int:
    """A count as smartctl prints it: '33,588,329 [17.1 TB]', '0', '~1,234', '5.290' (de_DE)."""
    core = _BRACKET.sub("", text).strip().lstrip("~")
    if _ASCII_DIGITS.fullmatch(core):
        return int(core)
    if _GROUPED_INT.fullmatch(core):
        return int(re.sub(r"[^0-9]", "", core))
    raise ParseError(f"{what}: {text!r} is not a count")


def _norm_value(text: str) -> int | None:
    if text.startswith("-"):
        return None
    return int(text, 16) if text.startswith("0x") else int(text)


def _set_path(doc: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node = doc
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value


# ---------------------------------------------------------------------------------------------
# The parser.


@dataclass
class _State:
    lines: list[str]
    partial_last: bool  # the text does not end with a newline: its last line may be cut
    doc: dict[str, Any] = field(default_factory=dict)
    section: str | None = None
    ata: list[str] = field(default_factory=list)  # evidence for ATA / NVMe, for the protocol
    nvme: list[str] = field(default_factory=list)
    scsi: list[str] = field(default_factory=list)
    raws: dict[int, RawValue] = field(default_factory=dict)  # attribute ID -> first raw read
    conflicting: set[int] = field(default_factory=set)  # IDs listed twice with different raws
    seen: set[str] = field(default_factory=set)  # one-per-run parts: banner, tables, logs
    has_data: bool = False
    namespaces: dict[int, dict[str, Any]] = field(default_factory=dict)


def _take(state: _State, index: int) -> str:
    """Line `index`, for a parser that is about to read a value from it."""
    if state.partial_last and index == len(state.lines) - 1 and state.lines[index].strip():
        raise ParseError(
            f"line {index + 1}: the text ends in the middle of this line (output cut off?)"
        )
    return state.lines[index]


def _once(state: _State, part: str, index: int) -> None:
    if part in state.seen:
        raise ParseError(
            f"line {index + 1}: a second {part} — this text holds more than one smartctl run; "
            "split it with split_snapshot_log"
        )
    state.seen.add(part)


def smartctl_text_to_json(text: str) -> dict[str, Any]:
    """The dict ``smartctl -j`` would have printed, rebuilt from one run's text output.

    Reads ``smartctl -A``, ``-a``, ``-x`` (and ``-i``/``-H``/``-l devstat`` parts of them) for
    ATA/SATA and NVMe drives. Raises ParseError when the text is not smartctl output, is cut off
    inside a table, mixes several runs or protocols, or holds no device data (e.g. smartctl's
    own "open device failed" message).
    """
    refuse_long_digit_runs(text, "smartctl output")
    lines = [plain_line(line) for line in text.split("\n")]
    if text.endswith("\n"):
        lines.pop()  # the empty string after the final newline is not a line
    state = _State(lines=lines, partial_last=not text.endswith("\n"))
    index = 0
    while index < len(lines):
        index = _dispatch(state, index)
    return _finish(state)


def plain_line(line: str) -> str:
    """A line of a report as smartctl printed it, whatever indentation it was saved with: the
    CR of a CRLF file dropped, TABs expanded, leading and trailing blanks removed (a report
    pasted TAB-indented or inside a quoted block reads the same as the original)."""
    return line.rstrip("\r").expandtabs(8).strip()


def _dispatch(state: _State, index: int) -> int:
    """Handle the line at `index` (and any block it opens); return the next line to look at."""
    line = state.lines[index].rstrip()
    if (banner := _BANNER.fullmatch(line)) is not None:
        _take(state, index)
        _once(state, "smartctl banner", index)
        _read_banner(state, banner)
        return index + 1
    if (section := _SECTION.fullmatch(line)) is not None:
        state.section = section.group("name")
        state.seen.add("section")
        return index + 1
    if (health := _HEALTH.match(line)) is not None:
        _take(state, index)
        result = health.group("result").rstrip("!").upper()
        if result in ("PASSED", "FAILED"):
            state.doc.setdefault("smart_status", {})["passed"] = result == "PASSED"
            state.has_data = True
        return index + 1
    if (revision := _ATTR_REVISION.fullmatch(line)) is not None:
        state.doc.setdefault("ata_smart_attributes", {})["revision"] = int(revision.group(1))
        return index + 1
    if (after_block := _read_block(state, index, line)) is not None:
        return after_block
    if _read_sct_line(state, index, line):
        return index + 1
    if ERROR_COUNTER_TITLE.fullmatch(line):
        _once(state, "SCSI error counter log", index)
        return _read_error_counters(state, index + 1)
    if read_scsi_line(state.doc, line):
        _take(state, index)
        state.scsi.append(f"line {index + 1}")
        state.has_data = True
        return index + 1
    # smartctl 5.x printed a SCSI device's information with no section header before it
    if state.section in ("INFORMATION", None) and (pair := _KEY_VALUE.fullmatch(line)) is not None:
        _take(state, index)
        _read_info(state, " ".join(pair.group("key").split()), pair.group("value"), index)
    return index + 1


def _read_block(state: _State, index: int, line: str) -> int | None:
    """When `line` opens a table (attributes, Device Statistics, NVMe log), read it and return
    the line after it; else None."""
    if _ATTR_HEADER_OLD.fullmatch(line) or _ATTR_HEADER_BRIEF.fullmatch(line):
        if "SMART attribute table" not in state.seen:
            state.seen.add("SMART attribute table")
        elif not _continues_attribute_table(state, index + 1):
            _once(state, "SMART attribute table", index)
        return _read_attributes(state, index + 1, brief=bool(_ATTR_HEADER_BRIEF.fullmatch(line)))
    if _DEVSTAT_TITLE.fullmatch(line):
        _once(state, "Device Statistics log", index)
        return _read_devstat(state, index + 1)
    if (nvme_log := _NVME_LOG.fullmatch(line)) is not None:
        _once(state, "NVMe SMART/Health log", index)
        return _read_nvme_log(state, index + 1, nvme_log.group("nsid"))
    return None


def _read_sct_line(state: _State, index: int, line: str) -> bool:
    """Take `line` when it is an SCT status temperature line; say whether it was."""
    for pattern, keys in _SCT_LINES:
        if (sct := pattern.fullmatch(line)) is not None:
            _take(state, index)
            for key, value in zip(keys, sct.groups(), strict=True):
                if value != "?":
                    state.doc.setdefault("temperature", {})[key] = int(value)
                    if key == "current":  # smartctl -j keeps the SCT reading here too
                        sct_status = state.doc.setdefault("ata_sct_status", {})
                        sct_status.setdefault("temperature", {})["current"] = int(value)
            state.ata.append("SCT status")
            return True
    return False


def _read_banner(state: _State, banner: re.Match[str]) -> None:
    version = [int(banner.group("major")), int(banner.group("minor"))]
    if banner.group("patch") is not None:
        version.append(int(banner.group("patch")))
    info: dict[str, Any] = {"version": version, "pre_release": banner.group("pre") is not None}
    if banner.group("svn") is not None:
        info["svn_revision"] = banner.group("svn")
        info["platform_info"] = banner.group("platform")
        if banner.group("build"):
            info["build_info"] = banner.group("build")
    state.doc.setdefault("smartctl", {}).update(info)


# --- information section -----------------------------------------------------------------------


def _read_info(state: _State, key: str, value: str, index: int) -> None:
    if value == "[No Information Found]":
        return
    scsi = SCSI_INFO.get(key)
    if scsi is not None:
        scsi(state.doc, value)
        state.scsi.append(f"line {index + 1}")
        state.has_data = True
        return
    handler = _INFO_HANDLERS.get(key)
    if handler is None:
        namespace = re.fullmatch(r"Namespace (\d+) (.+)", key)
        if namespace is not None:
            _read_namespace(state, int(namespace.group(1)), namespace.group(2), value, index)
        return
    handler(state, value, index)


def _plain(json_key: str, protocol: str | None = None) -> Callable[[_State, str, int], None]:
    def handle(state: _State, value: str, index: int) -> None:
        state.doc[json_key] = value
        state.has_data = True
        if protocol == "ATA":
            state.ata.append(f"line {index + 1}")
        elif protocol == "NVMe":
            state.nvme.append(f"line {index + 1}")

    return handle


def _info_capacity(state: _State, value: str, index: int) -> None:
    match = re.fullmatch(r"(.+?) bytes(?: \[.*\])?", value)
    if match is None:
        raise ParseError(f"line {index + 1}: bad User Capacity {value!r}")
    state.doc["user_capacity"] = {"bytes": _parse_count(match.group(1), "User Capacity")}


def _info_sector_size(state: _State, value: str, _index: int) -> None:
    same = re.fullmatch(r"(\d+) bytes logical/physical", value)
    both = re.match(r"(\d+) bytes logical, (\d+) bytes physical", value)
    if same is not None:
        state.doc["logical_block_size"] = state.doc["physical_block_size"] = int(same.group(1))
    elif both is not None:
        state.doc["logical_block_size"] = int(both.group(1))
        state.doc["physical_block_size"] = int(both.group(2))


def _info_wwn(state: _State, value: str, _index: int) -> None:
    match = re.fullmatch(r"([0-9a-fA-F]) ([0-9a-fA-F]{6}) ([0-9a-fA-F]+)", value)
    if match is not None:
        naa, oui, unique = (int(part, 16) for part in match.groups())
        state.doc["wwn"] = {"naa": naa, "oui": oui, "id": unique}


def _info_rotation(state: _State, value: str, _index: int) -> None:
    if value == "Solid State Device":
        state.doc["rotation_rate"] = 0
    elif (rpm := re.fullmatch(r"(\d+) rpm", value)) is not None:
        state.doc["rotation_rate"] = int(rpm.group(1))


def _info_form_factor(state: _State, value: str, _index: int) -> None:
    if not value.startswith("Unknown"):
        state.doc["form_factor"] = {"name": value}


def _info_trim(state: _State, value: str, _index: int) -> None:
    parts = [part.strip() for part in value.split(",")]
    supported = parts[0] == "Available"
    trim: dict[str, bool] = {"supported": supported}
    if supported:
        trim["deterministic"] = "deterministic" in parts
        trim["zeroed"] = "zeroed" in parts
    state.doc["trim"] = trim


def _info_database(state: _State, value: str, _index: int) -> None:
    state.doc["in_smartctl_database"] = value.startswith("In smartctl database")
    version = re.fullmatch(r"In smartctl database (\S+)", value)
    if version is not None:
        state.doc.setdefault("smartctl", {})["drive_database_version"] = {
            "string": version.group(1)
        }


def _info_ata_version(state: _State, value: str, index: int) -> None:
    state.doc["ata_version"] = {"string": value}
    state.ata.append(f"line {index + 1}")


def _info_sata_version(state: _State, value: str, index: int) -> None:
    match = re.fullmatch(
        r"(?P<ver>[^,(]+?)(?:, (?P<max>[^(]+?))?(?: \(current: (?P<cur>.+)\))?", value
    )
    state.ata.append(f"line {index + 1}")
    if match is None:
        return
    state.doc["sata_version"] = {"string": match.group("ver")}
    speeds: dict[str, Any] = {}
    for which in ("max", "cur"):
        speed = match.group(which)
        if speed is None:
            continue
        entry: dict[str, Any] = {"string": speed}
        if speed in _SATA_SPEED_UNITS:
            entry["units_per_second"] = _SATA_SPEED_UNITS[speed]
            entry["bits_per_unit"] = 100_000_000
        speeds["max" if which == "max" else "current"] = entry
    if speeds:
        state.doc["interface_speed"] = speeds


def _info_local_time(state: _State, value: str, _index: int) -> None:
    local: dict[str, Any] = {"asctime": value}
    parsed = parse_timestamp(value)
    if parsed is not None:
        epoch, assumed = parsed
        local["time_t"] = int(epoch)
        if assumed:
            local[ZONE_ASSUMED_KEY] = True
    state.doc["local_time"] = local


def _info_smart_support(state: _State, value: str, _index: int) -> None:
    support = state.doc.setdefault("smart_support", {})
    if value.startswith("Available"):
        support["available"] = True
    elif value.startswith("Unavailable"):
        support["available"] = False
    elif value.startswith("Enabled"):
        support["enabled"] = True
    elif value.startswith("Disabled"):
        support["enabled"] = False


def _info_pci_vendor(key: str) -> Callable[[_State, str, int], None]:
    def handle(state: _State, value: str, index: int) -> None:
        state.nvme.append(f"line {index + 1}")
        if not re.fullmatch(r"0x[0-9a-fA-F]{1,4}", value):
            return
        vendor = state.doc.setdefault("nvme_pci_vendor", {})
        for name in ("id", "subsystem_id") if key == "both" else (key,):
            vendor[name] = int(value, 16)

    return handle


def _info_nvme_int(json_key: str) -> Callable[[_State, str, int], None]:
    def handle(state: _State, value: str, index: int) -> None:
        state.nvme.append(f"line {index + 1}")
        if re.fullmatch(r"0x[0-9a-fA-F]+", value):
            state.doc[json_key] = int(value, 16)
        else:
            state.doc[json_key] = _parse_count(value, json_key)

    return handle


def _info_nvme_version(state: _State, value: str, index: int) -> None:
    state.nvme.append(f"line {index + 1}")
    version = {"string": value, "value": 0}
    parts = re.fullmatch(r"(\d+)\.(\d+)(?:\.(\d+))?", value)
    if parts is not None:
        major, minor, tertiary = (int(part or 0) for part in parts.groups())
        version["value"] = major << 16 | minor << 8 | tertiary
    state.doc["nvme_version"] = version


def _info_nvme_threshold(which: str, global_key: str) -> Callable[[_State, str, int], None]:
    def handle(state: _State, value: str, _index: int) -> None:
        celsius = re.fullmatch(r"(-?\d+) Celsius", value)
        if celsius is None:
            return
        degrees = int(celsius.group(1))
        state.doc.setdefault("nvme_composite_temperature_threshold", {})[which] = degrees
        state.doc.setdefault("temperature", {})[global_key] = degrees

    return handle


_INFO_HANDLERS: dict[str, Callable[[_State, str, int], None]] = {
    "Model Family": _plain("model_family", "ATA"),
    "Device Model": _plain("model_name", "ATA"),
    "Model Number": _plain("model_name", "NVMe"),
    "Serial Number": _plain("serial_number"),
    "Firmware Version": _plain("firmware_version"),
    "Add. Product Id": _plain("ata_additional_product_id", "ATA"),
    "LU WWN Device Id": _info_wwn,
    "User Capacity": _info_capacity,
    "Sector Size": _info_sector_size,
    "Sector Sizes": _info_sector_size,
    "Rotation Rate": _info_rotation,
    "Form Factor": _info_form_factor,
    "TRIM Command": _info_trim,
    "Device is": _info_database,
    "ATA Version is": _info_ata_version,
    "SATA Version is": _info_sata_version,
    "Local Time is": _info_local_time,
    "SMART support is": _info_smart_support,
    "PCI Vendor/Subsystem ID": _info_pci_vendor("both"),
    "PCI Vendor ID": _info_pci_vendor("id"),
    "PCI Vendor Subsystem ID": _info_pci_vendor("subsystem_id"),
    "IEEE OUI Identifier": _info_nvme_int("nvme_ieee_oui_identifier"),
    "Total NVM Capacity": _info_nvme_int("nvme_total_capacity"),
    "Unallocated NVM Capacity": _info_nvme_int("nvme_unallocated_capacity"),
    "Controller ID": _info_nvme_int("nvme_controller_id"),
    "Number of Namespaces": _info_nvme_int("nvme_number_of_namespaces"),
    "NVMe Version": _info_nvme_version,
    "Warning Comp. Temp. Threshold": _info_nvme_threshold("warning", "op_limit_max"),
    "Critical Comp. Temp. Threshold": _info_nvme_threshold("critical", "critical_limit_max"),
}


def _read_namespace(state: _State, nsid: int, what: str, value: str, index: int) -> None:
    state.nvme.append(f"line {index + 1}")
    namespace = state.namespaces.setdefault(nsid, {"id": nsid})
    if what in ("Size/Capacity", "Size", "Capacity", "Utilization"):
        size = _parse_count(value, f"Namespace {nsid} {what}")
        targets = ("size", "capacity") if what == "Size/Capacity" else (what.lower(),)
        for target in targets:
            namespace[target] = {"bytes": size}
    elif what == "Formatted LBA Size":
        namespace["formatted_lba_size"] = _parse_count(value, "Formatted LBA Size")
    elif what == "IEEE EUI-64":
        eui = re.fullmatch(r"([0-9a-fA-F]{6}) ([0-9a-fA-F]{10})", value)
        if eui is not None:
            namespace["eui64"] = {"oui": int(eui.group(1), 16), "ext_id": int(eui.group(2), 16)}


# --- SMART attributes ----------------------------------------------------------------------------


def _flags_from_word(word: int) -> dict[str, Any]:
    letters = "".join(
        letter if word & bit else "-"
        for letter, bit in zip("POSRCK", (0x01, 0x02, 0x04, 0x08, 0x10, 0x20), strict=True)
    )
    flags: dict[str, Any] = {
        "value": word,
        "string": letters + ("+" if word & 0xFFC0 else " "),
        "prefailure": bool(word & 0x01),
        "updated_online": bool(word & 0x02),
        "performance": bool(word & 0x04),
        "error_rate": bool(word & 0x08),
        "event_count": bool(word & 0x10),
        "auto_keep": bool(word & 0x20),
    }
    if word & 0xFFC0:
        flags["other"] = word & 0xFFC0
    return flags


def _flags_from_letters(letters: str, other: str) -> dict[str, Any]:
    word = sum(
        bit for letter, bit in zip(letters, (1, 2, 4, 8, 16, 32), strict=True) if letter != "-"
    )
    flags = _flags_from_word(word)
    if other == "+":
        flags["string"] = letters + "+"
        flags[EXACT_KEY] = False  # some of bits 6-15 are set; the text does not say which
    return flags


def _attribute_entry(
    match: re.Match[str], brief: bool, index: int
) -> tuple[dict[str, Any], RawValue]:
    ident = match.group("id")
    attr_id = int(ident, 16) if ident.startswith("0x") else int(ident)
    if not 1 <= attr_id <= 255:
        raise ParseError(f"line {index + 1}: attribute id {attr_id} is out of range")
    entry: dict[str, Any] = {"id": attr_id, "name": match.group("name")}
    for key in ("value", "worst", "thresh"):
        number = _norm_value(match.group(key))
        if number is not None:
            if number > 255:
                raise ParseError(f"line {index + 1}: attribute {key} {number} is above 255")
            entry[key] = number
    if "thresh" in entry:
        entry["when_failed"] = {
            "NOW": "now",
            "FAILING_NOW": "now",
            "Past": "past",
            "In_the_past": "past",
        }.get(match.group("fail"), "")
    if brief:
        entry["flags"] = _flags_from_letters(match.group("letters"), match.group("other"))
    else:
        word = int(match.group("flagword"), 16)
        if (match.group("type") == "Pre-fail") != bool(word & 0x01) or (
            match.group("updated") == "Always"
        ) != bool(word & 0x02):
            raise ParseError(f"line {index + 1}: TYPE/UPDATED disagree with FLAG {word:#06x}")
        entry["flags"] = _flags_from_word(word)
    raw_string = match.group("raw")
    raw = decode_raw(raw_string)
    entry["raw"] = {"value": raw.value, "string": raw_string, EXACT_KEY: raw.exact}
    return entry, raw


def _is_attribute_header(line: str) -> bool:
    return bool(_ATTR_HEADER_OLD.fullmatch(line) or _ATTR_HEADER_BRIEF.fullmatch(line))


def _continues_attribute_table(state: _State, start: int) -> bool:
    """A second attribute table header whose rows name none of the IDs read so far continues the
    table (a listing that prints each attribute under its own header, as monitoring agents do);
    one that repeats an ID is a second run."""
    seen = {entry["id"] for entry in state.doc.get("ata_smart_attributes", {}).get("table", [])}
    for line in state.lines[start:]:
        if not line or _LEGEND.fullmatch(line) or _is_attribute_header(line):
            return True
        match = _ATTR_OLD.fullmatch(line) or _ATTR_BRIEF.fullmatch(line)
        if match is None:
            return True  # not a row: _read_attributes says what is wrong with it
        ident = match.group("id")
        if (int(ident, 16) if ident.startswith("0x") else int(ident)) in seen:
            return False
    return True


def _read_attributes(state: _State, start: int, *, brief: bool) -> int:
    pattern = _ATTR_BRIEF if brief else _ATTR_OLD
    table: list[dict[str, Any]] = state.doc.get("ata_smart_attributes", {}).get("table", [])
    before = len(table)
    index = start
    while True:
        if index >= len(state.lines):
            raise ParseError(f"line {index}: the attribute table is cut off (no end line)")
        line = _take(state, index).rstrip()
        if _is_attribute_header(line):
            index -= 1  # the next header is read by the dispatcher
            break
        if not line or _LEGEND.fullmatch(line):
            break
        match = pattern.fullmatch(line)
        if match is None:
            raise ParseError(f"line {index + 1}: not an attribute table row: {line!r}")
        entry, raw = _attribute_entry(match, brief, index)
        table.append(entry)  # an ID listed twice stays twice, as smartctl -j lists it
        if entry["id"] in state.raws and state.raws[entry["id"]] != raw:
            state.conflicting.add(entry["id"])
        state.raws.setdefault(entry["id"], raw)
        index += 1
    if len(table) == before:
        raise ParseError(f"line {start}: the attribute table has no rows (output cut off?)")
    state.doc.setdefault("ata_smart_attributes", {})["table"] = table
    state.ata.append(f"line {start}")
    state.has_data = True
    readable = {i: r for i, r in state.raws.items() if i not in state.conflicting}
    _attribute_globals(state.doc, table, readable)
    return index + 1


def _power_on_time(doc: dict[str, Any], raw: RawValue) -> None:
    """power_on_time from attribute 9's raw value, as smartctl derives it."""
    if raw.kind in ("min2hour", "sec2hour", "msec24hour32") and raw.hours is not None:
        if raw.hours <= 0xFFFFFF and not (
            raw.kind == "min2hour" and raw.exact and raw.value and raw.value >> 32
        ):
            doc.setdefault("power_on_time", {})["hours"] = raw.hours
            if raw.minutes is not None and raw.minutes < 60:
                doc["power_on_time"]["minutes"] = raw.minutes
    elif raw.kind in ("dec", "raw16_raw16", "raw24_raw8") and raw.value is not None:
        hours = raw.value & 0xFFFFFFFF if raw.kind == "raw24_raw8" else raw.value
        if hours <= 0xFFFFFF:
            doc.setdefault("power_on_time", {})["hours"] = hours


def _attribute_globals(
    doc: dict[str, Any], table: list[dict[str, Any]], raws: dict[int, RawValue]
) -> None:
    """power_on_time, power_cycle_count and temperature.current as smartctl derives them, from
    the attributes in `raws` (an ID listed twice with different values is left out)."""
    by_id: dict[int, dict[str, Any]] = {}
    for entry in table:
        if entry["id"] in raws:
            by_id.setdefault(entry["id"], entry)
    hours_entry = by_id.get(9)
    if hours_entry is not None and hours_entry["name"].startswith("Power_On_"):
        _power_on_time(doc, raws[9])
    cycles_entry = by_id.get(12)
    if cycles_entry is not None and cycles_entry["name"] == "Power_Cycle_Count":
        cycles = raws[12]
        counted = cycles.kind in ("dec", "raw16_raw16", "raw24_raw8")
        if counted and cycles.value is not None and cycles.value <= 0xFFFFFF:
            doc["power_cycle_count"] = cycles.value
    for attr_id in (194, 190):
        temp = raws.get(attr_id)
        if temp is None or temp.value is None:
            continue
        if temp.kind not in ("dec", "minmax", "temp_bytes"):
            continue
        celsius = temp.value & 0xFF
        if 0 < celsius < 128:
            doc.setdefault("temperature", {})["current"] = celsius
            break


# --- Device Statistics ---------------------------------------------------------------------------


def _devstat_entry(match: re.Match[str], page: int, index: int, old: bool) -> dict[str, Any]:
    row_page = int(match.group("page"), 10 if old else 16)
    if row_page != page:
        raise ParseError(
            f"line {index + 1}: Device Statistics row of page {row_page} under page {page}"
        )
    valid = match.group("value") != "-"
    normalized = match.group("n") in ("N", "~")
    dsn = not old and match.group("d") == "D"
    condition = not old and match.group("c") == "C"
    reserved = match.group("reserved") == "+"
    word = 0x80 | (0x40 if valid else 0) | (0x20 if normalized else 0)
    word |= (0x10 if dsn else 0) | (0x08 if condition else 0)
    entry: dict[str, Any] = {
        "offset": int(match.group("offset"), 16),
        "name": match.group("name"),
        "size": int(match.group("size")),
    }
    if valid:
        entry["value"] = int(match.group("value"))
    entry["flags"] = {
        "value": word,
        "string": "".join(
            (
                "V" if valid else "-",
                "N" if normalized else "-",
                "D" if dsn else "-",
                "C" if condition else "-",
                "+" if reserved else " ",
            )
        ),
        "valid": valid,
        "normalized": normalized,
        "supports_dsn": dsn,
        "monitored_condition_met": condition,
    }
    if reserved or old:
        entry["flags"][EXACT_KEY] = False
    return entry


def _read_devstat(state: _State, start: int) -> int:
    index = start
    if index >= len(state.lines) or not _DEVSTAT_HEADER.fullmatch(state.lines[index].strip()):
        # "Read Device Statistics page 0x00 failed" and the like: nothing to read.
        return index
    index += 1
    pages: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    while True:
        if index >= len(state.lines):
            raise ParseError(f"line {index}: the Device Statistics table is cut off")
        line = _take(state, index).rstrip()
        if not line or _LEGEND.fullmatch(line):
            break
        if (header := _DEVSTAT_PAGE.fullmatch(line)) is not None:
            number = (
                int(header.group("hex"), 16) if header.group("hex") else int(header.group("dec"))
            )
            current = None
            if header.group("rev") is not None:
                current = {
                    "number": number,
                    "name": header.group("name"),
                    "revision": int(header.group("rev")),
                    "table": [],
                }
                pages.append(current)
        elif _DEVSTAT_GARBAGE.fullmatch(line):
            pass
        elif (row := _DEVSTAT_ROW.fullmatch(line) or _DEVSTAT_ROW_6X.fullmatch(line)) is not None:
            if current is None:
                raise ParseError(f"line {index + 1}: Device Statistics row outside a page")
            entry = _devstat_entry(row, current["number"], index, row.re is _DEVSTAT_ROW_6X)
            current["table"].append(entry)
            path = _DEVSTAT_GLOBALS.get((current["number"], entry["offset"]))
            if path is not None and "value" in entry:
                _set_path(state.doc, path, entry["value"])
        else:
            raise ParseError(f"line {index + 1}: not a Device Statistics row: {line!r}")
        index += 1
    state.doc["ata_device_statistics"] = {"pages": pages}
    state.ata.append(f"line {start}")
    state.has_data = True
    return index + 1


# --- SCSI error counter log -----------------------------------------------------------------------


def _read_error_counters(state: _State, start: int) -> int:
    """The ``read:``/``write:``/``verify:`` rows under "Error counter log:" (its three header
    lines are skipped); the table ends at an empty line or the end of the text."""
    index = start
    while index < len(state.lines):
        line = state.lines[index]
        if not line:
            break
        if is_error_counter_row(line):
            read_error_counter_row(state.doc, _take(state, index), f"line {index + 1}")
            state.scsi.append(f"line {index + 1}")
            state.has_data = True
        index += 1
    return index + 1


# --- NVMe SMART/Health log -----------------------------------------------------------------------


def _nvme_value(json_key: str, value: str, index: int) -> int | None:
    if json_key == "critical_warning":
        if not re.fullmatch(r"0x[0-9a-fA-F]{1,2}", value):
            raise ParseError(f"line {index + 1}: bad Critical Warning {value!r}")
        return int(value, 16)
    if json_key == "temperature":
        if value == "-":
            return None
        celsius = re.fullmatch(r"(-?\d+) Celsius", value)
        if celsius is None:
            raise ParseError(f"line {index + 1}: bad Temperature {value!r}")
        return int(celsius.group(1))
    if json_key in ("available_spare", "available_spare_threshold", "percentage_used"):
        percent = re.fullmatch(r"(\d+)%", value)
        if percent is None:
            raise ParseError(f"line {index + 1}: bad percentage {value!r}")
        return int(percent.group(1))
    return _parse_count(value, f"line {index + 1}")


def _read_nvme_log(state: _State, start: int, nsid: str | None) -> int:
    log: dict[str, Any] = {}
    if nsid is not None:
        number = int(nsid, 16)
        log["nsid"] = -1 if number == 0xFFFFFFFF else number
    seen: set[str] = set()
    sensors: dict[int, int | None] = {}
    index = start
    while index < len(state.lines):
        line = _take(state, index).rstrip()
        if not line:
            break
        pair = _KEY_VALUE.fullmatch(line)
        if pair is None:
            raise ParseError(f"line {index + 1}: not an NVMe health log line: {line!r}")
        label = " ".join(pair.group("key").split())
        value = pair.group("value")
        sensor = _NVME_SENSOR.fullmatch(label)
        if sensor is not None:
            number = int(sensor.group(1))
            if not 1 <= number <= NVME_TEMPERATURE_SENSORS:
                raise ParseError(
                    f"line {index + 1}: temperature sensor {number}: NVMe has sensors 1 to "
                    f"{NVME_TEMPERATURE_SENSORS}"
                )
            celsius = re.fullmatch(r"(-?\d+) Celsius", value)
            sensors[number] = None if celsius is None else int(celsius.group(1))
        elif label in _NVME_FIELDS:
            json_key = _NVME_FIELDS[label]
            seen.add(label)
            reading = _nvme_value(json_key, value, index)
            if reading is not None:
                log[json_key] = reading
        index += 1
    missing = [label for label in _NVME_MANDATORY if label not in seen]
    if missing:
        raise ParseError(
            f"line {start}: the NVMe health log lacks {', '.join(missing)} (output cut off?)"
        )
    if any(value is not None for value in sensors.values()):
        last = max(number for number, value in sensors.items() if value is not None)
        log["temperature_sensors"] = [sensors.get(number) for number in range(1, last + 1)]
    state.doc["nvme_smart_health_information_log"] = log
    if "temperature" in log:
        state.doc.setdefault("temperature", {})["current"] = log["temperature"]
    state.doc["power_cycle_count"] = log["power_cycles"]
    state.doc.setdefault("power_on_time", {})["hours"] = log["power_on_hours"]
    state.nvme.append(f"line {start}")
    state.has_data = True
    return index + 1


# --- finishing -----------------------------------------------------------------------------------


def _finish(state: _State) -> dict[str, Any]:
    doc = state.doc
    if not state.seen:
        raise ParseError("this is not smartctl output (no banner, section or table found)")
    if not state.has_data:
        hint = next(
            (
                line.strip()
                for line in state.lines
                if line.strip()
                and not _BANNER.fullmatch(line.strip())
                and not line.startswith("Copyright")
            ),
            "nothing after the banner",
        )
        raise ParseError(f"smartctl output holds no device data: {hint}")
    kinds = [
        (name, ev)
        for name, ev in (("ATA", state.ata), ("NVMe", state.nvme), ("SCSI", state.scsi))
        if ev
    ]
    if len(kinds) > 1:
        (first, first_at), (second, second_at) = kinds[:2]
        raise ParseError(
            f"the text mixes {first} ({first_at[0]}) and {second} ({second_at[0]}) output"
        )
    protocol = kinds[0][0] if kinds else None
    if protocol is not None:
        doc["device"] = {"protocol": protocol}
    if state.namespaces:
        _finish_namespaces(doc, state.namespaces)
    capacity = doc.get("user_capacity")
    block = doc.get("logical_block_size")
    if capacity is not None and block and capacity["bytes"] % block == 0:
        capacity["blocks"] = capacity["bytes"] // block
    if protocol == "NVMe" and "smart_status" in doc:
        log = doc.get("nvme_smart_health_information_log")
        if log is not None:
            doc["smart_status"]["nvme"] = {"value": log["critical_warning"]}
    doc[TEXT_SOURCE_KEY] = True
    return doc


def _finish_namespaces(doc: dict[str, Any], namespaces: dict[int, dict[str, Any]]) -> None:
    listed = [namespaces[nsid] for nsid in sorted(namespaces)]
    for namespace in listed:
        lba = namespace.get("formatted_lba_size")
        for key in ("size", "capacity", "utilization"):
            if lba and key in namespace and namespace[key]["bytes"] % lba == 0:
                namespace[key]["blocks"] = namespace[key]["bytes"] // lba
    doc["nvme_namespaces"] = listed
    first = listed[0]
    if "capacity" in first:
        doc["user_capacity"] = {"bytes": first["capacity"]["bytes"]}
    if "formatted_lba_size" in first:
        doc["logical_block_size"] = first["formatted_lba_size"]
