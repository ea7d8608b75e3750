"""Spec sheets as TOML -> SpecSheet, and back; matching a drive's model string to a sheet.

The TOML speaks the units of data sheets (MB/s = 10^6 B/s, TBW in TB = 10^12 B, capacities as
"500GB"); they are converted here and nowhere else. Unknown keys are refused, so a typo never
silently drops a claim. Schema (src/ssdlab/specs/README.md):

    schema = 1
    vendor = "Samsung"                      # required
    model = "970 EVO"                       # required
    capacity = "500GB"                      # required
    key = "samsung-970-evo-500gb"           # default: from vendor, model and capacity
    part_numbers = ["MZ-V7E500", "Samsung SSD 970 EVO 500GB"]
    interface = "NVMe PCIe 3.0 x4"
    seq_read_mb_s = 3400
    seq_write_mb_s = 2300
    random_block = "4KiB"                   # default 4KiB
    random_read_iops = 370000
    random_read_qd = 32
    random_read_threads = 4
    random_write_iops = 450000
    random_write_qd = 32
    random_write_threads = 4
    tbw_tb = 300
    dwpd = 0.3
    warranty_years = 5
    cache = "22GB"
    sources = ["https://…"]                 # required, at least one
    notes = ["…"]
"""

import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from ssdlab.errors import ParseError
from ssdlab.model.spec import ClaimedIops, SpecSheet
from ssdlab.model.toml_text import TomlError, parse_toml
from ssdlab.model.units import MB, TB, KiB, parse_size_bytes

SCHEMA_VERSION = 1
_KEYS = {
    "schema", "key", "vendor", "model", "capacity", "part_numbers", "interface",
    "seq_read_mb_s", "seq_write_mb_s", "random_block", "random_read_iops", "random_read_qd",
    "random_read_threads", "random_write_iops", "random_write_qd", "random_write_threads",
    "tbw_tb", "dwpd", "warranty_years", "cache", "sources", "notes",
}  # fmt: skip
_KEY_RE = re.compile(r"^[a-z0-9][a-z0-9.-]*$")


# no claim on a data sheet comes near this (and a larger number breaks float() or the store)
_LARGEST = 10**18


def _has_control(text: str) -> bool:
    """Line breaks, terminal escapes and the like: they have no place in a spec sheet, and
    printed (spec show, reports) they would act on the terminal or break the TOML."""
    return any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in text)


class _Reader:
    def __init__(self, data: dict[str, Any], origin: str) -> None:
        self.data = data
        self.origin = origin

    def fail(self, key: str, expected: str) -> ParseError:
        value = self.data.get(key)
        return ParseError(f"{self.origin}: '{key}' must be {expected}, not {value!r}")

    def text(self, key: str, *, required: bool = False) -> str | None:
        value = self.data.get(key)
        if value is None:
            if required:
                raise ParseError(f"{self.origin}: '{key}' is required")
            return None
        if not isinstance(value, str) or not value.strip() or _has_control(value):
            raise self.fail(key, "a non-empty string without control characters")
        return value.strip()

    def texts(self, key: str) -> tuple[str, ...]:
        value = self.data.get(key, [])
        if not isinstance(value, list) or not all(
            isinstance(v, str) and v.strip() and not _has_control(v) for v in value
        ):
            raise self.fail(key, "a list of non-empty strings without control characters")
        return tuple(v.strip() for v in value)

    def number(self, key: str) -> float | None:
        value = self.data.get(key)
        if value is None:
            return None
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not 0 < value <= _LARGEST  # not nan, inf, or an int beyond any float
        ):
            raise self.fail(key, "a finite number above 0")
        return float(value)

    def whole(self, key: str) -> int | None:
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= _LARGEST:
            raise self.fail(key, "a whole number of 1 or more")
        return value

    def size(self, key: str, *, required: bool = False) -> int | None:
        text = self.text(key, required=required)
        if text is None:
            return None
        try:
            size = parse_size_bytes(text)
        except ValueError:
            raise self.fail(key, 'a size such as "500GB" or "4KiB"') from None
        if size <= 0:
            raise self.fail(key, "a size above 0")
        return size


