"""`ssdlab conformance` on QEMU's emulated NVMe drive, read through the real kernel driver,
smartctl and nvme-cli: the Identify checks answer from what the drive's own `nvme id-ctrl` says,
the SMART / Health log answers, and a drive without the OCP C0h page (QEMU 7.2 has none) says so
for every C0h check instead of failing it."""

import json

from tests.devices.drives import DB, NVME_CTRL, as_json
from tests.devices.guest_client import Guest

WCTEMP_OCP = 0x15E
LPA_PERSISTENT_EVENT_LOG = 1 << 4


def test_conformance_of_the_emulated_nvme_drive(guest: Guest) -> None:
    done = guest.ssdlab("conformance", NVME_CTRL, "--json", "--db", DB)
    assert done.exit_code in (0, 4), done.stderr
    doc = json.loads(done.stdout)
    identify = as_json(guest.run(["nvme", "id-ctrl", NVME_CTRL, "-o", "json"]))
    results = {r["requirement"]: r for r in doc["results"]}
    assert doc["drive"].endswith("SSDLABNVME0")
    assert results["STD-LOG-2"]["verdict"] == "pass"
    wctemp = results["TTHROTTLE-9"]
    assert wctemp["verdict"] == ("pass" if identify["wctemp"] == WCTEMP_OCP else "fail")
    assert wctemp["evidence"][0]["source"] == f"nvme id-ctrl {NVME_CTRL} -o json"
    has_pel = bool(identify["lpa"] & LPA_PERSISTENT_EVENT_LOG)
    assert results["STD-LOG-9"]["verdict"] == ("pass" if has_pel else "fail")
    for requirement in ("SMART-12", "SMART-31"):
        assert results[requirement]["verdict"] == "not checkable"
        assert "no OCP C0h log page was read" in results[requirement]["reason"]
    assert done.exit_code == (4 if doc["summary"]["fail"] else 0)
