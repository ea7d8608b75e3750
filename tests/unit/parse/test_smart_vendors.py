"""The vendor attribute map: built-in data, matching rules, user overrides, schema errors."""

import re
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from ssdlab.errors import ParseError
from ssdlab.model.health import HEALTH_METRICS
from ssdlab.parse import smart_vendors
from ssdlab.parse.smart_vendors import (
    METRIC_NONE,
    USER_PRIORITY,
    VendorEntry,
    load_vendor_map,
    parse_vendor_map,
)
from ssdlab.parse.smartctl_json import normalise_smartctl

DATA = Path(__file__).resolve().parents[2] / "data" / "smart"
SHARED = Path(__file__).resolve().parents[3] / ".." / "shared" / "testdata" / "smart"
MiB32 = 32 * 2**20
GiB = 2**30


def builtin_text() -> str:
    return resources.files("ssdlab.parse").joinpath("smart_vendors.toml").read_text("utf-8")


def attr(attribute_id: int, name: str, raw: int, norm: int = 100) -> dict[str, Any]:
    return {
        "id": attribute_id,
        "name": name,
        "value": norm,
        "worst": norm,
        "thresh": 0,
        "raw": {"value": raw, "string": str(raw)},
    }


def ata_doc(
    model: str,
    table: list[dict[str, Any]],
    family: str | None = None,
    firmware: str = "FW1",
    capacity: int = 500_107_862_016,
) -> dict[str, Any]:
    """A minimal smartctl -a -j ATA document (hand-built in smartctl's documented shape)."""
    doc: dict[str, Any] = {
        "json_format_version": [1, 0],
        "smartctl": {"version": [7, 4], "exit_status": 0},
        "device": {"name": "/dev/sdx", "type": "sat", "protocol": "ATA"},
        "model_name": model,
        "firmware_version": firmware,
        "user_capacity": {"bytes": capacity},
        "logical_block_size": 512,
        "smart_status": {"passed": True},
        "ata_smart_attributes": {"revision": 1, "table": table},
    }
    if family is not None:
        doc["model_family"] = family
    return doc


def slots_of(entries: tuple[VendorEntry, ...]) -> set[tuple[str, int, int]]:
    return {e.slot for e in entries}


# --- the built-in data ---------------------------------------------------------------------------


def test_builtin_map_loads_and_every_entry_is_well_formed() -> None:
    vmap = load_vendor_map()
    assert len(vmap.entries) > 100
    for entry in vmap.entries:
        assert entry.metric in HEALTH_METRICS or entry.metric == METRIC_NONE, entry
        assert entry.origin == "built-in"
        if entry.is_bytes and entry.metric != METRIC_NONE:
            assert entry.per_logical_sector or (entry.unit_bytes or 0) > 0, entry
        else:
            assert entry.unit_bytes is None, entry
            assert not entry.per_logical_sector, entry
        if entry.direction == "remaining":
            assert entry.metric == "wear_used_pct"


def test_builtin_map_covers_the_vendors_the_issue_names() -> None:
    groups = {e.group for e in load_vendor_map().entries}
    for needle in (
        "Crucial/Micron",
        "Samsung",
        "Intel",
        "Phison/Kingston",
        "WD Blue/Red/Green",
        "SanDisk (Marvell)",
        "Silicon Motion",
        "SK hynix",
        "Seagate SSD",
        "Toshiba/KIOXIA",
        "Maxio",
        "generic",
    ):
        assert needle in groups, needle


def test_generic_fallbacks_include_the_device_statistics_pages() -> None:
    generic = [e for e in load_vendor_map().entries if e.generic]
    devstat = {(e.page, e.offset): e.metric for e in generic if e.kind == "devstat"}
    assert devstat[(1, 24)] == "host_written_bytes"  # Logical Sectors Written
    assert devstat[(1, 40)] == "host_read_bytes"  # Logical Sectors Read
    assert devstat[(7, 8)] == "wear_used_pct"  # Percentage Used Endurance Indicator
    assert devstat[(1, 16)] == "power_on_hours"
    assert devstat[(1, 8)] == "power_cycles"
    assert devstat[(5, 8)] == "temperature_c"
    # 241/242/233/177 differ by vendor: never generic
    generic_ids = {e.attribute_id for e in generic if e.kind == "attribute"}
    assert not generic_ids & {241, 242, 233, 177, 231, 246, 247, 248, 251}


