"""normalise_smartctl / parse_smartctl_json and the sanity checks.

The real third-party samples are read from /work/shared/testdata/smart (never copied into the
project) and must give the values of its SOURCES.md; our own hand-made fixtures are in
tests/data/smart (see its README).
"""

import copy
import itertools
import math
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssdlab.errors import ParseError
from ssdlab.model.health import HEALTH_METRICS, UNKNOWN, HealthSample, HealthValue, Provenance
from ssdlab.parse.smart_checks import (
    check_against_device_statistics,
    check_counter_series,
    check_erase_vs_nand,
    check_nand_vs_host,
    check_writes_vs_wear,
    raw_nand_capacity_bytes,
)
from ssdlab.parse.smartctl_json import (
    EXIT_STATUS_BITS,
    decode_exit_status,
    normalise_smartctl,
    parse_smartctl_json,
)
from tests.conftest import load_json_object, shared_smart_sample

DATA = Path(__file__).resolve().parents[2] / "data" / "smart"
TB = 10**12
GiB = 2**30


def known(sample: HealthSample) -> dict[str, HealthValue]:
    return {m: getattr(sample, m) for m in HEALTH_METRICS if getattr(sample, m).value is not None}


# --- the real samples against SOURCES.md ---------------------------------------------------------


@dataclass(frozen=True)
class Expected:
    file: str
    host_tb: float
    host_tol_tb: float
    nand_tb: float | None = None
    nand_tol_tb: float = 0.0
    waf: float | None = None
    wear_pct: float | None = None
    avg_erase: float | None = None
    max_erase: float | None = None
    host_raw: int | None = None  # the counter as SOURCES.md quotes it (GiB, data units)
    nand_raw: int | None = None


# Precision: the number of decimals SOURCES.md gives (half a unit of the last digit).
EXPECTED = [
    Expected(
        "micron-5300-MTFDDAK1T9TDS-sata.json",
        66.5635,
        0.00005,
        nand_tb=211.15,
        nand_tol_tb=0.005,  # "≈ 211.15 TB"
        waf=3.172,
        wear_pct=0,
        avg_erase=83,
    ),
    Expected(
        "samsung-pm893-MZ7L3240HCHQ-sata.json",
        0.3341,
        0.00005,
        nand_tb=0.5088,
        nand_tol_tb=0.00005,
        waf=1.523,
        wear_pct=2,
        avg_erase=114,
    ),
    Expected(
        "kingston-a400-SA400M8120G-phison-sata.json",
        0.4273,
        0.00005,
        nand_tb=1.0512,
        nand_tol_tb=0.00005,
        waf=2.460,
        wear_pct=2,
        avg_erase=17,
        max_erase=50,
        host_raw=398,
        nand_raw=979,
    ),
    Expected(
        "kingston-kc400-SKC400S371T-phison-sata.json",
        420.6287,
        0.00005,
        nand_tb=901.9506,
        nand_tol_tb=0.00005,
        waf=2.144,
        wear_pct=26,
        avg_erase=808,
        max_erase=888,
        host_raw=391_741,
        nand_raw=840_007,
    ),
    Expected("crucial-p2-CT250P2SSD8-nvme.json", 0.5135, 0.00005, wear_pct=0, host_raw=1_002_900),
    Expected("intel-p4510-SSDPE2KX020T8-nvme.json", 1353.309, 0.0005, wear_pct=22),
    Expected("samsung-pm9a1-MZVL21T0HCLR-nvme.json", 58.1953, 0.00005, wear_pct=16),
    Expected("samsung-860evo-500GB-sata-x.json", 33.1662, 0.00005, wear_pct=19, avg_erase=278),
    Expected("samsung-970evo-500GB-nvme-x.json", 33.5883, 0.00005, wear_pct=3),
]


