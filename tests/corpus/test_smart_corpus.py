"""Conformance corpus: real smartctl reports of real drives, written by others.

Every file in ``smart/`` is read twice: by ssdlab (in-process for all files, and through the
real ``ssdlab health FILE --json`` command for a representative subset), and by the small,
independent reader below, which only picks up figures the file itself states (a count and the
unit its name or its format's definition gives it, a bracketed byte figure, a temperature line).
ssdlab's figures are compared with those, never with ssdlab's own earlier output.

Units, by definition: NVMe Data Units = 1,000 x 512 bytes (NVMe base spec, Log 02h); ATA Device
Statistics "Logical Sectors Written" and ``Total_LBAs_Written`` count logical sectors (the
file's ``Sector Size`` / ``logical_block_size``); ``*_32MiB`` = 2^25 bytes, ``*_GiB`` = 2^30,
``*_MiB`` = 2^20 (smartmontools drivedb names).
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ssdlab.app.health_readings import SavedReading, samples_from_file
from ssdlab.errors import SsdlabError
from ssdlab.model.health import HealthSample
from tests.conftest import HANG_S
from tests.e2e.conftest import run_ssdlab

CORPUS = Path(__file__).parent / "smart"
FILES = sorted(p for p in CORPUS.iterdir() if p.suffix in (".json", ".txt"))

MIB = 1 << 20
GIB = 1 << 30
DATA_UNIT = 512_000
SI = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15}


# --------------------------------------------------------------------------- the reader


@dataclass(frozen=True)
class Figure:
    """A byte count stated by the file: its value and the rounding it carries."""

    source: str
    value: float
    tolerance: float  # bytes: the counter's own unit, or the printed precision of a bracket


@dataclass
class Stated:
    """What one file states, in ssdlab's units; None where the file states nothing."""

    protocol: str  # "NVMe", "ATA" or "SCSI"
    written: list[Figure] = field(default_factory=list)  # best first
    read: list[Figure] = field(default_factory=list)
    lba_only_written: bool = False  # the only write counters are DEFAULT-named Total_LBAs_*
    lba_only_read: bool = False
    nand_written: list[Figure] = field(default_factory=list)
    in_drive_db: bool = True
    power_on_hours: set[float] = field(default_factory=set)
    temperature_c: set[float] = field(default_factory=set)
    wear_used_pct: float | None = None
    media_errors: float | None = None
    grown_defects: float | None = None


_UNIT_NAMES: tuple[tuple[re.Pattern[str], float, str], ...] = (
    (re.compile(r"_32MiB$"), 32 * MIB, "32 MiB"),
    (re.compile(r"_GiB$"), GIB, "GiB"),
    (re.compile(r"_MiB$"), MIB, "MiB"),
)
_WRITE_NAME = re.compile(r"^(Host|Lifetime|Total)_Writes?_|^Host_Writes")
_NAND_NAME = re.compile(r"^(NAND|Flash)_Writes_(1?GiB|32MiB)$")
_READ_NAME = re.compile(r"^(Host|Lifetime|Total)_Reads?_|^Host_Reads")


def _digits(text: str) -> int:
    """A count smartctl printed with the locale's thousands separators (',', '.', ' ', ...)."""
    return int(re.sub(r"\D", "", text))


def _bracket(text: str) -> Figure | None:
    """'[12,6 TB]' -> 12.6e12 bytes, accurate to half of the last printed digit."""
    m = re.search(r"\[\s*([0-9]+)(?:[.,]([0-9]+))?\s*([KMGTP]?B)\s*\]", text)
    if m is None:
        return None
    whole, frac, unit = m.group(1), m.group(2) or "", m.group(3)
    value = float(f"{whole}.{frac}" if frac else whole) * SI[unit]
    step = SI[unit] / 10 ** len(frac)
    return Figure(f"bracket [{m.group(0)[1:-1].strip()}]", value, step / 2 + 1)


def _attribute_figures(attrs: list[tuple[int, str, int]], sector: int, stated: Stated) -> None:
    """Write/read byte figures from attributes whose drivedb name states the unit."""
    lba_w: list[Figure] = []
    lba_r: list[Figure] = []
    for ident, name, raw in attrs:
        for pattern, unit, label in _UNIT_NAMES:
            if pattern.search(name):
                fig = Figure(f"{ident} {name} x {label}", raw * unit, unit)
                if _NAND_NAME.search(name):
                    stated.nand_written.append(fig)
                elif _WRITE_NAME.search(name):
                    stated.written.append(fig)
                elif _READ_NAME.search(name):
                    stated.read.append(fig)
                break
        if name == "Total_LBAs_Written":
            lba_w.append(Figure(f"{ident} {name} x {sector}", raw * sector, sector))
        elif name == "Total_LBAs_Read":
            lba_r.append(Figure(f"{ident} {name} x {sector}", raw * sector, sector))
    stated.lba_only_written = bool(lba_w) and not stated.written
    stated.lba_only_read = bool(lba_r) and not stated.read
    stated.written.extend(lba_w)
    stated.read.extend(lba_r)


