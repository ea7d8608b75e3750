"""`ssdlab wear` and `ssdlab health --import` on `smartctl -A` snapshots that carry no time.

The snapshots are CONSTRUCTED here, not captured: two Crucial/Micron MX300 `smartctl -A`
attribute tables in smartctl 7.x's layout (attribute names as drivedb gives them for the MX300;
see reference/smart.md §2.2), 97 power-on hours apart with the wear indicator (202) going from
0 to 3 % — the endurance log of issue #17. `smartctl -A` prints no identity lines, so the model
is given with --model. Every expected figure is worked out by hand from the numbers below.
"""

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import run_ssdlab

MODEL = "Crucial_CT525MX300SSD1"
HEADER = """smartctl 7.3 2022-02-28 r5338 [x86_64-linux-6.1.0-21-amd64] (local build)
Copyright (C) 2002-22, Bruce Allen, Christian Franke, www.smartmontools.org

=== START OF READ SMART DATA SECTION ===
SMART Attributes Data Structure revision number: 16
Vendor Specific SMART Attributes with Thresholds:
ID# ATTRIBUTE_NAME          FLAG     VALUE WORST THRESH TYPE      UPDATED  WHEN_FAILED RAW_VALUE
"""
# (power-on hours, 173 avg erase count, 202 % lifetime used, 246 host sectors, 247, 248 pages)
BEFORE = (1000, 10, 0, 2_000_000_000, 30_000_000, 20_000_000)
AFTER = (1097, 55, 3, 7_859_375_000, 213_105_469, 111_552_734)


