"""`watch` and `endure` while fio writes: the host bytes NVMe's Data Units Written shows are the
bytes fio wrote, and what the drive does not count (NAND writes, so WAF) stays unknown."""

import json
import signal

from tests.devices.drives import DB, NVME, NVME_CTRL, UNIT_BYTES, as_json, health_json, value
from tests.devices.guest_client import Guest


def test_host_bytes_are_fios_bytes_and_waf_stays_unknown(guest: Guest) -> None:
    first = health_json(guest, NVME_CTRL)
    watch = guest.start_ssdlab("watch", NVME_CTRL, "--every", "1s", "--new", "--db", DB)
    doc = as_json(
        guest.ssdlab("endure", NVME, "--destroy-data", NVME, "--iteration-bytes", "16MiB",
                     "--until-written", "64MiB", "--json", "--db", DB)
    )  # fmt: skip
    assert watch.signal(signal.SIGINT)
    watched = watch.wait()
    last = health_json(guest, NVME)
    before, after = first["sample"], last["sample"]
    iterations = doc["result"]["status"]["iterations"]
    fio_bytes = sum(i["written_bytes"] for i in iterations)
    assert fio_bytes >= 64 * 2**20
    host = (value(after, "host_written_bytes") or 0) - (value(before, "host_written_bytes") or 0)
    assert abs(host - fio_bytes) <= UNIT_BYTES, (host, fio_bytes)
    assert value(after, "nand_written_bytes") is None
    assert watched.exit_code == 0, watched.stderr
    assert "samples stored" in watched.stdout
    assert watched.stdout.count(" sample ") >= 2, watched.stdout
    # what happened between the two samples: host bytes known, WAF and wear rate not
    wear = as_json(
        guest.ssdlab("wear", str(first["sample"]["sample_id"]), str(last["sample"]["sample_id"]),
                     "--json", "--db", DB)
    )["report"]  # fmt: skip
    for estimate in ("waf", "erase_count_waf", "lifetime_waf"):
        assert wear[estimate]["waf"] is None, json.dumps(wear[estimate])
    assert wear["waf"]["reason"], "it says why there is no WAF"
    assert wear["wear_rate"]["pct_per_day"] is None, json.dumps(wear["wear_rate"])


def test_metrics_name_the_drive_watched_through_its_controller(guest: Guest) -> None:
    text = guest.ssdlab("metrics", "--db", DB).check().stdout
    assert "SSDLABNVME0" in text
