"""Conformance corpus, part two: the report kinds that used to be refused or misread, and hostile
variants of real reports (an ID listed twice, TAB indentation, a wrapped counter, huge numbers,
damage), through the real ``ssdlab health FILE --json`` command.

Every expected figure is read from the report itself by test_smart_corpus's independent reader
or by a regex on the line that states it (with the unit smartctl's definition of the line
gives), never from ssdlab's earlier output. A hostile variant gives a result or one clear line,
never a traceback, and never stores half a run.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import HANG_S
from tests.corpus.test_smart_corpus import CORPUS, read_stated
from tests.e2e.conftest import run_ssdlab

WRAP = 2**32


def health(path: Path, tmp_path: Path) -> tuple[int, dict[str, Any] | None, str]:
    db = tmp_path / "store.db"
    result = run_ssdlab("health", str(path), "--json", "--db", str(db), timeout=HANG_S)
    assert "Traceback" not in result.stderr
    if result.code != 0:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        if db.exists():
            with sqlite3.connect(db) as conn:
                stored = conn.execute("SELECT count(*) FROM health_samples").fetchone()[0]
            assert stored == 0
        return result.code, None, lines[0]
    return 0, json.loads(result.stdout)["sample"], ""


def value(sample: dict[str, Any], metric: str) -> float | None:
    figure = sample[metric]
    return None if figure is None else figure["value"]


# --- the kinds that used to be refused or misread -----------------------------------------------


def test_sct_status_0_celsius_is_set_aside_for_a_plausible_reading(tmp_path: Path) -> None:
    """liteon-cv1-8b128-1.txt: SCT status "Current Temperature: 0 Celsius", attribute 194 = 45,
    Device Statistics "Current Temperature" = 55. smartctl itself takes the Device Statistics
    line, printed last; without it (``smartctl -a -l scttemp``, or a drive whose Device
    Statistics lack the temperature page) the SCT reading of 0 would be the temperature: ssdlab
    sets it aside for attribute 194 and says so."""
    path = CORPUS / "liteon-cv1-8b128-1.txt"
    text = path.read_text(encoding="utf-8")
    assert re.search(r"^Current Temperature:\s+0 Celsius", text, re.M)
    devstat_line = re.search(r"^0x05\s+0x008\s+\d\s+(\d+).*\n", text, re.M)
    attribute = re.search(r"^194 Temperature_Celsius\s.*\s(\d+)$", text, re.M)
    assert devstat_line is not None
    assert attribute is not None
    code, sample, _ = health(path, tmp_path)
    assert code == 0
    assert sample is not None
    assert value(sample, "temperature_c") == int(devstat_line.group(1))
    without = tmp_path / "without-devstat-temperature.txt"
    without.write_text(text.replace(devstat_line.group(0), ""), encoding="utf-8")
    code, sample, _ = health(without, tmp_path)
    assert code == 0
    assert sample is not None
    assert value(sample, "temperature_c") == int(attribute.group(1))
    (choice,) = sample["choices"]
    assert choice["metric"] == "temperature_c"
    assert choice["chosen"] == "ata_smart_attributes[194] Temperature_Celsius"
    assert choice["rejected"] == "smartctl temperature.current (from SCT status)"
    assert choice["rejected_value"] == 0


def test_a_tab_indented_sas_report_of_smartctl_5(tmp_path: Path) -> None:
    """seagate-st3146356ss-sas-hdd-1.txt: smartctl 5.42, every line TAB-indented by the page it
    was published in, notes appended after two lines."""
    path = CORPUS / "seagate-st3146356ss-sas-hdd-1.txt"
    text = path.read_text(encoding="utf-8")
    assert all(line.startswith("\t") for line in text.splitlines())
    code, sample, _ = health(path, tmp_path)
    assert code == 0
    assert sample is not None
    assert sample["identity"]["protocol"] == "SCSI"
    assert sample["identity"]["model"] == "SEAGATE ST3146356SS"
    assert sample["identity"]["serial"] == "3QN0EL91"
    assert sample["verdict"] == "PASSED"  # "OK   #<note>" is not a failure
    write_gb = re.search(r"write:(?:\s+\d+){5}\s+(\d+\.\d{3})", text).group(1)  # type: ignore[union-attr]
    assert value(sample, "host_written_bytes") == round(float(write_gb) * 10**9)
    assert value(sample, "power_on_hours") == 34120  # "number of hours powered up = 34120.02"
    assert value(sample, "temperature_c") == 30
    assert value(sample, "reallocated_sectors") == 0  # "Elements in grown defect list: 0  #..."


def test_sas_ssd_endurance_and_start_stop_cycles(tmp_path: Path) -> None:
    path = CORPUS / "samsung-mzilt7t6hala-007-sas-1.txt"
    text = path.read_text(encoding="utf-8")
    code, sample, _ = health(path, tmp_path)
    assert code == 0
    assert sample is not None
    used = int(re.search(r"Percentage used endurance indicator: (\d+)%", text).group(1))  # type: ignore[union-attr]
    cycles = int(re.search(r"Accumulated start-stop cycles:\s+(\d+)", text).group(1))  # type: ignore[union-attr]
    assert value(sample, "wear_used_pct") == used
    assert value(sample, "power_cycles") == cycles
    assert sample["identity"]["capacity_bytes"] == 7_681_501_126_656  # "7 681 501 126 656 bytes"


def test_a_volume_without_a_temperature_sensor_is_unknown_and_flagged(tmp_path: Path) -> None:
    """intel-rs3dc080-raid-volume-1.txt: a MegaRAID volume printing "Current Drive Temperature:
    0 C" and "Drive Trip Temperature: 0 C", nothing else about temperature: smartctl's starting
    values, not a reading."""
    code, sample, _ = health(CORPUS / "intel-rs3dc080-raid-volume-1.txt", tmp_path)
    assert code == 0
    assert sample is not None
    assert value(sample, "temperature_c") is None
    assert any("trip point of 0 °C" in f for f in sample["flags"])


def test_32_bit_device_statistics_of_a_real_mx500_are_set_aside(tmp_path: Path) -> None:
    code, sample, _ = health(CORPUS / "crucial-ct500mx500ssd1-1.txt", tmp_path)
    assert code == 0
    assert sample is not None
    (choice,) = sample["choices"]
    assert choice["metric"] == "host_written_bytes"
    assert choice["chosen"] == "ata_smart_attributes[246] Total_LBAs_Written"
    assert "truncated to 32 bits" in choice["reason"]


# --- hostile variants of real reports ----------------------------------------------------------

TEXT_REPORTS = [
    "crucial-ct500mx500ssd1-1.txt",
    "samsung-ssd-840-series-500gb-1.txt",
    "liteon-cv1-8b128-1.txt",
    "hp-eg0146fawhu-sas-hdd-1.txt",
    "samsung-mzflv128hcgr-000mv-1.txt",
    "kingston-sa2000m8500g-1.txt",
]
_ROW = re.compile(
    r"^\s*\d{1,3} [A-Za-z][\w\-]+\s+(?:0x[0-9a-f]{4}|[PO-][O-][S-][R-][C-][K-]).*$", re.M
)


@pytest.mark.parametrize("name", TEXT_REPORTS)
def test_tab_indented_reports_state_the_same_figures(name: str, tmp_path: Path) -> None:
    original = CORPUS / name
    tabbed = tmp_path / name
    data = original.read_bytes()  # some reports are in a non-UTF-8 code page: keep the bytes
    tabbed.write_bytes(b"".join(b"\t" + line for line in data.splitlines(keepends=True)))
    code, sample, line = health(tabbed, tmp_path)
    assert code == 0, line
    assert sample is not None
    (tmp_path / "ref").mkdir()
    _, reference, _ = health(original, tmp_path / "ref")
    assert reference is not None
    for metric in ("host_written_bytes", "power_on_hours", "temperature_c", "wear_used_pct"):
        assert value(sample, metric) == value(reference, metric), metric
    assert sample["identity"] == reference["identity"]


ATA_REPORTS = [
    "crucial-ct500mx500ssd1-1.txt",
    "samsung-ssd-840-series-500gb-1.txt",
    "liteon-cv1-8b128-1.txt",
    "crucial-m4-ct256m4ssd2-1.txt",
]


@pytest.mark.parametrize("name", ATA_REPORTS)
def test_every_attribute_row_listed_twice(name: str, tmp_path: Path) -> None:
    """The whole table doubled: agreeing duplicates are read once, so every figure the report
    states still comes out, and each duplicated ID is named in a finding."""
    text = (CORPUS / name).read_bytes().decode("latin-1")  # any bytes, written back as they were
    rows = _ROW.findall(text)
    assert rows
    doubled = _ROW.sub(lambda m: m.group(0) + "\n" + m.group(0), text)
    path = tmp_path / name
    path.write_bytes(doubled.encode("latin-1"))
    code, sample, line = health(path, tmp_path)
    assert code == 0, line
    assert sample is not None
    assert sum("listed 2 times with the same values" in f for f in sample["flags"]) == len(rows)
    stated = read_stated(CORPUS / name)
    assert stated.protocol == sample["identity"]["protocol"]


def test_a_wrapped_counter_on_a_drive_no_map_knows(tmp_path: Path) -> None:
    """The real MX500 report as if from a drive ssdlab's vendor map does not know: the drivedb
    name of 246 states logical sectors, and the 32-bit Device Statistics are set aside for it."""
    text = (CORPUS / "crucial-ct500mx500ssd1-1.txt").read_text(encoding="utf-8")
    unknown = text.replace("CT500MX500SSD1", "SOME SSD 500GB").replace(
        "Model Family:     Crucial/Micron Client SSDs", "Model Family:     Some Client SSDs"
    )
    path = tmp_path / "unknown.txt"
    path.write_text(unknown, encoding="utf-8")
    code, sample, _ = health(path, tmp_path)
    assert code == 0
    assert sample is not None
    full = int(re.search(r"^246 Total_LBAs_Written\s.*\s(\d+)$", text, re.M).group(1))  # type: ignore[union-attr]
    devstat = int(re.search(r"^0x01\s+0x018\s+\d\s+(\d+)", text, re.M).group(1))  # type: ignore[union-attr]
    assert devstat == full % WRAP
    assert value(sample, "host_written_bytes") == full * 512
    assert sample["choices"][0]["rejected_value"] == devstat * 512


@pytest.mark.parametrize(
    ("name", "replace", "by"),
    [
        ("crucial-ct500mx500ssd1-1.txt", "11691690034", "9" * 30),
        ("crucial-ct500mx500ssd1-1.txt", "11691690034", str(2**70)),
        (
            "samsung-mzflv128hcgr-000mv-1.txt",
            "Data Units Written:",
            "Data Units Written: 9" + "9" * 40,
        ),
        ("hp-eg0146fawhu-sas-hdd-1.txt", "3560.808", "9" * 25 + ".808"),
        ("kingston-sa400s37480g-1.json", '"value": 398', '"value": ' + "9" * 400),
        ("kingston-sa400s37480g-1.json", '"value": 398', '"value": 1e400'),
    ],
)
def test_huge_numbers_give_a_result_or_one_line(
    name: str, replace: str, by: str, tmp_path: Path
) -> None:
    text = (CORPUS / name).read_text(encoding="utf-8")
    path = tmp_path / name
    path.write_text(text.replace(replace, by, 1), encoding="utf-8")
    code, sample, line = health(path, tmp_path)
    if code == 0:
        assert sample is not None
        for metric, figure in sample.items():
            if isinstance(figure, dict) and isinstance(figure.get("value"), float):
                assert math.isfinite(figure["value"]), metric
    else:
        assert code == 1
        assert line


@pytest.mark.parametrize("name", TEXT_REPORTS[:4])
@pytest.mark.parametrize("fraction", [0.3, 0.55, 0.8])
def test_truncated_reports_give_stated_figures_or_one_line(
    name: str, fraction: float, tmp_path: Path
) -> None:
    data = (CORPUS / name).read_bytes()
    path = tmp_path / name
    path.write_bytes(data[: int(len(data) * fraction)])
    code, sample, line = health(path, tmp_path)
    if code != 0:
        assert "line" in line or str(path) in line
        return
    assert sample is not None
    # what a cut report still shows must be a figure the whole report states
    stated = read_stated(CORPUS / name)
    written = value(sample, "host_written_bytes")
    if written is not None:
        assert any(math.isclose(written, f.value, abs_tol=f.tolerance) for f in stated.written)
    hours = value(sample, "power_on_hours")
    if hours is not None:
        assert any(math.isclose(hours, h) for h in stated.power_on_hours)
    temperature = value(sample, "temperature_c")
    if temperature is not None:
        assert temperature in stated.temperature_c