@pytest.mark.parametrize("expected", EXPECTED, ids=[e.file for e in EXPECTED])
def test_real_samples_give_the_values_of_sources_md(expected: Expected) -> None:
    sample = parse_smartctl_json(shared_smart_sample(expected.file).read_text(encoding="utf-8"))
    host = sample.host_written_bytes.value
    assert host is not None
    assert abs(host / TB - expected.host_tb) <= expected.host_tol_tb
    nand = sample.nand_written_bytes.value
    if expected.nand_tb is None:
        assert nand is None  # "n/a": never 0
    else:
        assert nand is not None
        assert abs(nand / TB - expected.nand_tb) <= expected.nand_tol_tb
    if expected.waf is not None:
        assert nand is not None
        assert nand / host == pytest.approx(expected.waf, abs=0.0005)
    assert sample.wear_used_pct.value == expected.wear_pct
    assert sample.erase_count_avg.value == expected.avg_erase
    assert sample.erase_count_max.value == expected.max_erase
    if expected.host_raw is not None:
        assert sample.host_written_bytes.provenance is not None
        assert sample.host_written_bytes.provenance.raw == expected.host_raw
    if expected.nand_raw is not None:
        assert sample.nand_written_bytes.provenance is not None
        assert sample.nand_written_bytes.provenance.raw == expected.nand_raw


@pytest.mark.parametrize("expected", EXPECTED, ids=[e.file for e in EXPECTED])
def test_every_known_value_carries_provenance_and_byte_counters_their_resolution(
    expected: Expected,
) -> None:
    sample = parse_smartctl_json(shared_smart_sample(expected.file).read_text(encoding="utf-8"))
    for metric, value in known(sample).items():
        assert value.provenance is not None, metric
        assert value.provenance.source, metric
        assert value.provenance.unit, metric
        if metric.endswith("_bytes"):
            resolution = value.provenance.resolution
            assert resolution is not None, metric
            assert resolution > 0, metric
            assert value.value is not None
            assert math.isclose(value.value / resolution, round(value.value / resolution))


def test_only_the_pm893_sample_is_flagged_and_its_flag_names_the_wrap() -> None:
    for expected in EXPECTED:
        sample = parse_smartctl_json(shared_smart_sample(expected.file).read_text(encoding="utf-8"))
        if expected.file.startswith("samsung-pm893"):
            assert len(sample.flags) == 1
            flag = sample.flags[0]
            assert "NAND writes look far too small" in flag
            assert "114" in flag
            assert "32-bit" in flag
            assert "14 wraps" in flag
            assert "31.3 TB" in flag
            assert "Host writes" in flag  # 241 may have wrapped too: lifetime WAF unreliable
        else:
            assert sample.flags == (), expected.file


def test_micron_5300_page_size_is_calibrated_to_16_kib() -> None:
    sample = parse_smartctl_json(
        shared_smart_sample("micron-5300-MTFDDAK1T9TDS-sata.json").read_text(encoding="utf-8")
    )
    provenance = sample.nand_written_bytes.provenance
    assert provenance is not None
    assert provenance.resolution == 16384
    assert provenance.raw == "4062707571 + 8824675195"
    assert "calibrated" in (provenance.note or "")
    assert sample.identity.model_family == "Micron 5100 Pro / 52x0 / 5300 SSDs"


def test_860evo_device_statistics_agree_with_attributes_and_identity_is_read() -> None:
    sample = parse_smartctl_json(
        shared_smart_sample("samsung-860evo-500GB-sata-x.json").read_text(encoding="utf-8")
    )
    assert sample.host_written_bytes.value == 64_777_770_148 * 512
    provenance = sample.host_written_bytes.provenance
    assert provenance is not None
    assert provenance.source.startswith("ata_device_statistics")
    assert sample.identity.serial == "S3YZNB0KB00864E"
    assert sample.identity.firmware == "RVT02B6Q"
    assert sample.identity.capacity_bytes == 500_107_862_016
    assert sample.identity.protocol == "ATA"
    assert sample.identity.device_path == "/dev/sda"
    assert sample.taken_at_s == 1637039918
    assert sample.sources == ("smartctl 7.0",)


