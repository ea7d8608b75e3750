"""parse/smart_names.py and parse/smart_plausible.py through normalise_smartctl: what an
attribute's drivedb name states (unit, wear) is read on any drive the database knows; implausible
readings are set aside for a plausible source, with the choice in the sample.

The attribute values are those of real reports in tests/corpus/smart (named per test); units and
meanings are drivedb.h's (cited in smart_names)."""

from typing import Any

import pytest

from ssdlab.model.health import HealthSample, SourceChoice
from ssdlab.parse.smart_names import UNIT_NAMES, WEAR_NAMES, unit_name, wear_from_name
from ssdlab.parse.smartctl_json import normalise_smartctl
from tests.unit.parse.test_smart_vendors import ata_doc, attr

MiB = 2**20
GiB = 2**30


def sample_of(
    table: list[dict[str, Any]], *, known: bool | None = True, model: str = "SOME SSD 240GB"
) -> HealthSample:
    doc = ata_doc(model, table)
    if known is not None:
        doc["in_smartctl_database"] = known
    return normalise_smartctl(doc)


@pytest.mark.parametrize(
    ("name", "metric", "unit"),
    [
        ("Host_Writes_32MiB", "host_written_bytes", 32 * MiB),
        ("Lifetime_Writes_GiB", "host_written_bytes", GiB),
        ("Host_Writes_GiB", "host_written_bytes", GiB),
        ("Total_Writes_GB", "host_written_bytes", 10**9),
        ("Host_Reads_32MiB", "host_read_bytes", 32 * MiB),
        ("NAND_Writes_1GiB", "nand_written_bytes", GiB),
        ("Flash_Writes_GiB", "nand_written_bytes", GiB),
        ("NAND_GB_Written_SLC", "slc_nand_written_bytes", 10**9),
    ],
)
def test_a_name_that_states_its_unit_is_enough(name: str, metric: str, unit: int) -> None:
    """A drive ssdlab's vendor map does not know: the name alone gives the bytes."""
    sample = sample_of([attr(241, name, 12345)])
    value = getattr(sample, metric)
    assert value.value == 12345 * unit
    assert value.provenance.note == "drivedb name states the unit"
    assert value.provenance.resolution == unit


def test_total_lbas_written_counts_logical_sectors() -> None:
    doc = ata_doc("SOME SSD", [attr(241, "Total_LBAs_Written", 1000)])
    doc["in_smartctl_database"] = True
    doc["logical_block_size"] = 4096
    assert normalise_smartctl(doc).host_written_bytes.value == 1000 * 4096


def test_default_names_on_a_drive_the_database_does_not_know_state_nothing() -> None:
    """liteon-lct-512l9s-11-2-5-7mm-512gb-1.txt: "Not in smartctl database", 241
    Total_LBAs_Written = 176,271 (DEFAULT placeholder; the drive counts 32 MiB units there)."""
    sample = sample_of([attr(241, "Total_LBAs_Written", 176271)], known=False)
    assert sample.host_written_bytes.value is None
    assert any("DEFAULT placeholders" in flag for flag in sample.flags)
    # a name only a drive entry gives is a statement even so
    assert sample_of([attr(246, "Total_LBAs_Written", 7)], known=False).host_written_bytes.value
    assert unit_name(241, "Total_LBAs_Written", in_database=False) is None
    assert unit_name(246, "Total_LBAs_Written", in_database=False) is not None


def test_model_family_means_the_database_knows_the_drive() -> None:
    doc = ata_doc("SOME SSD", [attr(241, "Total_LBAs_Written", 10)], family="Some SSDs")
    assert normalise_smartctl(doc).host_written_bytes.value == 10 * 512


def test_the_vendor_map_wins_where_it_knows_the_drive_better() -> None:
    """skhynix-hfs1t9g32feh-7a10a-1.txt: drivedb before 7.2 named 241 Lifetime_Writes_GiB on
    this enterprise drive, whose 241 counts NAND programs (ssdlab's map says so)."""
    table = [attr(241, "Lifetime_Writes_GiB", 15)]
    sample = normalise_smartctl(ata_doc("HFS1T9G32FEH-7A10A", table, "SK hynix SATA SSDs"))
    assert sample.nand_written_bytes.value == 15 * GiB
    assert sample.host_written_bytes.value is None