def _read_json(doc: dict[str, Any]) -> Stated:
    nvme = doc.get("nvme_smart_health_information_log")
    if isinstance(nvme, dict):
        return _read_nvme_json(nvme)
    if doc.get("device", {}).get("protocol") == "SCSI":
        return _read_scsi_json(doc)
    return _read_ata_json(doc)


def _gigabytes(text: str, label: str) -> Figure:
    """smartctl's "%.3f" gigabytes processed (10^9 bytes; ',' in some locales)."""
    return Figure(label, float(text.replace(",", ".")) * 10**9, 0.5e6 + 1)


def _read_scsi_json(doc: dict[str, Any]) -> Stated:
    st = Stated("SCSI")
    log = doc.get("scsi_error_counter_log", {})
    for key, target in (("write", st.written), ("read", st.read)):
        processed = log.get(key, {}).get("gigabytes_processed")
        if isinstance(processed, str):
            target.append(_gigabytes(processed, f"{key} gigabytes_processed"))
    power_on = doc.get("power_on_time", {})
    if isinstance(power_on.get("hours"), int):
        st.power_on_hours.add(power_on["hours"] + power_on.get("minutes", 0) / 60)
    current = doc.get("temperature", {}).get("current")
    trip = doc.get("scsi_temperature", {}).get("drive_trip")
    if isinstance(current, int) and not (current == 0 and trip in (0, None)):
        st.temperature_c.add(current)  # 0 C with a 0 C trip point is smartctl's starting value
    st.wear_used_pct = doc.get("scsi_percentage_used_endurance_indicator")
    st.grown_defects = doc.get("scsi_grown_defect_list")
    return st


def _read_nvme_json(nvme: dict[str, Any]) -> Stated:
    st = Stated("NVMe")
    for key, target in (("data_units_written", st.written), ("data_units_read", st.read)):
        if isinstance(nvme.get(key), int):
            target.append(Figure(key, nvme[key] * DATA_UNIT, DATA_UNIT / 2))
    if isinstance(nvme.get("power_on_hours"), int):
        st.power_on_hours.add(nvme["power_on_hours"])
    if isinstance(nvme.get("temperature"), int):
        st.temperature_c.add(nvme["temperature"])
    st.wear_used_pct = nvme.get("percentage_used")
    st.media_errors = nvme.get("media_errors")
    return st


def _read_ata_json(doc: dict[str, Any]) -> Stated:
    st = Stated("ATA")
    st.in_drive_db = bool(doc.get("in_smartctl_database", "model_family" in doc))
    sector = int(doc.get("logical_block_size") or 512)
    _devstat_json(doc, sector, st)
    attrs = [
        (a["id"], str(a.get("name", "")), int(a["raw"]["value"]))
        for a in doc.get("ata_smart_attributes", {}).get("table", [])
    ]
    _attribute_figures(attrs, sector, st)
    if isinstance(doc.get("power_on_time", {}).get("hours"), int):
        st.power_on_hours.add(doc["power_on_time"]["hours"])
    for a in doc.get("ata_smart_attributes", {}).get("table", []):
        if a["id"] in (190, 194):
            m = re.match(r"\s*(\d+)", str(a["raw"].get("string", "")))
            if m:
                st.temperature_c.add(int(m.group(1)))
    if isinstance(doc.get("temperature", {}).get("current"), int):
        st.temperature_c.add(doc["temperature"]["current"])
    return st


def _devstat_json(doc: dict[str, Any], sector: int, st: Stated) -> None:
    """Logical sectors written and read, and percentage used, from the Device Statistics."""
    for page in doc.get("ata_device_statistics", {}).get("pages", []):
        for entry in page.get("table", []):
            valid = entry.get("flags", {}).get("valid", True)
            if not valid or not isinstance(entry.get("value"), int):
                continue
            where = (page.get("number"), entry.get("offset"))
            if where == (1, 24):
                st.written.append(
                    Figure("devstat Logical Sectors Written", entry["value"] * sector, sector)
                )
            elif where == (1, 40):
                st.read.append(
                    Figure("devstat Logical Sectors Read", entry["value"] * sector, sector)
                )
            elif where == (7, 8):
                st.wear_used_pct = entry["value"]