def test_vendor_attribute_disagreeing_with_device_statistics_is_flagged() -> None:
    doc = load_json_object(shared_smart_sample("samsung-860evo-500GB-sata-x.json"))
    for row in doc["ata_smart_attributes"]["table"]:
        if row["id"] == 241:
            row["raw"]["value"] //= 2
    sample = normalise_smartctl(doc)
    assert sample.host_written_bytes.value == 64_777_770_148 * 512  # Device Statistics wins
    assert len(sample.flags) == 1
    assert "disagrees with Device Statistics" in sample.flags[0]
    assert "[241]" in sample.flags[0]


def test_970evo_media_errors_and_nvme_values() -> None:
    sample = parse_smartctl_json(
        shared_smart_sample("samsung-970evo-500GB-nvme-x.json").read_text(encoding="utf-8")
    )
    assert sample.media_errors.value == 7
    assert sample.available_spare_pct.value == 99
    assert sample.critical_warning.value == 0
    assert sample.temperature_c.value == 35
    assert sample.identity.protocol == "NVMe"
    assert sample.verdict == "PASSED"


def test_a400_exit_status_bit_2_is_decoded_and_the_data_still_parsed() -> None:
    sample = parse_smartctl_json(
        shared_smart_sample("kingston-a400-SA400M8120G-phison-sata.json").read_text(
            encoding="utf-8"
        )
    )
    assert sample.exit_status == 4
    assert sample.exit_findings == (EXIT_STATUS_BITS[2],)
    assert sample.host_written_bytes.value == 398 * GiB


# --- own fixtures --------------------------------------------------------------------------------


def test_mx500_devstat_truncated_to_32_bits_is_flagged_and_246_is_used() -> None:
    sample = parse_smartctl_json(
        (DATA / "ata-crucial-mx500-devstat-wrap.json").read_text(encoding="utf-8")
    )
    assert sample.host_written_bytes.value == 11_500_000_000 * 512
    assert len(sample.flags) == 1
    assert "modulo 2^32" in sample.flags[0]
    assert "[246]" in sample.flags[0]
    # NAND from pages with the page size calibrated from 246 / 247 (30,195 B -> 30,208 B)
    assert sample.nand_written_bytes.value == (195_000_000 + 130_000_000) * 30208
    assert sample.wear_used_pct.value == 3


def test_mx500_truncation_is_found_whichever_counter_wins_by_priority() -> None:
    doc = load_json_object(DATA / "ata-crucial-mx500-devstat-wrap.json")
    doc["model_family"] = "Samsung based SSDs"  # 241-style vendor entry (prio 50) vs devstat 60
    doc["model_name"] = "Samsung SSD 860 EVO 500GB"
    for row in doc["ata_smart_attributes"]["table"]:
        if row["id"] == 246:
            row["id"] = 241
    sample = normalise_smartctl(doc)
    assert sample.host_written_bytes.value == 11_500_000_000 * 512
    assert any("modulo 2^32" in flag for flag in sample.flags)


def test_missing_attributes_stay_none_never_zero() -> None:
    sample = parse_smartctl_json((DATA / "ata-missing-attributes.json").read_text("utf-8"))
    assert set(known(sample)) == {"power_on_hours", "power_cycles"}
    for metric in ("host_written_bytes", "nand_written_bytes", "wear_used_pct", "temperature_c"):
        assert getattr(sample, metric).value is None
        assert getattr(sample, metric).provenance is None
    assert sample.flags == ()


def test_unknown_vendor_gets_generic_values_only_and_says_why_host_writes_are_unknown() -> None:
    sample = parse_smartctl_json((DATA / "ata-unknown-vendor.json").read_text("utf-8"))
    assert sample.identity.model_family is None
    assert set(known(sample)) == {
        "power_on_hours",
        "power_cycles",
        "reallocated_sectors",
        "temperature_c",
    }
    assert sample.pending_sectors.value is None  # 197 is Not_In_Use there
    assert len(sample.flags) == 1
    assert "not in the vendor map" in sample.flags[0]
    assert "241" in sample.flags[0]