@pytest.mark.parametrize(
    ("name", "norm", "raw", "used", "field"),
    [
        # transcend-ts32gmts400-1.json: SMI Remaining_Lifetime_Perc, normalized stuck at 100
        ("Remaining_Lifetime_Perc", 100, 96, 4, "raw"),
        # kingston-skc400s371t-1.json: Phison SSD_Life_Left raw 74, normalized 100
        ("SSD_Life_Left", 100, 74, 26, "raw"),
        # kingston-sa400m8120g-1.json: raw and normalized agree
        ("SSD_Life_Left", 98, 98, 2, "both"),
        # crucial-ct1000bx500ssd1-1.txt: raw = % used (drivedb l. 592), normalized = 100 - raw
        ("Percent_Lifetime_Remain", 99, 1, 1, "raw"),
        # micron-5300-mtfddak1t9tds-1.json
        ("Percent_Lifetime_Remain", 100, 0, 0, "raw"),
        # intel-ssdsckjb240g7r-1.json (Dell OEM): 245 Percent_Life_Remaining 100/100
        ("Percent_Life_Remaining", 100, 100, 0, "both"),
        ("Percent_Life_Used", 100, 7, 7, "raw"),
    ],
)
def test_wear_from_names(name: str, norm: int, raw: int, used: float, field: str) -> None:
    reading = wear_from_name(231, name, norm, raw, in_database=True)
    assert reading is not None
    assert (reading.value, reading.field) == (used, field)
    sample = sample_of([attr(231, name, raw, norm)])
    assert sample.wear_used_pct.value == used


def test_contradicting_wear_values_are_unknown() -> None:
    sample = sample_of([attr(169, "Remaining_Lifetime_Perc", 60, norm=90)])
    assert sample.wear_used_pct.value is None
    assert any("give different wear (40 % or 10 % used)" in flag for flag in sample.flags)


def test_media_wearout_indicator_is_read_only_for_known_drives_and_only_at_233() -> None:
    """skhynix-hfs1t9g32feh: 233 MWI 100 (in database) = 0 %; seagate-barracuda-120 (not in
    database): 233 MWI stays 100 while Device Statistics say 11 % — a placeholder."""
    assert sample_of([attr(233, "Media_Wearout_Indicator", 0, norm=97)]).wear_used_pct.value == 3
    unknown = sample_of([attr(233, "Media_Wearout_Indicator", 27728)], known=False)
    assert unknown.wear_used_pct.value is None
    # wd-wds500g2b0a: WD names 230 Media_Wearout_Indicator (normalized 1 at 0 % used)
    assert sample_of([attr(230, "Media_Wearout_Indicator", 0, norm=1)]).wear_used_pct.value is None


def test_every_name_of_the_tables_is_a_drivedb_name_shape() -> None:
    for name in [*UNIT_NAMES, *WEAR_NAMES]:
        assert " " not in name, name
        assert len(name) <= 23, name  # drivedb names fit smartctl's column


# --- plausible sources -------------------------------------------------------------------------


def test_sct_status_0_celsius_beside_a_plausible_194_is_set_aside() -> None:
    """A LITEON CV1-8B128 report (tests/corpus/smart/liteon-cv1-8b128-1.txt): SCT status prints
    "Current Temperature: 0 Celsius", attribute 194 raw 45."""
    doc = ata_doc("LITEON CV1-8B128", [attr(194, "Temperature_Celsius", 45)])
    doc["temperature"] = {"current": 0}
    doc["ata_sct_status"] = {"temperature": {"current": 0}}
    sample = normalise_smartctl(doc)
    assert sample.temperature_c.value == 45
    assert sample.choices == (
        SourceChoice(
            "temperature_c",
            "ata_smart_attributes[194] Temperature_Celsius",
            "smartctl temperature.current (from SCT status)",
            0.0,
            sample.choices[0].reason,
        ),
    )
    assert "does not report" in sample.choices[0].reason
    assert any(
        flag.startswith("Temperature: smartctl temperature.current") for flag in sample.flags
    )


def test_0_celsius_with_no_other_source_is_kept() -> None:
    doc = ata_doc("SOME SSD", [])
    doc["temperature"] = {"current": 0}
    sample = normalise_smartctl(doc)
    assert sample.temperature_c.value == 0
    assert sample.choices == ()
    assert any("no other source states the temperature" in flag for flag in sample.flags)


def test_32_bit_device_statistics_beside_a_named_attribute_is_set_aside() -> None:
    """crucial-ct500mx500ssd1-1.txt figures on a drive the vendor map does not know: Device
    Statistics Logical Sectors Written = 246 Total_LBAs_Written mod 2^32."""
    full = 11_691_690_034
    doc = ata_doc("SOME SSD", [attr(246, "Total_LBAs_Written", full)])
    doc["in_smartctl_database"] = True
    doc["ata_device_statistics"] = {
        "pages": [
            {
                "number": 1,
                "table": [
                    {
                        "offset": 24,
                        "name": "Logical Sectors Written",
                        "value": full % 2**32,
                        "flags": {"valid": True},
                    }
                ],
            }
        ]
    }
    sample = normalise_smartctl(doc)
    assert sample.host_written_bytes.value == full * 512
    (choice,) = sample.choices
    assert choice.chosen == "ata_smart_attributes[246] Total_LBAs_Written"
    assert choice.rejected.startswith("ata_device_statistics page 1 0x018")
    assert choice.rejected_value == (full % 2**32) * 512
    assert "truncated to 32 bits" in choice.reason