_ATTR_LINE = re.compile(
    r"^\s*(\d{1,3})\s+([A-Za-z0-9_\-./%]+)\s+(?:0x[0-9a-fA-F]{4}|[-A-Z]{6})\s+\d{3}\s+\d{3}"
    r"\s+(?:\d{3}|---)\s+(?:(?:Pre-fail|Old_age)\s+(?:Always|Offline)\s+)?\S+\s+(\d+)",
    re.M,
)


def _read_text(text: str) -> Stated:
    if re.search(r"^Data Units Written:", text, re.M):
        return _read_nvme_text(text)
    if re.search(r"^\s*(Transport protocol|Vendor):", text, re.M):
        return _read_scsi_text(text)
    return _read_ata_text(text)


def _read_scsi_text(text: str) -> Stated:
    st = Stated("SCSI")
    for key, target in (("write", st.written), ("read", st.read)):
        m = re.search(rf"^\s*{key}:\s+(?:\d+\s+){{5}}(\d+[.,]\d{{3}})\s+\d+\s*$", text, re.M)
        if m:
            target.append(_gigabytes(m.group(1), f"{key}: Gigabytes processed"))
    if m := re.search(r"Accumulated power on time, hours:minutes (\d+):(\d+)", text):
        st.power_on_hours.add(int(m.group(1)) + int(m.group(2)) / 60)
    if m := re.search(r"number of hours powered up = (\d+)", text):
        st.power_on_hours.add(int(m.group(1)))
    no_page = re.search(r"Drive Trip Temperature:\s+0 C", text) is not None
    for pattern in (r"Current Drive Temperature:\s+(\d+) C", r"Current temperature = (\d+)"):
        if (m := re.search(pattern, text)) and not (no_page and int(m.group(1)) == 0):
            st.temperature_c.add(int(m.group(1)))  # 0 C with a 0 C trip: no temperature page
    if m := re.search(r"Percentage used endurance indicator:\s+(\d+)%", text):
        st.wear_used_pct = int(m.group(1))
    if m := re.search(r"Elements in grown defect list:\s+(\d+)", text):
        st.grown_defects = int(m.group(1))
    return st


def _read_nvme_text(text: str) -> Stated:
    st = Stated("NVMe")
    for label, target in (("Written", st.written), ("Read", st.read)):
        m = re.search(rf"^Data Units {label}:\s+([0-9][^\[\n]*?)\s*(\[.*\])?\s*$", text, re.M)
        if m:
            target.append(
                Figure(f"Data Units {label}", _digits(m.group(1)) * DATA_UNIT, DATA_UNIT / 2)
            )
            b = _bracket(m.group(2) or "")
            if b is not None:
                target.append(b)
    if m := re.search(r"^Power On Hours:\s+([0-9][^\n]*)$", text, re.M):
        st.power_on_hours.add(_digits(m.group(1)))
    if m := re.search(r"^Temperature:\s+(\d+) Celsius", text, re.M):
        st.temperature_c.add(int(m.group(1)))
    if m := re.search(r"^Percentage Used:\s+(\d+)%", text, re.M):
        st.wear_used_pct = int(m.group(1))
    if m := re.search(r"^Media and Data Integrity Errors:\s+([0-9][^\n]*)$", text, re.M):
        st.media_errors = _digits(m.group(1))
    return st


def _read_ata_text(text: str) -> Stated:
    st = Stated("ATA")
    st.in_drive_db = not re.search(r"^Device is:\s+Not in smartctl database", text, re.M)
    sector = 512
    if m := re.search(r"^Sector Sizes?:\s+(\d+) bytes logical", text, re.M):
        sector = int(m.group(1))
    for m in re.finditer(r"^0x01\s+0x018\s+\d\s+(\d+)\s+\S*\s+Logical Sectors Written", text, re.M):
        st.written.append(
            Figure("devstat Logical Sectors Written", int(m.group(1)) * sector, sector)
        )
    for m in re.finditer(r"^0x01\s+0x028\s+\d\s+(\d+)\s+\S*\s+Logical Sectors Read", text, re.M):
        st.read.append(Figure("devstat Logical Sectors Read", int(m.group(1)) * sector, sector))
    for m in re.finditer(r"^0x07\s+0x008\s+\d\s+(\d+)\s+\S*\s+Percentage Used", text, re.M):
        st.wear_used_pct = int(m.group(1))
    attrs: list[tuple[int, str, int]] = []
    for m in _ATTR_LINE.finditer(text.replace("\r", "")):
        attrs.append((int(m.group(1)), m.group(2), int(m.group(3))))
    _attribute_figures(attrs, sector, st)
    for ident, name, raw in attrs:
        if ident == 9 and name.startswith("Power_On_Hours"):
            st.power_on_hours.add(raw)
        if ident in (190, 194):
            st.temperature_c.add(raw)
    for m in re.finditer(r"^Current Temperature:\s+(\d+) Celsius", text, re.M):
        st.temperature_c.add(int(m.group(1)))
    for m in re.finditer(r"^0x05\s+0x008\s+\d\s+(\d+)\s+\S*\s+Current Temperature", text, re.M):
        st.temperature_c.add(int(m.group(1)))
    return st