def test_unknown_vendor_with_device_statistics_gets_host_writes_from_there() -> None:
    doc = load_json_object(DATA / "ata-unknown-vendor.json")
    doc["ata_device_statistics"] = {
        "pages": [
            {
                "number": 1,
                "table": [
                    {
                        "offset": 24,
                        "name": "Logical Sectors Written",
                        "value": 3_416_125_440,
                        "flags": {"valid": True},
                    },
                    {
                        "offset": 40,
                        "name": "Logical Sectors Read",
                        "value": 99,
                        "flags": {"valid": False},
                    },
                ],
            }
        ]
    }
    sample = normalise_smartctl(doc)
    assert sample.host_written_bytes.value == 3_416_125_440 * 512
    assert sample.host_read_bytes.value is None  # flags.valid = false
    assert sample.flags == ()


def test_model_override_drives_vendor_matching() -> None:
    doc = load_json_object(DATA / "ata-unknown-vendor.json")
    sample = normalise_smartctl(doc, model_override="KINGSTON SA400S37240G")
    assert sample.identity.model == "KINGSTON SA400S37240G"
    assert sample.host_written_bytes.value == 52113 * GiB  # Phison: 241 in GiB


EXIT_FILES = sorted((DATA / "exit-status").glob("bit*.json"))


@pytest.mark.parametrize("path", EXIT_FILES, ids=[p.stem for p in EXIT_FILES])
def test_each_exit_status_bit(path: Path) -> None:
    bit = int(path.stem[3])
    sample = parse_smartctl_json(path.read_text(encoding="utf-8"))
    assert sample.exit_status == 1 << bit
    assert sample.exit_findings == (EXIT_STATUS_BITS[bit],)
    if bit <= 2:  # collection failed: no verdict and nothing invented
        assert sample.verdict is None
        assert known(sample) == {}
    elif bit == 3:
        assert sample.verdict == "FAILED"
    else:
        assert sample.verdict == "PASSED"  # bits 4-7 are health notes, not a failed command
        assert sample.host_written_bytes.value is not None


def test_there_is_a_fixture_for_every_exit_bit() -> None:
    assert sorted(int(p.stem[3]) for p in EXIT_FILES) == list(range(8))


def test_decode_exit_status_combinations() -> None:
    assert decode_exit_status(0) == ()
    assert decode_exit_status(64 | 4) == (EXIT_STATUS_BITS[2], EXIT_STATUS_BITS[6])
    assert len(decode_exit_status(255)) == 8
    assert "not a smartctl exit status" in decode_exit_status(256)[-1]


def test_time_comes_from_the_caller_then_the_document_else_none() -> None:
    doc = load_json_object(DATA / "ata-missing-attributes.json")
    assert normalise_smartctl(doc).taken_at_s == 1767229200
    assert normalise_smartctl(doc, taken_at_s=5.0).taken_at_s == 5.0
    del doc["local_time"]
    assert normalise_smartctl(doc).taken_at_s is None


def test_bad_input_raises_parse_error() -> None:
    with pytest.raises(ParseError, match="not valid JSON"):
        parse_smartctl_json("{not json")
    with pytest.raises(ParseError, match="not an object"):
        parse_smartctl_json("[1, 2]")
    with pytest.raises(ParseError, match="not smartctl"):
        parse_smartctl_json('{"jobs": []}')


def test_page_size_falls_back_to_the_map_and_says_so_when_host_writes_are_unknown() -> None:
    doc = load_json_object(DATA / "ata-crucial-mx500-devstat-wrap.json")
    doc["ata_smart_attributes"]["table"] = [
        r for r in doc["ata_smart_attributes"]["table"] if r["id"] != 246
    ]
    del doc["ata_device_statistics"]
    sample = normalise_smartctl(doc)
    assert sample.host_written_bytes.value is None
    assert sample.nand_written_bytes.value == (195_000_000 + 130_000_000) * 16384
    assert any("assumed page size" in flag for flag in sample.flags)


