"""nvme-cli smart-log JSON, the NAND-write logs, and merging samples."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssdlab.errors import ParseError
from ssdlab.model.health import DriveIdentity, HealthSample, HealthValue, Provenance
from ssdlab.parse.nvme_json import (
    describe_critical_warning,
    merge_samples,
    normalise_nvme_smart_log,
    parse_endurance_log,
    parse_intel_smart_log_add,
    parse_nvme_smart_log,
    parse_ocp_smart_add_log,
    parse_vendor_nand_text,
    to_count,
)
from ssdlab.parse.smartctl_json import parse_smartctl_json
from tests.conftest import load_json_object, shared_smart_sample

DATA = Path(__file__).resolve().parents[2] / "data" / "smart"
LOGS = DATA / "nand-logs"
MiB32 = 32 * 2**20
GiB = 2**30


# --- nvme smart-log -o json ----------------------------------------------------------------------


def test_nvme_cli_2x_kelvin_and_data_units() -> None:
    sample = parse_nvme_smart_log(
        (DATA / "nvme-cli-2.x-smart-log.json").read_text(encoding="utf-8"), taken_at_s=100.0
    )
    assert sample.temperature_c.value == 311 - 273
    assert sample.temperature_c.provenance is not None
    assert sample.temperature_c.provenance.unit == "K"
    assert sample.host_written_bytes.value == 40_961_332 * 512_000
    assert sample.host_read_bytes.value == 22_170_041 * 512_000
    assert sample.wear_used_pct.value == 4
    assert sample.available_spare_pct.value == 100
    assert sample.power_on_hours.value == 6031
    assert sample.unsafe_shutdowns.value == 44
    assert sample.media_errors.value == 0
    assert sample.critical_warning.value == 0
    assert sample.taken_at_s == 100.0
    assert sample.identity.protocol == "NVMe"
    assert sample.sources == ("nvme-cli smart-log",)
    assert sample.flags == ()
    provenance = sample.host_written_bytes.provenance
    assert provenance is not None
    assert provenance.source == "nvme smart-log.data_units_written"
    assert provenance.resolution == 512_000


def test_nvme_cli_json_c_strings_and_verbose_critical_warning() -> None:
    sample = parse_nvme_smart_log(
        (DATA / "nvme-cli-2.x-json-c-strings.json").read_text(encoding="utf-8")
    )
    assert sample.host_written_bytes.value == float((2**64 + 1) * 512_000)
    assert sample.power_on_hours.value == 41_000
    assert sample.media_errors.value == 12
    assert sample.critical_warning.value == 5
    assert sample.wear_used_pct.value == 117  # may exceed 100
    assert sample.available_spare_pct.value == 8
    assert sample.temperature_c.value == 27
    assert describe_critical_warning(5) == (
        "Critical warning: available spare is below its threshold.",
        "Critical warning: NVM subsystem reliability is degraded (media or internal errors).",
    )


def test_nvme_cli_1x_floats_are_rounded_to_counts() -> None:
    sample = parse_nvme_smart_log(
        (DATA / "nvme-cli-1.x-smart-log-floats.json").read_text(encoding="utf-8")
    )
    assert sample.host_written_bytes.value == 2_548_790 * 512_000
    assert sample.power_on_hours.value == 1500
    assert sample.unsafe_shutdowns.value == 9
    assert sample.temperature_c.value == 32
    provenance = sample.power_on_hours.provenance
    assert provenance is not None
    assert provenance.raw == 1500.0


def test_implausible_and_zero_kelvin() -> None:
    doc = load_json_object(DATA / "nvme-cli-2.x-smart-log.json")
    doc["temperature"] = 38  # someone fed °C where nvme-cli prints Kelvin
    sample = normalise_nvme_smart_log(doc)
    assert sample.temperature_c.value is None
    assert any("not a plausible Kelvin" in flag for flag in sample.flags)
    doc["temperature"] = 0
    assert normalise_nvme_smart_log(doc).temperature_c.value is None


def test_non_numeric_counter_is_ignored_with_a_finding() -> None:
    doc = load_json_object(DATA / "nvme-cli-2.x-smart-log.json")
    doc["data_units_written"] = "lots"
    sample = normalise_nvme_smart_log(doc)
    assert sample.host_written_bytes.value is None
    assert any("data_units_written" in flag for flag in sample.flags)


def test_identity_is_passed_through() -> None:
    identity = DriveIdentity("NVMe", "WD_BLACK SN770 1TB", "S1", "731100WD", 10**12)
    doc = load_json_object(DATA / "nvme-cli-2.x-smart-log.json")
    assert normalise_nvme_smart_log(doc, identity=identity).identity is identity


def test_bad_nvme_input() -> None:
    with pytest.raises(ParseError, match="not valid JSON"):
        parse_nvme_smart_log("nope")
    with pytest.raises(ParseError, match="not an object"):
        parse_nvme_smart_log("[]")
    with pytest.raises(ParseError, match="none of the SMART"):
        parse_nvme_smart_log('{"Devices": []}')


@given(st.integers(min_value=0, max_value=2**128 - 1))
def test_to_count_reads_numbers_strings_and_floats(n: int) -> None:
    assert to_count(n) == n
    assert to_count(str(n)) == n
    assert to_count(hex(n)) == n
    assert to_count(float(n)) == round(float(n))


def test_to_count_refuses_non_counts() -> None:
    refused: tuple[object, ...] = (-1, True, None, "x", float("nan"), [], {})
    for raw in refused:
        assert to_count(raw) is None


# --- NAND-write logs -----------------------------------------------------------------------------


def test_ocp_c0_v1_and_v2() -> None:
    v1 = parse_ocp_smart_add_log(load_json_object(LOGS / "ocp-c0-v1.json"))
    assert v1.value == 400_000_000_000_000
    assert v1.provenance is not None
    assert v1.provenance.resolution == 1.0
    assert "Physical media units written" in v1.provenance.source
    v2 = parse_ocp_smart_add_log(load_json_object(LOGS / "ocp-c0-v2.json"))
    assert v2.value == float(2**64 + 5)


def test_ocp_c0_wrong_guid_or_missing_field_is_refused() -> None:
    with pytest.raises(ParseError, match="GUID"):
        parse_ocp_smart_add_log(load_json_object(LOGS / "ocp-c0-wrong-guid.json"))
    with pytest.raises(ParseError, match="no 'Physical media units written'"):
        parse_ocp_smart_add_log(
            {"Log page version": 3, "Log page GUID": "0xafd514c97c6f4f9ca4f2bfea2810afc5"}
        )


def test_intel_and_solidigm_smart_log_add_are_32_mib_units() -> None:
    intel = parse_intel_smart_log_add(load_json_object(LOGS / "intel-smart-log-add.json"))
    assert intel.value == 200_000_000 * MiB32
    assert intel.provenance is not None
    assert intel.provenance.resolution == MiB32
    solidigm = parse_intel_smart_log_add(load_json_object(LOGS / "solidigm-smart-log-add.json"))
    assert solidigm.value == 1_500_123 * MiB32
    with pytest.raises(ParseError, match="Device stats"):
        parse_intel_smart_log_add({"Intel Smart log": "nvme0"})


def test_endurance_log_media_units_are_10_9_bytes() -> None:
    endurance = parse_endurance_log(load_json_object(LOGS / "endurance-log.json"))
    assert endurance.value == 91_321 * 10**9
    assert endurance.provenance is not None
    assert endurance.provenance.resolution == 10**9
    with pytest.raises(ParseError):
        parse_endurance_log({"percent_used": 3})


@pytest.mark.parametrize(
    ("vendor", "file", "expected", "resolution"),
    [
        ("samsung", "samsung-vs-smart-add-log.txt", 123_456_789_012_345, 1),
        ("seagate", "seagate-vs-smart-add-log.txt", 0x100000 * 512_000, 512_000),
        ("toshiba", "toshiba-vs-smart-add-log.txt", 20480.5 * GiB, GiB / 10),
        ("kioxia", "toshiba-vs-smart-add-log.txt", 20480.5 * GiB, GiB / 10),
        ("liteon", "liteon-vs-smart-add-log.txt", 157_000_000_000_000, 1),
        ("wdc", "wdc-vs-smart-add-log.txt", 2_000_000_000_000_000, 1),
        ("micron", "micron-vs-smart-add-log.txt", 10**12, 1),
        ("intel", "intel-smart-log-add.txt", 200_000_000 * MiB32, MiB32),
        ("Solidigm", "intel-smart-log-add.txt", 200_000_000 * MiB32, MiB32),
    ],
)
def test_vendor_text_logs(vendor: str, file: str, expected: float, resolution: float) -> None:
    value = parse_vendor_nand_text((LOGS / file).read_text(encoding="utf-8"), vendor)
    assert value.value == pytest.approx(expected)
    assert value.provenance is not None
    assert value.provenance.resolution == pytest.approx(resolution)


def test_vendor_text_errors() -> None:
    with pytest.raises(ParseError, match="no NAND-writes text parser"):
        parse_vendor_nand_text("x", "acme")
    with pytest.raises(ParseError, match="no NAND-writes line"):
        parse_vendor_nand_text("nothing here", "samsung")


# --- merging -------------------------------------------------------------------------------------


def test_merge_fills_unknowns_and_keeps_provenance() -> None:
    smartctl = parse_smartctl_json(
        shared_smart_sample("intel-p4510-SSDPE2KX020T8-nvme.json").read_text(encoding="utf-8")
    )
    nand = parse_intel_smart_log_add(load_json_object(LOGS / "intel-smart-log-add.json"))
    addition = HealthSample(
        taken_at_s=None,
        identity=DriveIdentity("NVMe", None, None, None, None),
        nand_written_bytes=nand,
        sources=("nvme intel smart-log-add",),
    )
    merged = merge_samples(smartctl, addition)
    assert merged.nand_written_bytes is nand
    assert merged.host_written_bytes is smartctl.host_written_bytes
    assert merged.identity == smartctl.identity
    assert merged.sources == ("smartctl 7.3", "nvme intel smart-log-add")
    assert merged.verdict == "PASSED"
    assert merged.exit_status == 0
    # 6.7 PB NAND vs 1.35 PB host: no NAND < host flag
    assert merged.flags == ()


def test_merge_nvme_cli_sample_takes_identity_and_time_from_smartctl() -> None:
    smartctl = parse_smartctl_json(
        shared_smart_sample("samsung-970evo-500GB-nvme-x.json").read_text(encoding="utf-8")
    )
    cli = parse_nvme_smart_log((DATA / "nvme-cli-2.x-smart-log.json").read_text("utf-8"))
    merged = merge_samples(cli, smartctl)
    assert merged.identity.model == "Samsung SSD 970 EVO 500GB"
    assert merged.identity.protocol == "NVMe"
    assert merged.taken_at_s == smartctl.taken_at_s
    assert merged.host_written_bytes is cli.host_written_bytes  # primary kept
    assert merged.verdict == "PASSED"
    assert merged.sources == ("nvme-cli smart-log", "smartctl 7.0")


def test_merge_rechecks_nand_below_host() -> None:
    identity = DriveIdentity("NVMe", "X", None, None, None)
    host = HealthValue(2e12, Provenance("host", 1, "B", 512_000))
    nand = HealthValue(1e12, Provenance("nand", 1, "B", 1))
    first = HealthSample(None, identity, host_written_bytes=host, flags=("a",), sources=("s1",))
    second = HealthSample(
        None, identity, nand_written_bytes=nand, flags=("a", "b"), sources=("s2",)
    )
    merged = merge_samples(first, second)
    assert merged.flags[:2] == ("a", "b")
    assert any("below host writes" in flag for flag in merged.flags)


def test_merge_of_one_sample_is_identity() -> None:
    sample = parse_nvme_smart_log((DATA / "nvme-cli-2.x-smart-log.json").read_text("utf-8"))
    assert merge_samples(sample) == sample