def _slug(*parts: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", " ".join(parts).lower()).strip("-")


def _claim(read: _Reader, direction: str, block: int) -> ClaimedIops | None:
    iops = read.number(f"random_{direction}_iops")
    depth = read.whole(f"random_{direction}_qd")
    threads = read.whole(f"random_{direction}_threads")
    if iops is None:
        if depth is not None or threads is not None:
            raise ParseError(
                f"{read.origin}: random_{direction}_qd/threads given without "
                f"random_{direction}_iops"
            )
        return None
    return ClaimedIops(iops, depth, threads, block)


def parse_spec_sheet(text: str, origin: str) -> SpecSheet:
    """One sheet; every problem is a ParseError naming the file, the key and what it wants."""
    try:
        data = parse_toml(text, origin)
    except TomlError as error:
        raise ParseError(str(error)) from None
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        names = ", ".join(repr(k) for k in unknown)
        raise ParseError(
            f"{origin}: unknown key{'s' if len(unknown) > 1 else ''} {names} (a misspelt key "
            "would drop a claim); the keys are listed in ssdlab/specs/README.md"
        )
    read = _Reader(data, origin)
    schema = data.get("schema", SCHEMA_VERSION)
    if not isinstance(schema, int) or isinstance(schema, bool) or schema < 1:
        raise read.fail("schema", "a whole number")
    if schema > SCHEMA_VERSION:
        raise ParseError(
            f"{origin}: spec sheet schema {schema} is newer than this ssdlab understands "
            f"(up to {SCHEMA_VERSION}); upgrade ssdlab"
        )
    vendor = read.text("vendor", required=True) or ""
    model = read.text("model", required=True) or ""
    capacity = read.size("capacity", required=True) or 0
    sources = read.texts("sources")
    if not sources:
        raise ParseError(f"{origin}: 'sources' is required: where do these figures come from?")
    key = read.text("key") or _slug(vendor, model, _size(capacity))
    if not _KEY_RE.match(key):
        raise read.fail("key", "lower-case letters, digits, '.' and '-'")
    block = read.size("random_block") or 4 * KiB
    seq_read = read.number("seq_read_mb_s")
    seq_write = read.number("seq_write_mb_s")
    tbw = read.number("tbw_tb")
    return SpecSheet(
        key=key,
        vendor=vendor,
        model=model,
        part_numbers=read.texts("part_numbers"),
        capacity_bytes=capacity,
        interface=read.text("interface"),
        seq_read_bytes_per_s=None if seq_read is None else seq_read * MB,
        seq_write_bytes_per_s=None if seq_write is None else seq_write * MB,
        random_read=_claim(read, "read", block),
        random_write=_claim(read, "write", block),
        tbw_bytes=None if tbw is None else tbw * TB,
        dwpd=read.number("dwpd"),
        warranty_years=read.number("warranty_years"),
        cache_bytes=read.size("cache"),
        sources=sources,
        notes=read.texts("notes"),
    )


def _toml_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    # TOML basic strings may not hold control characters raw; a \u escape of four hex
    # digits keeps the text valid
    escaped = "".join(
        f"\\u{ord(c):04x}" if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in escaped
    )
    return f'"{escaped}"'


def _toml_list(values: Sequence[str]) -> str:
    return "[" + ", ".join(_toml_string(v) for v in values) + "]"


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


def _size(size_bytes: int) -> str:
    """Bytes as the shortest exact size text: 500GB, 4KiB, 1000204886016."""
    for factor, unit in ((TB, "TB"), (10**9, "GB"), (MB, "MB"), (2**20, "MiB"), (KiB, "KiB")):
        if size_bytes % factor == 0:
            return f"{size_bytes // factor}{unit}"
    return str(size_bytes)


def render_spec_sheet(spec: SpecSheet) -> str:
    """The sheet as TOML that parses back to the same SpecSheet."""
    lines = [
        f"schema = {SCHEMA_VERSION}",
        f"key = {_toml_string(spec.key)}",
        f"vendor = {_toml_string(spec.vendor)}",
        f"model = {_toml_string(spec.model)}",
        f"capacity = {_toml_string(_size(spec.capacity_bytes))}",
    ]
    if spec.part_numbers:
        lines.append(f"part_numbers = {_toml_list(spec.part_numbers)}")
    if spec.interface:
        lines.append(f"interface = {_toml_string(spec.interface)}")
    numbers = (
        ("seq_read_mb_s", spec.seq_read_bytes_per_s, MB),
        ("seq_write_mb_s", spec.seq_write_bytes_per_s, MB),
    )
    lines.extend(f"{k} = {_number(v / unit)}" for k, v, unit in numbers if v is not None)
    claims = [(d, c) for d, c in (("read", spec.random_read), ("write", spec.random_write)) if c]
    if claims:
        lines.append(f"random_block = {_toml_string(_size(claims[0][1].block_bytes))}")
    for direction, claim in claims:
        parts = (("iops", claim.iops), ("qd", claim.queue_depth), ("threads", claim.threads))
        lines.extend(f"random_{direction}_{k} = {_number(v)}" for k, v in parts if v is not None)
    ratings = (
        ("tbw_tb", spec.tbw_bytes, TB),
        ("dwpd", spec.dwpd, 1),
        ("warranty_years", spec.warranty_years, 1),
    )
    lines.extend(f"{k} = {_number(v / unit)}" for k, v, unit in ratings if v is not None)
    if spec.cache_bytes is not None:
        lines.append(f"cache = {_toml_string(_size(spec.cache_bytes))}")
    lines.append(f"sources = {_toml_list(spec.sources)}")
    if spec.notes:
        lines.append(f"notes = {_toml_list(spec.notes)}")
    return "\n".join(lines) + "\n"
