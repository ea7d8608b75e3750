"""`watch` and `endure` while fio writes: the host bytes NVMe's Data Units Written shows are the
bytes fio wrote, and what the drive does not count (NAND writes, so WAF) stays unknown."""

import json
import signal
from typing import Any

from tests.devices.drives import DB, NVME, NVME_CTRL, UNIT_BYTES, as_json, health_json, value
from tests.devices.guest_machine import Guest


def _find(doc: Any, key: str) -> list[Any]:
    """Every value stored under `key` anywhere in a JSON document."""
    found = []
    if isinstance(doc, dict):
        for name, item in doc.items():
            if name == key:
                found.append(item)
            found += _find(item, key)
    elif isinstance(doc, list):
        for item in doc:
            found += _find(item, key)
    return found


def test_host_bytes_are_fios_bytes_and_waf_stays_unknown(guest: Guest) -> None:
    before = health_json(guest, NVME_CTRL)["sample"]
    watch = guest.start_ssdlab("watch", NVME_CTRL, "--every", "1s", "--new", "--db", DB)
    doc = as_json(
        guest.ssdlab("endure", NVME, "--destroy-data", NVME, "--iteration-bytes", "16MiB",
                     "--until-written", "64MiB", "--json", "--db", DB)
    )  # fmt: skip
    assert watch.signal(signal.SIGINT)
    watched = watch.wait()
    after = health_json(guest, NVME)["sample"]
    iterations = doc["result"]["status"]["iterations"]
    fio_bytes = sum(i["written_bytes"] for i in iterations)
    assert fio_bytes >= 64 * 2**20
    host = (value(after, "host_written_bytes") or 0) - (value(before, "host_written_bytes") or 0)
    assert abs(host - fio_bytes) <= UNIT_BYTES, (host, fio_bytes)
    assert value(after, "nand_written_bytes") is None
    for key in ("waf", "waf_delta", "nand_written_bytes"):
        assert all(v is None or isinstance(v, dict) for v in _find(doc, key)), json.dumps(doc)[
            :4000
        ]
    assert watched.exit_code == 0, watched.stderr
    assert "samples stored" in watched.stdout
    assert watched.stdout.count(" sample ") >= 2, watched.stdout


def test_wear_between_two_samples_has_no_waf(guest: Guest) -> None:
    doc = as_json(guest.ssdlab("wear", NVME_CTRL, NVME, "--json", "--db", DB))
    report = doc["report"]
    assert report.get("waf") in (None, {}) or report["waf"].get("value") is None, report


def test_metrics_name_the_drive_watched_through_its_controller(guest: Guest) -> None:
    text = guest.ssdlab("metrics", "--db", DB).check().stdout
    assert "SSDLABNVME0" in text