def test_nvme_counter_beyond_2_53_is_read_from_the_decimal_string() -> None:
    doc = load_json_object(shared_smart_sample("crucial-p2-CT250P2SSD8-nvme.json"))
    log = doc["nvme_smart_health_information_log"]
    log["data_units_written"] = 2.0**64  # what a double holds
    log["data_units_written_s"] = "18446744073709551621"
    sample = normalise_smartctl(doc)
    provenance = sample.host_written_bytes.provenance
    assert provenance is not None
    assert provenance.raw == "18446744073709551621"
    assert sample.host_written_bytes.value == float(18446744073709551621 * 512_000)


def test_scsi_document() -> None:
    doc = {
        "json_format_version": [1, 0],
        "smartctl": {"version": [7, 3], "exit_status": 0},
        "device": {"name": "/dev/sdf", "type": "scsi", "protocol": "SCSI"},
        "scsi_vendor": "HGST",
        "scsi_product": "HUSMR3280ASS200",
        "scsi_revision": "A360",
        "user_capacity": {"blocks": 1562824368, "bytes": 800166076416},
        "smart_status": {"passed": True},
        "temperature": {"current": 31, "drive_trip": 70},
        "power_on_time": {"hours": 26195, "minutes": 30},
        "scsi_grown_defect_list": 2,
        "scsi_percentage_used_endurance_indicator": 11,
        "scsi_error_counter_log": {
            "read": {"gigabytes_processed": "717449.555", "total_uncorrected_errors": 1},
            "write": {"gigabytes_processed": "109115.331", "total_uncorrected_errors": 0},
        },
    }
    sample = normalise_smartctl(doc)
    assert sample.identity.model == "HGST HUSMR3280ASS200"
    assert sample.identity.firmware == "A360"
    assert sample.host_written_bytes.value == pytest.approx(109115.331e9)
    assert sample.host_read_bytes.value == pytest.approx(717449.555e9)
    assert sample.wear_used_pct.value == 11
    assert sample.reallocated_sectors.value == 2
    assert sample.uncorrectable_errors.value == 1
    assert sample.power_on_hours.value == pytest.approx(26195.5)


@given(st.integers(min_value=0, max_value=2**48 - 1))
def test_samsung_241_is_exactly_raw_times_logical_sector(raw: int) -> None:
    doc = {
        "smartctl": {"exit_status": 0},
        "model_family": "Samsung based SSDs",
        "model_name": "Samsung SSD 860 EVO 500GB",
        "logical_block_size": 512,
        "ata_smart_attributes": {
            "table": [{"id": 241, "name": "Total_LBAs_Written", "raw": {"value": raw}}]
        },
    }
    sample = normalise_smartctl(doc)
    assert sample.host_written_bytes.value == raw * 512
    assert sample.host_written_bytes.provenance == Provenance(
        "ata_smart_attributes[241] Total_LBAs_Written",
        raw,
        "512-byte logical sector",
        512.0,
        "vendor map: Samsung (built-in)",
    )


def test_the_input_document_is_not_modified() -> None:
    doc = load_json_object(DATA / "ata-crucial-mx500-devstat-wrap.json")
    before = copy.deepcopy(doc)
    normalise_smartctl(doc)
    assert doc == before


# --- sanity checks -------------------------------------------------------------------------------


def value(v: float, resolution: float, source: str = "counter") -> HealthValue:
    return HealthValue(v, Provenance(source, None, "unit", resolution))


