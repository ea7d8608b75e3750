"""The OCP C0h decoder against real nvme-cli outputs (tests/data/nvme-ocp/README.md): the values
each source states, the raw pages composed from them, and the refusals."""

import dataclasses
from pathlib import Path

import pytest

from ssdlab.errors import ParseError
from ssdlab.model.ocp_logs import DssdVersion, OcpSmartLog
from ssdlab.parse.nvme_hexdump import read_hex_dump
from ssdlab.parse.nvme_json import parse_ocp_c0_hex_dump, parse_ocp_smart_add_log
from ssdlab.parse.ocp_smart import decode_ocp_smart_page, read_ocp_smart_json
from tests.conftest import load_json_object

DATA = Path(__file__).resolve().parents[2] / "data"
OCP = DATA / "nvme-ocp"
AUTOVAL = OCP / "autoval-c0-v1-keys.json"
QEMU = OCP / "qemu-ocp-c0-nvme-cli-2.16.json"


def _page(name: str) -> bytes:
    return (OCP / name).read_bytes()


def test_autoval_output_gives_the_values_its_test_states() -> None:
    """ocp-diag-autoval-ssd's test_nvme_drive.py states these values for this output."""
    log = read_ocp_smart_json(load_json_object(AUTOVAL))
    assert log.physical_media_written_bytes == 39_074_645_999_616
    assert log.physical_media_read_bytes == 36_265_469_677_568
    assert (log.bad_user_nand_blocks, log.bad_user_nand_blocks_normalized_pct) == (0, 100)
    assert (log.bad_system_nand_blocks, log.bad_system_nand_blocks_normalized_pct) == (0, 100)
    assert (log.xor_recoveries, log.uncorrectable_read_errors, log.soft_ecc_errors) == (0, 0, 1117)
    assert (log.end_to_end_detected_errors, log.end_to_end_corrected_errors) == (0, 0)
    assert log.system_data_used_pct == 0
    assert log.refreshes == 520_628
    assert (log.max_user_erase_count, log.min_user_erase_count) == (45, 16)
    assert (log.thermal_throttling_events, log.thermal_throttling_status) == (0, 0)
    assert log.thermal_throttling_state == "unthrottled"
    assert (log.pcie_correctable_errors, log.incomplete_shutdowns) == (0, 0)
    assert log.free_blocks_pct == 1
    assert (log.capacitor_health_pct, log.has_power_loss_protection) == (100, True)
    assert (log.unaligned_ios, log.security_version, log.total_nuse_blocks) == (0, 65537, 0)
    assert (log.plp_starts, log.endurance_estimate) == (287, 20_100_000)
    assert log.log_page_version == 2
    assert log.log_page_guid == "afd514c97c6f4f9ca4f2bfea2810afc5"
    # nvme-cli up to 2.3 printed the version fields only above log page version 2
    assert log.dssd_version is None
    assert log.pcie_link_retrains is None
    # and the page is older than the fields of log page versions 4 and 5
    assert log.lowest_permitted_firmware is None
    assert log.nand_avg_erase_count is None


def test_qemu_output_gives_the_values_its_capture_states() -> None:
    """nvme-logpage-explorer's findings.md states PMUW 33,554,432 B and PMUR 35,581,952 B after
    its 32 MiB write and read-back, log page version 5, every other counter 0 on QEMU."""
    log = read_ocp_smart_json(load_json_object(QEMU))
    assert log.physical_media_written_bytes == 33_554_432
    assert log.physical_media_read_bytes == 35_581_952
    assert log.log_page_version == 5
    assert log.dssd_version == DssdVersion(major=0, minor=0, point=0, errata=0)
    assert log.nand_avg_erase_count == 0
    assert log.total_media_dies == 0
    assert log.command_timeouts == 0
    assert log.power_state_changes == 0
    assert log.notes == ()