def snapshot(poh: int, erase: int, wear: int, host: int, host_pages: int, ftl_pages: int) -> str:
    rows = [
        (1, "Raw_Read_Error_Rate", "0x002f", 100, 0, "Pre-fail", "Always", 0),
        (5, "Reallocate_NAND_Blk_Cnt", "0x0032", 100, 10, "Old_age", "Always", 0),
        (9, "Power_On_Hours", "0x0032", 100, 0, "Old_age", "Always", poh),
        (12, "Power_Cycle_Count", "0x0032", 100, 0, "Old_age", "Always", 42),
        (173, "Ave_Block-Erase_Count", "0x0032", 100 - erase // 15, 0, "Old_age", "Always", erase),
        (194, "Temperature_Celsius", "0x0022", 70, 0, "Old_age", "Always", 30),
        (202, "Percent_Lifetime_Remain", "0x0030", 100 - wear, 1, "Old_age", "Offline", wear),
        (246, "Total_Host_Sector_Write", "0x0032", 100, 0, "Old_age", "Always", host),
        (247, "Host_Program_Page_Count", "0x0032", 100, 0, "Old_age", "Always", host_pages),
        (248, "Bckgnd_Program_Page_Cnt", "0x0032", 100, 0, "Old_age", "Always", ftl_pages),
    ]
    lines = [
        f"{i:3d} {name:<23} {flag}   {value:03d}   {value:03d}   {thresh:03d}    {kind:<9} "
        f"{updated:<8} -       {raw}"
        for i, name, flag, value, thresh, kind, updated, raw in rows
    ]
    return HEADER + "\n".join(lines) + "\n\n"


# By hand: wear 0 → 3 % in 97 h is 3 / (97 / 24) %/day; 97 % left ⇒ 97 × 97 / 3 / 24 days.
ELAPSED_H = AFTER[0] - BEFORE[0]
WEAR_BEFORE, WEAR_AFTER = BEFORE[2], AFTER[2]
HOST_AFTER_BYTES = AFTER[3] * 512
HOST_DELTA_BYTES = (AFTER[3] - BEFORE[3]) * 512  # 3.000 TB


def days_to_eol(elapsed_h: float) -> float:
    pct_per_day = (WEAR_AFTER - WEAR_BEFORE) / (elapsed_h / 24)
    return (100 - WEAR_AFTER) / pct_per_day


# 3 % per 3 TB of host writes; the remaining 97 % at that rate, on top of the host total now
TBW_AT_EOL_BYTES = HOST_AFTER_BYTES + (100 - WEAR_AFTER) / (WEAR_AFTER - WEAR_BEFORE) * (
    HOST_DELTA_BYTES
)


@pytest.fixture
def snapshots(tmp_path: Path) -> tuple[Path, Path, Path]:
    before, after, log = tmp_path / "before.txt", tmp_path / "after.txt", tmp_path / "log.txt"
    before.write_text(snapshot(*BEFORE))
    after.write_text(snapshot(*AFTER))
    log.write_text(snapshot(*BEFORE) + snapshot(*AFTER))
    return before, after, log


def wear_json(tmp_path: Path, before: Path, after: Path, *extra: str) -> dict[str, Any]:
    result = run_ssdlab(
        "wear", str(before), str(after), "--model", MODEL, "--json",
        "--db", str(tmp_path / "db"), *extra,
    )  # fmt: skip
    assert result.code == 0, result.stderr
    report: dict[str, Any] = json.loads(result.stdout)["report"]
    return report


def test_the_numbers_of_the_fixture_are_the_issue_s() -> None:
    assert ELAPSED_H == 97
    assert (WEAR_BEFORE, WEAR_AFTER) == (0, 3)
    assert HOST_DELTA_BYTES == 3 * 10**12
    assert days_to_eol(97) == pytest.approx(130.68, abs=0.01)  # "about 130 days"


def test_wear_takes_the_elapsed_time_from_power_on_hours(
    tmp_path: Path, snapshots: tuple[Path, Path, Path]
) -> None:
    before, after, _ = snapshots
    report = wear_json(tmp_path, before, after)
    assert report["before_taken_at_s"] is None
    assert report["after_taken_at_s"] is None
    assert report["elapsed_source"] == "power_on_hours"
    assert report["elapsed_s"] == ELAPSED_H * 3600
    assert report["elapsed_resolution_s"] == 3600
    assert report["elapsed_uncertainty_pct"] == pytest.approx(100 / ELAPSED_H)
    assert report["host_written_bytes"]["delta"] == HOST_DELTA_BYTES
    projection = report["projection"]
    assert projection["days_to_eol"] == pytest.approx(days_to_eol(ELAPSED_H))
    assert projection["host_written_at_eol_bytes"] == pytest.approx(TBW_AT_EOL_BYTES)
    nand_delta = report["nand_written_bytes"]["delta"]  # pages × the parser's page size
    assert report["waf"]["waf"] == pytest.approx(nand_delta / HOST_DELTA_BYTES)
    notes = " ".join(report["notes"])
    assert "elapsed time from Power_On_Hours: 97 h" in notes
    assert "±1 h" in notes


def test_elapsed_overrides_power_on_hours(
    tmp_path: Path, snapshots: tuple[Path, Path, Path]
) -> None:
    before, after, _ = snapshots
    report = wear_json(tmp_path, before, after, "--elapsed", "200h")
    assert report["elapsed_source"] == "given"
    assert report["elapsed_s"] == 200 * 3600
    assert report["projection"]["days_to_eol"] == pytest.approx(days_to_eol(200))
    assert report["projection"]["host_written_at_eol_bytes"] == pytest.approx(TBW_AT_EOL_BYTES)
    four_days = wear_json(tmp_path, before, after, "--elapsed", "4d")
    assert four_days["projection"]["days_to_eol"] == pytest.approx(days_to_eol(96))


def test_the_terminal_says_where_the_time_came_from(
    tmp_path: Path, snapshots: tuple[Path, Path, Path]
) -> None:
    before, after, _ = snapshots
    result = run_ssdlab(
        "wear", str(before), str(after), "--model", MODEL, "--db", str(tmp_path / "db"),
        env={"COLUMNS": "300"},
    )  # fmt: skip
    assert result.code == 0, result.stderr
    assert "97 h from Power_On_Hours" in result.stdout
    assert f"{days_to_eol(97):,.0f} days at the observed rate" in result.stdout
    assert "power-on hour 1,000" in result.stdout


def test_health_import_of_untimed_snapshots(
    tmp_path: Path, snapshots: tuple[Path, Path, Path]
) -> None:
    _, _, log = snapshots
    db = str(tmp_path / "db")
    for extra, hours, source in (((), 97, "power_on_hours"), (("--elapsed", "200h"), 200, "given")):
        result = run_ssdlab("health", "--import", str(log), "--model", MODEL, "--json", "--db", db,
                            *extra)  # fmt: skip
        assert result.code == 0, result.stderr
        series = json.loads(result.stdout)["series"]
        assert series["time_source"] == source
        assert series["overall"]["elapsed_source"] == source
        assert series["overall"]["elapsed_s"] == hours * 3600
        assert series["projection"]["days_to_eol"] == pytest.approx(days_to_eol(hours))
        assert series["projection"]["host_written_at_eol_bytes"] == pytest.approx(TBW_AT_EOL_BYTES)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("wear", "{before}", "{after}", "--elapsed", "0h"), "--elapsed must be a positive time"),
        (("wear", "{before}", "{after}", "--elapsed", "soon"), "is not a duration"),
        (("health", "{before}", "--elapsed", "4d"), "this input holds only one"),
        (("health", "--import", "{log}", "--elapsed", "-3h"), "--elapsed"),
    ],
)
def test_bad_elapsed_is_one_clear_line(
    tmp_path: Path, snapshots: tuple[Path, Path, Path], args: tuple[str, ...], words: str
) -> None:
    before, after, log = snapshots
    filled = [a.format(before=before, after=after, log=log) for a in args]
    result = run_ssdlab(*filled, "--model", MODEL, "--db", str(tmp_path / "db"))
    assert result.code == 2
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if "error" in line]
    assert len(errors) == 1, result.stderr
    assert words in errors[0], result.stderr