def read_stated(path: Path) -> Stated:
    text = path.read_bytes().decode("utf-8", "replace")
    if text.lstrip().startswith("["):  # an inventory tool's array of one smartctl -j document
        (doc,) = json.loads(text)
        return _read_json(doc)
    if text.lstrip().startswith("{"):
        return _read_json(json.loads(text))
    return _read_text(text)


# --------------------------------------------------------------------------- the checks


def _matches(value: float, fig: Figure) -> bool:
    return math.isclose(value, fig.value, abs_tol=fig.tolerance)


def _truncated_32bit(first: Figure, other: Figure, sector: float) -> bool:
    """Device Statistics kept to 32 bits (Crucial MX500) while the attribute counts on."""
    return first.source.startswith("devstat") and round(other.value / sector) % (1 << 32) == round(
        first.value / sector
    )


def check_bytes(
    name: str, value: float | None, figures: list[Figure], may_be_unknown: bool
) -> list[str]:
    if not figures:
        return [] if value is None else [f"{name}: {value} but the file states no such counter"]
    if value is None:
        return [] if may_be_unknown else [f"{name}: unknown, file states {figures[0]}"]
    if not any(_matches(value, f) for f in figures):
        return [f"{name}: {value:.0f} matches none of {figures}"]
    best = figures[0]
    counters = [f for f in figures if not f.source.startswith("bracket")]
    if counters and not _matches(value, counters[0]):
        agree = [f for f in counters[1:] if _matches(value, f)]
        if not all(_truncated_32bit(best, f, f.tolerance) for f in agree):
            return [f"{name}: {value:.0f} follows {agree[0]} over {counters[0]}"]
    return []


def problems(sample: HealthSample, st: Stated) -> list[str]:
    out: list[str] = []
    if sample.identity.protocol != st.protocol:
        out.append(f"protocol {sample.identity.protocol} != {st.protocol}")
    lba_only = st.lba_only_written
    out += check_bytes("host_written_bytes", sample.host_written_bytes.value, st.written, lba_only)
    out += check_bytes("host_read_bytes", sample.host_read_bytes.value, st.read, st.lba_only_read)
    if st.nand_written:  # NAND counted in pages or sectors (Micron, Samsung) has no stated unit
        nand = sample.nand_written_bytes.value
        out += check_bytes("nand_written_bytes", nand, st.nand_written, False)
    poh = sample.power_on_hours.value
    if st.power_on_hours and not any(math.isclose(poh or -1, h) for h in st.power_on_hours):
        out.append(f"power_on_hours {poh} not in {sorted(st.power_on_hours)}")
    temp = sample.temperature_c.value
    if st.temperature_c and temp not in st.temperature_c:
        out.append(f"temperature_c {temp} not in {sorted(st.temperature_c)}")
    if temp == 0 and any(0 < t < 128 for t in st.temperature_c):
        out.append(f"temperature_c 0 while the file also states {sorted(st.temperature_c)}")
    if st.wear_used_pct is not None and sample.wear_used_pct.value != st.wear_used_pct:
        out.append(f"wear_used_pct {sample.wear_used_pct.value} != {st.wear_used_pct}")
    if st.media_errors is not None and sample.media_errors.value != st.media_errors:
        out.append(f"media_errors {sample.media_errors.value} != {st.media_errors}")
    if st.grown_defects is not None and sample.reallocated_sectors.value != st.grown_defects:
        out.append(f"grown defects {sample.reallocated_sectors.value} != {st.grown_defects}")
    return out


def _ids(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]


