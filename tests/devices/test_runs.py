"""Runs that write to the emulated drives, with --destroy-data: quick, cache, trim, pts-iops and
pts-wsat at tiny settings, the drive's own purge and the write-cache step, and the refusals of
every purge that would erase more than the target."""

import json
from typing import Any

import pytest

from tests.devices.drives import (
    DB,
    NVME,
    SHARED_NS1,
    SHARED_NS2,
    as_json,
    last_run_commands,
    sata_disk,
    scsi_disk,
)
from tests.devices.guest_client import Guest, Result

TINY_PTS = ["--round-seconds", "0.5", "--wipc-multiple", "0.05"]


def run(guest: Guest, *args: str) -> Result:
    return guest.ssdlab(*args, "--db", DB)


def destroy(device: str) -> list[str]:
    return [device, "--destroy-data", device]


def result_of(doc: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = doc.get("result", doc)
    return found


def digest(guest: Guest, device: str) -> str:
    return guest.run(["sha256sum", device]).check().stdout.split()[0]


def test_a_write_test_on_the_controller_names_its_namespace(guest: Guest) -> None:
    refused = run(guest, "quick", *destroy("/dev/nvme0"), "--size", "8MiB")
    assert refused.exit_code == 2, refused.stderr
    assert "/dev/nvme0 is an NVMe controller" in refused.stderr
    assert "/dev/nvme0n1" in refused.stderr


def test_quick_on_nvme(guest: Guest) -> None:
    doc = as_json(
        run(guest, "quick", *destroy(NVME), "--size", "8MiB", "--measure", "0.5", "--count", "1",
            "--interval", "0", "--preset", "real", "--json")
    )  # fmt: skip
    assert doc, "quick printed its result"
    # the drive's temperature read during every pass (runner/thermal_watch.py, docs/thermal.md)
    thermal = doc["thermal"]
    assert thermal["source"].startswith("nvme smart-log /dev/nvme0n1 ")
    assert thermal["passes"]
    assert all(p["readings"] >= 1 and p["failed_reads"] == 0 for p in thermal["passes"])
    assert {p["max_c"] for p in thermal["passes"]} == {50.0}  # QEMU's controller: 323 K
    assert thermal["limits"]["wctemp_k"] == 343  # QEMU's WCTEMP, read once with nvme id-ctrl


def test_cache_on_nvme(guest: Guest) -> None:
    doc = as_json(
        run(guest, "run", "cache", *destroy(NVME), "--size", "48MiB", "--block-size", "128KiB",
            "--log-interval", "0.2", "--recovery-idle", "1", "--json")
    )  # fmt: skip
    assert doc


@pytest.mark.parametrize("bus", ["scsi", "sata"])
def test_trim_on_scsi_and_sata(guest: Guest, bus: str) -> None:
    device = scsi_disk(guest) if bus == "scsi" else sata_disk(guest)
    doc = as_json(
        run(guest, "run", "trim", *destroy(device), "--size", "32MiB", "--runtime", "0.5",
            "--json")
    )  # fmt: skip
    result = result_of(doc)
    assert result["trim-support"]["supported"] is True, json.dumps(result, indent=1)[:3000]


def _write_cache_and_purge(guest: Guest) -> None:
    """The last run set the write cache (through the namespace, NSID FFFFFFFFh) and purged
    with a Format NVM, and both commands succeeded."""
    commands = {
        argv[1]: (argv, code) for argv, code in last_run_commands(guest) if argv[0] == "nvme"
    }
    cache, cache_code = commands["set-feature"]
    assert "--feature-id=6" in cache
    assert "--namespace-id=0xffffffff" in cache
    assert cache_code == 0
    purge, purge_code = commands["format"]
    assert "--ses=1" in purge
    assert purge_code == 0


def test_pts_iops_with_nvme_format_and_write_cache(guest: Guest) -> None:
    doc = as_json(
        run(guest, "run", "pts-iops", *destroy(NVME), *TINY_PTS, "--block-sizes", "4KiB",
            "--mixes", "0", "--max-rounds", "5", "--active-range", "10", "--json")
    )  # fmt: skip
    assert "nvme-format" in json.dumps(doc)
    _write_cache_and_purge(guest)


def test_pts_wsat_purges_and_sets_the_write_cache(guest: Guest) -> None:
    doc = as_json(
        run(guest, "run", "pts-wsat", *destroy(NVME), "--round-seconds", "0.5",
            "--capacity-multiple", "0.1", "--max-hours", "0.01", "--json")
    )  # fmt: skip
    assert "nvme-format" in json.dumps(doc)
    _write_cache_and_purge(guest)


@pytest.mark.parametrize("bus", ["scsi", "sata"])
def test_pts_wsat_on_scsi_and_sata(guest: Guest, bus: str) -> None:
    """SCSI: write cache with sdparm, purge with sg_format (FORMAT UNIT); SATA: write cache
    with hdparm -W, and TRIM as the labelled fallback (QEMU's ATA disk has no security
    feature set, so no secure erase)."""
    device = scsi_disk(guest) if bus == "scsi" else sata_disk(guest)
    doc = as_json(
        run(guest, "run", "pts-wsat", *destroy(device), "--round-seconds", "0.5",
            "--capacity-multiple", "0.05", "--json")
    )  # fmt: skip
    tools = {argv[0]: (argv, code) for argv, code in last_run_commands(guest)}
    if bus == "scsi":
        assert tools["sdparm"] == (["sdparm", "--clear=WCE", device], 0)
        assert tools["sg_format"] == (["sg_format", "--format", device], 0)
        assert "scsi-format" in json.dumps(doc)
    else:
        assert tools["hdparm"] == (["hdparm", "-W0", device], 0)
        assert "purge by trim" in json.dumps(doc)


def test_format_of_one_namespace_leaves_the_other(guest: Guest) -> None:
    """QEMU's controller formats per namespace (FNA 0): ssdlab formats nvme1n1 alone, and the
    data of nvme1n2 on the same controller is still there afterwards."""
    guest.run(
        ["fio", "--name=fill", f"--filename={SHARED_NS2}", "--rw=write", "--bs=1m",
         "--size=4m", "--direct=1", "--ioengine=psync", "--buffer_pattern=0x5a"]
    ).check()  # fmt: skip
    before = digest(guest, SHARED_NS2)
    doc = as_json(
        run(guest, "run", "pts-wsat", *destroy(SHARED_NS1), "--purge", "nvme-format",
            "--round-seconds", "0.5", "--capacity-multiple", "0.05", "--json")
    )  # fmt: skip
    assert "nvme-format" in json.dumps(doc)
    assert digest(guest, SHARED_NS2) == before


def _partition(guest: Guest, device: str) -> str:
    guest.run(["sfdisk", "--quiet", device], stdin_text="label: gpt\n,16MiB\n,\n").check()
    guest.run(["blockdev", "--rereadpt", device]).check()
    return f"{device}p1" if device[-1].isdigit() else f"{device}1"


@pytest.mark.parametrize(
    ("bus", "purge"),
    [("nvme", "nvme-format"), ("sata", "ata-secure-erase"), ("scsi", "scsi-format")],
)
def test_drive_purge_of_a_partition_is_refused(guest: Guest, bus: str, purge: str) -> None:
    disk = {"nvme": lambda: SHARED_NS2, "sata": lambda: sata_disk(guest),
            "scsi": lambda: scsi_disk(guest)}[bus]()  # fmt: skip
    part = _partition(guest, disk)
    refused = run(guest, "run", "pts-wsat", *destroy(part), "--purge", purge, "--round-seconds",
                  "0.5", "--capacity-multiple", "0.05")  # fmt: skip
    assert refused.exit_code == 3, refused.stderr
    assert f"erases all of {disk}" in refused.stderr