def test_snake_case_output_reads_as_the_title_case_one() -> None:
    """Output format version 2 (nvme-cli 2.12 and later) names the same fields in snake_case:
    the QEMU output renamed with the v2 names of ocp-print-json.c reads the same."""
    v1 = load_json_object(QEMU)
    v2_names = {
        "Physical media units written": "physical_media_units_written",
        "Physical media units read": "physical_media_units_read",
        "Uncorrectable read error count": "uncorrectable_read_errors",
        "Refresh counts": "refresh_count",
        "Max User data erase counts": "max_user_data_erase_count",
        "Min User data erase counts": "min_user_data_erase_count",
        "Number of Thermal throttling events": "thermal_throttling_events",
        "PCIe correctable error count": "pcie_correctable_errors",
        "Unaligned I/O": "unaligned_io",
        "NUSE - Namespace utilization": "nuse_namespace_utilization",
        "Log page version": "log_page_version",
        "Log page GUID": "log_page_guid",
    }
    v2 = {v2_names.get(k, k.lower().replace(" ", "_")): value for k, value in v1.items()}
    assert "max_user_data_erase_count" in v2
    assert read_ocp_smart_json(v2) == read_ocp_smart_json(v1)


def _agree(from_page: OcpSmartLog, from_json: OcpSmartLog) -> list[str]:
    """The fields the JSON gives that the page's decoding disagrees with."""
    return [
        f.name
        for f in dataclasses.fields(OcpSmartLog)
        if f.name != "notes"
        and getattr(from_json, f.name) is not None
        and getattr(from_page, f.name) != getattr(from_json, f.name)
    ]


@pytest.mark.parametrize(
    ("page", "output"),
    [("autoval-c0-composed.bin", AUTOVAL), ("qemu-ocp-c0-composed.bin", QEMU)],
)
def test_raw_page_and_json_agree(page: str, output: Path) -> None:
    from_page = decode_ocp_smart_page(_page(page))
    from_json = read_ocp_smart_json(load_json_object(output))
    assert _agree(from_page, from_json) == []
    assert from_page.physical_media_written_bytes == from_json.physical_media_written_bytes


def test_raw_page_fields_follow_the_page_version() -> None:
    """A version 2 page decodes the DSSD version (SMART-13) but not the fields of versions 4-5;
    the same bytes marked version 5 do."""
    page = bytearray(_page("autoval-c0-composed.bin"))
    old = decode_ocp_smart_page(bytes(page))
    assert old.dssd_version == DssdVersion(0, 0, 0, 0)
    assert old.nand_avg_erase_count is None
    page[224:232] = (1234).to_bytes(8, "little")
    page[494:496] = (5).to_bytes(2, "little")
    assert decode_ocp_smart_page(bytes(page)).nand_avg_erase_count == 1234


def test_128_bit_counters_use_all_sixteen_bytes() -> None:
    page = bytearray(_page("qemu-ocp-c0-composed.bin"))
    page[0:16] = (2**64 * 3 + 7).to_bytes(16, "little")
    assert decode_ocp_smart_page(bytes(page)).physical_media_written_bytes == 2**64 * 3 + 7


def test_no_power_loss_protection_is_not_a_health_figure() -> None:
    page = bytearray(_page("qemu-ocp-c0-composed.bin"))
    page[128:130] = b"\xff\xff"
    log = decode_ocp_smart_page(bytes(page))
    assert (log.capacitor_health_pct, log.has_power_loss_protection) == (None, False)


def test_old_nvme_cli_end_to_end_names_are_read_back_by_offset() -> None:
    """nvme-cli 2.0-2.3 printed "End to end corrected errors" first, from bytes 75:72 (the
    detected count); the autoval output has that order."""
    doc = load_json_object(AUTOVAL)
    keys = list(doc)
    assert keys.index("End to end corrected errors") < keys.index("End to end detected errors")
    swapped = dict(doc, **{"End to end corrected errors": 3, "End to end detected errors": 9})
    log = read_ocp_smart_json(swapped)
    assert (log.end_to_end_detected_errors, log.end_to_end_corrected_errors) == (3, 9)
    assert len(log.notes) == 1
    # nvme-cli 2.4 and later print detected first, from its own offset
    modern = {k: v for k, v in swapped.items() if not k.startswith("End to end")}
    modern.update({"End to end detected errors": 3, "End to end corrected errors": 9})
    log = read_ocp_smart_json(modern)
    assert (log.end_to_end_detected_errors, log.end_to_end_corrected_errors) == (3, 9)
    assert log.notes == ()