def test_the_toml_header_documents_every_key_the_loader_accepts() -> None:
    text = builtin_text()
    header = text.split('[[vendor]]\nname = "generic"')[0]
    keys = smart_vendors._ATTRIBUTE_KEYS | smart_vendors._DEVSTAT_KEYS | smart_vendors._GROUP_KEYS
    for key in sorted(keys):
        if key in ("attribute", "devstat"):
            key = f"[[vendor.{key}]]"
        assert key in header, f"schema key {key!r} is not documented in the TOML header"


# --- matching ------------------------------------------------------------------------------------


def test_family_or_model_matches_so_family_string_drift_does_not_matter() -> None:
    vmap = load_vendor_map()
    for family in (
        "Crucial/Micron Client SSDs",
        "Crucial/Micron BX/MX1/2/3/500, M5/600, 1100 SSDs",
        "Micron 5100 Pro / 52x0 / 5300 SSDs",
    ):
        entries = vmap.for_drive(family=family, model="whatever", firmware=None)
        assert ("attribute", 246, 0) in slots_of(entries), family
    # a text log without the family line still matches by model
    entries = vmap.for_drive(family=None, model="CT500MX500SSD1", firmware=None)
    assert ("attribute", 247, 0) in slots_of(entries)


def test_crucial_bx100_is_silicon_motion_not_crucial_micron() -> None:
    vmap = load_vendor_map()
    entries = vmap.for_drive(family=None, model="CT250BX100SSD1", firmware=None)
    by_slot = {e.slot: e for e in entries if e.kind == "attribute"}
    assert by_slot[("attribute", 241, 0)].unit_bytes == MiB32
    assert by_slot[("attribute", 246, 0)].metric == "slc_nand_written_bytes"


def test_unknown_drive_gets_only_generic_entries() -> None:
    vmap = load_vendor_map()
    entries = vmap.for_drive(family=None, model="ACME NoName SSD 256GB", firmware="X")
    assert entries
    assert all(e.generic for e in entries)
    assert not vmap.is_known_drive(family=None, model="ACME NoName SSD 256GB", firmware="X")


def test_entries_come_best_first() -> None:
    entries = load_vendor_map().for_drive(
        family="Crucial/Micron Client SSDs", model="CT500MX500SSD1", firmware=None
    )
    priorities = [e.priority for e in entries]
    assert priorities == sorted(priorities, reverse=True)


def test_firmware_pattern_must_also_match_and_none_hides_lower_entries() -> None:
    vmap = load_vendor_map()
    plain = vmap.for_drive(family="Silicon Motion based SSDs", model="X", firmware="Q0922FS")
    oem = vmap.for_drive(family="Silicon Motion based SSDs", model="X", firmware="U0302B0")
    assert ("attribute", 241, 0) in slots_of(plain)
    assert ("attribute", 241, 0) not in slots_of(oem)
    assert ("attribute", 245, 0) in slots_of(oem)


def test_generic_entries_skip_placeholder_names() -> None:
    generic_194 = next(e for e in load_vendor_map().entries if e.generic and e.attribute_id == 194)
    assert generic_194.accepts_name("Temperature_Celsius")
    assert not generic_194.accepts_name("Not_In_Use")
    assert not generic_194.accepts_name("Unknown_Attribute")


# --- vendor meanings, on hand-built documents ----------------------------------------------------


def test_intel_241_unit_depends_on_the_oem_name() -> None:
    retail = normalise_smartctl(
        ata_doc("INTEL SSDSC2KB480G8", [attr(241, "Host_Writes_32MiB", 1000)], "Intel S4510")
    )
    lenovo = normalise_smartctl(
        ata_doc("INTEL SSDSC2KB480G8", [attr(241, "Total_LBAs_Written", 1000)], "Intel S4510")
    )
    assert retail.host_written_bytes.value == 1000 * MiB32
    assert lenovo.host_written_bytes.value == 1000 * 512