def test_writes_beyond_what_nand_could_take_at_the_wear_are_flagged() -> None:
    capacity = 480 * 10**9
    wear = value(5, 1, "wear")
    # the SanDisk PLUS report of the corpus: 31.2 PB written on a 480 GB drive at 5 % wear
    (finding,) = check_writes_vs_wear(value(31.21e15, 512), wear, capacity)
    assert "65,0" in finding
    assert "at most 5,000" in finding
    assert "31.21 PB" in finding
    # 4,999 drive writes at 5 %: within what SLC could take, so not flagged
    assert check_writes_vs_wear(value(4_999 * capacity, 512), wear, capacity) == ()
    # a wear counter still at 0 is taken as one step of 1 %
    assert check_writes_vs_wear(value(999 * capacity, 512), value(0, 1), capacity) == ()
    assert check_writes_vs_wear(value(1_001 * capacity, 512), value(0, 1), capacity) != ()
    assert check_writes_vs_wear(value(1e18, 512), UNKNOWN, capacity) == ()  # nothing to judge


def test_counter_series_monotonic_is_fine() -> None:
    assert check_counter_series([(0, 1), (10, 1), (20, 5)]) == ()


def test_counter_series_32_bit_wrap() -> None:
    findings = check_counter_series([(0, 4_294_000_000), (60, 1_000_000)])
    assert len(findings) == 1
    assert "32-bit" in findings[0]
    assert "wrapped" in findings[0]
    in_bytes = check_counter_series([(0, 4_294_000_000 * 512), (60, 512)], unit_bytes=512)
    assert "32-bit" in in_bytes[0]


def test_counter_series_reset_and_order() -> None:
    findings = check_counter_series([(10, 500), (0, 400), (20, 3)])
    assert findings[0].startswith("The samples were not in time order")
    assert "reset or truncated" in findings[1]


@given(st.lists(st.tuples(st.floats(0, 1e9), st.floats(0, 1e15)), max_size=30))
def test_counter_series_flags_exactly_the_decreases(pairs: list[tuple[float, float]]) -> None:
    ordered = sorted(pairs, key=lambda p: p[0])
    drops = sum(1 for (_, a), (_, b) in itertools.pairwise(ordered) if b < a)
    findings = check_counter_series(ordered)
    assert len(findings) == drops


@given(st.lists(st.floats(0, 1e15), max_size=30))
def test_counter_series_never_flags_a_non_decreasing_counter(values: list[float]) -> None:
    assert check_counter_series(list(enumerate(sorted(values)))) == ()


def test_nand_below_host_is_flagged_beyond_resolution_only() -> None:
    host = value(100 * GiB, GiB, "host")
    assert check_nand_vs_host(host, value(99.5 * GiB, 0.5 * GiB)) == ()
    flags = check_nand_vs_host(host, value(50 * GiB, GiB, "nand"))
    assert len(flags) == 1
    assert "below host writes" in flags[0]
    assert check_nand_vs_host(host, HealthValue(None)) == ()


def test_device_statistics_agreement_truncation_and_disagreement() -> None:
    devstat = value(1000 * 512, 512, "devstat")
    assert check_against_device_statistics("host_written_bytes", devstat, devstat) == ((), None)
    vendor = value((1000 + 3 * 2**32) * 512, 512, "attr")
    flags, preferred = check_against_device_statistics("host_written_bytes", devstat, vendor)
    assert preferred is vendor
    assert "modulo 2^32" in flags[0]
    other = value(5000 * 512, 512, "attr")
    flags, preferred = check_against_device_statistics("host_written_bytes", devstat, other)
    assert preferred is None
    assert "disagrees" in flags[0]


def test_erase_count_checks() -> None:
    capacity = 240_057_409_536
    assert raw_nand_capacity_bytes(capacity) == 256 * GiB
    fine = check_erase_vs_nand(value(10, 1), value(2.5 * TB, 512), capacity)
    assert fine == ()
    too_big = check_erase_vs_nand(value(2, 1), value(500 * TB, GiB), capacity)
    assert "too large" in too_big[0]
    assert check_erase_vs_nand(value(2, 1), HealthValue(None), capacity) == ()
    assert check_erase_vs_nand(value(2, 1), value(1, 1), None) == ()