def test_foreign_guid_is_refused_in_one_line() -> None:
    page = bytearray(_page("qemu-ocp-c0-composed.bin"))
    page[511] ^= 0xFF
    with pytest.raises(ParseError, match="not the OCP C0 GUID") as raised:
        decode_ocp_smart_page(bytes(page))
    assert "\n" not in str(raised.value)
    doc = dict(load_json_object(QEMU), **{"Log page GUID": "0x927ac08cd084c9a3cc4b1a0d78d4c1b"})
    with pytest.raises(ParseError, match="not the OCP C0 GUID"):
        read_ocp_smart_json(doc)
    with pytest.raises(ParseError, match="no 'Log page GUID'"):
        read_ocp_smart_json({k: v for k, v in doc.items() if k != "Log page GUID"})


@pytest.mark.parametrize("version", [0, 7, 0x0300])
def test_unknown_version_is_refused(version: int) -> None:
    page = bytearray(_page("qemu-ocp-c0-composed.bin"))
    page[494:496] = version.to_bytes(2, "little")
    with pytest.raises(ParseError, match=f"log page version {version} is not one ssdlab knows"):
        decode_ocp_smart_page(bytes(page))
    with pytest.raises(ParseError, match="is not one ssdlab knows"):
        read_ocp_smart_json(dict(load_json_object(QEMU), **{"Log page version": version}))


def test_a_page_of_another_length_is_refused() -> None:
    with pytest.raises(ParseError, match="299 bytes"):
        decode_ocp_smart_page(_page("qemu-ocp-c0-composed.bin")[:299])


def test_health_reads_nand_bytes_through_the_decoder() -> None:
    value = parse_ocp_smart_add_log(load_json_object(AUTOVAL))
    assert value.value == 39_074_645_999_616
    assert value.provenance is not None
    assert value.provenance.source == "nvme ocp smart-add-log 'Physical media units written'"
    assert value.provenance.unit == "byte"


def test_nvme_cli_hex_dump_gives_the_bytes_it_shows() -> None:
    """ocp-diag-autoval-ssd's recorded `nvme get-log /dev/nvme1n1 --log-id=0xC0h --log-len=299`:
    299 bytes, the first line 00 90 b9 51 6d 04 …, the last 00 00 01 02 … 09 (its docstring)."""
    page = read_hex_dump((OCP / "autoval-get-log-c0-299.txt").read_text(encoding="utf-8"))
    assert len(page) == 299
    assert page[:6] == bytes.fromhex("0090b9516d04")
    assert page[0x120:] == bytes.fromhex("0000010203040506070809")
    with pytest.raises(ParseError, match="299 bytes, not the 512"):
        decode_ocp_smart_page(page)


def test_hex_dump_of_a_whole_page_reads_as_the_raw_page() -> None:
    text = (OCP / "qemu-ocp-c0-composed.hexdump.txt").read_text(encoding="utf-8")
    assert read_hex_dump(text) == _page("qemu-ocp-c0-composed.bin")
    value = parse_ocp_c0_hex_dump(text)
    assert value.value == 33_554_432
    assert value.provenance is not None
    assert value.provenance.unit == "byte"


def test_hex_dump_out_of_order_or_empty_is_refused() -> None:
    text = (OCP / "qemu-ocp-c0-composed.hexdump.txt").read_text(encoding="utf-8")
    lines = text.splitlines()
    with pytest.raises(ParseError, match="follows"):
        read_hex_dump("\n".join([*lines[:3], *lines[4:]]))
    with pytest.raises(ParseError, match="no line of bytes"):
        read_hex_dump("NVMe status: Invalid Log Page: The log page indicated is invalid(0x109)")