def test_intel_225_32mib_wins_over_an_oem_total_lbas_written_with_the_same_raw() -> None:
    # Corpus intel-ssdsckjb240g7r-1.json (Dell OEM S3520): 225 Host_Writes_32MiB, 233 and 241
    # Total_LBAs_Written all read 129493; as sectors that would be 66 MB in 21,213 hours.
    table = [
        attr(225, "Host_Writes_32MiB", 129493),
        attr(233, "Total_LBAs_Written", 129493),
        attr(241, "Total_LBAs_Written", 129493),
    ]
    sample = normalise_smartctl(ata_doc("SSDSCKJB240G7R", table, "Dell Certified Intel S3520"))
    assert sample.host_written_bytes.value == 129493 * MiB32


def test_apple_host_writes_mib() -> None:
    # Corpus apple-sm0256f-1.txt: drivedb names 174/175 Host_Reads_MiB / Host_Writes_MiB.
    table = [attr(174, "Host_Reads_MiB", 114600601), attr(175, "Host_Writes_MiB", 81979088)]
    sample = normalise_smartctl(ata_doc("APPLE SSD SM0256F", table, "Apple SD/SM/TS...E/F/G SSDs"))
    assert sample.host_written_bytes.value == 81979088 * 2**20
    assert sample.host_read_bytes.value == 114600601 * 2**20
    # A drive ssdlab's map does not know: the drivedb name states the unit, and that is enough.
    unknown = normalise_smartctl(ata_doc("SOME SSD", [attr(175, "Host_Writes_MiB", 5)]))
    assert unknown.host_written_bytes.value == 5 * 2**20
    assert unknown.host_written_bytes.provenance is not None
    assert unknown.host_written_bytes.provenance.note == "drivedb name states the unit"


def test_intel_nand_and_wear_from_233_norm() -> None:
    sample = normalise_smartctl(
        ata_doc(
            "INTEL SSDSC2BB480G7",
            [
                attr(241, "Host_Writes_32MiB", 1000),
                attr(243, "NAND_Writes_32MiB", 1500),
                attr(233, "Media_Wearout_Indicator", 0, norm=91),
            ],
            "Intel 730 and DC S35x0/3610/3700 Series SSDs",
        )
    )
    assert sample.nand_written_bytes.value == 1500 * MiB32
    assert sample.wear_used_pct.value == 9
    assert sample.nand_written_bytes.provenance is not None
    assert sample.nand_written_bytes.provenance.resolution == MiB32


def test_wd_blue_tlc_and_slc_writes_in_gb() -> None:
    sample = normalise_smartctl(
        ata_doc(
            "WDC WDS240G2G0A-00JH30",
            [
                attr(241, "Host_Writes_GiB", 27134),
                attr(233, "NAND_GB_Written_TLC", 44318),
                attr(234, "NAND_GB_Written_SLC", 126409),
                attr(173, "Average_PE_Cycles_TLC", 176),
            ],
            "WD Blue / Red / Green SSDs",
            capacity=240_057_409_536,
        )
    )
    assert sample.host_written_bytes.value == 27134 * GiB
    assert sample.nand_written_bytes.value == 44318 * 10**9
    assert sample.slc_nand_written_bytes.value == 126409 * 10**9
    assert sample.erase_count_avg.value == 176
    assert sample.flags == ()


def test_silicon_motion_rated_pe_gives_wear_when_no_indicator() -> None:
    sample = normalise_smartctl(
        ata_doc(
            "ADATA SU650",
            [
                attr(241, "Host_Writes_32MiB", 400),
                attr(245, "TLC_Writes_32MiB", 900),
                attr(246, "SLC_Writes_32MiB", 300),
                attr(167, "Average_Erase_Count", 30),
                attr(168, "Max_Erase_Count_of_Spec", 600),
            ],
            "Silicon Motion based SSDs",
            capacity=240_057_409_536,
        )
    )
    assert sample.nand_written_bytes.value == 900 * MiB32
    assert sample.slc_nand_written_bytes.value == 300 * MiB32
    assert sample.rated_pe_cycles.value == 600
    assert sample.wear_used_pct.value == pytest.approx(5.0)
    assert sample.wear_used_pct.provenance is not None
    assert "derived" in (sample.wear_used_pct.provenance.note or "")


