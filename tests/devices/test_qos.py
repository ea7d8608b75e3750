"""`ssdlab run qos` on the emulated NVMe drive: the OCP workload with its trims (which a file
target leaves out) and TRIM-6/7's three phases, judged from every I/O. Verdicts depend on
the emulated drive's speed under TCG, so only what was run and counted is asserted."""

import json
from typing import Any

from tests.devices.drives import DB, NVME, as_json
from tests.devices.guest_client import Guest

OUTCOMES = ("pass", "fail", "inconclusive")


def qos(guest: Guest, *args: str) -> dict[str, Any]:
    done = guest.ssdlab("run", "qos", NVME, "--destroy-data", NVME, *args, "--json", "--db", DB)
    doc: dict[str, Any] = as_json(done)
    return doc


def test_the_ocp_workload_trims_on_a_device_and_judges_every_target(guest: Guest) -> None:
    doc = qos(guest, "--duration", "3")
    assert doc["profile"] == "qos"
    verdict = doc["result"]["qos-verdict"]
    assert verdict["workload"] == "4K_L2R6DWPD_wTRIM"
    assert {item["direction"] for item in verdict["items"]} == {"read", "write"}
    for item in verdict["items"]:
        assert item["n"] > 0, item["sentence"]
        assert item["outcome"] in OUTCOMES
    # three seconds cannot bound p99.9999: never a pass there
    deep = [item for item in verdict["items"] if item["check"] == "p99.9999"]
    assert deep
    assert all(item["outcome"] != "pass" for item in deep)
    assert "fio cannot discard" not in json.dumps(doc)  # a device trims


def test_trim6_7_runs_reads_alone_with_trims_and_after_a_burst(guest: Guest) -> None:
    verdict = qos(guest, "--workload", "TRIM-6-7", "--duration", "1")["result"]["qos-verdict"]
    assert [item["check"] for item in verdict["items"]] == [
        "p50 change, trims running",
        "p99 change, trims running",
        "p50 change, after a write burst",
        "p99 change, after a write burst",
    ]
    for item in verdict["items"]:
        assert item["n"] > 0, item["sentence"]
        assert item["outcome"] in OUTCOMES
