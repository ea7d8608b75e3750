"""Saved outputs told apart by what they hold (parse/drive_outputs.py), on the real captures of
tests/data: a page refused by its decoder still gives the GUID and version it carried."""

from pathlib import Path

import pytest

from ssdlab.errors import ParseError
from ssdlab.model.ocp_logs import LatencyMonitorLog, OcpSmartLog
from ssdlab.parse.drive_outputs import read_drive_output
from tests.conformance_evidence import (
    AUTOVAL_C0_JSON,
    NVME_SMART_LOG,
    OCP,
    PM1733_ID_CTRL,
    QEMU_C0_HEXDUMP,
    QEMU_C0_PAGE,
    QEMU_SMARTCTL,
    changed_c0,
    read,
    set_bytes,
)
from tests.ocp_pages import compose_c3_page


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        (QEMU_C0_PAGE, "C0h"),
        (QEMU_C0_HEXDUMP, "C0h"),
        (AUTOVAL_C0_JSON, "C0h"),
        (QEMU_SMARTCTL, "smartctl"),
        (NVME_SMART_LOG, "nvme smart-log"),
        (PM1733_ID_CTRL, "nvme id-ctrl"),
    ],
)
def test_each_output_is_recognised(path: Path, kind: str) -> None:
    assert read(path).kind == kind


def test_a_raw_page_keeps_its_bytes_and_a_json_page_has_none() -> None:
    raw, dumped, printed = read(QEMU_C0_PAGE), read(QEMU_C0_HEXDUMP), read(AUTOVAL_C0_JSON)
    assert raw.page is not None
    assert dumped.page is not None
    assert printed.page is not None
    assert raw.page.page == dumped.page.page == QEMU_C0_PAGE.read_bytes()
    assert isinstance(raw.page.log, OcpSmartLog)
    assert printed.page.page is None
    assert (printed.page.version, printed.page.guid) == (2, "afd514c97c6f4f9ca4f2bfea2810afc5")


def test_a_refused_page_keeps_its_guid_and_version() -> None:
    refused = changed_c0("log page version 9", set_bytes(494, 9, 2))
    assert refused.page is not None
    assert refused.page.log is None
    assert refused.page.version == 9
    assert "log page version 9 is not one ssdlab knows" in (refused.page.problem or "")


def test_c3_is_told_by_its_guid() -> None:
    found = read_drive_output(compose_c3_page(), "composed C3h page")
    assert found.kind == "C3h"
    assert found.page is not None
    assert isinstance(found.page.log, LatencyMonitorLog)


def test_a_short_page_and_other_text_are_refused() -> None:
    with pytest.raises(ParseError, match="299 bytes, not a 512-byte OCP log page"):
        read(OCP / "autoval-get-log-c0-299.txt")
    with pytest.raises(ParseError, match="not an output ssdlab conformance reads"):
        read_drive_output(b"hello\n", "notes.txt")