def test_silicon_motion_169_is_remaining_life_in_raw() -> None:
    sample = normalise_smartctl(
        ata_doc(
            "KINGSTON SKC600512G",
            [attr(169, "Remaining_Lifetime_Perc", 93)],
            "Silicon Motion based SSDs",
        )
    )
    assert sample.wear_used_pct.value == 7


def test_phison_231_raw_zero_with_norm_100_does_not_mean_worn_out() -> None:
    sample = normalise_smartctl(
        ata_doc("KINGSTON SA400S37240G", [attr(231, "SSD_Life_Left", 0, norm=100)])
    )
    assert sample.wear_used_pct.value == 0  # from the normalized value, not 100 - 0


def test_seagate_unit_comes_from_the_drivedb_name() -> None:
    gib = normalise_smartctl(
        ata_doc("ZA500CM10002", [attr(241, "Host_Writes_GiB", 10)], "Seagate BarraCuda SSDs")
    )
    gb = normalise_smartctl(
        ata_doc("XA960LE10063", [attr(241, "Lifetime_Wts_Frm_Hst_GB", 10)], "Seagate Nytro SATA")
    )
    unknown = normalise_smartctl(ata_doc("ZA500CM10002", [attr(241, "Unknown_Attribute", 10)]))
    assert gib.host_written_bytes.value == 10 * GiB
    assert gb.host_written_bytes.value == 10 * 10**9
    assert unknown.host_written_bytes.value is None


def test_sk_hynix_241_is_host_on_client_and_nand_on_enterprise() -> None:
    client = normalise_smartctl(
        ata_doc("SK hynix SC311 SATA 256GB", [attr(241, "Total_Writes_GB", 5)], "SK hynix SATA")
    )
    enterprise = normalise_smartctl(
        ata_doc(
            "HFS480G32FEH-7410A",
            [attr(241, "Lifetime_NAND_Prg_GiB", 7), attr(235, "Lifetime_Writes_GiB", 3)],
            "SK hynix SATA SSDs",
        )
    )
    assert client.host_written_bytes.value == 5 * 10**9
    assert client.nand_written_bytes.value is None
    assert enterprise.nand_written_bytes.value == 7 * GiB
    assert enterprise.host_written_bytes.value == 3 * GiB


def test_sk_hynix_enterprise_241_under_its_old_drivedb_name_is_nand() -> None:
    # Corpus skhynix-hfs1t9g32feh-7a10a-1.txt (smartctl 7.1): 241 Lifetime_Writes_GiB = 15 while
    # 235 (host GiB in later drivedb) reads 0 and Device Statistics 1,143,505 sectors written.
    table = [attr(235, "Unknown_Attribute", 0), attr(241, "Lifetime_Writes_GiB", 15)]
    enterprise = normalise_smartctl(ata_doc("HFS1T9G32FEH-7A10A", table, "SK hynix SATA SSDs"))
    assert enterprise.nand_written_bytes.value == 15 * GiB
    assert enterprise.host_written_bytes.value is None
    client = normalise_smartctl(
        ata_doc("HFS256G39TND-N210A", [attr(241, "Lifetime_Writes_GiB", 7)])
    )
    assert client.nand_written_bytes.value is None


def test_atp_241_counts_nand_sectors_not_host() -> None:
    sample = normalise_smartctl(
        ata_doc(
            "ATP SATA III Superior 2.5",
            [attr(241, "Sectors_Written_to_NAND", 3000), attr(235, "Sectors_Written_to_SSD", 2000)],
            "ATP SATA III Superior Line SSDs",
        )
    )
    assert sample.nand_written_bytes.value == 3000 * 512
    assert sample.host_written_bytes.value == 2000 * 512


# --- user overrides ------------------------------------------------------------------------------