def test_corpus_is_present_and_varied() -> None:
    assert len(FILES) >= 190
    kinds = [read_stated(p).protocol for p in FILES]
    assert set(kinds) == {"ATA", "NVMe", "SCSI"}
    assert kinds.count("SCSI") >= 10
    models = {re.sub(r"-\d+$", "", p.stem) for p in FILES}
    assert len(models) >= 40
    banners = {
        m.group(1)
        for p in FILES
        for m in [re.search(r"smartctl (\d\.\d+)", p.read_text(encoding="utf-8", errors="replace"))]
        if m
    }
    assert {"5.42", "5.43", "6.6", "7.0", "7.2", "7.5"} <= banners


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_file_figures_match_what_the_file_states(path: Path) -> None:
    stated = read_stated(path)
    try:
        samples = samples_from_file(str(path), SavedReading())
    except SsdlabError as error:
        pytest.fail(f"a real smartctl report was refused: {error}")
    assert len(samples) == 1
    assert problems(samples[0], stated) == []


def _representative(paths: list[Path]) -> list[Path]:
    """One file per model, spread evenly: 25 text reports (the harder input) and 20 JSON."""
    seen: dict[str, Path] = {}
    for p in paths:
        seen.setdefault(re.sub(r"-\d+$", "", p.stem), p)
    chosen = sorted(seen.values())
    text = [p for p in chosen if p.suffix == ".txt"]
    rest = [p for p in chosen if p.suffix != ".txt"]
    return text[:: max(1, len(text) // 25)][:25] + rest[:: max(1, len(rest) // 20)][:20]


CLI_FILES = _representative(FILES)


def _stored(db: Path) -> Iterator[tuple[str, int]]:
    with sqlite3.connect(db) as conn:
        yield from conn.execute(
            "SELECT r.status, (SELECT count(*) FROM health_samples h WHERE h.run_id = r.id)"
            " FROM runs r"
        )


@pytest.mark.parametrize("path", CLI_FILES, ids=_ids(CLI_FILES))
def test_real_command(path: Path, tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    result = run_ssdlab("health", str(path), "--json", "--db", str(db), timeout=HANG_S)
    assert "Traceback" not in result.stderr
    if result.code != 0:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert not [n for _, n in _stored(db)] or all(n == 0 for _, n in _stored(db))
        pytest.fail(f"a real smartctl report was refused: {lines[0]}")
    doc = json.loads(result.stdout)
    sample = doc["sample"]
    assert list(_stored(db)) == [("complete", 1)]
    stated = read_stated(path)
    value = {k: (v or {}).get("value") for k, v in sample.items() if isinstance(v, dict)}
    if stated.written:
        assert value["host_written_bytes"] is None or any(
            _matches(value["host_written_bytes"], f) for f in stated.written
        )
    if stated.power_on_hours:
        assert value["power_on_hours"] in stated.power_on_hours
    if stated.wear_used_pct is not None:
        assert value["wear_used_pct"] == stated.wear_used_pct


CUT_FILES = CLI_FILES[::9]


@pytest.mark.parametrize("path", CUT_FILES, ids=_ids(CUT_FILES))
def test_a_report_cut_in_half_is_read_or_refused_in_one_line(path: Path, tmp_path: Path) -> None:
    """A copy cut short (a full disk, an interrupted copy): figures or one line, no traceback."""
    data = path.read_bytes()
    cut = tmp_path / path.name
    cut.write_bytes(data[: len(data) // 2])
    db = tmp_path / "store.db"
    result = run_ssdlab("health", str(cut), "--json", "--db", str(db), timeout=HANG_S)
    assert "Traceback" not in result.stderr
    if result.code == 0:
        json.loads(result.stdout)
        assert list(_stored(db)) == [("complete", 1)]
    else:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr  # what is wrong with the input, no usage line
        assert result.code == 1, result.stderr
        assert str(cut) in lines[0] or "line" in lines[0], lines[0]
        assert all(n == 0 for _, n in _stored(db)) if db.exists() else True


def test_writes_the_drive_could_not_have_taken_are_flagged(tmp_path: Path) -> None:
    """sandisk-plus-480gb-1.txt states 31.2 PB written (Device Statistics) on a 480 GB drive
    at 5 % wear: some 65,000 drive writes, beyond any NAND. ssdlab passes the figure on but
    says it cannot be right; no other file of the corpus is flagged so."""
    result = run_ssdlab(
        "health", str(CORPUS / "sandisk-plus-480gb-1.txt"), "--json", "--db", str(tmp_path / "db")
    )
    assert result.code == 0, result.stderr
    assert "more than NAND could take" in result.stdout