def test_user_entries_add_disable_and_replace() -> None:
    vmap = load_vendor_map((DATA / "user-vendor-map.toml").read_text(encoding="utf-8"))
    user = [e for e in vmap.entries if e.origin == "user"]
    assert len(user) == 4
    assert all(e.priority == USER_PRIORITY for e in user)
    crucial_247 = [e for e in vmap.entries if e.attribute_id == 247]
    assert [e.origin for e in crucial_247] == ["user"]  # the built-in one was replaced
    assert crucial_247[0].calibrate is None

    doc = (DATA / "ata-unknown-vendor.json").read_text(encoding="utf-8")
    from ssdlab.parse.smartctl_json import parse_smartctl_json

    plain = parse_smartctl_json(doc)
    custom = parse_smartctl_json(doc, vendor_map=vmap)
    assert plain.host_written_bytes.value is None
    assert custom.host_written_bytes.value == 52113 * MiB32
    assert custom.erase_count_avg.value == 71
    assert plain.reallocated_sectors.value == 3
    assert custom.reallocated_sectors.value is None  # "none" hides the generic attribute 5
    assert custom.flags == ()


def test_user_replacement_of_the_micron_page_entry_on_the_real_5300_sample() -> None:
    path = SHARED / "micron-5300-MTFDDAK1T9TDS-sata.json"
    if not path.exists():
        pytest.skip(f"shared test data not present: {path}")
    from ssdlab.parse.smartctl_json import parse_smartctl_json

    vmap = load_vendor_map((DATA / "user-vendor-map.toml").read_text(encoding="utf-8"))
    sample = parse_smartctl_json(path.read_text(encoding="utf-8"), vendor_map=vmap)
    provenance = sample.nand_written_bytes.provenance
    assert provenance is not None
    assert sample.nand_written_bytes.value == (4062707571 + 8824675195) * 16384
    assert "(user)" in (provenance.note or "")
    assert "calibrated" not in (provenance.note or "")


def test_user_entry_without_priority_beats_builtin() -> None:
    text = """
[[vendor]]
name = "KIOXIA EXCERIA SATA measured"
model = "^KIOXIA-EXCERIA SATA"
[[vendor.attribute]]
id = 241
metric = "host_written_bytes"
unit = "32 MiB"
unit_bytes = 33554432
"""
    vmap = load_vendor_map(text)
    doc = ata_doc(
        "KIOXIA-EXCERIA SATA SSD", [attr(241, "Lifetime_Writes_GiB", 10)], "Phison Driven SSDs"
    )
    assert normalise_smartctl(doc).host_written_bytes.value == 10 * GiB
    assert normalise_smartctl(doc, vendor_map=vmap).host_written_bytes.value == 10 * MiB32


# --- schema errors -------------------------------------------------------------------------------


POH = 'id = 9\nmetric = "power_on_hours"\nunit = "h"\n'
ATTR = "[[vendor.attribute]]\n"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (ATTR + 'id = 241\nmetric = "host_written_bytes"\nunit = "x"', "unit_bytes"),
        (ATTR + POH + "unit_bytes = 1", "only for"),
        (ATTR + 'id = 9\nmetric = "hours"\nunit = "h"', "is not one of"),
        (ATTR + 'id = 300\nmetric = "power_on_hours"\nunit = "h"', "'id'"),
        (ATTR + POH + "colour = 1", "unknown keys"),
        (ATTR + POH + 'direction = "remaining"', "only applies"),
        (ATTR + POH + 'field = "value"', "field"),
        (ATTR + POH + 'name_match = "("', "regular expression"),
        (ATTR + POH + 'plus = ["x"]', "plus"),
        ('[[vendor.devstat]]\npage = 1\nmetric = "power_on_hours"\nunit = "h"', "offset"),
        (ATTR + 'id = 9\nmetric = "power_on_hours"', "'unit' is required"),
    ],
)
def test_schema_errors_name_the_entry(body: str, message: str) -> None:
    text = f'[[vendor]]\nname = "mine"\nmodel = "^X"\n{body}\n'
    with pytest.raises(ParseError, match=re.escape(message)) as caught:
        load_vendor_map(text)
    assert "user vendor map" in str(caught.value)
    assert "(mine)" in str(caught.value)


def test_invalid_toml_and_unknown_top_level_are_refused() -> None:
    with pytest.raises(ParseError, match="not valid TOML"):
        parse_vendor_map("[[vendor]\n", origin="user")
    with pytest.raises(ParseError, match="unknown top-level"):
        parse_vendor_map("[drives]\nx = 1\n", origin="user")
